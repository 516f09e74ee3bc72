#!/usr/bin/env bash
# VM topic: lifetimes.  Devices removed and re-added under the loaded module
# (also while dumps run), the module loaded and unloaded again and again, the
# netlink family present exactly while the module is.
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/vm/lib.sh
. tests/vm/lib.sh

IBTICK=user/ibtick/ibtick
ALL_TESTS="hot_remove_readd dumps_during_hotplug load_unload_cycles
	family_follows_module"
CYCLES=${CYCLES:-20}

# Device names in ibtick's dump, sorted, space separated.
dev_names() {
	"$IBTICK" -j dev show | jin "' '.join(sorted(d['ifname'] for d in j))"
}

loaded() { [[ -d /sys/module/ibtick ]]; }

hot_remove_readd() {
	local rc=0 i names
	loaded || insmod kmod/ibtick.ko
	for i in $(seq 10); do
		rdma link delete rxe1 || rc=1
		names=$(dev_names)
		[[ $names == "rxe0" ]] || { echo "  round $i after delete: '$names'"; rc=1; }
		"$IBTICK" dev show rxe1 >/dev/null 2>&1 && { echo "  rxe1 still answers"; rc=1; }
		rdma link add rxe1 type rxe netdev veth1 || rc=1
		names=$(dev_names)
		[[ $names == "rxe0 rxe1" ]] || { echo "  round $i after add: '$names'"; rc=1; }
	done
	python3 tests/vm/compare_dev.py "$IBTICK" >/dev/null || rc=1
	log_test "rdma link delete/add rxe1 x10 with the module loaded" $rc
}

dumps_during_hotplug() {
	local rc=0 i bg log=$RESULTS/dumps.log during failed
	loaded || insmod kmod/ibtick.ko
	: >"$log"
	# dumps in a loop; each must succeed (interrupted ones are retried)
	(
		while :; do
			"$IBTICK" -j dev show >/dev/null && echo "dump done" || echo "dump failed"
		done
	) >>"$log" 2>&1 &
	bg=$!
	wait_for "$log" "dump" || rc=1
	echo "hot-plug begins" >>"$log"
	for i in $(seq 10); do
		rdma link delete rxe1 || rc=1
		rdma link add rxe1 type rxe netdev veth1 || rc=1
	done
	echo "hot-plug ends" >>"$log"
	kill "$bg"
	wait "$bg" 2>/dev/null
	during=$(sed -n '/^hot-plug begins/,/^hot-plug ends/p' "$log" | grep -c 'dump done')
	failed=$(grep -c 'dump failed' "$log")
	echo "  $during dumps completed while rxe1 came and went, $failed failed"
	((failed == 0)) || { grep -v 'dump done' "$log" | head -5; rc=1; }
	# the loop ran alongside the hot-plug, not only before or after it
	((during > 0)) || { echo "  no dump completed during the hot-plug"; rc=1; }
	log_test "dumps while rxe1 comes and goes x10: every one completes" $rc
}

load_unload_cycles() {
	local rc=0 i names
	loaded && rmmod ibtick
	for i in $(seq "$CYCLES"); do
		insmod kmod/ibtick.ko || { rc=1; break; }
		names=$(dev_names)
		[[ $names == "rxe0 rxe1" ]] || { echo "  cycle $i: '$names'"; rc=1; }
		rmmod ibtick || { rc=1; break; }
		# every 5th cycle the device set changes while the module is out
		if ((i % 5 == 0)); then
			rdma link delete rxe1 && rdma link add rxe1 type rxe netdev veth1 || rc=1
		fi
	done
	log_test "insmod/dev show/rmmod x$CYCLES, rxe1 re-added while unloaded" $rc
}

family_follows_module() {
	local rc=0 out
	loaded && rmmod ibtick
	out=$("$IBTICK" dev show 2>&1) && rc=1
	[[ $out == *"ibtick module not loaded"* ]] || { echo "  unloaded: $out"; rc=1; }
	insmod kmod/ibtick.ko || rc=1
	"$IBTICK" dev show >/dev/null || rc=1
	rmmod ibtick || rc=1
	loaded && rc=1
	log_test "genl family registered exactly while the module is loaded" $rc
}

run_tests
