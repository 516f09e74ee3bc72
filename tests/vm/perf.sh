#!/usr/bin/env bash
# VM topic: a short run of every ibtick-perf mode, --compare, the histogram,
# and the market-data path of the demo (ibtick-gen -> ibtick-md publish ->
# ibtick-md read), with small counts.  Asserts on what the tools report:
# sample counts, ordered statistics, and sums that must add up; not on
# times (TCG).
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/vm/lib.sh
. tests/vm/lib.sh

P=user/tools/ibtick-perf
MD=user/tools/ibtick-md
GEN=user/tools/ibtick-gen
ALL_TESTS="lat_kinds lat_sweep lat_compare lat_paths lat_counts lat_counts_arms lat_one_group oneway_counts rate_steps fanout_counts
	arb_paths market_data_accounted bad_arguments"
# shellcheck source=tests/vm/rails.sh
. tests/vm/rails.sh

# jlines FILE EXPR: EXPR holds for the JSON lines of FILE (list L; the env
# line first).
jlines() {
	python3 - "$1" "$2" <<'PY'
import json, sys
L = [json.loads(x) for x in open(sys.argv[1]) if x.startswith('{')]
ok = eval(sys.argv[2])
if not ok:
    print("  failed:", sys.argv[2])
    for x in L:
        print("   ", json.dumps(x))
sys.exit(0 if ok else 1)
PY
}

# perf NAME ARGS...: ibtick-perf ARGS (at most 300 s, times SLOW), its JSON
# lines in $RESULTS/perf/NAME.json; fails, showing its stderr, on a non-zero
# exit.
perf() {
	local name=$1 r=$RESULTS/perf rc=0
	shift
	mkdir -p "$r"
	timeout $(tmo 300) $P "$@" >"$r/$name.json" 2>"$r/$name.err" || rc=$?
	((rc == 0)) || { echo "  $name: exit $rc"; cat "$r/$name.err"; }
	return $rc
}

# a latency row's statistics are ordered
ORDERED="x['t_min'] <= x['t_typical'] <= x['percentile_99'] <= x['percentile_99.9'] <= x['percentile_99.99'] <= x['t_max'] and x['t_min'] <= x['t_avg'] <= x['t_max'] and x['t_stdev'] >= 0"

lat_kinds() {
	local rc=0 k n=$(cnt 2000) r=$RESULTS/perf
	# this side named as perftest names it: rxe1's port 1, GID index 0 is veth1
	for k in mapped epoll recvmsg busy; do
		perf lat-$k lat -j -k $k -n "$n" -w 50 -d rxe1 -i 1 -x 0 -I veth0 239.8.0.1 7800 || rc=1
		jlines "$r/lat-$k.json" "'env' in L[0] and L[1]['kind'] == '$k' and L[1]['n_iterations'] == $n and all($ORDERED for x in L[1:]) and L[1]['MsgSize'] == 64" || rc=1
		grep -q -- "-d rxe1 -i 1 -x 0: netdev veth1" "$r/lat-$k.err" || { echo "  -d rxe1: $(cat "$r/lat-$k.err")"; rc=1; }
	done
	log_test "lat -d rxe1 -i 1 -x 0 (veth1): mapped, epoll, recvmsg, busy readers: $n samples each, statistics in order" $rc
}

lat_sweep() {
	local rc=0 n=$(cnt 300) r=$RESULTS/perf
	# 32 .. 2048 bytes: the bench's ports take 1024 - 32 (the wire header),
	# so the sweep must stop cleanly after 512
	perf sweep lat -j -a -S 2048 -n "$n" -w 20 -L veth1 -I veth0 239.8.0.1 7880 || rc=1
	jlines "$r/sweep.json" "[x['MsgSize'] for x in L[1:]] == [32, 64, 128, 256, 512] and all($ORDERED and x['n_iterations'] == $n for x in L[1:])" || rc=1
	log_test "lat -a: 32..512 bytes, one row each; the sweep ends at the port's MTU" $rc
}

lat_compare() {
	local rc=0 n=$(cnt 2000) r=$RESULTS/perf
	require_cmd ib_send_lat sockperf || return
	mkdir -p "$r"
	timeout $(tmo 600) $P lat --compare -j -k mapped -n "$n" -w 50 -H "$r/lat.svg" \
		-L veth1 -I veth0 239.8.0.1 7810 >"$r/compare.json" 2>"$r/compare.err" ||
		{ echo "  exit $?"; cat "$r/compare.err"; rc=1; }
	# four rows, every one with a result; the floor's ratios around 1
	jlines "$r/compare.json" "[x['compare'] for x in L if 'compare' in x] == ['ib_send_lat -c UD, before', 'ibtick mapped', 'sockperf UDP multicast', 'ib_send_lat -c UD, after'] and all(x['ok'] and x['t_typical'] > 0 and x['percentile_99.9'] >= x['t_typical'] and x['median_ratio'] > 0 for x in L if 'compare' in x) and [x for x in L if 'compare' in x][1]['n_iterations'] == $n" || rc=1
	head -c 5 "$r/lat.svg" | grep -q '<svg' || { echo "  no SVG"; rc=1; }
	grep -q '>p99.9 [0-9]' "$r/lat.svg" && grep -q '>max [0-9]' "$r/lat.svg" &&
		tail -c 7 "$r/lat.svg" | grep -q '</svg>' || { echo "  SVG without its marks or end"; rc=1; }
	if command -v rsvg-convert >/dev/null; then
		[[ -s $r/lat.png ]] || { echo "  no PNG beside the SVG"; rc=1; }
	fi
	log_test "lat --compare: ib_send_lat before/after and sockperf rows with ratios; histogram SVG" $rc
}

lat_paths() {
	local rc=0 n=$(cnt 300) r=$RESULTS/perf p
	require_cmd ib_send_lat sockperf || return
	mkdir -p "$r/raw"
	# the references as rows, in the order given, each with its class and
	# every sample in its raw file
	perf paths lat -j -k udp,floor,mapped,udp-spin,recvmsg -n "$n" -w 20 -c 1 -C 0 \
		--raw "$r/raw/p-" -L veth1 -I veth0 239.8.0.1 7820 || rc=1
	jlines "$r/paths.json" "[(x['kind'], x['class']) for x in L[1:]] == [('udp', 'sleep'), ('floor', 'spin'), ('mapped', 'spin'), ('udp-spin', 'spin'), ('recvmsg', 'sleep')] and all($ORDERED for x in L[1:]) and all(x['n_iterations'] == $n for x in L[1:] if x['kind'] in ('floor', 'mapped', 'recvmsg'))" || rc=1
	for p in udp floor mapped udp-spin recvmsg; do
		[[ -s $r/raw/p-$p.txt ]] || { echo "  no raw samples for $p"; rc=1; continue; }
		jlines "$r/paths.json" "[x['n_iterations'] for x in L[1:] if x['kind'] == '$p'] == [$(wc -l <"$r/raw/p-$p.txt")]" || rc=1
	done
	log_test "lat -k udp,floor,mapped,udp-spin,recvmsg: a row each, in order, with its class; --raw keeps every sample" $rc
}

lat_counts() {
	local rc=0 n=$(cnt 300) r=$RESULTS/perf
	require_cmd ib_send_lat || return
	[[ -d /sys/kernel/tracing || -d /sys/kernel/debug/tracing ]] || { skip "no tracefs"; return; }
	perf counts lat -j --counts -k floor,mapped,recvmsg -n "$n" -w 20 -c 1 -C 0 \
		-L veth1 -I veth0 239.8.0.1 7830 || rc=1
	# counts, not times: the floor and every ibtick path deliver exactly
	# once per hop on each host (a feed that only publishes is a send-only
	# member: its own QP gets no copy); the floor arms no CQ; a blocking
	# reader makes at least one system call per tick on each side; rxe
	# (before 6.4) calls the CQ event in softirq context, where it drains
	# the CQ itself: no IRQ_POLL softirq on the way (kmod/poll.c,
	# ibt_rx_comp); later kernels keep the softirq poll, not asserted here
	local direct=False
	printf '%s\n' 6.4 "$(uname -r)" | sort -CV || direct=True
	jlines "$r/counts.json" "all('per_rt' in x for x in L[1:]) and (not $direct or all(x['per_rt']['softirqs']['IRQ_POLL'] < 0.01 for x in L[1:] if x['kind'] in ('mapped', 'recvmsg'))) and [abs(x['per_rt']['qp_deliveries_a'] - 1) < 0.01 and abs(x['per_rt']['qp_deliveries_b'] - 1) < 0.01 and x['per_rt']['cq_events'] == 0 for x in L[1:] if x['kind'] == 'floor'] == [True] and all(abs(x['per_rt']['qp_deliveries_a'] - 1) < 0.01 and abs(x['per_rt']['qp_deliveries_b'] - 1) < 0.01 and x['per_rt']['cq_events'] is not None for x in L[1:] if x['kind'] != 'floor') and [x['per_rt']['syscalls_a'] >= 1 and x['per_rt']['syscalls_b'] >= 1 for x in L[1:] if x['kind'] == 'recvmsg'] == [True]" || rc=1
	python3 -c 'import json, sys
for x in map(json.loads, open(sys.argv[1])):
    if "per_rt" in x:
        c = x["per_rt"]
        print("  %-8s per round trip: QP deliveries %.2f / %.2f, CQ events %s, syscalls %.2f / %.2f, allocations %s, IRQ_POLL %s"
              % (x["kind"], c["qp_deliveries_a"], c["qp_deliveries_b"], c["cq_events"], c["syscalls_a"] or 0, c["syscalls_b"] or 0, c["allocs"], c.get("softirqs", {}).get("IRQ_POLL")))' "$r/counts.json"
	# the triggers and kprobes are gone afterwards
	! grep -q ibtick_bench /sys/kernel/tracing/kprobe_events 2>/dev/null || { echo "  kprobes left behind"; rc=1; }
	log_test "lat --counts: per round trip one QP delivery per hop on each host, floor and ibtick; the floor no CQ event; no IRQ_POLL softirq" $rc
}

# A CQ is armed only when it is not armed already (kmod/poll.c,
# IBT_POLL_ARMED): every arming is used up by a CQ event, or is still armed
# at the end, so arms per round trip stay within the events.  A reader
# spinning on MSG_DONTWAIT (run-spin: sockperf under ibtick-run -b) looks
# tens of times a round trip, and lets the CQ go, wanting the event, at
# each look: it arms once an event, not once a look.
lat_counts_arms() {
	local rc=0 n=$(cnt 300) r=$RESULTS/perf
	require_cmd sockperf || return
	[[ -d /sys/kernel/tracing || -d /sys/kernel/debug/tracing ]] || { skip "no tracefs"; return; }
	PATH="$PWD/user/preload:$PATH" perf arms lat -j --counts -k busy,run-spin -n "$n" -w 20 \
		-c 1 -C 0 -L veth1 -I veth0 239.8.0.1 7860 || rc=1
	jlines "$r/arms.json" "[x['kind'] for x in L[1:]] == ['busy', 'run-spin'] and all(x['per_rt']['cq_arms'] is not None and x['per_rt']['cq_events'] is not None and x['per_rt']['cq_arms'] <= x['per_rt']['cq_events'] + 0.1 for x in L[1:]) and [x['per_rt']['syscalls_b'] >= 4 for x in L[1:] if x['kind'] == 'run-spin'] == [True]" || rc=1
	python3 -c 'import json, sys
for x in map(json.loads, open(sys.argv[1])):
    if "per_rt" in x:
        c = x["per_rt"]
        print("  %-8s per round trip: CQ arms %s, CQ events %s, syscalls %.2f / %.2f" % (x["kind"], c["cq_arms"], c["cq_events"], c["syscalls_a"] or 0, c["syscalls_b"] or 0))' "$r/arms.json"
	log_test "lat --counts -k busy,run-spin: CQ arms per round trip within the CQ events, also for a reader that looks tens of times a round trip" $rc
}

# sockperf's layout, one group both ways: each host's feed is a member of
# the group it sends to, so its QP gets its own sends as well (2 deliveries
# per round trip on each host), and writes 1 tick a round trip into its
# ring: the copy is dropped as loopback (IBTICK_LOOPBACK 0, as
# IP_MULTICAST_LOOP 0 asks).  udppp, ibtick-perf's own AF_INET ping-pong,
# on kernel UDP takes no QP delivery; under ibtick-run the same as the
# one-group feeds.
lat_one_group() {
	local rc=0 n=$(cnt 300) r=$RESULTS/perf
	PATH="$PWD/user/preload:$PATH" perf onegroup lat -j --counts -k spin-1g,recvmsg-1g,inet,inet-run,inet-run-spin \
		-n "$n" -w 20 -c 1 -C 0 -L veth1 -I veth0 239.8.0.6 7870 || rc=1
	jlines "$r/onegroup.json" "[(x['kind'], x['class']) for x in L[1:]] == [('spin-1g', 'spin'), ('recvmsg-1g', 'sleep'), ('inet', 'sleep'), ('inet-run', 'sleep'), ('inet-run-spin', 'spin')] and all(x['n_iterations'] == $n and $ORDERED for x in L[1:]) and all(abs(x['per_rt']['qp_deliveries_a'] - 2) < 0.05 and abs(x['per_rt']['qp_deliveries_b'] - 2) < 0.05 for x in L[1:] if x['kind'] != 'inet') and all(abs(x['feed_a']['rx_ticks'] - 1) < 0.05 for x in L[1:] if 'feed_a' in x) and len([x for x in L[1:] if 'feed_a' in x]) == 2 and [x['per_rt']['qp_deliveries_a'] < 0.05 and x['per_rt']['qp_deliveries_b'] < 0.05 for x in L[1:] if x['kind'] == 'inet'] == [True]" || rc=1
	python3 -c 'import json, sys
for x in map(json.loads, open(sys.argv[1])):
    if "per_rt" in x:
        c = x["per_rt"]
        print("  %-10s per round trip: QP deliveries %.2f / %.2f, ticks into the ring %s, syscalls %.2f / %.2f"
              % (x["kind"], c["qp_deliveries_a"], c["qp_deliveries_b"], x.get("feed_a", {}).get("rx_ticks", "-"), c["syscalls_a"] or 0, c["syscalls_b"] or 0))' "$r/onegroup.json"
	log_test "lat -k spin-1g,recvmsg-1g,inet,inet-run,inet-run-spin: one group both ways, 2 QP deliveries per round trip on each host and 1 tick into the ring; udppp on kernel UDP none" $rc
}

oneway_counts() {
	local rc=0 n=$(cnt 3000) r=$RESULTS/perf
	perf oneway oneway -j -n "$n" -w 100 -r 2000 --ib-dev rxe0 --ib-port 1 -I veth1 239.8.0.2 7820 || rc=1
	grep -q -- "-d rxe0 -i 1 -x 0: netdev veth0" "$r/oneway.err" || { echo "  --ib-dev rxe0: $(cat "$r/oneway.err")"; rc=1; }
	# what the feed took was delivered or counted lost; stage split present
	jlines "$r/oneway.json" "all($ORDERED for x in L[1:]) and L[1]['published'] == $n + 100 and L[1]['delivered'] + L[1]['lost_ring'] == L[1]['feed_rx'] and L[1]['lost_wire'] == L[1]['published'] - L[1]['feed_rx'] and L[1]['other'] == 0 and L[1]['feed_rx'] > 0.95 * L[1]['published'] and L[1]['n_iterations'] > 0.9 * $n and L[1]['wire_median'] > 0 and L[1]['deliver_median'] > 0" || rc=1
	log_test "oneway: delivered + lost in the ring == taken by the feed; kernel stages measured" $rc
}

rate_steps() {
	local rc=0 n=$(cnt 2000) r=$RESULTS/perf
	perf rate rate -j -n "$n" -r 2000 -L veth0 -I veth1 239.8.0.3 7830 || rc=1
	jlines "$r/rate.json" "len(L) == 9 and [x['offered'] for x in L[1:8]] == [2000, 4000, 8000, 16000, 32000, 64000, 0] and all(x['sent'] == $n and x['achieved'] > 0 for x in L[1:8]) and L[8]['total'] and L[8]['sent'] == 7 * $n and L[8]['delivered'] == sum(x['delivered'] for x in L[1:8]) and L[8]['delivered'] + L[8]['lost_ring'] == L[8]['feed_rx'] and L[8]['lost_wire'] == L[8]['sent'] - L[8]['feed_rx'] and L[8]['other'] == 0" || rc=1
	log_test "rate: 7 steps (x2 each, then flat out); in all, delivered + lost in the ring == taken by the feed" $rc
}

fanout_counts() {
	local rc=0 n=$(cnt 1000) r=$RESULTS/perf
	perf fanout fanout -j -k epoll -N 1,3 -n "$n" -w 0 -r 1000 -L veth0 -I veth1 239.8.0.4 7840 || rc=1
	jlines "$r/fanout.json" "[x['readers'] for x in L[1:]] == [1, 3] and all(x['published'] == $n and x['delivered'] + x['lost'] == x['readers'] * x['feed_rx'] and x['kernel_ns_per_tick'] > 0 for x in L[1:]) and L[1]['ratio'] == 1.0" || rc=1
	log_test "fanout: 1 and 3 epoll readers, delivered + lost == readers x taken, kernel cost per tick" $rc
}

# ibtick-perf arb: the arbitrated feed of two rails (rail B 1 ms behind)
# against rail A alone, ping-pong and at a rate; the arbiter's counts add up
arb_paths() {
	local rc=0 n=$(cnt 300) r=$RESULTS/perf
	rails_up || { log_test "arb: the second rail pair" 1; return; }
	tc qdisc add dev veth3 root netem delay 1ms || rc=1
	IBTICK_CLI=user/ibtick/ibtick perf arb arb -j -k arb,rail-a,rail-a-b,arb-cost,rail-a-cost \
		-n "$n" -w 20 -r 2000 -L veth0 -I veth1 --rail-b veth2 --peer-rail-b veth3 \
		239.8.0.5 7850 || rc=1
	rails_down
	jlines "$r/arb.json" "sorted(x['kind'] for x in L if x.get('mode') == 'arb') == ['arb', 'arb-cost', 'rail-a', 'rail-a-b', 'rail-a-cost'] and [x['completions'] >= 2 * x['delivered'] - 10 for x in L if x.get('kind') == 'rail-a-b'] == [True] and all(x['delivered'] == ($n + 20 + x['resent'] if 'resent' in x else x['published']) and x['reader_lost'] == 0 and x['completions'] > 0 for x in L if x.get('mode') == 'arb') and all(x['rails'][0]['won'] + x['rails'][1]['won'] == x['delivered'] and x['rails'][1]['rx'] == x['rails'][0]['rx'] and x['rx'] == x['delivered'] + x['rails'][0]['dup'] + x['rails'][1]['dup'] for x in L if x.get('kind') in ('arb', 'arb-cost')) and all(x['read'] == x['published'] == $n + 20 for x in L if x.get('kind') in ('arb-cost', 'rail-a-cost'))" || rc=1
	log_test "arb: an arbitrated feed against its fast rail, ping-pong and at 2000/s: won_A + won_B == delivered, rail B received what rail A did, rx == delivered + dup; rail-a-b's sink drains rail B's copies" $rc
}

market_data_accounted() {
	local rc=0 n=$(cnt 20000 2000) r=$RESULTS/md k
	mkdir -p "$r"
	$GEN -s 9 -n "$n" -r 2000 -o "$r/s.ticks" || rc=1
	$GEN -d "$r/s.ticks" | grep -q '^checks  ok' || { echo "  the stream does not check"; rc=1; }
	for k in mapped recvmsg; do
		$MD read -i veth0 -k $k -o "$r/$k.status" 239.8.0.5 7850 >"$r/$k.json" 2>"$r/$k.err" &
	done
	wait_bound "$r"/{mapped,recvmsg}.err || rc=1
	$MD publish -i veth1 -x 2 "$r/s.ticks" 239.8.0.5 7850 >"$r/pub.json" || rc=1
	wait
	for k in mapped recvmsg; do
		echo "  $k: $(cut -c1-200 "$r/$k.json")"
		python3 - "$r/pub.json" "$r/$k.json" <<'PY' || rc=1
import json, sys
pub = json.load(open(sys.argv[1]))['published']
j = json.load(open(sys.argv[2]))
wire = pub - j['feed_rx']
ok = (j['final'] and j['delivered'] + j['lost_ring'] == j['feed_rx'] and j['invalid'] == 0
      and (j['first_seq'] - 1) + j['gap_msgs'] + (pub - j['last_seq']) - j['late']
          == j['lost_ring'] + wire
      and j['feed_rx'] > 0.95 * pub and j['lat_us']['median'] > 0)
if not ok:
    print(f"  published {pub}, wire lost {wire}: does not add up")
sys.exit(0 if ok else 1)
PY
	done
	log_test "market data: $n generated messages replayed; per reader delivered + lost == taken, sequence gaps == ring + wire losses" $rc
}

bad_arguments() {
	local rc=0 args
	# exit 2 and usage for every malformed command line, before any socket
	while read -r args; do
		# shellcheck disable=SC2086
		$P $args >/dev/null 2>&1
		[[ $? == 2 ]] || { echo "  ibtick-perf $args: not exit 2"; rc=1; }
	done <<'EOF'
bogus -L veth0 239.8.0.9 1
lat 239.8.0.9 1
lat -L veth0 239.8.0.9
lat -L veth0 -n 0 239.8.0.9 1
lat -L veth0 -s 8 239.8.0.9 1
lat -L veth0 -s 99999 239.8.0.9 1
lat -L veth0 -k nosuch 239.8.0.9 1
lat -L veth0 --compare 239.8.0.9 1
lat -L veth0 -I veth1 --compare -a 239.8.0.9 1
oneway -L veth0 239.8.0.9 1
rate -L veth0 -I veth1 -e 239.8.0.9 1
fanout -L veth0 -I veth1 -N 0 239.8.0.9 1
fanout -L veth0 -I veth1 -N 1,,2 239.8.0.9 1
lat -L veth0 -B 99999 239.8.0.9 1
lat -L veth0 239.8.0.9 70000
lat -i veth0 239.8.0.9 1
lat -d rxe0 -L veth0 239.8.0.9 1
lat -L veth0 -x 1 239.8.0.9 1
lat -d nosuch0 239.8.0.9 1
lat -d rxe0 -i 2 239.8.0.9 1
lat -d rxe0 -x 200 239.8.0.9 1
EOF
	$MD read -k nosuch -i veth0 239.8.0.9 1 >/dev/null 2>&1
	[[ $? == 2 ]] || { echo "  ibtick-md read -k nosuch: not exit 2"; rc=1; }
	$MD publish -i veth1 /nonexistent 239.8.0.9 1 >/dev/null 2>&1
	[[ $? == 1 ]] || { echo "  ibtick-md publish of a missing file: not exit 1"; rc=1; }
	log_test "bad command lines: exit 2 with usage; a missing stream file: exit 1" $rc
}

run_tests
