#!/usr/bin/env bash
# VM topic: the device/port table as `ibtick dev show` reports it, against
# the ground truth of rdma(8), ibv_devinfo(1) and rxe's own counters.
# Runs in the bench guest (scripts/vm-run.sh) with rxe0/veth0 and rxe1/veth1.
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/vm/lib.sh
. tests/vm/lib.sh

IBTICK=user/ibtick/ibtick
ALL_TESTS="dev_dump_matches_truth dev_doit_matches_dump dev_details dev_bad_requests
	cli_args_module_loaded port_down_up_events renamed_while_shown"

# $1: device, $2: jq-like python expression on the port object (-d: with
# the event counters)
port_field() {
	"$IBTICK" -j -d dev show "$1" | jin "(lambda p: $2)(j[0]['ports'][0])"
}

# rxe's own count of link-down transitions (rdma statistic), ground truth
link_downed() {
	rdma -j statistic show link "$1/1" | jin "j[0].get('link_downed', 0)"
}

# Wait up to 10 s for $1's port state to read $2 in ibtick and in rdma.
wait_both_state() {
	local i s r
	for i in $(seq 50); do
		s=$(port_field "$1" "p['state']")
		r=$(rdma -j link show "$1/1" | jin "j[0]['state']")
		[[ $s == "$2" && $r == "$2" ]] && return 0
		nap 0.2
	done
	echo "  $1: ibtick says $s, rdma says $r, want $2"
	return 1
}

dev_dump_matches_truth() {
	python3 tests/vm/compare_dev.py "$IBTICK"
	log_test "dev show equals rdma link + ibv_devinfo, field by field" $?
}

dev_doit_matches_dump() {
	local d rc=0 one all
	for d in rxe0 rxe1; do
		one=$("$IBTICK" -j dev show "$d") || rc=1
		all=$("$IBTICK" -j dev show | python3 -c "
import json,sys; print(json.dumps([x for x in json.load(sys.stdin) if x['ifname']=='$d']))")
		one=$(python3 -c "import json,sys; print(json.dumps(json.loads(sys.argv[1])))" "$one")
		if [[ $one != "$all" ]]; then
			echo "  $d: doit $one"
			echo "  $d: dump $all"
			rc=1
		fi
	done
	log_test "dev show DEV (doit) equals its entry in the dump" $rc
}

# -d adds the port count, the netdev's index, max_mtu, GID 0 and the event
# counters, with the values sysfs and rdma have; plain text and JSON leave
# them out
dev_details() {
	local rc=0 plain det gid want w keys
	plain=$("$IBTICK" dev show rxe0) || rc=1
	det=$("$IBTICK" -d dev show rxe0) || rc=1
	echo "$det" | sed 's/^/  -d: /'
	gid=$(echo "$det" | sed -n 's/.* gid0 \([0-9a-f:]*\).*/\1/p')
	want=$(cat /sys/class/infiniband/rxe0/ports/1/gids/0)
	[[ -n $gid ]] && python3 -c "import ipaddress,sys; sys.exit(ipaddress.IPv6Address(sys.argv[1]) != ipaddress.IPv6Address(sys.argv[2]))" "$gid" "$want" ||
		{ echo "  gid0 '$gid', sysfs $want"; rc=1; }
	for w in "num_ports 1" "netdev veth0 netdev_index $(cat /sys/class/net/veth0/ifindex)" \
		"max_mtu $(port_field rxe0 "p['max_mtu']")" "port_active $(port_field rxe0 "p['events']['port_active']")" \
		"port_err $(port_field rxe0 "p['events']['port_err']")"; do
		[[ " $(echo $det) " == *" $w "* ]] || { echo "  -d lacks '$w'"; rc=1; }
	done
	for w in num_ports netdev_index max_mtu gid0 events port_active port_err; do
		[[ " $(echo $plain) " != *" $w "* ]] || { echo "  plain output has $w"; rc=1; }
	done
	[[ " $(echo $plain) " == *" netdev veth0 mtu "* ]] || { echo "  plain output lacks netdev/mtu"; rc=1; }
	keys="'num_ports', 'netdev_index', 'max_mtu', 'gid0', 'events'"
	w=$("$IBTICK" -j dev show rxe0 | jin "sorted(k for k in ($keys) if k in j[0] or k in j[0]['ports'][0])")
	[[ $w == "[]" ]] || { echo "  JSON without -d has $w"; rc=1; }
	w=$("$IBTICK" -j -d dev show rxe0 | jin "sorted(k for k in ($keys) if k not in j[0] and k not in j[0]['ports'][0])")
	[[ $w == "[]" ]] || { echo "  JSON with -d lacks $w"; rc=1; }
	log_test "-d: dev show adds port count, netdev index, max_mtu, GID 0 (sysfs's) and event counters, text and JSON" $rc
}

# Expect exit status $1 and output containing every later argument.
expect_err() {
	local want=$1 out rc=0
	shift
	out=$("$IBTICK" "${ARGS[@]}" 2>&1) || rc=$?
	if [[ $rc != "$want" ]]; then
		echo "  ibtick ${ARGS[*]:0:3}: status $rc, want $want: $out"
		return 1
	fi
	while (($#)); do
		if [[ $out != *"$1"* ]]; then
			echo "  ibtick ${ARGS[*]:0:3}: output lacks \"$1\": $out"
			return 1
		fi
		shift
	done
}

dev_bad_requests() {
	local rc=0 n63 n64
	n63=$(printf 'x%.0s' $(seq 63))
	n64=$(printf 'x%.0s' $(seq 64))
	ARGS=(dev show nosuch0)
	expect_err 1 "no such RDMA device" "(attribute IBTICK_A_DEV_NAME)" "No such device" || rc=1
	# 63 characters is the longest name the policy admits: not found, not invalid
	ARGS=(dev show "$n63")
	expect_err 1 "no such RDMA device" "(attribute IBTICK_A_DEV_NAME)" || rc=1
	# 64 is refused by the policy itself, naming the attribute
	ARGS=(dev show "$n64")
	expect_err 1 "(attribute IBTICK_A_DEV_NAME)" "Invalid argument" || rc=1
	log_test "bad device names: extack names the attribute, exit 1" $rc
}

cli_args_module_loaded() {
	local rc=0 out
	tests/unit/cli_args.sh "$IBTICK" >/dev/null || rc=1
	# -p indents -j's JSON, as rdma -p does; alone it leaves text as it is
	out=$("$IBTICK" -p dev show) || rc=1
	[[ $out == "$("$IBTICK" dev show)" && $out != [\[{]* ]] ||
		{ echo "  -p alone changed the text output: $out"; rc=1; }
	out=$("$IBTICK" -j -p dev show) || rc=1
	echo "$out" | jin "len(j)" >/dev/null && (($(echo "$out" | wc -l) > 1)) ||
		{ echo "  -j -p is not indented JSON: $out"; rc=1; }
	log_test "CLI argument table with the module loaded; -p indents -j's JSON only" $rc
}

port_down_up_events() {
	local rc=0 err0 act0 ld0 err1 act1 ld1
	err0=$(port_field rxe0 "p['events']['port_err']")
	act0=$(port_field rxe0 "p['events']['port_active']")
	ld0=$(link_downed rxe0)

	ip link set veth0 down
	wait_both_state rxe0 DOWN || rc=1
	ip link set veth0 up
	wait_both_state rxe0 ACTIVE || rc=1
	rig_routes || rc=1
	# the PORT_ACTIVE event may trail the state a little
	for _ in $(seq $((50 * SLOW))); do
		(($(port_field rxe0 "p['events']['port_active']") > act0)) && break
		sleep 0.1
	done

	err1=$(port_field rxe0 "p['events']['port_err']")
	act1=$(port_field rxe0 "p['events']['port_active']")
	ld1=$(link_downed rxe0)
	echo "  rxe0: port_err $err0 -> $err1, port_active $act0 -> $act1, rxe link_downed $ld0 -> $ld1"
	# every down transition rxe counted reached ibtick as PORT_ERR
	((err1 - err0 == ld1 - ld0 && err1 > err0)) || rc=1
	((act1 > act0)) || rc=1
	python3 tests/vm/compare_dev.py "$IBTICK" >/dev/null || rc=1
	log_test "veth0 down/up: state follows, PORT_ERR/ACTIVE counted" $rc
}

# rdma dev set NAME name NEW while dev show and feeds read the name: the
# new name is the one shown and looked up, the old one is gone, and a
# feed made after the rename says so.  (ibtick keeps its own copy of the
# name: dev_name() is freed by a rename.)
renamed_while_shown() {
	local rc=0 i p
	( for i in $(seq 200); do "$IBTICK" -j dev show >/dev/null 2>&1; done ) &
	p=$!
	for i in $(seq 10); do
		rdma dev set rxe0 name rxn0 && rdma dev set rxn0 name rxe0 || rc=1
	done
	wait $p
	rdma dev set rxe0 name rxn0 || rc=1
	same "$("$IBTICK" -j dev show rxn0 | jin "j[0]['ifname']")" rxn0 "dev show rxn0" || rc=1
	"$IBTICK" dev show rxe0 >/dev/null 2>&1 && { echo "  the old name still answers"; rc=1; }
	"$IBTICK" feed add rn group 239.1.9.1 port 7191 netdev veth0 >/dev/null || rc=1
	same "$("$IBTICK" -j feed show rn | jin "j[0]['dev']")" rxn0 "feed rn's device" || rc=1
	"$IBTICK" feed del rn || rc=1
	rdma dev set rxn0 name rxe0 || rc=1
	python3 tests/vm/compare_dev.py "$IBTICK" >/dev/null || rc=1
	log_test "a device renamed while shown: the new name shown and looked up, the old gone" $rc
}

same() { [[ $1 == "$2" ]] || { echo "  $3: expected '$2', got '$1'"; return 1; }; }

run_tests
