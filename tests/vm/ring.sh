#!/usr/bin/env bash
# VM topic: the mmap'd ring, libibtick and the poll modes on Soft-RoCE.
# A publisher on rxe1 (veth1), readers on rxe0 (veth0): mapped readers in
# separate processes next to recvmsg readers, the bad-mmap and sockopt
# tables, zero system calls per tick for a spinning reader (strace -c),
# busy-poll mode with the CQ event count standing still, SO_BUSY_POLL
# draining the CQ from the caller, DEAD under a mapping, SIGKILL mid-read.
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/vm/lib.sh
. tests/vm/lib.sh

RT=tests/vm/ringtest
PUB=user/tools/ibtick-pub
ALL_TESTS="mmap_bad_input sockopt_table sockopt_unprivileged fanout_identical
	zero_syscalls_per_tick busy_poll_thread so_busy_poll_caller
	so_busy_poll_deferred_rearm so_busy_poll_nonblocking mapped_poll_busy
	killed_mapped_reader dead_while_mapped"

mmap_bad_input() {
	$RT bad -i veth0 239.3.0.1 7300
	log_test "mmap: unbound/offset/length/PROT_WRITE/PROT_EXEC/MAP_PRIVATE refused; no mprotect, split, grow or fork copy; 65 maps" $?
}

sockopt_table() {
	$RT opts -i veth0 239.3.0.2 7301
	log_test "IBTICK_RING_CURSOR / IBTICK_POLL_MODE / IBTICK_COMP_VECTOR: errnos and round trips" $?
}

sockopt_unprivileged() {
	"${NOBODY[@]}" $RT opts -i veth0 239.3.0.3 7302
	log_test "an unprivileged reader may map and move its cursor, not change the poll mode (EPERM)" $?
}

fanout_identical() {
	local rc=0 r=$RESULTS/fanout n=$(cnt 20000) i f hashes slots=1 compared=0
	mkdir -p "$r"
	rm -f "$r"/*
	# a ring that holds the whole run: no reader can be lapped, so every
	# one must see the same sequence, which makes the comparison a test
	while ((slots < n)); do slots=$((slots * 2)); done
	for i in 1 2 3 4; do
		$RT read -S $slots -n $n -t $(tmo 20) -i veth0 239.3.0.4 7303 >"$r/spin$i.json" 2>"$r/spin$i.err" &
		$RT read -S $slots -E -n $n -t $(tmo 20) -i veth0 239.3.0.4 7303 >"$r/epoll$i.json" 2>"$r/epoll$i.err" &
	done
	for i in 1 2; do
		$RT read -S $slots -R -n $n -t $(tmo 20) -i veth0 239.3.0.4 7303 >"$r/recv$i.json" 2>"$r/recv$i.err" &
	done
	wait_bound "$r"/{spin,epoll}{1,2,3,4}.err "$r"/recv{1,2}.err || rc=1
	$PUB -i veth1 -n $n -r 4000 239.3.0.4 7303 >/dev/null || rc=1
	wait
	for f in "$r"/*.json; do
		echo "  $(basename "$f" .json): $(cat "$f")"
		# every tick the feed took delivered once, intact, in order
		jtrue "$f" "j['delivered'] + j['lost'] == j['feed_rx'] and j['torn'] == 0 and j['dups'] == 0 and j['nonmono'] == 0 and j['lib_agrees'] and j['feed_rx'] >= 0.95 * $n" ||
			{ echo "  $f: delivered + lost != feed_rx, torn, repeated or out-of-order tick, or the feed took < 95%"; rc=1; }
		jtrue "$f" "j['lost'] == 0" || { echo "  $f: lapped on a $slots-slot ring"; rc=1; }
		# sleeping readers: the drain woke them, and that time is a part of it
		case $f in
		*/epoll*.json | */recv*.json)
			jtrue "$f" "0 < j['rx_wake_ns'] <= j['rx_drain_ns']" ||
				{ echo "  $f: rx_wake_ns not within (0, rx_drain_ns]"; rc=1; } ;;
		esac
		compared=$((compared + $(jget "$f" "j['delivered']")))
	done
	# the readers saw exactly the same sequence, and it was not empty
	hashes=$(for f in "$r"/*.json; do jget "$f" "j['hash']"; done | sort -u)
	[[ $(wc -l <<<"$hashes") == 1 ]] || { echo "  readers disagree: $hashes"; rc=1; }
	echo "  $compared ticks compared over 10 readers"
	((compared >= 10 * 95 * n / 100)) || { echo "  fewer than 95% of $n ticks per reader compared"; rc=1; }
	log_test "$n ticks to 8 mapped readers (4 spinning, 4 epoll) + 2 recvmsg readers on a $slots-slot ring: the same sequence, the wake-ups counted" $rc
}

zero_syscalls_per_tick() {
	local rc=0 r=$RESULTS/syscalls n=$(cnt 10000) calls clock
	mkdir -p "$r"
	require_cmd strace || return
	strace -f -c -o "$r/strace" $RT read -n $n -t $(tmo 20) -i veth0 239.3.0.5 7304 \
		>"$r/read.json" 2>"$r/read.err" &
	wait_bound "$r/read.err" || rc=1
	$PUB -i veth1 -n $n -r 5000 239.3.0.5 7304 >/dev/null || rc=1
	wait
	calls=$(awk '$NF == "total" { print $(NF - 2) }' "$r/strace")
	# the test's idle timer (no vDSO clock under TCG): once per 2^16 empty polls
	clock=$(awk '$NF == "clock_gettime" { print $(NF - 1) }' "$r/strace")
	echo "  $(cat "$r/read.json")"
	echo "  system calls, whole process: $calls, of which clock_gettime (idle timer) ${clock:-0}"
	jtrue "$r/read.json" "j['delivered'] >= 0.95 * $n and j['delivered'] + j['lost'] == j['feed_rx']" ||
		{ echo "  reader got < 95% of $n"; rc=1; }
	# nobody sleeps on the feed: the drains' time has no wake-up in it
	jtrue "$r/read.json" "j['rx_drain_ns'] > 0 and j['rx_wake_ns'] == 0" ||
		{ echo "  rx_wake_ns counted with no sleeping reader, or no rx_drain_ns"; rc=1; }
	# (libibtick never calls the clock: those are the test's own idle timer)
	[[ -n $calls ]] && ((calls - ${clock:-0} < 100)) ||
		{ echo "  too many system calls:"; cat "$r/strace"; rc=1; }
	log_test "a spinning mapped reader: $n ticks, < 100 system calls besides its idle timer (start-up and bind included), no wake-up time" $rc
}

busy_poll_thread() {
	local rc=0 r=$RESULTS/busy n=$(cnt 5000) psr
	mkdir -p "$r"
	$RT read -c 0 -B 1 -n $n -t $(tmo 20) -i veth0 239.3.0.6 7305 >"$r/read.json" 2>"$r/read.err" &
	wait_bound "$r/read.err" || rc=1
	# the thread is started by the setsockopt before "bound"; wait for it
	# to run on its CPU
	for _ in $(seq $((50 * SLOW))); do
		psr=$(ps -eLo psr=,comm= | awk '$2 ~ /^ibtick-poll/ { print $1 }')
		[[ $psr == 1 ]] && break
		sleep 0.1
	done
	[[ $psr == 1 ]] || { echo "  ibtick-poll thread on CPU '$psr', wanted 1"; rc=1; }
	$PUB -i veth1 -n $n -r 5000 239.3.0.6 7305 >/dev/null || rc=1
	wait
	echo "  $(cat "$r/read.json")"
	# the thread drained everything; the CQ event fired at most once (armed
	# before the switch)
	jtrue "$r/read.json" "j['delivered'] + j['lost'] == j['feed_rx'] and j['feed_rx'] >= 0.95 * $n and j['cq_events'] - j['cq_events0'] <= 1 and j['cqe_thread'] >= j['feed_rx'] and j['poll_loops'] > 0 and j['poll_busy_ns'] > 0" ||
		{ echo "  not drained by the thread, or CQ events rose"; rc=1; }
	for _ in $(seq $((50 * SLOW))); do
		ps -eLo comm= | grep -q '^ibtick-poll' || break
		sleep 0.1
	done
	ps -eLo comm= | grep -q '^ibtick-poll' && { echo "  poll thread outlived its feed"; rc=1; }
	log_test "busy-poll mode: thread pinned to CPU 1 drains $n ticks, CQ events do not rise, stops with the feed" $rc
}

so_busy_poll_caller() {
	local rc=0 r=$RESULTS/sobusy n=$(cnt 3000)
	mkdir -p "$r"
	$RT read -R -P 100000 -n $n -t $(tmo 20) -i veth0 239.3.0.7 7306 >"$r/read.json" 2>"$r/read.err" &
	wait_bound "$r/read.err" || rc=1
	$PUB -i veth1 -n $n -r 2000 239.3.0.7 7306 >/dev/null || rc=1
	wait
	echo "  $(cat "$r/read.json")"
	jtrue "$r/read.json" "j['delivered'] + j['lost'] == j['feed_rx'] and j['feed_rx'] >= 0.95 * $n and j['cqe_caller'] > 0 and j['cqe_caller'] + j['cqe_irq'] >= j['feed_rx']" ||
		{ echo "  the caller never drained the CQ, or counts disagree"; rc=1; }
	log_test "SO_BUSY_POLL recvmsg drains the CQ from the caller's context" $rc
}

# busy_read OUT N GROUP PORT READER_ARGS...: one ringtest reader on veth0
# (pinned to CPU 1) with READER_ARGS, N ticks at 2000/s from rxe1 (CPU 0);
# its JSON in OUT, whose counts must add up.
busy_read() {
	local out=$1 n=$2 g=$3 port=$4
	shift 4
	$RT read -c 1 "$@" -n "$n" -t $(tmo 20) -i veth0 "$g" "$port" >"$out" 2>"$out.err" &
	wait_bound "$out.err" || return 1
	taskset -c 0 $PUB -i veth1 -n "$n" -r "${BUSY_RATE:-2000}" "$g" "$port" >/dev/null || return 1
	wait
	echo "  $(basename "$out" .json): $(cat "$out")"
	jtrue "$out" "j['delivered'] + j['lost'] == j['feed_rx'] and j['feed_rx'] >= 0.95 * $n and j['torn'] == 0" ||
		{ echo "  counts disagree"; return 1; }
}

# fewer_cq_events A B WHAT_A WHAT_B [MAX]: the reader of B (JSON) drained
# at least half its ticks itself, with at most 0.85 times the CQ events per
# tick of A's, and at most MAX a tick if given.
fewer_cq_events() {
	python3 - "$@" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
most = float(sys.argv[5]) if len(sys.argv) > 5 else 1.0
ev = lambda j: (j['cq_events'] - j['cq_events0']) / j['feed_rx']
print(f"  CQ events per tick: {ev(a):.3f} {sys.argv[3]}, {ev(b):.3f} {sys.argv[4]} (at most {most}); "
      f"caller drained {b['cqe_caller']} of {b['feed_rx']}")
sys.exit(0 if b["cqe_caller"] >= 0.5 * b["feed_rx"] and ev(b) <= 0.85 * ev(a) and ev(b) <= most else 1)
PY
}

# With busy_poll_defer_us (or SO_PREFER_BUSY_POLL on its socket), a busy
# caller leaves the CQ disarmed between its
# calls: the ticks it drains cost no CQ event.  Without it, each tick fires
# one (the CQ is re-armed as every call ends).  Counts, not times.
so_busy_poll_deferred_rearm() {
	local rc=0 r=$RESULTS/sodefer n=$(cnt 3000) p=/sys/module/ibtick/parameters/busy_poll_defer_us d
	mkdir -p "$r"
	[[ -w $p ]] || { echo "  no $p"; log_test "SO_BUSY_POLL with a deferred re-arm" 1; return; }
	# the same busy reader with the re-arm at once, then deferred 20 ms;
	# ticks come 0.5 ms apart
	for d in 0 20000; do
		echo "$d" >"$p"
		busy_read "$r/defer-$d.json" "$n" 239.3.0.8 7308 -R -P 100000 || rc=1
	done
	echo 0 >"$p"
	# at once: about one CQ event per tick; deferred: the caller drains
	# most, and while the defer time runs neither the CQ event nor the
	# softirq poll re-arms the CQ: 0.001 to 0.04 a tick seen, at most 0.25 asked
	# (before, 0.15 to 0.74).  Re-armed at once, how many
	# ticks still raise an event depends on how often they land outside
	# the caller's spin: 0.38 to 1.0 seen.  Counts, not speed.
	jtrue "$r/defer-0.json" "j['cq_events'] - j['cq_events0'] >= 0.1 * j['feed_rx']" ||
		{ echo "  without the defer, CQ events were already rare: nothing to compare"; rc=1; }
	fewer_cq_events "$r/defer-0.json" "$r/defer-20000.json" "re-armed at once" deferred 0.25 || rc=1
	# SO_PREFER_BUSY_POLL defers with the parameter at 0, for 200 us: ticks
	# 125 us apart, with and without it (0.010 events a tick seen with it;
	# a slow guest's reader may miss its 200 us, so only the ratio asked)
	BUSY_RATE=8000 busy_read "$r/fast-0.json" "$n" 239.3.0.8 7308 -R -P 100000 || rc=1
	BUSY_RATE=8000 busy_read "$r/prefer.json" "$n" 239.3.0.8 7308 -R -P 100000 -F || rc=1
	fewer_cq_events "$r/fast-0.json" "$r/prefer.json" "re-armed at once" "SO_PREFER_BUSY_POLL" || rc=1
	# the feed's own prefer-defer rules SO_PREFER_BUSY_POLL callers over
	# the 200 us: 0 (feed add) re-arms at once, about as many events as
	# without the option; 20 ms (feed set, live) leaves the event off.  A
	# feed each: the counters are the feed's, from its creation.
	user/ibtick/ibtick feed add tdefer group 239.3.0.8 port 7308 netdev veth0 prefer-defer 0 || rc=1
	BUSY_RATE=8000 busy_read "$r/feed-0.json" "$n" 239.3.0.8 7308 -R -P 100000 -F || rc=1
	jtrue "$r/feed-0.json" "j['cq_events'] - j['cq_events0'] >= 0.1 * j['feed_rx']" ||
		{ echo "  prefer-defer 0 still deferred"; rc=1; }
	user/ibtick/ibtick feed del tdefer || rc=1
	user/ibtick/ibtick feed add tdefer group 239.3.0.8 port 7308 netdev veth0 || rc=1
	user/ibtick/ibtick feed set tdefer prefer-defer 20000 || rc=1
	BUSY_RATE=8000 busy_read "$r/feed-20000.json" "$n" 239.3.0.8 7308 -R -P 100000 -F || rc=1
	fewer_cq_events "$r/feed-0.json" "$r/feed-20000.json" "prefer-defer 0" "prefer-defer 20000" 0.25 || rc=1
	user/ibtick/ibtick feed del tdefer || rc=1
	log_test "SO_BUSY_POLL with busy_poll_defer_us, SO_PREFER_BUSY_POLL, or the feed's prefer-defer: the caller drains, CQ events per tick fall" $rc
}

# A reader that spins on recvmsg(MSG_DONTWAIT): without SO_BUSY_POLL
# every tick comes through the CQ event (the caller drains nothing); with
# SO_BUSY_POLL and SO_PREFER_BUSY_POLL each call looks at the CQ once, so
# the caller drains most ticks and the event stays off.  Counts, not times.
so_busy_poll_nonblocking() {
	local rc=0 r=$RESULTS/sononblock n=$(cnt 3000) p=/sys/module/ibtick/parameters/busy_poll_defer_us
	mkdir -p "$r"
	[[ -w $p ]] || { echo "  no $p"; log_test "recvmsg(MSG_DONTWAIT) with SO_BUSY_POLL" 1; return; }
	BUSY_RATE=8000 busy_read "$r/plain.json" "$n" 239.3.0.10 7310 -R -D || rc=1
	# the deferral 20 ms rather than SO_PREFER_BUSY_POLL's 200 us: a slow
	# guest (the debug kernel) may take longer than 200 us between calls
	echo 20000 >"$p"
	BUSY_RATE=8000 busy_read "$r/busy.json" "$n" 239.3.0.10 7310 -R -D -P 100 -F || rc=1
	jtrue "$r/plain.json" "j['cqe_caller'] == 0 and j['cq_events'] - j['cq_events0'] >= 0.5 * j['feed_rx']" ||
		{ echo "  without SO_BUSY_POLL the caller drained, or CQ events were already rare"; rc=1; }
	fewer_cq_events "$r/plain.json" "$r/busy.json" "MSG_DONTWAIT" "MSG_DONTWAIT + SO_BUSY_POLL + SO_PREFER_BUSY_POLL" || rc=1
	# an event loop: read to EAGAIN, then epoll_wait.  The busy looks must
	# not turn the CQ event off for a reader that sleeps between them: its
	# ticks keep coming through events (left off for 20 ms, ticks 125 us
	# apart would come with almost none).  (The race this guards at the
	# look's end - a tick arriving while it holds the CQ, its event then
	# left to the timer - is too rare to show in counts.)
	BUSY_RATE=8000 busy_read "$r/epoll.json" "$n" 239.3.0.10 7310 -R -D -e -P 100 -F || rc=1
	echo 0 >"$p"
	echo "  epoll loop: $(jget "$r/epoll.json" "'%.3f CQ events per tick' % ((j['cq_events'] - j['cq_events0']) / j['feed_rx'])")"
	jtrue "$r/epoll.json" "j['cq_events'] - j['cq_events0'] >= 0.5 * j['feed_rx']" ||
		{ echo "  the reader in epoll_wait got its ticks without CQ events: the event was left off"; rc=1; }
	log_test "recvmsg(MSG_DONTWAIT) in a loop with SO_BUSY_POLL drains the CQ once per call; CQ events per tick fall; an epoll loop keeps them" $rc
}

# A mapped reader that sleeps in ibtick_wait() (poll) with SO_BUSY_POLL
# set: poll spins first, draining the CQ itself.  Without SO_BUSY_POLL the
# softirq poll drains every tick (the caller none); with it and the
# deferred re-arm, the caller drains most and CQ events per tick fall.
mapped_poll_busy() {
	local rc=0 r=$RESULTS/mappoll n=$(cnt 3000) p=/sys/module/ibtick/parameters/busy_poll_defer_us b
	mkdir -p "$r"
	echo 20000 >"$p"
	for b in 0 100000; do
		busy_read "$r/busy-poll-$b.json" "$n" 239.3.0.9 7309 -W -P $b || rc=1
	done
	echo 0 >"$p"
	jtrue "$r/busy-poll-0.json" "j['cqe_caller'] == 0 and j['cq_events'] - j['cq_events0'] >= 0.5 * j['feed_rx']" ||
		{ echo "  without SO_BUSY_POLL the caller drained, or CQ events were already rare"; rc=1; }
	fewer_cq_events "$r/busy-poll-0.json" "$r/busy-poll-100000.json" \
		"sleeping in poll" "busy-polling in poll" || rc=1
	log_test "a mapped reader in poll() with SO_BUSY_POLL drains the CQ itself; CQ events per tick fall" $rc
}

killed_mapped_reader() {
	local rc=0 r=$RESULTS/killed pids=() i
	mkdir -p "$r"
	for i in 1 2 3; do
		$RT read -n 1000000 -t $(tmo 30) -i veth0 239.3.0.8 7307 >/dev/null 2>"$r/k$i.err" &
		pids+=($!)
	done
	$RT read -R -n $(cnt 4000) -t $(tmo 20) -i veth0 239.3.0.8 7307 >"$r/survivor.json" 2>"$r/survivor.err" &
	wait_bound "$r"/k{1,2,3}.err "$r/survivor.err" || rc=1
	$PUB -i veth1 -n $(cnt 4000) -r 4000 239.3.0.8 7307 >/dev/null &
	# and a publisher killed with sends in flight, on another port (the
	# survivor's count stays exact)
	$PUB -i veth1 -n 100000000 239.3.0.8 7399 >/dev/null 2>&1 &
	pids+=($!)
	# let the readers and the publisher get going before the kill
	nap 0.5
	# SIGKILL mid-read: the mapping and the socket go with the process
	kill -9 "${pids[@]}"
	wait
	echo "  survivor: $(cat "$r/survivor.json")"
	jtrue "$r/survivor.json" "j['delivered'] + j['lost'] == j['feed_rx'] and j['torn'] == 0" ||
		{ echo "  the survivor's counts do not add up"; rc=1; }
	# nothing holds the module: every socket and mapping went away
	rmmod ibtick || { echo "  module still in use"; rc=1; }
	insmod kmod/ibtick.ko || rc=1
	log_test "readers killed mid-read, a publisher killed mid-send (SIGKILL): the others go on, nothing stays referenced" $rc
}

dead_while_mapped() {
	local rc=0 r=$RESULTS/dead pid
	mkdir -p "$r"
	$RT dead -i veth0 239.3.0.9 7308 >"$r/out" 2>"$r/err" &
	pid=$!
	wait_bound "$r/err" || rc=1
	$PUB -i veth1 -n 100 239.3.0.9 7308 >/dev/null || rc=1
	# the 100 ticks reach the ring (the reader checks they are there)
	nap 1
	rxe_delete_under "$pid" "$r/out" rxe0 veth0 || rc=1
	log_test "rdma link delete under a mapped reader: DEAD, what was there stays readable, also after close" $rc
}

run_tests
