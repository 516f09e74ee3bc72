#!/usr/bin/env bash
# VM topic: faults the module must survive.
#  - allocation failures (debug kernel: failslab + fail_page_alloc through
#    /proc/thread-self/fail-nth): the fault points of module load, bind
#    (feed creation and join), mmap and the busy-poll thread's start are
#    made to fail in turn (a send must have none: the hot path allocates
#    nothing) (the first FAULT_ALL=200 each, then every
#    FAULT_STRIDE=23rd; FAULT_ALL=5000 for every one); each call fails
#    cleanly or succeeds, nothing splats, and the module still works and
#    unloads afterwards;
#  - module lifecycle: CYCLES load/unload cycles with rxe0 removed and
#    re-added in between; slab usage measured after every cycle must not
#    keep growing: at most SLAB_KB_PER_CYCLE (100) kB a cycle over the last
#    half of the cycles, and no more than over the first half plus that;
#  - device and port faults under full-rate traffic with 16 sockets on the
#    feed (2 mapped readers spinning, 7 mapped readers in epoll, 7 blocking
#    recvmsg, and a publisher): CYCLES x rdma link delete + re-add, where
#    every reader ends on DEAD with its counts adding up, and CYCLES x veth0
#    down/up, after which a last publisher's ticks reach every reader;
#  - resource limits: a memory cgroup too small for a feed's ring (bind
#    gets ENOMEM, the OOM killer stays asleep) and one that fits (the ring
#    is charged to it while the feed lives, and uncharged after).
# CYCLES defaults to 10 in make check (about 5 minutes); the issue's full run is
# CYCLES=50 (about 25 minutes under TCG).
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/vm/lib.sh
. tests/vm/lib.sh

RT=tests/vm/ringtest
PUB=user/tools/ibtick-pub
FN=tests/vm/failnth
CYCLES=${CYCLES:-10}
FAULT_ALL=${FAULT_ALL:-200}
FAULT_STRIDE=${FAULT_STRIDE:-23}
SLAB_KB_PER_CYCLE=${SLAB_KB_PER_CYCLE:-100}
ALL_TESTS="alloc_failures memcg_limit module_lifecycle device_faults_under_traffic
	port_flaps_under_traffic"

slab_kb() { awk '/^Slab:/ { print $2 }' /proc/meminfo; }


# sweep OP ARGS...: fail fault point 1, 2, ... of OP until it makes no more
# checks; counts how many points were injected and how they ended.  The
# kernel's allocation-failure reports this provokes are bracketed for
# scripts/vm-run.sh, which then takes their stack dumps for what they are.
sweep() {
	local op=$1 n out injected=0 ok=0 failed=0 errs=""
	shift
	echo "ibtick-test: expected allocation failures begin ($op)" >/dev/kmsg
	n=0
	while ((n < 5000)); do
		# every point up to FAULT_ALL, then every FAULT_STRIDE-th: past
		# the first ones a call mostly repeats itself (1024 receive
		# buffers), and each try costs seconds on the debug kernel
		if ((n < FAULT_ALL)); then
			n=$((n + 1))
		else
			n=$((n + FAULT_STRIDE))
		fi
		out=$($FN "$n" "$op" "$@") || { echo "  $op: failnth could not run: $out"; return 1; }
		[[ $out == injected=1* ]] || break
		injected=$((injected + 1))
		if [[ $out == *"rc=-1"* ]]; then
			failed=$((failed + 1))
			errs+=" ${out##*errno=}"
		else
			ok=$((ok + 1))
		fi
		# undo a load that went through despite the fault
		[[ $op == insmod ]] && rmmod ibtick 2>/dev/null
	done
	echo "ibtick-test: expected allocation failures end ($op)" >/dev/kmsg
	((failed)) && errs=" ($(tr ' ' '\n' <<<"${errs# }" | sort | uniq -c | awk '{printf "%s%s x%s", (NR > 1 ? ", " : ""), $2, $1}'))"
	echo "  $op: $injected of its < $n fault points injected, $failed failed cleanly$errs, $ok recovered"
	SWEPT=$injected
}

alloc_failures() {
	local rc=0 f
	[[ -w /proc/self/fail-nth && -d /sys/kernel/debug/failslab ]] ||
		{ log_test "allocation failures" "$ksft_skip" "no fault injection in this kernel"; return; }
	for f in failslab fail_page_alloc; do
		echo N >/sys/kernel/debug/$f/ignore-gfp-wait
		echo 0 >/sys/kernel/debug/$f/verbose
	done
	echo N >/sys/kernel/debug/fail_page_alloc/ignore-gfp-highmem
	echo 0 >/sys/kernel/debug/fail_page_alloc/min-order
	rmmod ibtick 2>/dev/null
	sweep insmod kmod/ibtick.ko && ((SWEPT > 0)) || rc=1
	lsmod | grep -q '^ibtick' || insmod kmod/ibtick.ko || rc=1
	sweep bind veth0 239.5.0.1 7601 && ((SWEPT > 0)) || rc=1
	sweep mmap veth0 239.5.0.2 7602 && ((SWEPT > 0)) || rc=1
	sweep busy veth0 239.5.0.3 7603 && ((SWEPT > 0)) || rc=1
	# the hot path: a send allocates nothing in the system call (buffers
	# are registered at feed creation), so it has no fault point at all
	sweep send veth1 239.5.0.4 7604 && ((SWEPT == 0)) ||
		{ echo "  send allocates in the system call: the hot path should not"; rc=1; }
	# after all that, the data path works and the module unloads
	$RT read -n 100 -t $(tmo 10) -i veth0 239.5.0.5 7605 >"$RESULTS/fault-after.json" 2>"$RESULTS/fault-after.err" &
	wait_bound "$RESULTS/fault-after.err" || rc=1
	$PUB -i veth1 -n 100 239.5.0.5 7605 >/dev/null 2>&1 || rc=1
	wait
	jtrue "$RESULTS/fault-after.json" "j['delivered'] + j['lost'] == j['feed_rx'] == 100" ||
		{ echo "  after the sweeps: $(cat "$RESULTS/fault-after.json")"; rc=1; }
	rmmod ibtick || rc=1
	insmod kmod/ibtick.ko || rc=1
	log_test "allocation failures at the fault points of insmod, bind, mmap, busy-poll start: clean errors; send allocates nothing" $rc
}

# in_cgroup DIR CMD...: become CMD, a member of cgroup DIR.  It execs: call
# it in a subshell, $(...) or with &, whose pid is then CMD's.
in_cgroup() {
	local cg=$1
	shift
	exec sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cg" "$@"
}

memcg_limit() {
	local rc=0 root=/sys/fs/cgroup cg out base held after ooms pid r=$RESULTS/memcg
	mkdir -p "$r"
	if [[ ! -e $root/cgroup.controllers ]]; then
		mount -t cgroup2 none "$root" 2>/dev/null ||
			{ log_test "memory cgroup limit" "$ksft_skip" "no cgroup2"; return; }
	fi
	grep -qw memory "$root/cgroup.controllers" ||
		{ log_test "memory cgroup limit" "$ksft_skip" "no memory controller"; return; }
	echo +memory >"$root/cgroup.subtree_control" || rc=1
	cg=$root/ibtick-memcg
	rmdir "$cg" 2>/dev/null
	mkdir "$cg" || rc=1
	echo $((16 << 20)) >"$cg/memory.max" || rc=1
	[[ -e $cg/memory.swap.max ]] && echo 0 >"$cg/memory.swap.max"
	# 131072 x 256 B = a 32 MiB ring in a 16 MiB cgroup (root: no memlock limit)
	out=$(in_cgroup "$cg" $RT read -S 131072 -n 1 -t 1 -i veth0 239.5.2.1 7620 2>&1)
	[[ $out == *"Cannot allocate memory"* ]] || { echo "  32 MiB ring in 16 MiB: $out"; rc=1; }
	# a 4 MiB ring fits: charged while the feed lives, given back after
	base=$(cat "$cg/memory.current")
	in_cgroup "$cg" $RT read -S 16384 -n 1000000 -t $(tmo 30) -i veth0 239.5.2.2 7621 \
		>"$r/fits.json" 2>"$r/fits.err" &
	pid=$!
	wait_bound "$r/fits.err" || rc=1
	held=$(cat "$cg/memory.current")
	kill "$pid"
	wait "$pid"
	after=$(cat "$cg/memory.current")
	echo "  memory.current: $base before, $held with a 4 MiB ring's feed, $after after"
	((held - base >= 4 << 20)) || { echo "  the ring was not charged to the cgroup"; rc=1; }
	((after - base < 1 << 20)) || { echo "  the charge was not given back"; rc=1; }
	ooms=$(awk '$1 == "oom_kill" { print $2 }' "$cg/memory.events")
	[[ $ooms == 0 ]] || { echo "  the OOM killer ran $ooms times"; rc=1; }
	rmdir "$cg" || rc=1
	log_test "memory cgroup: a ring over the limit -> ENOMEM, no OOM kill; one that fits is charged and given back" $rc
}

module_lifecycle() {
	local rc=0 i slab=() half first last
	rmmod ibtick 2>/dev/null
	sync
	echo 2 >/proc/sys/vm/drop_caches
	slab+=("$(slab_kb)")
	for i in $(seq "$CYCLES"); do
		insmod kmod/ibtick.ko || { rc=1; break; }
		rdma link delete rxe0 || { rc=1; break; }
		rdma link add rxe0 type rxe netdev veth0 || { rc=1; break; }
		rmmod ibtick || { rc=1; break; }
		sync
		echo 2 >/proc/sys/vm/drop_caches
		slab+=("$(slab_kb)")
	done
	echo "  Slab kB before and after each of $((${#slab[@]} - 1)) cycles: ${slab[*]}"
	# rxe re-adds and the first loads allocate too (caches warm up), so the
	# first half may grow some; a leak of ours grows the slab every cycle,
	# in the last half as much as in the first
	half=$(((${#slab[@]} - 1) / 2))
	if ((rc == 0 && half > 0)); then
		first=$((slab[half] - slab[0]))
		last=$((slab[${#slab[@]} - 1] - slab[half]))
		echo "  growth: first $half cycles ${first} kB, last $((${#slab[@]} - 1 - half)) cycles ${last} kB"
		((last <= SLAB_KB_PER_CYCLE * (${#slab[@]} - 1 - half))) ||
			{ echo "  slab grew ${last} kB over the last cycles: more than $SLAB_KB_PER_CYCLE kB a cycle"; rc=1; }
		# warm-up may shrink the slab in the first half (reclaim): a
		# negative first half is no credit for the last
		((last <= (first > 0 ? first : 0) + SLAB_KB_PER_CYCLE)) ||
			{ echo "  slab grew faster in the last half of the cycles than in the first"; rc=1; }
		((slab[${#slab[@]} - 1] - slab[0] <= 4096)) ||
			{ echo "  slab grew by $((slab[${#slab[@]} - 1] - slab[0])) kB in all"; rc=1; }
	fi
	wait_state rxe0 ACTIVE || rc=1
	insmod kmod/ibtick.ko || rc=1
	log_test "$CYCLES x (insmod, rdma link delete + add with the module loaded, rmmod): slab does not keep growing" $rc
}

# start_traffic PORT DIR: 16 sockets on feed 239.5.1.1:PORT over veth0 -
# 2 mapped readers spinning (at nice 19: 2 vCPUs), 7 mapped readers in
# epoll, 7 readers blocked in recvmsg - and a publisher on veth1 at full
# rate, restarted every 10^6 ticks; the readers' pids in READERS, the
# publishers' loop's in PUB_LOOP
start_traffic() {
	local port=$1 d=$2 i
	READERS=()
	for i in $(seq 2); do
		nice -n 19 $RT read -n 100000000 -t $(tmo 60) -i veth0 239.5.1.1 "$port" >"$d/m$i.json" 2>"$d/m$i.err" &
		READERS+=($!)
	done
	for i in $(seq 7); do
		$RT read -R -n 100000000 -t $(tmo 60) -i veth0 239.5.1.1 "$port" >"$d/r$i.json" 2>"$d/r$i.err" &
		READERS+=($!)
		$RT read -E -n 100000000 -t $(tmo 60) -i veth0 239.5.1.1 "$port" >"$d/e$i.json" 2>"$d/e$i.err" &
		READERS+=($!)
	done
	wait_bound "$d"/*.err || echo "  not every reader bound"
	(while :; do $PUB -i veth1 -n 1000000 239.5.1.1 "$port" >/dev/null 2>&1; nap 0.2; done) &
	PUB_LOOP=$!
}

# stop_publisher PORT: end the loop start_traffic started, and its publisher
stop_publisher() {
	kill "$PUB_LOOP" 2>/dev/null
	wait "$PUB_LOOP" 2>/dev/null
	pkill -f "^$PUB -i veth1 -n 1000000 239.5.1.1 $1\$"
	return 0
}

# reader_counts DIR WHEN [EXPR]: every reader's JSON in DIR adds up
# (delivered + lost == what the feed took, nothing torn), and EXPR holds
reader_counts() {
	local d=$1 when=$2 expr=${3:-True} f rc=0 n=0
	for f in "$d"/*.json; do
		n=$((n + 1))
		jtrue "$f" "j['delivered'] + j['lost'] == j['feed_rx'] and j['torn'] == 0 and ($expr)" ||
			{ echo "  $when $(basename "$f"): $(cat "$f")"; rc=1; }
	done
	((n == 16)) || { echo "  $when: $n reader reports, want 16"; rc=1; }
	return $rc
}

device_faults_under_traffic() {
	local rc=0 i d=$RESULTS/devfaults f port
	mkdir -p "$d"
	for i in $(seq "$CYCLES"); do
		rm -f "$d"/*
		port=$((7700 + i % 50))
		start_traffic $port "$d"
		# under traffic: let ticks flow before the device goes
		nap 0.3
		rdma link delete rxe0 || rc=1
		# every reader ends on its own: the ring says DEAD
		for f in "${READERS[@]}"; do
			wait "$f" || { echo "  cycle $i: a reader failed"; rc=1; }
		done
		stop_publisher $port
		reader_counts "$d" "cycle $i" "j['delivered'] > 0" || rc=1
		rdma link add rxe0 type rxe netdev veth0 || rc=1
		wait_state rxe0 ACTIVE || rc=1
		((rc == 0)) || break
	done
	echo "  $i cycles of 16 sockets + a publisher, rdma link delete under them, re-add"
	log_test "$CYCLES x rdma link delete/re-add under 16 sockets at full rate: every socket ends cleanly, counts add up" $rc
}

port_flaps_under_traffic() {
	local rc=0 i d=$RESULTS/flaps f k=$(cnt 500)
	mkdir -p "$d"
	rm -f "$d"/*
	start_traffic 7800 "$d"
	for i in $(seq "$CYCLES"); do
		ip link set veth0 down
		nap 0.2
		ip link set veth0 up
		wait_state rxe0 ACTIVE || { echo "  flap $i: rxe0 did not come back"; rc=1; break; }
	done
	rig_routes || rc=1
	stop_publisher 7800
	# the feed survives the flaps: a last publisher's K ticks still arrive,
	# up to the last one, at every reader
	$PUB -i veth1 -n "$k" -r 1000 239.5.1.1 7800 >/dev/null || rc=1
	# the readers still hold their sockets: unload must be refused
	rmmod ibtick 2>/dev/null && { echo "  unloaded with sockets open"; rc=1; }
	# (the spinning readers run at nice 19: give them time to catch up)
	nap 1
	# SIGTERM: a reader stops and reports what it got
	kill "${READERS[@]}" 2>/dev/null
	for f in "${READERS[@]}"; do
		wait "$f" || { echo "  a reader failed"; rc=1; }
	done
	reader_counts "$d" "after $CYCLES flaps" "j['last'] == $k" || rc=1
	for _ in $(seq 10); do
		rmmod ibtick 2>/dev/null && break
		nap 0.1
	done
	[[ ! -d /sys/module/ibtick ]] || { echo "  module still referenced after the readers exited"; rc=1; }
	insmod kmod/ibtick.ko || rc=1
	log_test "$CYCLES x veth0 down/up under 16 sockets at full rate: ticks still reach every reader, nothing left referenced" $rc
}

run_tests
