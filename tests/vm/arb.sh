#!/usr/bin/env bash
# VM topic: arbitrated feeds (A/B line arbitration).  The rig gets a second
# veth pair for the occasion: rail A is rxe0 (veth0) receiving what rxe1
# (veth1) publishes, rail B is rxe2 (veth2) receiving what rxe3 (veth3)
# publishes.  tests/vm/arbtest sends each number on both rails, reads the
# arbitrated feed and two taps (plain feeds on each rail's group: what each
# rail received), and checks the feed against the taps; here the kernel's
# counters are checked against arbtest's:
#   won_A + won_B                                 == delivered
#   rx_A + rx_B == delivered + sum(dup + late + stale + short + bad_seq)
#   rx_A == tap_A, rx_B == tap_B
#   gap_numbers                                   == numbers both taps missed
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/vm/lib.sh
. tests/vm/lib.sh

IBTICK=user/ibtick/ibtick
ARBTEST=tests/vm/arbtest
ALL_TESTS="arb_two_rails_loss arb_rail_removed arb_rail_port_flap
	arb_sequence_reset arb_short_payload arb_bad_input arb_save_restore"
GA=239.9.0.1 GB=239.9.1.1 P=9500
RAILS="rail $GA $P veth0 rail $GB $P veth2"
# arbtest's rails: publish A from veth1, B from veth3; taps on veth0, veth2
ARGS=("$GA:$P@veth1" "$GB:$P@veth3" "$GA:$P@veth0" "$GB:$P@veth2")

# rails_up, rails_down: the second pair, veth2 <-> veth3 with rxe2 and rxe3
# shellcheck source=tests/vm/rails.sh
. tests/vm/rails.sh

test_setup() { restore_rig; rails_up || echo "  rails_up failed"; }
test_teardown() {
	kill_jobs
	$IBTICK feed del arb.t 2>/dev/null
	restore_rig
}
cleanup() { rails_down; rig_cleanup; }
trap cleanup EXIT

# feed_json: the arbitrated feed arb.t with its counters (one object).
feed_json() {
	$IBTICK -j -s feed show arb.t | jin "json.dumps(j[0])"
}

# sums RESULT.json FEED.json [b-apart]: the counter equations above;
# prints those that do not hold, status 1 if any.  With "b-apart", rail B
# and its tap lived apart for a while (B's device went and its feed was
# rebuilt, while the tap's feed died for good; or B's port went down and
# each rejoined in its own time), so their counts are not compared.
sums() {
	python3 - "$1" "$2" "${3:-}" <<-'EOF'
		import json, sys
		t = json.load(open(sys.argv[1]))
		f = json.loads(open(sys.argv[2]).read())
		apart = sys.argv[3] == "b-apart"
		a = f["arbitrate"]
		ra, rb = (r["stats"] for r in a["rails"])
		lost = sum(r[k] for r in (ra, rb)
		           for k in ("dup", "late", "stale", "short", "bad_seq"))
		checks = [
		    ("arbtest's own checks", t["ok"]),
		    ("won_A + won_B == delivered (kernel)",
		     ra["won"] + rb["won"] == a["delivered"]),
		    ("delivered (kernel) == delivered (reader)",
		     a["delivered"] == t["delivered"]),
		    ("rx_A + rx_B == delivered + dup + late + stale + short + bad_seq",
		     ra["rx"] + rb["rx"] == a["delivered"] + lost),
		    ("rx_A == tap_A", ra["rx"] == t["tap_a"]),
		    ("rx_B == tap_B", apart or rb["rx"] == t["tap_b"]),
		    ("gap_numbers (kernel) == gap numbers read",
		     a["gap_numbers"] == t["gap_numbers"]),
		    ("feed rx_ticks == delivered",
		     f["stats"]["rx_ticks"] == a["delivered"]),
		    ("IBTICK_ARB_STATISTICS read", t.get("so_ok") is True),
		    ("IBTICK_ARB_STATISTICS of a plain feed: EOPNOTSUPP",
		     t.get("so_plain_eopnotsupp") is True),
		    ("IBTICK_ARB_STATISTICS: a member's == bind()'s",
		     t.get("so_member_same") is True),
		    ("IBTICK_ARB_STATISTICS == feed show: delivered, gap numbers",
		     t.get("so_delivered") == a["delivered"] and
		     t.get("so_gap_numbers") == a["gap_numbers"]),
		    ("IBTICK_ARB_STATISTICS == feed show: rails' rx, won, dup, lag_n",
		     all(t.get("so_" + k) == [ra[k], rb[k]]
		         for k in ("rx", "won", "dup", "lag_n"))),
		]
		bad = [name for name, ok in checks if not ok]
		for name in bad:
		    print("  does not hold:", name)
		sys.exit(1 if bad else 0)
	EOF
}

# arbtest_run DIR N [OPTS...]: arb.t made, arbtest run; DIR/t.json,
# DIR/f.json (the feed after), DIR/err.
arbtest_run() {
	local d=$1 n=$2 id
	shift 2
	mkdir -p "$d"
	id=$($IBTICK -j feed show arb.t | jin "j[0]['id']") || return 1
	# on one vCPU: a sender that moves between CPUs enqueues its datagrams
	# on two veth backlogs, which may swap the first two numbers
	taskset -c 1 $ARBTEST "$id" "${ARGS[@]}" "$n" "$@" >"$d/t.out" 2>"$d/err"
	local rc=$?
	tail -n 1 "$d/t.out" >"$d/t.json"
	feed_json >"$d/f.json"
	echo "  arbtest: $(cat "$d/t.json")"
	return $rc
}

arb_two_rails_loss() {
	local d=$RESULTS/arb/loss n rc=0
	n=$(cnt 20000 4000)
	$IBTICK feed add arb.t arbitrate $RAILS seq-field off 0 width 8 le \
		window-us 200000 || { log_test "two rails: feed add" 1; return; }
	# independent random loss on each rail, rail B 2 ms behind
	tc qdisc add dev veth1 root netem loss 1% || rc=1
	tc qdisc add dev veth3 root netem delay 2ms loss 1% || rc=1
	# and numbers never sent (gaps), or sent on one rail only (fills)
	arbtest_run "$d" "$n" --skip-both 997 --skip-a 101 --skip-b 103 --settle 1500 ||
		rc=1
	sums "$d/t.json" "$d/f.json" || rc=1
	jtrue "$d/t.json" "j['expected_gap_numbers'] > 0 and j['late'] > 0" ||
		{ echo "  no gap or no late fill to look at"; rc=1; }
	# B is behind: its duplicates lag A's copies by the 2 ms or more
	python3 -c "import json,sys; f=json.load(open(sys.argv[1])); r=f['arbitrate']['rails'][1]['stats']; sys.exit(0 if r['lag_n'] > 0 and r['lag_mean_ns'] >= 1000000 else 1)" \
		"$d/f.json" || { echo "  rail B lag: $(cat "$d/f.json")"; rc=1; }
	# ibtick stats: the feed's arbitration and each rail's counters
	IBTICK_STATS_FILE=$d/no-snapshot $IBTICK -j stats feed >"$d/stats.json" || rc=1
	python3 - "$d/stats.json" "$d/f.json" <<-'EOF' || { echo "  stats: $(cat "$d/stats.json")"; rc=1; }
		import json, sys
		objs = {(o["object"], o["name"]): o["counters"] for o in json.load(open(sys.argv[1]))}
		f = json.load(open(sys.argv[2]))
		a = f["arbitrate"]
		ok = objs[("feed", "arb.t")]["arb_delivered"] == a["delivered"] and \
		    objs[("feed", "arb.t")]["arb_gap_numbers"] == a["gap_numbers"]
		for r, name in zip(a["rails"], ("arb.t/A", "arb.t/B")):
		    c = objs[("rail", name)]
		    ok = ok and all(c[k] == r["stats"][k] for k in ("rx", "won", "dup", "lag_n")) \
		        and "lag_p50_ns" not in c
		sys.exit(0 if ok else 1)
	EOF
	# measured, not asserted: the kernel's receive work per tick on a rail
	# (arbitration and the arbitrated ring) and on its tap, a plain feed
	# on the same group and device that took the same datagrams
	$IBTICK -j -s feed show | python3 -c '
import json, sys
fs = json.load(sys.stdin)
t = json.load(open(sys.argv[1]))
for name, x in (("arb.t.r0", "a"), ("arb.t.r1", "b")):
    st = next(f for f in fs if f["name"] == name)["stats"]
    rail = st["rx_drain_ns"] / max(1, st["cqe_irq"] + st["cqe_thread"] + st["cqe_caller"])
    tap = t["tap_%s_drain_ns" % x] / max(1, t["tap_%s_cqes" % x])
    print("  %s: kernel receive work %.0f ns per completion, its tap %.0f ns: %.2fx" %
          (name, rail, tap, rail / max(1, tap)))
' "$d/t.json" || true
	log_test "arbitrated feed: two rails with independent loss, B delayed: every number either rail had, once; gaps exactly where both missed; counters add up, and agree in feed show, ibtick stats and IBTICK_ARB_STATISTICS" $rc
}

arb_rail_removed() {
	local d=$RESULTS/arb/removed n rc=0 mon old new
	n=$(cnt 20000 4000)
	mkdir -p "$d"
	$IBTICK feed add arb.t arbitrate $RAILS seq-field off 0 width 8 le \
		window-us 200000 || { log_test "rail removed: feed add" 1; return; }
	old=$($IBTICK -j feed show arb.t | jin "j[0]['arbitrate']['rails'][1]['feed_id']")
	$IBTICK -j monitor feed >"$d/events" 2>&1 &
	mon=$!
	arbtest_run "$d" "$n" --rate 2000 --settle 1500 --b-apart &
	local pid=$!
	wait_for "$d/err" bound || rc=1
	nap 1
	rdma link delete rxe2 || rc=1
	wait_for "$d/events" '"rail_down"' || rc=1
	nap 1
	rdma link add rxe2 type rxe netdev veth2 || rc=1
	wait_for "$d/events" '"rail_up"' 20 || rc=1
	wait "$pid" || rc=1
	kill "$mon"
	sums "$d/t.json" "$d/f.json" b-apart || rc=1
	# nothing lost: rail A carried every number
	jtrue "$d/t.json" "j['delivered'] == j['sent'] and j['gap_numbers'] == 0" ||
		{ echo "  loss while rail B was gone"; rc=1; }
	jtrue "$d/f.json" "j['arbitrate']['rails'][1]['state'] == 'up' and j['arbitrate']['rails'][1]['stats']['downs'] == 1" ||
		{ echo "  rail B not back: $(cat "$d/f.json")"; rc=1; }
	new=$(jget "$d/f.json" "j['arbitrate']['rails'][1].get('feed_id')")
	[[ -n $new && $new != "$old" && $new != None ]] ||
		{ echo "  rail B's feed not rebuilt ($old -> $new)"; rc=1; }
	# rail B's own feed ended and came back; the arbitrated feed never did
	python3 - "$d/events" <<-'EOF' || { echo "  events: $(cat "$d/events")"; rc=1; }
		import json, sys
		ev = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
		mine = [(e["event"], e.get("feed"), e.get("rail")) for e in ev]
		ok = ("feed_destroyed", "arb.t.r1", None) in mine and \
		    ("rail_down", "arb.t", "B") in mine and ("rail_up", "arb.t", "B") in mine and \
		    not any(e == "feed_destroyed" and f == "arb.t" for e, f, _ in mine)
		sys.exit(0 if ok else 1)
	EOF
	log_test "arbitrated feed: rail B's device deleted mid-stream and added back: no loss, rail_down/rail_up, rail rebuilt" $rc
}

arb_rail_port_flap() {
	local d=$RESULTS/arb/flap n rc=0 mon pid
	n=$(cnt 20000 4000)
	mkdir -p "$d"
	$IBTICK feed add arb.t arbitrate $RAILS seq-field off 0 width 8 le \
		window-us 200000 || { log_test "port flap: feed add" 1; return; }
	$IBTICK -j monitor feed >"$d/events" 2>&1 &
	mon=$!
	arbtest_run "$d" "$n" --rate 2000 --settle 1500 --b-apart &
	pid=$!
	wait_for "$d/err" bound || rc=1
	nap 1
	ip link set veth2 down || rc=1		# rail B's port goes down
	wait_for "$d/events" '"rail_down"' || rc=1
	nap 1
	ip link set veth2 up || rc=1
	wait_for "$d/events" '"rail_up"' 20 || rc=1
	wait "$pid" || rc=1
	kill "$mon"
	sums "$d/t.json" "$d/f.json" b-apart || rc=1
	jtrue "$d/t.json" "j['delivered'] == j['sent'] and j['gap_numbers'] == 0" ||
		{ echo "  loss while rail B's port was down"; rc=1; }
	jtrue "$d/f.json" "j['arbitrate']['rails'][1]['state'] == 'up' and j['arbitrate']['rails'][1]['stats']['downs'] == 1 and j['arbitrate']['rails'][1]['stats']['down_ns'] > 0" ||
		{ echo "  rail B: $(cat "$d/f.json")"; rc=1; }
	log_test "arbitrated feed: rail B's port down and up mid-stream: no loss, rail_down/rail_up, time down counted" $rc
}

arb_sequence_reset() {
	local d=$RESULTS/arb/reset n rc=0 mon
	n=$(cnt 12000 6000)
	mkdir -p "$d"
	$IBTICK feed add arb.t arbitrate $RAILS seq-field off 0 width 8 le \
		window-us 200000 || { log_test "reset: feed add" 1; return; }
	$IBTICK -j monitor feed >"$d/events" 2>&1 &
	mon=$!
	arbtest_run "$d" "$n" --reset-at $((n / 2)) --settle 1000 || rc=1
	kill "$mon"
	sums "$d/t.json" "$d/f.json" || rc=1
	jtrue "$d/t.json" "j['resets'] == 1" || { echo "  RESET flags read: not 1"; rc=1; }
	jtrue "$d/f.json" "j['arbitrate']['resets'] == 1" || rc=1
	grep -q '"sequence_reset"' "$d/events" || { echo "  no sequence_reset event"; rc=1; }
	log_test "arbitrated feed: the sequence restarts at 1 mid-stream: one RESET tick, both sessions whole" $rc
}

arb_short_payload() {
	local d=$RESULTS/arb/short rc=0
	$IBTICK feed add arb.t arbitrate $RAILS seq-field off 0 width 8 le \
		window-us 100000 || { log_test "short: feed add" 1; return; }
	arbtest_run "$d" 200 --short --settle 500 || rc=1
	jtrue "$d/f.json" "j['arbitrate']['delivered'] == 0 and all(r['stats']['short'] == r['stats']['rx'] and r['stats']['rx'] > 0 for r in j['arbitrate']['rails'])" ||
		{ echo "  $(cat "$d/f.json")"; rc=1; }
	log_test "arbitrated feed: payloads shorter than the field are counted per rail and dropped" $rc
}

# bad_add WANT ARGS...: feed add must fail, saying WANT.
bad_add() {
	local want=$1 out
	shift
	if out=$($IBTICK feed add arb.bad arbitrate "$@" 2>&1); then
		echo "  accepted: $*"
		$IBTICK feed del arb.bad
		return 1
	fi
	[[ $out == *"$want"* ]] || { echo "  $*: said \"$out\", not \"$want\""; return 1; }
	return 0
}

arb_bad_input() {
	local rc=0 id rid r2="rail $GB $P veth2"
	bad_add "2 to 4 rails" rail $GA $P veth0 || rc=1
	bad_add "at most 4 rails" $RAILS rail 239.9.2.1 $P veth0 rail 239.9.3.1 $P veth0 \
		rail 239.9.4.1 $P veth0 || rc=1
	bad_add "two rails with one address" rail $GA $P veth0 rail $GA $P veth0 || rc=1
	bad_add "4 or 8 bytes" $RAILS seq-field off 0 width 3 || rc=1
	bad_add "ends past the largest payload" $RAILS seq-field off 65530 width 8 || rc=1
	bad_add "a time or a tick count" $RAILS window-us 0 window-ticks 0 || rc=1
	bad_add "out of range" $RAILS window-ticks 5000 || rc=1
	bad_add "no address, poll mode, prefer-defer or membership" $RAILS group 239.1.1.1 || rc=1
	bad_add "no address, poll mode, prefer-defer or membership" $RAILS poll busy || rc=1
	bad_add "(attribute prefer-defer)" $RAILS prefer-defer 100 || rc=1
	bad_add "not an IPv4 multicast group" rail 10.1.1.1 $P veth0 $r2 || rc=1
	bad_add "no IB/RoCE port" rail $GA $P lo $r2 || rc=1
	bad_add "rail needs GROUP PORT NETDEV" rail $GA $P || rc=1
	bad_add "seq-field is" $RAILS seq-field 8 || rc=1
	# a rail's name is not a feed's: no squatting NAME.rN before NAME
	out=$($IBTICK feed add arb.t.r0 group $GA port $P 2>&1) && rc=1
	[[ $out == *'not ending in ".rN" (rails)'* ]] || { echo "  add NAME.r0: $out"; rc=1; }
	[[ -z $($IBTICK -j feed show | jin "[f['name'] for f in j if f['name'].startswith('arb.bad')] or ''") ]] ||
		{ echo "  a refused add left a feed: $($IBTICK feed show)"; rc=1; }
	# a good one, then what may not be done to it or its rails
	$IBTICK feed add arb.t arbitrate $RAILS || rc=1
	out=$($IBTICK feed del arb.t.r0 2>&1) && rc=1
	[[ $out == *"goes with its arbitrated feed"* ]] || { echo "  del rail: $out"; rc=1; }
	out=$($IBTICK feed set arb.t.r1 mode 0600 2>&1) && rc=1
	[[ $out == *"belongs to its arbitrated feed"* ]] || { echo "  set rail: $out"; rc=1; }
	out=$($IBTICK feed set arb.t poll busy 2>&1) && rc=1
	[[ $out == *"poll mode are fixed"* ]] || { echo "  set poll: $out"; rc=1; }
	out=$($IBTICK feed set arb.t prefer-defer 100 2>&1) && rc=1
	[[ $out == *"no CQ of its own to defer"* ]] || { echo "  set prefer-defer: $out"; rc=1; }
	id=$($IBTICK -j feed show arb.t | jin "j[0]['id']")
	rid=$($IBTICK -j feed show arb.t | jin "j[0]['arbitrate']['rails'][0]['feed_id']")
	$ARBTEST table "$id" "$rid" || rc=1
	log_test "arbitrated feed: the extack table of feed add, rails refused to del/set, the by-id errno table" $rc
}

arb_save_restore() {
	local rc=0 f=$RESULTS/arb/save
	mkdir -p "$(dirname "$f")"
	$IBTICK feed add arb.t arbitrate $RAILS seq-field off 10 width 4 be \
		window-us 3000 window-ticks 64 reset-at 0 slots 1024 mode 0640 || rc=1
	$IBTICK feed save >"$f" || rc=1
	grep -q "^feed add arb.t arbitrate rail $GA $P veth0 rail $GB $P veth2 seq-field off 10 width 4 be window-us 3000 window-ticks 64 reset-at 0 slots 1024" "$f" ||
		{ echo "  save: $(cat "$f")"; rc=1; }
	$IBTICK -j feed show arb.t | jin "json.dumps(j[0]['arbitrate'])" >"$f.before"
	$IBTICK feed del arb.t || rc=1
	grep -v '^#' "$f" | grep ' arb.t ' >"$f.batch"
	$IBTICK -b "$f.batch" || rc=1
	$IBTICK -j feed show arb.t | jin "json.dumps(j[0]['arbitrate'])" >"$f.after"
	# the configuration came back (the counters start afresh)
	python3 - "$f.before" "$f.after" <<-'EOF' || rc=1
		import json, sys
		keys = ("seq_off", "seq_width", "seq_order", "window_us", "window_ticks", "reset_at")
		b, a = (json.load(open(p)) for p in sys.argv[1:])
		same = all(b[k] == a[k] for k in keys) and \
		    [(r["group"], r["port"], r["netdev"]) for r in b["rails"]] == \
		    [(r["group"], r["port"], r["netdev"]) for r in a["rails"]]
		print("  restored:", same)
		sys.exit(0 if same else 1)
	EOF
	log_test "arbitrated feed: feed save writes it, ibtick -b brings it back" $rc
}

require_guest
run_tests
