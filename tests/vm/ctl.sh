#!/usr/bin/env bash
# VM topic: the control plane - ibtick feed/sock/stats/monitor/doctor and
# -b batches against the real module, compared with ground truth (rdma,
# sysfs, /proc, the sockets the test opened); access control for an
# unprivileged user; random malformed netlink requests (nlstress).
# Runs in the bench guest (scripts/vm-run.sh) with rxe0/veth0, rxe1/veth1.
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/vm/lib.sh
. tests/vm/lib.sh

IBTICK=user/ibtick/ibtick
SUB=user/tools/ibtick-sub
PUB=user/tools/ibtick-pub
ALL_TESTS="feed_add_show_truth feed_set_live_and_fixed feed_bad_input
	show_details sock_show_truth stats_reset_and_deltas unprivileged_denied acl_enforced
	dead_admin_keeps_address auto_feeds_off feed_del_ends_readers batch_save_restore monitor_events
	doctor_healthy_and_broken nlstress_random"
R=${RESULTS:-/tmp}/ctl
mkdir -p "$R"

# Every test starts with a freshly loaded module (no feeds, no sockets,
# counters at zero) and leaves none of its own behind.
test_teardown() {
	kill_jobs
	unset IBTICK_STATS_FILE
	rmmod ibtick 2>/dev/null || echo "  teardown: ibtick still in use: $(lsmod | grep '^ibtick')"
	restore_rig
}

# add_t1 [SETTING...]: the admin feed most tests use, 239.3.0.1:7300 on
# veth0 (rxe0)
add_t1() {
	$IBTICK feed add t1 group 239.3.0.1 port 7300 netdev veth0 slots 1024 \
		slot-size 128 mode 0640 owner 0:0 "$@"
}

# jq_feed FEED EXPR: python expression on feed FEED's JSON object (bound to
# f), with the details (-d)
jq_feed() {
	"$IBTICK" -j -d feed show "$1" | JIN_BIND="f = j[0]" jin "$2"
}

# until_true SECONDS CMD...: until CMD succeeds (polling, SECONDS times SLOW)
until_true() {
	local t=$1 i
	shift
	for i in $(seq $((t * 10 * SLOW))); do
		"$@" && return 0
		sleep 0.1
	done
	"$@"
}

# expect STATUS "TEXT" CMD...: CMD exits STATUS and prints TEXT (stderr too)
expect() {
	local want=$1 text=$2 out rc
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	if [[ $rc != "$want" || $out != *"$text"* ]]; then
		echo "  '$*' -> $rc (want $want and \"$text\"): $out" | head -3
		return 1
	fi
}

feed_add_show_truth() {
	local rc=0 qpn
	add_t1 || rc=1
	nap 1	# an admin feed needs no socket to live
	check_eq "$(jq_feed t1 "f['group'], f['port'], f['netdev'], f['dev'], f['slots'], f['slot_size'], f['type'], f['state'], f['mode'], f['owner'], f['readers'], f['member']")" \
		"239.3.0.1 7300 veth0 rxe0 1024 128 admin live 0640 0 0 send-only" "feed show t1"
	# the ring: header + slots, as IBTICK_RING_INFO would say
	check_eq "$(jq_feed t1 "f['ring_bytes'] >= 1024 * 128")" True "ring bytes"
	# its QP is a UD QP of rxe0 in rdma's resource table
	qpn=$(jq_feed t1 "f['qpn']")
	rdma res show qp lqpn "$qpn" 2>/dev/null | grep -q "rxe0.*type UD" ||
		{ echo "  QP $qpn not in rdma res:"; rdma res show qp | head -5; rc=1; }
	# ifindex is the kernel's, netdev the name behind it
	check_eq "$(jq_feed t1 "f['ifindex']")" "$(cat /sys/class/net/veth0/ifindex)" ifindex
	check_err $rc
	log_test "feed add: show matches what was asked, rdma's QP table and sysfs; lives with no socket"
}

feed_set_live_and_fixed() {
	add_t1
	check_err $? "feed add t1"
	$IBTICK feed set t1 poll busy cpu 0
	check_err $? "set busy"
	check_eq "$(jq_feed t1 "f['poll'], f['poll_cpu']")" "busy 0" "busy poll"
	pgrep -f "ibtick-poll/7300" >/dev/null
	check_err $? "no busy-poll thread"
	$IBTICK feed set t1 poll irq loopback deny mode 0600
	check_err $? "set irq"
	check_eq "$(jq_feed t1 "f['poll'], f['loopback'], f['mode']")" "irq deny 0600" "irq"
	expect 1 "ring geometry is fixed once the ring exists (attribute slots)" \
		$IBTICK feed set t1 slots 2048
	check_err $? "slots"
	expect 1 "Device or resource busy" $IBTICK feed set t1 slot-size 256
	check_err $? "slot size"
	# the same values are no change, not an error
	$IBTICK feed set t1 slots 1024 slot-size 128 mode 0640
	check_err $? "same geometry"
	# prefer-defer: the feed's own, shown (-d) and saved; default has no key
	check_eq "$(jq_feed t1 "'prefer_defer_us' in f")" "False" "prefer-defer at first"
	$IBTICK feed set t1 prefer-defer 2000
	check_err $? "set prefer-defer"
	check_eq "$(jq_feed t1 "f['prefer_defer_us']")" "2000" "prefer-defer"
	$IBTICK feed save | grep -q "^feed add t1 .* prefer-defer 2000"
	check_err $? "feed save keeps prefer-defer"
	$IBTICK feed set t1 prefer-defer 0
	check_eq "$(jq_feed t1 "f['prefer_defer_us']")" "0" "prefer-defer 0"
	$IBTICK feed set t1 prefer-defer default
	check_eq "$(jq_feed t1 "'prefer_defer_us' in f")" "False" "prefer-defer default"
	# and given at add, it is the feed's from the start
	$IBTICK feed add t2 group 239.3.0.2 port 7302 netdev veth0 prefer-defer 500
	check_err $? "add with prefer-defer"
	check_eq "$(jq_feed t2 "f['prefer_defer_us']")" "500" "prefer-defer at add"
	$IBTICK feed del t2
	log_test "feed set: poll mode, loopback, mode, prefer-defer change live; geometry EBUSY with the attribute named"
}

feed_bad_input() {
	local rc=0
	add_t1 || rc=1
	expect 1 "not an IPv4 multicast group outside 224.0.0.0/24 (attribute group)" \
		$IBTICK feed add b0 group 10.0.0.1 port 1 || rc=1
	expect 1 "(attribute slots)" $IBTICK feed add b0 group 239.3.0.9 port 1 slots 3 || rc=1
	expect 1 "slots must be a power of two (attribute slots)" \
		$IBTICK feed add b0 group 239.3.0.9 port 1 slots 1000 || rc=1
	expect 1 "power of two (attribute slot-size)" \
		$IBTICK feed add b0 group 239.3.0.9 port 1 slot-size 100 || rc=1
	expect 1 "exceeds the ring size limit" \
		$IBTICK feed add b0 group 239.3.0.9 port 1 slots 1048576 slot-size 8192 || rc=1
	expect 1 "(attribute mode)" $IBTICK feed add b0 group 239.3.0.9 port 1 mode 0777 || rc=1
	expect 1 "(attribute name)" $IBTICK feed add auto-9 group 239.3.0.9 port 1 || rc=1
	expect 1 "(attribute cpu)" $IBTICK feed add b0 group 239.3.0.9 port 1 poll busy cpu 4000 || rc=1
	expect 1 "a feed of that name exists" $IBTICK feed add t1 group 239.3.0.9 port 1 || rc=1
	expect 1 "another feed serves that group and port" \
		$IBTICK feed add b0 group 239.3.0.1 port 7300 netdev veth0 || rc=1
	expect 1 "no such feed (attribute name)" $IBTICK feed del nosuch || rc=1
	expect 2 "needs group and port" $IBTICK feed add b0 group 239.3.0.9 || rc=1
	expect 2 "unknown feed add parameter" $IBTICK feed add b0 group 239.3.0.9 port 1 colour red || rc=1
	expect 2 "not a number" $IBTICK feed add b0 group 239.3.0.9 port 70000 || rc=1
	expect 2 "no network interface" $IBTICK feed add b0 group 239.3.0.9 port 1 netdev nope0 || rc=1
	expect 2 "member is" $IBTICK feed add b0 group 239.3.0.9 port 1 member half || rc=1
	expect 1 "readers make a feed full (attribute member)" $IBTICK feed set t1 member full || rc=1
	expect 1 "prefer-defer is at most 100000 us (or the default) (attribute prefer-defer)" \
		$IBTICK feed add b0 group 239.3.0.9 port 1 prefer-defer 100001 || rc=1
	expect 1 "(attribute prefer-defer)" $IBTICK feed set t1 prefer-defer 4294967294 || rc=1
	expect 2 "is not a number" $IBTICK feed set t1 prefer-defer soon || rc=1
	# nothing of it was created
	check_eq "$($IBTICK -j feed show | jin "sorted(f['name'] for f in j)")" "['t1']" "feeds"
	check_err $rc
	log_test "feed add/del bad input: kernel refusals name the attribute (exit 1), usage errors exit 2"
}

# has TEXT WORD...: every WORD is in TEXT (words compared whole); says
# which is missing
has() {
	local t=" $(echo $1) " w
	shift
	for w in "$@"; do
		[[ $t == *" $w "* ]] || { echo "  missing '$w' in:$t"; return 1; }
	done
}

# lacks TEXT WORD...: no WORD is in TEXT as a word
lacks() {
	local t=" $(echo $1) " w
	shift
	for w in "$@"; do
		[[ $t != *" $w "* ]] || { echo "  '$w' without -d in:$t"; return 1; }
	done
}

# -d shows what plain output leaves out, with the values the kernel and
# rdma(8) have; plain text and JSON have none of it
show_details() {
	local rc=0 plain det qpn id ifi di p json keys rb
	add_t1 comp-vector 0 poll busy cpu 0 loopback deny || rc=1
	nap 1
	plain=$($IBTICK feed show t1) || rc=1
	det=$($IBTICK -d feed show t1) || rc=1
	echo "$det" | sed 's/^/  -d: /'
	qpn=$(echo "$det" | sed -n 's/.* qpn \([0-9]*\) .*/\1/p')
	# the QP -d names is the UD QP rdma lists for rxe0
	[[ -n $qpn ]] && rdma res show qp lqpn "$qpn" 2>/dev/null | grep -q "rxe0.*type UD" ||
		{ echo "  qpn '$qpn' is not a UD QP of rxe0:"; rdma res show qp | head -5; rc=1; }
	ifi=$(cat /sys/class/net/veth0/ifindex)
	di=$(rdma -j dev show rxe0 | jin "j[0]['ifindex']")
	has "$det" t1: group 239.3.0.1 port 7300 netdev veth0 ifindex "$ifi" dev rxe0/1 \
		dev_index "$di" slots 1024 slot-size 128 wire_max poll busy cpu 0 comp-vector 0 \
		loopback deny owner 0:0 mode 0640 member send-only qpn "$qpn" \
		qkey "$(jq_feed t1 "f['qkey']")" mgid "$(jq_feed t1 "f['mgid']")" || rc=1
	# geometry: -d's ring bytes hold the slots asked for
	rb=$(echo "$det" | sed -n 's/.* ring_bytes \([0-9]*\).*/\1/p')
	((${rb:-0} >= 1024 * 128)) || { echo "  ring_bytes '$rb'"; rc=1; }
	has "$plain" t1: group 239.3.0.1 port 7300 netdev veth0 dev rxe0/1 admin live readers || rc=1
	lacks "$plain" ifindex dev_index slots slot-size ring_bytes wire_max poll comp-vector \
		loopback owner mode member qpn qkey mgid || rc=1
	# JSON: the same keys with -d only
	keys="'ifindex', 'dev_index', 'slots', 'slot_size', 'ring_bytes', 'wire_max', 'poll', 'poll_cpu', 'comp_vector', 'loopback', 'owner', 'owner_group', 'mode', 'member', 'qpn', 'qkey', 'mgid'"
	json=$($IBTICK -j feed show t1)
	check_eq "$(echo "$json" | jin "sorted(k for k in ($keys) if k in j[0])")" "[]" "JSON keys without -d"
	check_eq "$(jq_feed t1 "sorted(k for k in ($keys) if k not in f)")" "[]" "JSON keys with -d"
	check_eq "$(jq_feed t1 "f['qpn'], f['ifindex'], f['dev_index'], f['slots'], f['poll_cpu']")" \
		"$qpn $ifi $di 1024 0" "JSON -d values"
	# sock show -d: the reader's feed id, mappings, loopback
	$SUB -i veth0 -n 1000000 -t $(tmo 30) 239.3.0.1 7300 >/dev/null 2>"$R/d.err" &
	p=$!
	wait_bound "$R/d.err" || rc=1
	id=$(jq_feed t1 "f['id']")
	plain=$($IBTICK sock show feed t1) || rc=1
	det=$($IBTICK -d sock show feed t1) || rc=1
	echo "  -d: $det"
	has "$det" "pid" "$p" feed t1 feed_id "$id" mappings 0 loopback || rc=1
	has "$plain" "pid" "$p" feed t1 || rc=1
	lacks "$plain" feed_id mappings loopback || rc=1
	check_eq "$($IBTICK -j sock show feed t1 | jin "sorted(k for k in ('feed_id', 'mappings', 'loopback') if k in j[0])")" "[]" "sock JSON without -d"
	check_eq "$($IBTICK -j -d sock show feed t1 | jin "j[0]['feed_id'], j[0]['mappings'], type(j[0]['loopback']).__name__")" \
		"$id 0 bool" "sock JSON -d"
	kill $p 2>/dev/null
	wait $p 2>/dev/null
	check_err $rc
	log_test "-d: feed and sock show add the ring, poll, ACL, QP (rdma's) and ids, in text and JSON; plain output has none of them"
}

# socks_done: t1's two sockets in $R/socks.json, each having had 300 ticks
socks_done() {
	"$IBTICK" -j sock show feed t1 >"$R/socks.json" &&
		jtrue "$R/socks.json" "len(j) == 2 and all(s['stats']['rx_ticks'] + s['lost'] == 300 for s in j)"
}

sock_show_truth() {
	local rc=0 p1 p2 ino
	add_t1 || rc=1
	$SUB -i veth0 -n 1000000 -t $(tmo 30) -j 239.3.0.1 7300 >"$R/s1.json" 2>"$R/s1.err" &
	p1=$!
	$SUB -i veth0 -n 1000000 -t $(tmo 30) -j 239.3.0.1 7300 >"$R/s2.json" 2>"$R/s2.err" &
	p2=$!
	wait_bound "$R/s1.err" "$R/s2.err" || rc=1
	$PUB -i veth1 -n 300 -r 1000 239.3.0.1 7300 || rc=1
	# until both readers have had (or lost) all 300
	until_true 10 socks_done || rc=1
	jtrue "$R/socks.json" "sorted(s['pid'] for s in j) == sorted([$p1, $p2])" ||
		{ echo "  pids: $(cat "$R/socks.json")"; rc=1; }
	jtrue "$R/socks.json" "all(s['mode'] == 'recvmsg' and s['feed'] == 't1' and s['stats']['rx_ticks'] + s['lost'] == 300 and s['lag'] == 0 for s in j)" ||
		{ echo "  counters: $(cat "$R/socks.json")"; rc=1; }
	# the inode is the one /proc shows for the reader's socket
	ino=$(jget "$R/socks.json" "[s['inode'] for s in j if s['pid'] == $p1][0]")
	ls -l /proc/$p1/fd | grep -q "socket:\[$ino\]" || { echo "  inode $ino not in /proc/$p1/fd"; rc=1; }
	# the pid filter, and the feed's own view
	check_eq "$($IBTICK -j sock show pid $p2 | jin "[s['pid'] for s in j]")" "[$p2]" "pid filter"
	check_eq "$(jq_feed t1 "f['readers'], f['sockets'], f['stats']['rx_ticks']")" "2 2 300" "feed counts"
	$IBTICK -s feed show t1 | grep -q "rx_ticks 300" || { echo "  -s feed show lacks rx_ticks"; rc=1; }
	kill $p1 $p2 2>/dev/null
	wait $p1 $p2 2>/dev/null
	check_eq "$($IBTICK -j sock show feed t1)" "[]" "sockets after close"
	check_err $rc
	log_test "sock show: pids, inodes, modes and counters match the readers; feed readers/rx_ticks"
}

# rx_is FEED N: FEED's kernel rx_ticks counter reads N
rx_is() {
	[[ $(jq_feed "$1" "f['stats']['rx_ticks']") == "$2" ]]
}

stats_reset_and_deltas() {
	local rc=0 p
	# a full member from the start: it counts ticks with no reader bound
	add_t1 member full || rc=1
	check_eq "$(jq_feed t1 "f['member']")" full "member full asked at feed add"
	export IBTICK_STATS_FILE=$R/stats.snap
	# 50 before the reset, 100 after
	$PUB -i veth1 -n 50 -r 1000 239.3.0.1 7300 || rc=1
	until_true 10 rx_is t1 50 || rc=1
	$IBTICK stats reset >/dev/null || rc=1
	$PUB -i veth1 -n 100 -r 1000 239.3.0.1 7300 || rc=1
	until_true 10 rx_is t1 150 || rc=1
	"$IBTICK" -j stats feed >"$R/stats.json" || rc=1
	jtrue "$R/stats.json" "[c['counters']['rx_ticks'] for c in j if c['name'] == 't1'] == [100]" ||
		{ echo "  since reset: $(cat "$R/stats.json")"; rc=1; }
	# the kernel's counter itself did not go back
	check_eq "$(jq_feed t1 "f['stats']['rx_ticks']")" 150 "monotonic"
	# -s -s: what was gained over 2 s while 50/s were published
	$PUB -i veth1 -n 150 -r 50 239.3.0.1 7300 &
	p=$!
	# (the interval starts once the publisher runs)
	nap 0.5
	"$IBTICK" -j -s -s stats feed interval 2 >"$R/delta.json" || rc=1
	wait $p
	jtrue "$R/delta.json" "0 < [c['counters']['rx_ticks'] for c in j if c['name'] == 't1'][0] <= 110" ||
		{ echo "  delta: $(cat "$R/delta.json")"; rc=1; }
	# dev counters include the port events and (if any) sysfs counters
	"$IBTICK" -j stats dev | jin "any('port_active' in c['counters'] for c in j)" | grep -qx True ||
		{ echo "  stats dev without port_active"; rc=1; }
	unset IBTICK_STATS_FILE
	log_test "stats: reset snapshot subtracts, kernel counters monotonic, -s -s deltas over an interval" $rc
}

unprivileged_denied() {
	local rc=0 p p2
	add_t1 || rc=1
	# a root reader on t1, for sock show to show
	$SUB -i veth0 -n 1000000 -t $(tmo 30) 239.3.0.1 7300 >/dev/null 2>"$R/u.err" &
	p=$!
	wait_bound "$R/u.err" || rc=1
	expect 1 "Operation not permitted" "${NOBODY[@]}" $IBTICK feed add u1 group 239.3.0.5 port 1 || rc=1
	expect 1 "Operation not permitted" "${NOBODY[@]}" $IBTICK feed set t1 mode 0666 || rc=1
	expect 1 "Operation not permitted" "${NOBODY[@]}" $IBTICK feed del t1 || rc=1
	expect 0 "t1" "${NOBODY[@]}" $IBTICK feed show || rc=1
	# sock show: nobody sees its own socket (on an auto feed), not root's;
	# root sees both
	"${NOBODY[@]}" $SUB -i veth0 -n 1000000 -t $(tmo 30) 239.3.0.6 7306 >/dev/null 2>"$R/u2.err" &
	p2=$!
	wait_bound "$R/u2.err" || rc=1
	"${NOBODY[@]}" $IBTICK -j sock show >"$R/u-socks.json" || rc=1
	jtrue "$R/u-socks.json" "[(s['pid'], s['uid']) for s in j] == [($p2, 65534)]" ||
		{ echo "  sock show as nobody: $(cat "$R/u-socks.json")"; rc=1; }
	$IBTICK -j sock show >"$R/r-socks.json" || rc=1
	jtrue "$R/r-socks.json" "sorted(s['pid'] for s in j) == sorted([$p, $p2])" ||
		{ echo "  sock show as root: $(cat "$R/r-socks.json")"; rc=1; }
	check_eq "$(jq_feed t1 "f['mode']")" 0640 "mode after denied set"
	# (nobody's reader made an auto feed; no admin feed came or went)
	check_eq "$($IBTICK -j feed show | jin "[f['name'] for f in j if f['type'] == 'admin']")" "['t1']" \
		"admin feeds after denied add/del"
	log_test "unprivileged: every mutating op EPERM, shows allowed (own sockets only), nothing changed" $rc
}

# tx_above FEED N: FEED's kernel tx_ticks counter is above N
tx_above() {
	(($(jq_feed "$1" "f['stats']['tx_ticks']") > $2))
}

acl_enforced() {
	local rc=0 p tx0
	add_t1 || rc=1
	# t1 is 0640 root:root: nobody may not subscribe - there, nor to the
	# same group and port through another local port (an auto feed there)
	expect 1 "Permission denied" "${NOBODY[@]}" $SUB -i veth0 -n 1 -t 1 239.3.0.1 7300 || rc=1
	expect 1 "Permission denied" "${NOBODY[@]}" $SUB -i veth1 -n 1 -t 1 239.3.0.1 7300 || rc=1
	$IBTICK feed set t1 mode 0644 || rc=1
	"${NOBODY[@]}" $SUB -i veth0 -n 5 -t $(tmo 20) -j 239.3.0.1 7300 >"$R/n.json" 2>"$R/n.err" &
	wait_bound "$R/n.err" || rc=1
	# and may not publish on it (0644: owner only).  A feed is per device
	# port: t1 is rxe0's, so its publishers are those on veth0.
	expect 1 "Permission denied" "${NOBODY[@]}" $PUB -i veth0 -n 1 239.3.0.1 7300 || rc=1
	# on veth1 the same group and port would be an auto feed: t1's ACL
	# owns them on every port
	expect 1 "Permission denied" "${NOBODY[@]}" $PUB -i veth1 -n 1 239.3.0.1 7300 || rc=1
	$PUB -i veth1 -n 5 -r 100 239.3.0.1 7300 || rc=1
	wait
	jtrue "$R/n.json" "j['delivered'] + j['lost'] == 5" || { echo "  nobody read: $(cat "$R/n.json")"; rc=1; }
	# mode 0646: others may publish, without CAP_NET_RAW
	$IBTICK feed set t1 mode 0646 || rc=1
	"${NOBODY[@]}" $PUB -i veth0 -n 3 239.3.0.1 7300 >/dev/null 2>&1 || { echo "  0646 publish refused"; rc=1; }
	# a publisher whose right is taken away is refused at its next send,
	# and at every one after it
	# (100/s for up to 1000 s: it must be stopped by the revocation)
	tx0=$(jq_feed t1 "f['stats']['tx_ticks']")
	"${NOBODY[@]}" $PUB -i veth0 -n 100000 -r 100 239.3.0.1 7300 >"$R/rev.out" 2>"$R/rev.err" &
	p=$!
	# revoked while it publishes: once it has sent
	until_true 10 tx_above t1 "$tx0" ||
		{ echo "  the 0646 publisher did not start: $(cat "$R/rev.err")"; rc=1; }
	$IBTICK feed set t1 mode 0640 || rc=1
	wait_gone $p $(tmo 10) || { echo "  still publishing after the revocation"; rc=1; }
	grep -q "send: Permission denied" "$R/rev.err" ||
		{ echo "  revoked publisher: $(cat "$R/rev.err" "$R/rev.out")"; rc=1; }
	expect 1 "Permission denied" "${NOBODY[@]}" $PUB -i veth0 -n 1 239.3.0.1 7300 || rc=1
	# a reader whose right is taken away is refused at its next recvmsg,
	# also while it sleeps in one
	$IBTICK feed set t1 mode 0644 || rc=1
	"${NOBODY[@]}" $SUB -i veth0 -n 100 -t $(tmo 20) 239.3.0.1 7300 >"$R/revr.out" 2>"$R/revr.err" &
	p=$!
	wait_bound "$R/revr.err" || rc=1
	nap 0.5
	$IBTICK feed set t1 mode 0640 || rc=1
	wait_gone $p $(tmo 10) || { echo "  the revoked reader still reads"; rc=1; }
	grep -q "recvmsg: Permission denied" "$R/revr.err" ||
		{ echo "  revoked reader: $(cat "$R/revr.err")"; rc=1; }
	log_test "ACL: subscribe and publish decided by owner/group/mode at bind, connect, send and recvmsg, on every port" $rc
}

dead_admin_keeps_address() {
	local rc=0
	$IBTICK feed add k1 group 239.3.3.1 port 7330 netdev veth1 mode 0600 || rc=1
	rdma link delete rxe1
	rdma link add rxe1 type rxe netdev veth1
	wait_state rxe1 ACTIVE || rc=1
	check_eq "$(jq_feed k1 "f['state'], f['type']")" "dead admin" "k1 after its device went"
	# nobody may not take its address with an auto feed (and bypass its ACL)
	expect 1 "Cannot assign requested address" "${NOBODY[@]}" $SUB -i veth1 -n 1 -t 1 239.3.3.1 7330 || rc=1
	$IBTICK feed del k1 || rc=1
	"${NOBODY[@]}" $SUB -i veth1 -n 1 -t 1 239.3.3.1 7330 >/dev/null 2>"$R/k.err"
	grep -q bound "$R/k.err" || { echo "  after feed del: $(cat "$R/k.err")"; rc=1; }
	log_test "an admin feed whose device went stays, dead, keeping its address until feed del" $rc
}

auto_feeds_off() {
	local rc=0
	add_t1 || rc=1
	echo 0 >/sys/module/ibtick/parameters/auto_feeds
	expect 1 "Cannot assign requested address" $SUB -i veth0 -n 1 -t 1 239.3.0.7 7307 || rc=1
	$SUB -i veth0 -n 1 -t 1 239.3.0.1 7300 >/dev/null 2>&1
	[[ $? != 1 ]] || { echo "  bind to admin feed t1 refused"; rc=1; }
	echo 1 >/sys/module/ibtick/parameters/auto_feeds
	log_test "auto_feeds=0: binds only to admin feeds" $rc
}

feed_del_ends_readers() {
	local rc=0 p
	$IBTICK feed add d1 group 239.3.0.2 port 7302 netdev veth0 || rc=1
	$SUB -i veth0 -n 100000 -t $(tmo 60) 239.3.0.2 7302 >"$R/d.out" 2>"$R/d.err" &
	p=$!
	wait_bound "$R/d.err" || rc=1
	$IBTICK feed del d1 || rc=1
	timeout $(tmo 10) tail --pid=$p -f /dev/null || { echo "  reader still running after feed del"; rc=1; }
	grep -q "No such device" "$R/d.err" || { echo "  reader: $(cat "$R/d.err")"; rc=1; }
	expect 1 "no such feed" $IBTICK feed show d1 || rc=1
	log_test "feed del: the feed goes at once, a blocked reader gets ENODEV" $rc
}

batch_save_restore() {
	local rc=0
	add_t1 || rc=1
	$IBTICK feed add b1 group 239.3.1.1 port 7310 netdev veth0 slots 256 slot-size 512 owner 0:0 mode 0604 || rc=1
	$IBTICK feed add b2 group 239.3.1.2 port 7311 netdev veth1 poll busy loopback deny || rc=1
	$IBTICK -j -d feed show >"$R/before.json"
	$IBTICK feed save >"$R/feeds.batch" || rc=1
	# one "feed add" line per admin feed: t1, b1, b2
	check_eq "$(sed -n 's/^feed add \([^ ]*\) .*/\1/p' "$R/feeds.batch" | sort | xargs)" "b1 b2 t1" "saved feeds"
	$IBTICK -b - <<<"feed del b1
# a comment

feed del b2
feed del t1" || rc=1
	check_eq "$($IBTICK -j feed show)" "[]" "all deleted"
	$IBTICK -b "$R/feeds.batch" || rc=1
	$IBTICK -j -d feed show >"$R/after.json"
	python3 - "$R/before.json" "$R/after.json" <<'PY' || rc=1
import json, sys
keys = ('name', 'group', 'port', 'netdev', 'slots', 'slot_size', 'poll',
        'loopback', 'owner', 'owner_group', 'mode', 'type')
pick = lambda f: {k: f.get(k) for k in keys}
b = sorted(map(pick, json.load(open(sys.argv[1]))), key=lambda f: f['name'])
a = sorted(map(pick, json.load(open(sys.argv[2]))), key=lambda f: f['name'])
if a != b:
    print("  before:", b, "\n  after: ", a)
    sys.exit(1)
PY
	# a failing line stops the batch (exit 1, line named); -f goes on
	printf 'feed del nosuch\nfeed del b2\n' >"$R/bad.batch"
	expect 1 "bad.batch:1: command failed" $IBTICK -b "$R/bad.batch" || rc=1
	check_eq "$(jq_feed b2 "f['name']")" b2 "stopped at line 1"
	expect 1 "bad.batch:1: command failed" $IBTICK -f -b "$R/bad.batch" || rc=1
	expect 1 "no such feed" $IBTICK feed show b2 || rc=1
	log_test "feed save | ibtick -b recreates the admin feeds; batch stops at a failure unless -f" $rc
}

monitor_events() {
	local rc=0 m ev
	"$IBTICK" -j monitor >"$R/events.jsonl" 2>"$R/monitor.err" &
	m=$!
	wait_for "$R/events.jsonl" '"event":"ready"' || rc=1
	$IBTICK feed add m1 group 239.3.2.1 port 7320 netdev veth0 slots 64 || rc=1
	# a reader 10 ms a tick on a 64-slot ring, 400 ticks at 1000/s: lapped
	$SUB -i veth0 -d 10000 -n 400 -t $(tmo 5) 239.3.2.1 7320 >/dev/null 2>"$R/m.err" &
	wait_bound "$R/m.err" || rc=1
	$PUB -i veth1 -n 400 -r 1000 239.3.2.1 7320 || rc=1
	wait_gone $! $(tmo 20) || rc=1
	$IBTICK feed del m1 || rc=1
	ip link set veth0 down
	wait_state rxe0 DOWN
	ip link set veth0 up
	wait_state rxe0 ACTIVE
	rig_routes
	rdma link delete rxe1
	rdma link add rxe1 type rxe netdev veth1
	wait_for "$R/events.jsonl" '"event":"dev_added","dev":"rxe1"' || rc=1
	kill -TERM $m
	wait_gone $m 5 || { echo "  monitor ignored SIGTERM"; rc=1; }
	ev=$(python3 -c "
import json,sys
print(' '.join(e['event'] + ('' if 'feed' not in e else ':' + e['feed']) for e in map(json.loads, open(sys.argv[1]))))" "$R/events.jsonl")
	echo "  events: $ev" | cut -c1-300
	python3 - "$R/events.jsonl" <<'PY' || rc=1
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
names = [e['event'] + (':' + e.get('feed', e.get('dev', ''))) for e in ev]
want = ['feed_created:m1', 'join_done:m1', 'reader_lapped:m1', 'feed_destroyed:m1',
        'port_down:rxe0', 'port_up:rxe0', 'dev_removed:rxe1', 'dev_added:rxe1']
pos = -1
for w in want:
    try:
        pos = names.index(w, pos + 1)
    except ValueError:
        print('  missing (in order):', w)
        sys.exit(1)
lap = [e for e in ev if e['event'] == 'reader_lapped']
if not all(e['count'] > 0 and e['total'] >= e['count'] and e['pid'] > 0 for e in lap):
    print('  lapped events without counts:', lap)
    sys.exit(1)
PY
	log_test "monitor -j: feed add, join, lap, del, port down/up, rdma link delete/add seen in order" $rc
}

doctor_healthy_and_broken() {
	local rc=0 fake=$R/cpu
	# the rig's multicast routes (vm-guest-init.sh), in case a link taken
	# down earlier took them with it
	rig_routes
	"$IBTICK" -j doctor --fast >"$R/doc.json"
	check_err $? "doctor on a healthy rig"
	jtrue "$R/doc.json" "not [c for c in j if c['status'] == 'FAIL']" ||
		{ echo "  healthy: $(cat "$R/doc.json")" | cut -c1-600; rc=1; }
	jtrue "$R/doc.json" "sorted(c['subject'] for c in j if c['check'] == 'mc-route' and c['status'] == 'PASS' and '224.0.0.0/4' in c['seen']) == ['rxe0/1', 'rxe1/1']" ||
		{ echo "  mc-route: $(cat "$R/doc.json")" | cut -c1-600; rc=1; }
	ip link set veth0 down
	"$IBTICK" -j doctor --fast >"$R/doc-down.json"
	[[ $? == 1 ]] || { echo "  doctor passed with veth0 down"; rc=1; }
	jtrue "$R/doc-down.json" "any(c['status'] == 'FAIL' and 'ip link set veth0 up' in c['fix'] for c in j)" ||
		{ echo "  down: $(cat "$R/doc-down.json")" | cut -c1-800; rc=1; }
	ip link set veth0 up
	wait_state rxe0 ACTIVE
	# the link's routes went down with it: the multicast one is missed
	"$IBTICK" -j doctor --fast >"$R/doc-noroute.json"
	jtrue "$R/doc-noroute.json" "[c['status'] for c in j if c['check'] == 'mc-route' and c['subject'] == 'rxe0/1'] == ['WARN'] and any('ip route add 224.0.0.0/4 dev veth0' in (c['fix'] or '') for c in j)" ||
		{ echo "  no route: $(cat "$R/doc-noroute.json")" | cut -c1-800; rc=1; }
	# a narrower route that leaves a feed's group out: that feed named
	ip route replace 239.1.0.0/16 dev veth0 metric 100
	"$IBTICK" feed add docroute group 239.3.7.1 port 7377 netdev veth0 ||
		{ echo "  feed add docroute"; rc=1; }
	"$IBTICK" -j doctor --fast >"$R/doc-narrow.json"
	jtrue "$R/doc-narrow.json" "[c['status'] for c in j if c['check'] == 'mc-route' and c['subject'] == 'rxe0/1'] == ['WARN'] and any(c['check'] == 'mc-route' and \"none covers feed docroute's group 239.3.7.1\" in c['seen'] for c in j)" ||
		{ echo "  narrow route: $(cat "$R/doc-narrow.json")" | cut -c1-800; rc=1; }
	ip route replace 224.0.0.0/4 dev veth0 metric 100
	"$IBTICK" -j doctor --fast >"$R/doc-covered.json"
	jtrue "$R/doc-covered.json" "any(c['check'] == 'mc-route' and c['subject'] == 'rxe0/1' and c['status'] == 'PASS' and 'covers the group' in c['seen'] for c in j)" ||
		{ echo "  covered: $(cat "$R/doc-covered.json")" | cut -c1-800; rc=1; }
	ip route del 239.1.0.0/16 dev veth0
	"$IBTICK" feed del docroute || rc=1
	mkdir -p "$fake/cpu0/cpufreq"
	echo powersave >"$fake/cpu0/cpufreq/scaling_governor"
	IBTICK_CPU_SYSFS=$fake "$IBTICK" -j doctor --fast --app-cpus 0 >"$R/doc-gov.json"
	jtrue "$R/doc-gov.json" "any(c['status'] == 'WARN' and 'powersave' in c['seen'] and 'performance' in c['fix'] for c in j)" ||
		{ echo "  governor: $(cat "$R/doc-gov.json")" | cut -c1-800; rc=1; }
	check_err $rc
	log_test "doctor: passes when healthy, FAIL + fix for a down veth, WARN for a missing multicast route, for one that leaves a feed's group out, and for powersave"
}

nlstress_random() {
	local rc=0
	[[ -x tests/vm/nlstress ]] || { log_test "nlstress" 1 "tests/vm/nlstress not built"; return; }
	tests/vm/nlstress -n $(cnt 4000 500) -s 1 >"$R/nls.txt" 2>&1 || rc=1
	tests/vm/nlstress -n $(cnt 1500 300) -s 2 -u 65534 >>"$R/nls.txt" 2>&1 || rc=1
	sed 's/^/  /' "$R/nls.txt"
	log_test "nlstress: random requests, mostly malformed (root and unprivileged): errors or valid answers, no anomaly" $rc
}

require_guest
run_tests
