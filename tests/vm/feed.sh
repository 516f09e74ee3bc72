#!/usr/bin/env bash
# VM topic: the AF_IBTICK data path on Soft-RoCE.  A publisher on rxe1
# (veth1), subscribers on rxe0 (veth0) and on rxe1 itself (loopback policy);
# conservation of every tick, one delivery per tick (a publisher's feed is a
# send-only member until a reader binds on its host), a lapped slow reader, the socket API's error
# table, device removal under blocked readers, unload refused while sockets
# exist, who may publish, and a publisher stalled on its own buffer that
# holds up nobody else, and a slow join that holds up only its own feed.
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/vm/lib.sh
. tests/vm/lib.sh

IBTICK=user/ibtick/ibtick
SUB=user/tools/ibtick-sub
PUB=user/tools/ibtick-pub
ALL_TESTS="socket_api_table pubsub_conservation slow_reader_lapped
	publish_needs_cap_net_raw port_flap_rejoin device_removal_blocked_reader
	unload_refused_with_sockets stalled_send_blocks_nobody
	send_only_until_reader slow_join_blocks_nobody async_error_ends_feed
	auto_feed_limits multi_feed_table multi_feed_io multi_feed_device_removal
	multi_feed_revoked"
N=${N:-$(cnt 100000)}

socket_api_table() {
	tests/vm/sockapi table veth0 veth1
	log_test "socket API: bad input table with errnos, MSG_TRUNC, poll/epoll, timestamps" $?
}

multi_feed_table() {
	tests/vm/multifeed table veth0 veth1
	log_test "multi-feed sockets: ADD_FEED/DROP_FEED/FEEDS/MEMBER_CURSOR/SIOC_WAIT errno table, the cap" $?
}

multi_feed_io() {
	local ip
	ip=$(ip -4 -o addr show dev veth1 | awk '{ sub("/.*", "", $4); print $4; exit }')
	tests/vm/multifeed io veth0 veth1 "$ip"
	log_test "multi-feed sockets: 3 feeds on one socket, per-feed conservation, wake-ups, sources, lapped member, mapped member, drop, IBTICK_SIOC_WAIT" $?
}

multi_feed_revoked() {
	local rc=0 r=$RESULTS/multirevoke pid
	mkdir -p "$r"
	chmod 0755 "$r"
	$IBTICK feed add mrev group 239.1.10.50 port 7390 netdev veth0 mode 0644 || rc=1
	"${NOBODY[@]}" tests/vm/multifeed revoke veth0 >"$r/out" 2>&1 &
	pid=$!
	wait_for "$r/out" bound || rc=1
	$PUB -i veth1 -n 5 -r 1000 239.1.10.50 7390 >/dev/null || rc=1
	$PUB -i veth1 -n 5 -r 1000 239.1.10.51 7391 >/dev/null || rc=1
	kill -USR1 "$pid"
	wait_for "$r/out" read1 || rc=1
	$IBTICK feed set mrev mode 0640 || rc=1
	$PUB -i veth1 -n 5 -r 1000 239.1.10.50 7390 >/dev/null || rc=1
	$PUB -i veth1 -n 5 -r 1000 239.1.10.51 7391 >/dev/null || rc=1
	kill -USR1 "$pid"
	wait_for "$r/out" read2 || rc=1
	$IBTICK feed del mrev || rc=1
	kill -USR1 "$pid"
	wait_for "$r/out" read3 || rc=1
	$PUB -i veth1 -n 1 239.1.10.51 7391 >/dev/null || rc=1
	wait "$pid" || rc=1
	cat "$r/out"
	log_test "multi-feed socket: a revoked member gets EACCES once, the others go on, no spinning once it is gone" $rc
}

multi_feed_device_removal() {
	local rc=0 r=$RESULTS/multidead pid
	mkdir -p "$r"
	tests/vm/multifeed dead veth1 veth0 >"$r/out" 2>&1 &
	pid=$!
	wait_for "$r/out" bound || rc=1
	# sock show: the socket reads 2 feeds, and each feed's filter finds it
	[[ $($IBTICK -j sock show pid $pid | jin "[s['feeds'] for s in j]") == "[2]" ]] ||
		{ echo "  sock show: $($IBTICK -j sock show pid $pid)"; rc=1; }
	for name in $($IBTICK -j feed show |
		      jin "' '.join(f['name'] for f in j if f['port'] in (7380, 7381))"); do
		[[ $($IBTICK -j sock show feed "$name" pid $pid | jin "len(j)") == 1 ]] ||
			{ echo "  sock show feed $name misses the socket"; rc=1; }
	done
	rdma link delete rxe1 || rc=1
	kill -USR1 "$pid"
	wait_for "$r/out" half && wait_blocked "$pid" || rc=1
	rxe_delete_under "$pid" "$r/out" rxe0 veth0 || rc=1
	log_test "multi-feed socket: lives on while one member's device does, ENODEV and POLLERR|POLLHUP when none" $rc
}

pubsub_conservation() {
	local rc=0 s r=$RESULTS/conserve
	mkdir -p "$r"
	$SUB -i veth0 -n "$N" -t $(tmo 15) -j 239.2.0.1 7200 >"$r/a.json" 2>"$r/a.err" &
	$SUB -i veth0 -n "$N" -t $(tmo 15) -j 239.2.0.1 7200 >"$r/b.json" 2>"$r/b.err" &
	$SUB -i veth1 -l -n "$N" -t $(tmo 15) -j 239.2.0.1 7200 >"$r/c.json" 2>"$r/c.err" &
	# d skips every tick (all LOCAL): it returns when quiet for 15 s
	$SUB -i veth1 -n "$N" -t $(tmo 15) -j 239.2.0.1 7200 >"$r/d.json" 2>"$r/d.err" &
	wait_bound "$r"/{a,b,c,d}.err || rc=1
	$PUB -i veth1 -n "$N" 239.2.0.1 7200 || rc=1
	wait
	for s in a b c; do
		echo "  $s: $(cat "$r/$s.json")"
		# every tick the feed took is delivered or counted lost, once
		jtrue "$r/$s.json" "j['delivered'] + j['lost'] == j['feed_rx'] and j['dups'] == 0" ||
			{ echo "  $s: delivered + lost != feed_rx"; rc=1; }
		# and what the wire dropped shows as missing sequences
		jtrue "$r/$s.json" "j['unique'] + j['missing'] == $N and j['unique'] == j['delivered']" ||
			{ echo "  $s: unique + missing != $N"; rc=1; }
		jtrue "$r/$s.json" "j['feed_rx'] >= 0.95 * $N and j['rx_ts_backwards'] == 0" ||
			{ echo "  $s: feed took < 95% or RX time went backwards"; rc=1; }
	done
	# loopback off on the publisher's own port: its ticks are skipped there
	echo "  d: $(cat "$r/d.json")"
	[[ $(jget "$r/d.json" "j['delivered']") == 0 ]] || { echo "  d saw its own host's ticks"; rc=1; }
	grep -q "skipped_local [1-9]" "$r/d.err" || { echo "  d: skips not counted"; cat "$r/d.err"; rc=1; }
	log_test "$N ticks rxe1 -> 2 subscribers on rxe0 + loopback on rxe1: delivered + lost == received" $rc
}

slow_reader_lapped() {
	local rc=0 r=$RESULTS/lapped
	mkdir -p "$r"
	# the slow reader (10 ms a tick) creates the feed with a 256-slot
	# ring; at 500 ticks/s the fast one has half a second of slack
	$SUB -i veth0 -S 256 -d 10000 -n 3000 -t $(tmo 5) -j 239.2.0.2 7201 >"$r/slow.json" 2>"$r/slow.err" &
	wait_bound "$r/slow.err" || rc=1
	$SUB -i veth0 -n 3000 -t $(tmo 5) -j 239.2.0.2 7201 >"$r/fast.json" 2>"$r/fast.err" &
	wait_bound "$r/fast.err" || rc=1
	$PUB -i veth1 -n 3000 -r 500 239.2.0.2 7201 >/dev/null || rc=1
	wait
	echo "  slow: $(cat "$r/slow.json")"
	echo "  fast: $(cat "$r/fast.json")"
	jtrue "$r/slow.json" "j['lost'] > 0 and j['delivered'] + j['lost'] == j['feed_rx']" || { echo "  slow reader: not lapped, or loss not exact"; rc=1; }
	jtrue "$r/fast.json" "j['lost'] == 0 and j['delivered'] == j['feed_rx']" || { echo "  fast reader lost ticks"; rc=1; }
	log_test "slow reader on a 256-slot ring is lapped and counts it; the fast one loses nothing" $rc
}

publish_needs_cap_net_raw() {
	local rc=0 out
	out=$("${NOBODY[@]}" $PUB -i veth1 -n 1 239.2.0.3 7202 2>&1) && rc=1
	[[ $out == *"Operation not permitted"* ]] || { echo "  unprivileged publish: $out"; rc=1; }
	out=$("${NOBODY[@]}" $SUB -i veth0 -n 1 -t $(tmo 1) 239.2.0.3 7202 2>&1)
	[[ $out == *"bound"* ]] || { echo "  unprivileged subscribe: $out"; rc=1; }
	# the ring of a feed a user creates counts against RLIMIT_MEMLOCK
	out=$(prlimit --memlock=65536 "${NOBODY[@]}" $SUB -i veth0 -n 1 -t $(tmo 1) 239.2.0.6 7206 2>&1) && rc=1
	[[ $out == *"No buffer space available"* ]] || { echo "  64 KiB memlock, 1 MiB ring: $out"; rc=1; }
	# and so are its send and receive buffers (on the rig: 256 + 1024 of
	# 1 KiB, the port's MTU): 1.5 MiB holds the ring, not the rest
	out=$(prlimit --memlock=$((3 << 19)) "${NOBODY[@]}" $SUB -i veth0 -n 1 -t $(tmo 1) 239.2.0.6 7209 2>&1) && rc=1
	[[ $out == *"No buffer space available"* ]] || { echo "  1.5 MiB memlock, 1 MiB ring + buffers: $out"; rc=1; }
	out=$(prlimit --memlock=$((4 << 20)) "${NOBODY[@]}" $SUB -i veth0 -n 1 -t $(tmo 1) 239.2.0.6 7207 2>&1)
	[[ $out == *"bound"* ]] || { echo "  4 MiB memlock, 1 MiB ring + 1.3 MiB of buffers: $out"; rc=1; }
	# a ring smaller than the default would lap everyone after: not a
	# user's to impose on a new auto feed
	out=$("${NOBODY[@]}" $SUB -i veth0 -S 64 -Z 256 -n 1 -t $(tmo 1) 239.2.0.6 7208 2>&1) && rc=1
	[[ $out == *"Operation not permitted"* ]] || { echo "  unprivileged 64-slot ring: $out"; rc=1; }
	log_test "publishing needs CAP_NET_RAW; a created feed's ring and buffers are charged to RLIMIT_MEMLOCK; no ring smaller than the default" $rc
}

# Auto feeds are capped per user (max_user_feeds, not for CAP_NET_ADMIN)
# and host-wide (max_feeds); an administrator's feed add is held back by
# neither.
auto_feed_limits() {
	local rc=0 r=$RESULTS/limits m=/sys/module/ibtick/parameters out
	mkdir -p "$r"
	echo 2 >$m/max_user_feeds
	"${NOBODY[@]}" $SUB -i veth0 -n 1 -t $(tmo 30) 239.2.1.1 7221 >/dev/null 2>"$r/a.err" &
	"${NOBODY[@]}" $SUB -i veth0 -n 1 -t $(tmo 30) 239.2.1.2 7222 >/dev/null 2>"$r/b.err" &
	wait_bound "$r/a.err" "$r/b.err" || rc=1
	out=$("${NOBODY[@]}" $SUB -i veth0 -n 1 -t 1 239.2.1.3 7223 2>&1) && rc=1
	[[ $out == *"No buffer space available"* ]] || { echo "  a third feed of one user: $out"; rc=1; }
	# sharing a feed another user made costs nothing
	out=$("${NOBODY[@]}" $SUB -i veth0 -n 1 -t 1 239.2.1.1 7221 2>&1)
	[[ $out == *"bound"* ]] || { echo "  sharing an existing feed: $out"; rc=1; }
	out=$($SUB -i veth0 -n 1 -t 1 239.2.1.3 7223 2>&1)
	[[ $out == *"bound"* ]] || { echo "  root (CAP_NET_ADMIN) past the user cap: $out"; rc=1; }
	echo 2 >$m/max_feeds
	out=$($SUB -i veth0 -n 1 -t 1 239.2.1.4 7224 2>&1) && rc=1
	[[ $out == *"No buffer space available"* ]] || { echo "  past max_feeds: $out"; rc=1; }
	$IBTICK feed add lim group 239.2.1.5 port 7225 netdev veth0 >/dev/null ||
		{ echo "  feed add refused at max_feeds"; rc=1; }
	$IBTICK feed del lim || rc=1
	echo 256 >$m/max_feeds
	echo 32 >$m/max_user_feeds
	$PUB -i veth1 -n 1 239.2.1.1 7221 >/dev/null
	$PUB -i veth1 -n 1 239.2.1.2 7222 >/dev/null
	wait
	log_test "auto feeds capped per user (max_user_feeds) and per host (max_feeds); feed add is not" $rc
}

port_flap_rejoin() {
	local rc=0 r=$RESULTS/flap pid
	mkdir -p "$r"
	tests/vm/sockapi flap veth0 veth1 >"$r/out" 2>&1 &
	pid=$!
	wait_for "$r/out" phase1 || rc=1
	ip link set veth0 down
	wait_state rxe1 DOWN || { echo "  rxe1 did not go DOWN"; rc=1; }
	kill -USR1 "$pid"
	wait_for "$r/out" phase2 || rc=1
	ip link set veth0 up
	wait_state rxe0 ACTIVE && wait_state rxe1 ACTIVE || { echo "  ports did not come back"; rc=1; }
	rig_routes || rc=1
	kill -USR1 "$pid"
	wait "$pid" || rc=1
	cat "$r/out"
	log_test "port flap: ENETDOWN while down, ticks flow again, membership kept" $rc
}

device_removal_blocked_reader() {
	local rc=0 r=$RESULTS/removal pid
	mkdir -p "$r"
	tests/vm/sockapi wait-dead veth0 >"$r/out" 2>&1 &
	pid=$!
	wait_bound "$r/out" && wait_blocked "$pid" || rc=1
	rxe_delete_under "$pid" "$r/out" rxe0 veth0 || rc=1
	# a new bind on the re-added device works end to end
	$SUB -i veth0 -n 10 -t $(tmo 5) -j 239.2.0.4 7203 >"$r/after.json" 2>"$r/after.err" &
	wait_bound "$r/after.err" || rc=1
	$PUB -i veth1 -n 10 239.2.0.4 7203 >/dev/null || rc=1
	wait
	[[ $(jget "$r/after.json" "j['delivered']") == 10 ]] ||
		{ echo "  after re-add: $(cat "$r/after.json")"; rc=1; }
	log_test "rdma link delete under a blocked reader: ENODEV, POLLERR|POLLHUP, DEAD; re-add works" $rc
}

unload_refused_with_sockets() {
	local rc=0 pid
	tests/vm/sockapi hold >"$RESULTS/hold.out" &
	pid=$!
	wait_for "$RESULTS/hold.out" holding || rc=1
	rmmod ibtick 2>/dev/null && { echo "  unloaded with a socket open"; rc=1; }
	kill "$pid"
	wait "$pid" 2>/dev/null
	rmmod ibtick || rc=1
	insmod kmod/ibtick.ko || rc=1
	log_test "rmmod refused while a socket exists, works after it closes" $rc
}

# ms_of CMD...: run CMD (output discarded), print how long it took in ms;
# CMD's exit status.
ms_of() {
	local t0 rc
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1
	rc=$?
	echo $((($(date +%s%N) - t0) / 1000000))
	return $rc
}

# A send whose user buffer faults for HOLD ms (userfaultfd) must stall its
# own socket only: meanwhile a poll() of that socket, feed show, another
# socket's bind and close, and feed del of the very feed it sends on each
# finish within a second.
stalled_send_blocks_nobody() {
	local rc=0 r=$RESULTS/uffd hold=$((6000 * SLOW)) pid ms
	mkdir -p "$r"
	$IBTICK feed add uf group 239.2.0.9 port 7209 netdev veth1 >/dev/null || rc=1
	tests/vm/uffdsend send veth1 239.2.0.9 7209 "$hold" >"$r/send.out" 2>&1 &
	pid=$!
	wait_for "$r/send.out" stalled || rc=1
	wait_for "$r/send.out" "^poll rc=" || rc=1
	ms=$(sed -n 's/^poll rc=[0-9-]* ms=\([0-9]*\)$/\1/p' "$r/send.out")
	echo "  poll() of the stalled sender's socket: ${ms:-?} ms"
	((${ms:-99999} < 1000)) || { echo "  poll waited for the stalled send"; rc=1; }
	ms=$(ms_of $IBTICK feed show uf) || { echo "  feed show uf failed"; rc=1; }
	echo "  feed show during the stalled send: $ms ms"
	((ms < 1000)) || { echo "  feed show waited for the stalled send"; rc=1; }
	tests/vm/uffdsend bindclose veth0 239.2.0.10 7210 >"$r/bind.out" 2>&1
	cat "$r/bind.out"
	grep -q "^bindclose rc=0 " "$r/bind.out" || rc=1
	ms=$(sed -n 's/.* ms=\([0-9]*\)$/\1/p' "$r/bind.out")
	((${ms:-99999} < 1000)) || { echo "  bind + close waited for the stalled send"; rc=1; }
	ms=$(ms_of $IBTICK feed del uf) || { echo "  feed del uf failed"; rc=1; }
	echo "  feed del of the sender's feed during the stalled send: $ms ms"
	((ms < 1000)) || { echo "  feed del waited for the stalled send"; rc=1; }
	$IBTICK feed show uf >/dev/null 2>&1 && { echo "  uf still listed"; rc=1; }
	# the send itself comes back once its page does, refused: its feed went
	wait "$pid" || rc=1
	cat "$r/send.out"
	grep -q "^sent rc=-1 errno=No such device\|^sent rc=-1 errno=Network is down" "$r/send.out" ||
		{ echo "  the stalled send did not end refused"; rc=1; }
	log_test "a send stalled on its own buffer (userfaultfd) holds up no poll, feed show, bind, close or feed del" $rc
}

# feed_qp NAME: "member deliveries rx_ticks loopback_dropped tx_ticks" of
# feed NAME; deliveries are the receive completions its QP had, by anyone
feed_qp() {
	"$IBTICK" -j -d -s feed show "$1" | JIN_BIND="f = j[0]; s = f['stats']" \
		jin "f['member'], s['cqe_irq'] + s['cqe_thread'] + s['cqe_caller'], s['rx_ticks'], s['loopback_dropped'], s['tx_ticks']"
}

# same ACTUAL EXPECTED WHAT: say what differs, status 1
same() { [[ $1 == "$2" ]] || { echo "  $3: expected '$2', got '$1'"; return 1; }; }

rcvd_pkts() { cat "/sys/class/infiniband/$1/ports/1/hw_counters/rcvd_pkts"; }

# in_group NETDEV GROUP: is NETDEV a member of GROUP at the IP layer (IGMP)?
in_group() { ip maddr show dev "$1" | grep -qE "inet +${2//./\\.}( |\$)"; }

# A feed only publishers use is a send-only member: no IGMP membership of
# its netdev, no QP attached, so a tick reaches exactly one QP - the
# subscriber's - and the publisher's device receives nothing.  The first
# reader on the publisher's host makes it a full member; its own ticks then
# reach that reader (loopback).  Counted by the feeds' completions and by
# the rxe devices' own packet counters.
send_only_until_reader() {
	local rc=0 r=$RESULTS/sendonly g=239.2.0.11 p=7211 n=$(cnt 2000)
	local pub sub rx0 rx1 before
	mkdir -p "$r"
	$IBTICK feed add so_pub group $g port $p netdev veth1 >/dev/null || rc=1
	$IBTICK feed add so_sub group $g port $p netdev veth0 >/dev/null || rc=1
	read -ra pub <<<"$(feed_qp so_pub)"
	read -ra sub <<<"$(feed_qp so_sub)"
	same "${pub[0]} ${sub[0]}" "send-only send-only" "membership with no reader" || rc=1
	in_group veth1 $g && { echo "  veth1 joined $g for a feed with no reader"; rc=1; }
	$SUB -i veth0 -n "$n" -t $(tmo 15) -j $g $p >"$r/a.json" 2>"$r/a.err" &
	wait_bound "$r/a.err" || rc=1
	read -ra sub <<<"$(feed_qp so_sub)"
	same "${sub[0]}" full "so_sub after its first reader" || rc=1
	in_group veth0 $g || { echo "  veth0 did not join $g for its reader"; rc=1; }
	rx0=$(rcvd_pkts rxe0)
	rx1=$(rcvd_pkts rxe1)
	$PUB -i veth1 -n "$n" $g $p || rc=1
	wait
	echo "  a: $(cat "$r/a.json")"
	read -ra pub <<<"$(feed_qp so_pub)"
	read -ra sub <<<"$(feed_qp so_sub)"
	echo "  so_pub: ${pub[*]}; so_sub: ${sub[*]} (member deliveries rx_ticks loopback_dropped tx_ticks)"
	echo "  rxe0 received $(($(rcvd_pkts rxe0) - rx0)) packets, rxe1 $(($(rcvd_pkts rxe1) - rx1))"
	same "${pub[4]}" "$n" "so_pub tx_ticks" || rc=1
	# the publisher's host: no delivery at all
	same "${pub[1]} ${pub[3]} $(($(rcvd_pkts rxe1) - rx1))" "0 0 0" \
		"publisher host: deliveries, loopback drops, rxe1 packets" || rc=1
	# the subscriber's: one delivery per tick that crossed the wire
	((sub[1] == sub[2] && sub[1] <= n && sub[1] * 100 >= n * 95)) ||
		{ echo "  so_sub: deliveries ${sub[1]} != rx_ticks ${sub[2]}, or outside 95-100% of $n"; rc=1; }
	same "$(($(rcvd_pkts rxe0) - rx0))" "${sub[1]}" "rxe0 packets == so_sub deliveries" || rc=1
	jtrue "$r/a.json" "j['delivered'] + j['lost'] == j['feed_rx'] == ${sub[2]}" ||
		{ echo "  a: delivered + lost != the feed's rx_ticks"; rc=1; }

	# a reader on the publisher's host: so_pub becomes a full member
	before=${pub[1]}
	$SUB -i veth1 -l -n "$n" -t $(tmo 15) -j $g $p >"$r/c.json" 2>"$r/c.err" &
	wait_bound "$r/c.err" || rc=1
	read -ra pub <<<"$(feed_qp so_pub)"
	same "${pub[0]}" full "so_pub after a reader bound on its host" || rc=1
	in_group veth1 $g || { echo "  veth1 did not join $g for its reader"; rc=1; }
	$PUB -i veth1 -n "$n" $g $p || rc=1
	wait
	echo "  c: $(cat "$r/c.json")"
	read -ra pub <<<"$(feed_qp so_pub)"
	echo "  so_pub: ${pub[*]}"
	((pub[1] - before == pub[2] && pub[2] * 100 >= n * 95)) ||
		{ echo "  so_pub: the loopback reader's ticks were not delivered once each"; rc=1; }
	jtrue "$r/c.json" "j['delivered'] + j['lost'] == j['feed_rx'] and j['unique'] == j['delivered'] and j['delivered'] * 100 >= $n * 95" ||
		{ echo "  c: its own host's ticks did not arrive"; rc=1; }
	$IBTICK feed del so_pub || rc=1
	$IBTICK feed del so_sub || rc=1
	log_test "a publisher-only feed is a send-only member: one delivery per tick; full member for its first reader" $rc
}

# A feed whose join is slow (debugfs: slow_join_ms for one group, as
# behind a slow subnet manager) holds up only those who want that feed:
# while its creator waits, another feed's bind and close and a feed dump
# each finish within a second; a second binder of the slow feed waits for
# the creation and then shares the feed.
slow_join_blocks_nobody() {
	local rc=0 r=$RESULTS/slowjoin d=/sys/kernel/debug/ibtick g=239.2.0.13 p=7213 ms
	mkdir -p "$r"
	[[ -w $d/slow_join_ms ]] || { log_test "a slow join holds up nobody else" $ksft_skip "no $d"; return; }
	python3 -c 'import socket, struct, sys; print(struct.unpack("=I", socket.inet_aton(sys.argv[1]))[0])' \
		$g >"$d/slow_join_group"
	# long enough that the checks below all run while it waits, under load
	echo $((8000 * SLOW)) >"$d/slow_join_ms"
	$SUB -i veth0 -n 1 -t $(tmo 30) -j $g $p >"$r/a.json" 2>"$r/a.err" &
	nap 0.5
	$SUB -i veth0 -n 1 -t $(tmo 30) -j $g $p >"$r/b.json" 2>"$r/b.err" &
	nap 0.5
	tests/vm/uffdsend bindclose veth0 239.2.0.14 7214 >"$r/bind.out" 2>&1
	cat "$r/bind.out"
	grep -q "^bindclose rc=0 " "$r/bind.out" || rc=1
	ms=$(sed -n 's/.* ms=\([0-9]*\)$/\1/p' "$r/bind.out")
	((${ms:-99999} < 1000)) || { echo "  another feed's bind + close waited for the slow join"; rc=1; }
	ms=$(ms_of $IBTICK feed show) || { echo "  feed show failed"; rc=1; }
	echo "  feed show during the slow join: $ms ms"
	((ms < 1000)) || { echo "  feed show waited for the slow join"; rc=1; }
	# (the slow bind was still waiting then, or this proved nothing)
	grep -q bound "$r/a.err" "$r/b.err" && { echo "  the slow feed was bound already"; rc=1; }
	# an administrator's feed add whose join is slow holds up no other
	# command of ours (the family is parallel: no genl_mutex around it)
	$IBTICK feed add slowadm group $g port 7299 netdev veth0 >"$r/add.out" 2>&1 &
	local addp=$!
	nap 0.5
	ms=$(ms_of $IBTICK feed show) || { echo "  feed show failed"; rc=1; }
	echo "  feed show during a slow feed add: $ms ms"
	((ms < 1000)) || { echo "  feed show waited for the slow feed add"; rc=1; }
	ms=$(ms_of $IBTICK dev show) || { echo "  dev show failed"; rc=1; }
	echo "  dev show during a slow feed add: $ms ms"
	((ms < 1000)) || { echo "  dev show waited for the slow feed add"; rc=1; }
	kill -0 $addp 2>/dev/null || { echo "  the slow feed add was over already: $(cat "$r/add.out")"; rc=1; }
	wait $addp || { echo "  slow feed add: $(cat "$r/add.out")"; rc=1; }
	$IBTICK feed del slowadm || rc=1
	wait_for "$r/a.err" bound 30 || rc=1
	wait_for "$r/b.err" bound 30 || rc=1
	echo 0 >"$d/slow_join_ms"
	echo 0 >"$d/slow_join_group"
	# one feed for both readers
	$IBTICK -j -d feed show | jin "[(f['readers'], f['member']) for f in j if f['group'] == '$g']" >"$r/feeds.txt"
	same "$(cat "$r/feeds.txt")" "[(2, 'full')]" "feeds of $g" || rc=1
	$PUB -i veth1 -n 1 $g $p >/dev/null || rc=1
	wait
	jtrue "$r/a.json" "j['delivered'] == 1" && jtrue "$r/b.json" "j['delivered'] == 1" ||
		{ echo "  a: $(cat "$r/a.json") b: $(cat "$r/b.json")"; rc=1; }
	log_test "a slow join holds up only its own feed's binders and feed add: other binds, closes, dumps, commands go on" $rc
}

# A fatal asynchronous error on a feed's QP (injected through debugfs as
# the device would report it) ends the feed as a device removal does: the
# blocked reader wakes with ENODEV and POLLERR|POLLHUP, monitor sees
# feed_error and feed_destroyed, and a new bind builds a new feed.  A
# non-fatal event (COMM_EST) changes nothing.
async_error_ends_feed() {
	local rc=0 r=$RESULTS/async inj=/sys/kernel/debug/ibtick/inject_async_event pid m id
	mkdir -p "$r"
	[[ -w $inj ]] || { log_test "a fatal QP event ends the feed" $ksft_skip "no $inj"; return; }
	"$IBTICK" -j monitor >"$r/events.jsonl" 2>"$r/monitor.err" &
	m=$!
	wait_for "$r/events.jsonl" ready || rc=1
	tests/vm/sockapi wait-dead veth0 >"$r/out" 2>&1 &
	pid=$!
	wait_bound "$r/out" && wait_blocked "$pid" || rc=1
	id=$("$IBTICK" -j feed show | jin "[f['id'] for f in j if f['group'] == '239.1.9.9' and f['dev'] == 'rxe0'][0]")
	echo "$id 4" >"$inj" || rc=1	# IB_EVENT_COMM_EST: not fatal
	nap 0.5
	same "$("$IBTICK" -j feed show | jin "[f['state'] for f in j if f['id'] == $id]")" "['live']" \
		"feed $id after a non-fatal event" || rc=1
	echo "$id 1" >"$inj" || rc=1	# IB_EVENT_QP_FATAL
	wait_gone "$pid" 10 || { echo "  the reader did not wake"; rc=1; }
	wait "$pid" || { echo "  the reader exited $?"; rc=1; }
	cat "$r/out"
	echo "$id 1" >"$inj" 2>/dev/null && { echo "  injected into a dead feed"; rc=1; }
	nap 0.5
	kill "$m"
	wait "$m"
	grep -v '"ready"' "$r/events.jsonl" | sed 's/^/  | /'
	python3 - "$r/events.jsonl" "$id" <<'PY' || rc=1
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if '"event"' in l]
mine = [e['event'] for e in ev if e.get('feed_id') == int(sys.argv[2])]
err = [e for e in ev if e['event'] == 'feed_error']
ok = (mine.count('feed_error') == 1 and 'feed_destroyed' in mine and
      mine.index('feed_error') < mine.index('feed_destroyed') and
      err[0]['ib_event'] == 1 and err[0]['errno'] == 5 and err[0]['total'] == 1)
sys.exit(0 if ok else 1)
PY
	# the address is free for a new feed, which works
	$SUB -i veth0 -n 10 -t $(tmo 5) -j 239.1.9.9 7900 >"$r/after.json" 2>"$r/after.err" &
	wait_bound "$r/after.err" || rc=1
	$PUB -i veth1 -n 10 239.1.9.9 7900 >/dev/null || rc=1
	wait
	jtrue "$r/after.json" "j['delivered'] == 10" || { echo "  after: $(cat "$r/after.json")"; rc=1; }
	log_test "a fatal QP event ends the feed: reader woken (ENODEV), feed_error event; non-fatal ignored" $rc
}

run_tests
