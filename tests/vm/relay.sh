#!/usr/bin/env bash
# VM topic: ibtick-relay, kernel UDP multicast <-> ibtick feed.  A plain
# UDP sender (tests/vm/udpmc.py, AF_INET only) sends out veth1 to a group
# that relay A (udp-to-feed) joins on veth0 and publishes on a feed on rxe0;
# relay B (feed-to-udp) reads that feed on rxe1 and sends it out veth1 to a
# second group, which a plain UDP receiver joins on veth0 and checks
# datagram by datagram.  Every hop's count must add up to what was sent:
#   A.received + A.udp_rx_dropped                       == sent
#   A.forwarded + A.lost_out                            == A.received
#   B.received + B.feed_lapped + B.feed_gap             == A.forwarded
#   B.forwarded + B.lost_out                            == B.received
#   R.unique + R.rx_dropped                             == B.forwarded
# hence  R.unique + A.lost + B.lost + R.rx_dropped == sent  and R.missing is
# exactly the losses the relays and the receiver counted.
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/vm/lib.sh
. tests/vm/lib.sh

RELAY=user/tools/ibtick-relay
UDPMC=tests/vm/udpmc.py
ALL_TESTS="relay_udp_feed_udp relay_loss_udp_rcvbuf relay_loss_feed_lapped relay_bad_args"
N=${N:-$(cnt 2000)}	# the clean run; the loss runs send half as many

# Groups: UDP in, the feed, UDP out.
G_IN=239.5.0.1 P_IN=9001
G_FEED=239.5.1.1 P_FEED=7401
G_OUT=239.5.0.2 P_OUT=9002

# chain DIR [A_OPTS [B_OPTS]]: the receiver, relay B, relay A, in that order,
# each waited for; their outputs in DIR.  Sets RPID APID BPID.
chain() {
	local d=$1
	mkdir -p "$d"
	python3 $UDPMC recv $G_OUT $P_OUT veth0 "$N" "$(tmo 2)" >"$d/r.json" 2>"$d/r.err" &
	RPID=$!
	# shellcheck disable=SC2086
	$RELAY feed-to-udp -j --from $G_FEED:$P_FEED@veth1 --to $G_OUT:$P_OUT@veth1 \
		${3:-} >"$d/b.out" 2>"$d/b.err" &
	BPID=$!
	# shellcheck disable=SC2086
	$RELAY udp-to-feed -j --from $G_IN:$P_IN@veth0 --to $G_FEED:$P_FEED@veth0 \
		${2:-} >"$d/a.out" 2>"$d/a.err" &
	APID=$!
	wait_bound "$d/r.err" "$d/b.err" "$d/a.err"
}

# finish DIR: wait for the receiver, stop both relays (their final counters
# are the last line of their output), show everything.
finish() {
	local d=$1 rc=0
	wait $RPID || { echo "  receiver exited $?"; rc=1; }
	kill -TERM $APID $BPID
	wait $APID || { echo "  relay A exited $?"; rc=1; }
	wait $BPID || { echo "  relay B exited $?"; rc=1; }
	tail -n 1 "$d/a.out" >"$d/a.json"
	tail -n 1 "$d/b.out" >"$d/b.json"
	echo "  sender:   $(cat "$d/s.json")"
	echo "  relay A:  $(cat "$d/a.json")"
	echo "  relay B:  $(cat "$d/b.json")"
	echo "  receiver: $(cat "$d/r.json")"
	return $rc
}

# sums DIR: every hop's equation (above); prints what does not hold.
sums() {
	python3 - "$1" "$N" <<-'EOF'
		import json, sys
		d, n = sys.argv[1], int(sys.argv[2])
		s, a, b, r = (json.load(open(f"{d}/{x}.json")) for x in "sabr")
		checks = [
		    ("sender sent N", s["sent"] == n and s["errors"] == 0),
		    ("A: received + udp_rx_dropped == sent",
		     a["received"] + a["udp_rx_dropped"] == s["sent"]),
		    ("A: forwarded + lost_out == received",
		     a["forwarded"] + a["lost_out"] == a["received"]),
		    ("A: lost == udp_rx_dropped + lost_out",
		     a["lost"] == a["udp_rx_dropped"] + a["lost_out"]),
		    ("B: received + feed_lapped + feed_gap == A.forwarded",
		     b["received"] + b["feed_lapped"] + b["feed_gap"] == a["forwarded"]),
		    ("B: forwarded + lost_out == received",
		     b["forwarded"] + b["lost_out"] == b["received"]),
		    ("B: lost == feed_lapped + feed_gap + lost_out",
		     b["lost"] == b["feed_lapped"] + b["feed_gap"] + b["lost_out"]),
		    ("R: unique + rx_dropped == B.forwarded",
		     r["unique"] + r["rx_dropped"] == b["forwarded"]),
		    ("R: every payload intact, none twice", r["bad"] == 0 and r["dups"] == 0),
		    ("end to end: R.unique + A.lost + B.lost + R.rx_dropped == sent",
		     r["unique"] + a["lost"] + b["lost"] + r["rx_dropped"] == s["sent"]),
		    ("end to end: R.missing == A.lost + B.lost + R.rx_dropped",
		     r["missing"] == a["lost"] + b["lost"] + r["rx_dropped"]),
		    ("nothing pending at exit", a["pending"] == 0 and b["pending"] == 0),
		]
		bad = [name for name, ok in checks if not ok]
		for name in bad:
		    print(f"  does not add up: {name}")
		sys.exit(1 if bad else 0)
	EOF
}

relay_udp_feed_udp() {
	local rc=0 d=$RESULTS/relay/clean
	chain "$d" "--stats-interval 1" || rc=1
	python3 $UDPMC send $G_IN $P_IN veth1 "$N" 100 1000 >"$d/s.json" || rc=1
	kill -USR1 $BPID
	finish "$d" || rc=1
	sums "$d" || rc=1
	# a paced sender on an idle rig: all but a few arrive
	jtrue "$d/r.json" "j['unique'] >= 0.95 * $N" || { echo "  receiver got < 95%"; rc=1; }
	jtrue "$d/a.json" "j['received'] == j['forwarded'] and j['lost_out'] == 0" ||
		{ echo "  relay A: received != forwarded"; rc=1; }
	jtrue "$d/b.json" "j['received'] == j['forwarded'] and j['lost_out'] == 0" ||
		{ echo "  relay B: received != forwarded"; rc=1; }
	# the counters were printed on the interval and on SIGUSR1 too
	grep -q '"event":"interval"' "$d/a.out" || { echo "  relay A: no interval line"; rc=1; }
	grep -q '"event":"signal"' "$d/b.out" || { echo "  relay B: no SIGUSR1 line"; rc=1; }
	log_test "$N datagrams UDP -> relay -> feed -> relay -> UDP: payloads intact, every hop adds up" $rc
}

# Relay A stopped with a tiny receive buffer while the sender sends: its
# socket overflows, and A must count the drops it never saw (SO_RXQ_OVFL
# on the datagrams after them, SO_MEMINFO at exit).
relay_loss_udp_rcvbuf() {
	local rc=0 d=$RESULTS/relay/rcvbuf N
	N=$(cnt 1000)
	chain "$d" "--rcvbuf 4096" || rc=1
	kill -STOP $APID
	python3 $UDPMC send $G_IN $P_IN veth1 "$N" 100 2000 >"$d/s.json" || rc=1
	kill -CONT $APID
	finish "$d" || rc=1
	sums "$d" || rc=1
	jtrue "$d/a.json" "j['udp_rx_dropped'] > 0 and j['lost'] == j['udp_rx_dropped']" ||
		{ echo "  relay A: overflow not counted"; rc=1; }
	jtrue "$d/r.json" "j['missing'] > 0" || { echo "  nothing was lost: the test did not force a loss"; rc=1; }
	log_test "relay A stopped, 4 KB receive buffer: UDP drops counted (SO_RXQ_OVFL/SO_MEMINFO), the sums hold" $rc
}

# Relay B stopped on a 64-slot ring while A publishes: B is lapped and must
# count it from IBTICK_CMSG_LOST.
relay_loss_feed_lapped() {
	local rc=0 d=$RESULTS/relay/lapped N
	N=$(cnt 1000)
	chain "$d" "" "--slots 64" || rc=1
	kill -STOP $BPID
	python3 $UDPMC send $G_IN $P_IN veth1 "$N" 100 1000 >"$d/s.json" || rc=1
	# until A has published everything it received (its SIGUSR1 line)
	local i
	for i in $(seq $((50 * SLOW))); do
		kill -USR1 $APID
		sleep 0.2
		tail -n 1 "$d/a.out" | python3 -c "import json,sys; j=json.load(sys.stdin); \
			sys.exit(0 if j['forwarded'] + j['lost'] >= $N else 1)" 2>/dev/null && break
	done
	kill -CONT $BPID
	finish "$d" || rc=1
	sums "$d" || rc=1
	jtrue "$d/b.json" "j['feed_lapped'] > 0 and j['feed_lapped'] <= $N - 64" ||
		{ echo "  relay B: lapping not counted"; rc=1; }
	jtrue "$d/r.json" "j['missing'] >= j['rx_dropped'] + 1" || { echo "  receiver: nothing missing"; rc=1; }
	log_test "relay B stopped on a 64-slot ring: laps counted (IBTICK_CMSG_LOST), the sums hold" $rc
}

# bad_arg WANT_RC TEXT ARGS...: the relay exits WANT_RC saying TEXT.
bad_arg() {
	local want=$1 text=$2 out st
	shift 2
	out=$($RELAY "$@" 2>&1 >/dev/null)
	st=$?
	if [[ $st != "$want" || $out != *"$text"* ]]; then
		echo "  ibtick-relay $*: status $st, said: $out"
		return 1
	fi
	return 0
}

relay_bad_args() {
	local rc=0 f="--from $G_IN:$P_IN@veth0"
	# shellcheck disable=SC2086
	{
		bad_arg 2 'no netdev "nosuch0"' udp-to-feed --from $G_IN:$P_IN@nosuch0 \
			--to $G_FEED:$P_FEED@veth0 || rc=1
		bad_arg 2 'no netdev "nosuch1"' feed-to-udp --from $G_FEED:$P_FEED@veth1 \
			--to $G_OUT:$P_OUT@nosuch1 || rc=1
		bad_arg 2 '"239.5.0" is not an IPv4 address' udp-to-feed --from 239.5.0:9001@veth0 \
			--to $G_FEED:$P_FEED@veth0 || rc=1
		bad_arg 2 '10.99.0.1 is not a multicast group' udp-to-feed $f --to 10.99.0.1:7401@veth0 || rc=1
		bad_arg 2 '"0" is not a port' udp-to-feed $f --to $G_FEED:0@veth0 || rc=1
		bad_arg 2 'is not GROUP:PORT[@IFNAME]' udp-to-feed $f --to $G_FEED || rc=1
		bad_arg 2 'unknown mode "udp2feed"' udp2feed $f --to $G_FEED:$P_FEED@veth0 || rc=1
		bad_arg 2 'udp-to-feed needs --from and --to' udp-to-feed $f || rc=1
		bad_arg 2 '--rcvbuf is for udp-to-feed' feed-to-udp --from $G_FEED:$P_FEED@veth1 \
			--to $G_OUT:$P_OUT@veth1 --rcvbuf 4096 || rc=1
		bad_arg 2 'unknown option "--bogus"' udp-to-feed --bogus || rc=1
		# and a good one, in text: bound, counters on SIGUSR1 and at exit
		local d=$RESULTS/relay/text
		mkdir -p "$d"
		$RELAY feed-to-udp --from $G_FEED:$P_FEED@veth1 --to $G_OUT:$P_OUT@veth1 \
			>"$d/out" 2>"$d/err" &
		wait_bound "$d/err" || rc=1
		kill -USR1 $!
		sleep 0.5
		kill -TERM $!
		wait $! || { echo "  text relay exited $?"; rc=1; }
		sed 's/^/  | /' "$d/out"
		local want="ibtick-relay %s feed-to-udp $G_FEED:$P_FEED@veth1 -> $G_OUT:$P_OUT@veth1: received 0 forwarded 0 lost 0 "
		# shellcheck disable=SC2059
		{ grep -qF "$(printf "$want" signal)" "$d/out" && grep -qF "$(printf "$want" exit)" "$d/out"; } ||
			{ echo "  text relay: no signal and exit lines"; rc=1; }
		rmmod ibtick || { echo "  rmmod failed"; rc=1; }
		bad_arg 1 'ibtick module not loaded' udp-to-feed $f --to $G_FEED:$P_FEED@veth0 || rc=1
		bad_arg 1 'ibtick module not loaded' feed-to-udp --from $G_FEED:$P_FEED@veth1 \
			--to $G_OUT:$P_OUT@veth1 || rc=1
	}
	log_test "bad arguments (netdev, group, port, mode, options, no module): a clear message, exit 2 (1: no module)" $rc
}

run_tests
