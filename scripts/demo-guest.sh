#!/usr/bin/env bash
# Runs inside the bench guest (see demo.sh): a synthetic futures feed over
# ibtick, read three ways at once with a live table, then ibtick's latency
# next to the verbs floor and kernel UDP, measured in this same boot.
#
# Environment: DEMO_TTY=1 redraws the table in place; DEMO_TICKS (default
# 120000) messages at DEMO_RATE (default 4000) per second on average;
# DEMO_SAMPLES (default 10000) ping-pong samples per path.
set -euo pipefail
[[ ${IBTICK_GUEST:-} == 1 ]] || { echo "demo-guest.sh runs inside the bench (scripts/demo.sh)" >&2; exit 2; }
ticks=${DEMO_TICKS:-120000}
rate=${DEMO_RATE:-4000}
samples=${DEMO_SAMPLES:-10000}
T=user/tools
R=$RESULTS

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
fail() { echo "demo: FAIL: $*"; exit 1; }

step "ibtick.ko on the bench's two Soft-RoCE ports"
insmod kmod/ibtick.ko
dmesg | grep 'ibtick:' | tail -n 1
user/ibtick/ibtick dev show

step "a synthetic futures stream: $ticks messages, $rate/s on average, in bursts"
$T/ibtick-gen -s 2024 -n "$ticks" -r "$rate" -o "$R/futures.ticks"
$T/ibtick-gen -d "$R/futures.ticks" | head -n 14

step "the feed, created by the admin CLI: it persists with no socket on it"
user/ibtick/ibtick feed add cme.futures group 239.7.0.1 port 9100 netdev veth0 \
	slots 4096 slot-size 256 mode 0644 || fail "ibtick feed add failed"
user/ibtick/ibtick feed show cme.futures

step "publisher on rxe1 (veth1) -> feed 239.7.0.1:9100 -> three readers on rxe0 (veth0)"
echo "  mapped: spins on the mapped ring, no system call per tick;"
echo "  recvmsg: the plain socket API; epoll: the mapped ring, sleeping in epoll when idle"
for k in mapped recvmsg epoll; do
	$T/ibtick-md read -i veth0 -k $k -o "$R/md-$k.json" 239.7.0.1 9100 \
		>"$R/md-$k.final" 2>"$R/md-$k.err" &
done
for k in mapped recvmsg epoll; do
	for _ in $(seq 100); do grep -q bound "$R/md-$k.err" 2>/dev/null && break; sleep 0.1; done
	grep -q bound "$R/md-$k.err" || fail "the $k reader did not bind: $(cat "$R/md-$k.err")"
done
echo "  the readers as the admin sees them (ibtick sock show feed cme.futures):"
user/ibtick/ibtick sock show feed cme.futures | sed 's/^/    /'
$T/ibtick-md publish -i veth1 "$R/futures.ticks" 239.7.0.1 9100 >"$R/md-pub.json" &
pub=$!
tty=()
[[ ${DEMO_TTY:-} == 1 ]] && tty=(--tty)
scripts/demo-table.py "${tty[@]}" "$R"/md-{mapped,recvmsg,epoll}.json
wait $pub
wait

step "every message accounted for"
python3 - "$R/md-pub.json" "$R"/md-{mapped,recvmsg,epoll}.final <<'PY' || fail "counts do not add up"
import json, sys
pub = json.load(open(sys.argv[1]))['published']
ok = True
for path in sys.argv[2:]:
    r = json.load(open(path))
    wire = pub - r['feed_rx']
    # what the ring took is delivered or counted lost; the exchange sequence
    # numbers the reader never saw (before its first, skipped by gaps, after
    # its last; less those that came late: rxe reorders) are exactly the
    # ring's and the wire's losses
    missed = (r['first_seq'] - 1) + r['gap_msgs'] + (pub - r['last_seq']) - r['late']
    good = (r['delivered'] + r['lost_ring'] == r['feed_rx'] and r['invalid'] == 0
            and missed == r['lost_ring'] + wire)
    ok &= good
    print(f"  {r['kind']:8} published {pub}: feed took {r['feed_rx']} = delivered {r['delivered']}"
          f" + lost in the ring {r['lost_ring']}; lost on the wire {wire};"
          f" sequence numbers never seen {missed}  {'ok' if good else 'MISMATCH'}")
sys.exit(0 if ok else 1)
PY

user/ibtick/ibtick -s feed show cme.futures
user/ibtick/ibtick feed del cme.futures

step "tail latency: ibtick next to ib_send_lat -c UD (the verbs floor) and sockperf UDP multicast"
echo "  $samples ping-pong samples each, 64 bytes, half round trip, both ends pinned alike;"
echo "  spinning readers against the spinning floor and sockperf --nonblocked, sleeping"
echo "  readers against blocking sockperf; this takes a few minutes; guest clocksource"
echo "  $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource) (demo.sh CLOCK=), idle vCPUs $(grep -qw idle=poll /proc/cmdline && echo poll || echo halt) (demo.sh IDLE=)"
$T/ibtick-perf lat -j -k floor,mapped,busy,udp-spin,recvmsg,epoll,udp -n "$samples" -w 1000 \
	-c 1 -C 0 -L veth1 -I veth0 -H "$R/latency.svg" 239.7.0.2 9200 >"$R/compare.json"
scripts/demo-table.py --pairs "$R/compare.json"

rmmod ibtick
step "done"
echo "  histograms: $R/latency-PATH.svg$( [[ -f $R/latency-mapped.png ]] && echo " (and .png)")"
echo "  raw results: $R (stream, reader states, comparison)"
