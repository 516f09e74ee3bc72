#!/usr/bin/env bash
# VM topic for two guests (scripts/vm-run.sh -T pair; make check's vmpair
# stage): ibtick between two kernels, each with its own rxe device, joined
# by a virtual cable - node 0 is 10.99.0.1 (rxe0), node 1 10.99.0.2 (rxe1),
# both on their eth0.  It runs in both guests: node 1 runs the tests and
# counts them; node 0 is the other host (the publisher, the echo) and
# serves each test in the same order, each step a handshake in
# $IBTICK_SHARED/sync (pair_flag / pair_wait, tests/vm/pair-sync.sh).
#
# feed_across_kernels: node 0 publishes N ticks on a group; node 1 reads
#   them (recvmsg): delivered + lost == published, every sequence once, none
#   lost on a clean cable; node 1's device delivered each tick to exactly
#   one QP (rdma_recvs), node 0's to none (a publisher-only feed attaches
#   no QP, and nothing loops back).
# busy_prefer_across_kernels: a blocking recvmsg reader with SO_BUSY_POLL
#   (a spin longer than the round trip) and SO_PREFER_BUSY_POLL on a feed
#   with a prefer-defer, answered by node 0's echo: the reader reaps its
#   own completions, so its feed takes almost no CQ event (at most one per
#   20 round trips; one per round trip before the spin kept going across
#   need_resched, about one per two with a spin that gave up at the first
#   reschedule), and every answer arrives once.
# conn_across_kernels: round trips over an ibtick connection, node 0's
#   ibtick-perf lat -e -k conn answering node 1's lat --peer: every answer
#   is the right one, and both ends report no error.
cd "$(dirname "$0")/../.." || exit 1
ALL_TESTS="feed_across_kernels busy_prefer_across_kernels conn_across_kernels"
# shellcheck source=tests/vm/lib.sh
. tests/vm/lib.sh
# shellcheck source=tests/vm/pair-sync.sh
. tests/vm/pair-sync.sh

require_guest
[[ ${IBTICK_TOPOLOGY:-} == pair && -n ${IBTICK_SHARED:-} ]] ||
	{ echo "tests/vm/pair.sh: runs in both guests of scripts/vm-run.sh -T pair" >&2; exit 2; }

PUB=user/tools/ibtick-pub
SUB=user/tools/ibtick-sub
PERF=user/tools/ibtick-perf
IBTICK=user/ibtick/ibtick
# ibtick-perf --prefer-defer makes its feeds with this ibtick(8)
export IBTICK_CLI=$PWD/$IBTICK
N=${N:-$(cnt 2000)}
node=$IBTICK_NODE
R=$IBTICK_SHARED/pair-tests
nic=eth0
mkdir -p "$R" "$IBTICK_SHARED/sync"

# no veth rig here: each test starts with the module loaded
test_setup() { [[ -d /sys/module/ibtick ]] || insmod kmod/ibtick.ko; }
test_teardown() { kill_jobs; }
cleanup() { kill_jobs; rmmod ibtick 2>/dev/null; return 0; }

recvs() { cat "/sys/class/infiniband/rxe$node/ports/1/hw_counters/rdma_recvs"; }

feed_across_kernels() {
	local g=239.7.0.1 p=7700 r0 r1
	if ((node == 0)); then
		pair_wait feed-bound || return 1
		r0=$(recvs)
		$PUB -i "$nic" -n "$N" -r 2000 "$g" "$p" >"$R/pub.out" 2>&1 || echo "  node 0: ibtick-pub failed"
		sleep 1
		echo $(($(recvs) - r0)) >"$R/node0-recvs"
		pair_flag feed-published
		return 0
	fi
	r0=$(recvs)
	$SUB -i "$nic" -n "$N" -t "$(tmo 30)" -j "$g" "$p" >"$R/sub.json" 2>"$R/sub.err" &
	wait_for "$R/sub.err" bound || check_err 1 "ibtick-sub did not bind"
	pair_flag feed-bound
	wait
	pair_wait feed-published 120 || check_err 1 "node 0 did not publish"
	r1=$(recvs)
	echo "  node 1: $(cat "$R/sub.json"); rdma_recvs +$((r1 - r0)); node 0: rdma_recvs +$(cat "$R/node0-recvs" 2>/dev/null)"
	jtrue "$R/sub.json" "j['delivered'] + j['lost'] == j['feed_rx'] == $N and j['unique'] == $N and j['missing'] == 0 and j['dups'] == 0" ||
		check_err 1 "delivered + lost != published, or sequences missing or twice"
	((r1 - r0 == N)) || check_err 1 "node 1's device delivered $((r1 - r0)) times for $N ticks, not once each"
	[[ $(cat "$R/node0-recvs" 2>/dev/null) == 0 ]] ||
		check_err 1 "the publisher's device delivered to a QP of its own"
	log_test "a feed between two kernels: $N ticks published on one host, each delivered once on the other, none on the publisher's"
}

busy_prefer_across_kernels() {
	local g=239.7.0.3 p=7720 e
	# the spin must outlast a round trip under the emulator (hundreds of
	# microseconds, a tail of milliseconds); the deferral the time between
	# two calls of the reader (bench/run.sh: BUSY_US, PREFER_DEFER_US)
	local opts=(-k busy-prefer -n "$N" -w 100 -L "$nic" -c 0 --busy-us 20000 --prefer-defer 2000)
	if ((node == 0)); then
		$PERF lat -e "${opts[@]}" "$g" "$p" 2>"$R/bp-echo.err" &
		e=$!
		wait_for "$R/bp-echo.err" "echo ready" || echo "  node 0: the echo did not start"
		pair_flag bp-ready
		pair_wait bp-done 300
		kill "$e" 2>/dev/null
		wait "$e" 2>/dev/null
		$IBTICK feed del "ibtick-perf-$p" 2>/dev/null
		pair_flag bp-echo-done
		return 0
	fi
	pair_wait bp-ready 120 || check_err 1 "node 0's echo did not start"
	$PERF lat -j --counts "${opts[@]}" --peer 10.99.0.1 "$g" "$p" >"$R/bp.json" 2>"$R/bp.err"
	check_err $? "ibtick-perf lat -k busy-prefer failed: $(tail -n 2 "$R/bp.err")"
	pair_flag bp-done
	pair_wait bp-echo-done 60 || check_err 1 "node 0's echo did not end"
	$IBTICK feed del "ibtick-perf-$((p + 1))" 2>/dev/null
	grep -m 1 "\"mode\"" "$R/bp.json" >"$R/bp1.json"
	echo "  node 1: feed per round trip: $(jget "$R/bp1.json" "j.get('feed_a')")"
	jtrue "$R/bp1.json" "j['n_iterations'] == $N and j['reader_lost'] == 0 and j['resent'] == 0" ||
		check_err 1 "not $N round trips, or answers lost or resent"
	jtrue "$R/bp1.json" "abs(j['feed_a']['rx_ticks'] - 1) < 0.01" ||
		check_err 1 "the reader's feed did not receive one tick per round trip"
	jtrue "$R/bp1.json" "abs(sum(j['feed_a'][k] for k in ('cqe_irq', 'cqe_thread', 'cqe_caller')) - j['feed_a']['rx_ticks']) < 0.01" ||
		check_err 1 "the completions reaped by the interrupt, the thread and the callers do not add up to the ticks received"
	jtrue "$R/bp1.json" "j['feed_a']['cq_events'] <= 0.05" ||
		check_err 1 "the spinning reader's feed took $(jget "$R/bp1.json" "j['feed_a']['cq_events']") CQ events per round trip (at most 0.05)"
	jtrue "$R/bp1.json" "j['feed_a']['cqe_caller'] >= 0.9" ||
		check_err 1 "the reader reaped $(jget "$R/bp1.json" "j['feed_a']['cqe_caller']") of each round trip's completions itself (at least 0.9)"
	log_test "a busy-polling reader between two kernels: $N round trips, the reader's own spin reaps its completions, (almost) no CQ event"
}

conn_across_kernels() {
	local e i
	if ((node == 0)); then
		$PERF lat -e -k conn -n "$N" -w 100 -L "$nic" 239.7.0.2 7710 2>"$R/echo.err" &
		e=$!
		wait_for "$R/echo.err" "echo ready" || echo "  node 0: the echo did not start"
		pair_flag conn-ready
		pair_wait conn-done 300
		# the echo ends when the client closes; one that does not (no
		# client came, or it hangs) is killed and fails the test
		for ((i = 0; i < 100; i++)); do
			[[ -e /proc/$e && $(awk '{ print $3 }' "/proc/$e/stat" 2>/dev/null) != Z ]] || break
			sleep 0.1
		done
		kill -9 "$e" 2>/dev/null
		wait "$e"
		echo $? >"$R/echo.rc"
		pair_flag conn-echo-done
		return 0
	fi
	pair_wait conn-ready 120 || check_err 1 "node 0's echo did not start"
	$PERF lat -j -k conn -n "$N" -w 100 -L "$nic" --peer 10.99.0.1 239.7.0.2 7710 >"$R/conn.json" 2>"$R/conn.err"
	check_err $? "ibtick-perf lat --peer -k conn failed: $(tail -n 2 "$R/conn.err")"
	pair_flag conn-done
	pair_wait conn-echo-done 60 || check_err 1 "node 0's echo did not end"
	[[ $(cat "$R/echo.rc" 2>/dev/null) == 0 ]] || check_err 1 "node 0's echo ended with status $(cat "$R/echo.rc" 2>/dev/null)"
	grep -q "\"kind\":\"conn\".*\"n_iterations\":$N," "$R/conn.json" ||
		check_err 1 "not $N round trips: $(tail -n 1 "$R/conn.json" | cut -c1-200)"
	log_test "a connection between two kernels: $N round trips, node 0 answering node 1, every answer its own"
}

if ((node == 0)); then
	# the other host: serve each test, in order, and count nothing
	for t in ${TESTS:-$ALL_TESTS}; do
		test_setup
		"$t"
		test_teardown
	done
	pair_wait node1-finished 300
	exit 0
fi
trap 'pair_flag node1-finished; cleanup' EXIT
run_tests
