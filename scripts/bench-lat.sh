#!/usr/bin/env bash
# Latency and fan-out side by side, in one guest boot (run it with
#   scripts/vm-run.sh -- scripts/bench-lat.sh
# ): perftest's ib_send_lat -c UD (the verbs floor, a tool nobody here
# wrote) before and after ibtick's ping-pong over two feeds on the same rxe
# pair - recvmsg blocking, recvmsg with SO_BUSY_POLL, and the mapped ring
# read by spinning (libibtick) - then the kernel's cost per tick with 1
# and 16 readers on one feed.  64-byte payloads, N samples, half round trips
# in microseconds.  Under TCG only the ratios mean something.
set -euo pipefail
[[ ${IBTICK_GUEST:-} == 1 ]] || { echo "run inside the bench: scripts/vm-run.sh -- $0" >&2; exit 2; }
N=${N:-20000}
FANOUT_N=${FANOUT_N:-10000}
floor() {
	ib_send_lat -d rxe0 -c UD -s 64 -n "$N" >"$RESULTS/ib_send_lat-server.log" 2>&1 &
	sleep 1
	ib_send_lat -d rxe1 -c UD -s 64 -n "$N" 10.99.0.1 | grep -A1 '#bytes'
	wait
}
pingpong() {	# $1: reader options, $2 $3: feed ports
	# shellcheck disable=SC2086
	user/tools/ibtick-lat $1 -e -i veth0 -n "$N" 239.3.0.1 "$2" "$3" 2>"$RESULTS/echo-$2.err" &
	sleep 2
	# shellcheck disable=SC2086
	user/tools/ibtick-lat $1 -i veth1 -n "$N" 239.3.0.1 "$2" "$3"
	wait
}
# fanout KIND COUNT PORT: COUNT readers of KIND (ring|recvmsg|epoll) on one
# feed, FANOUT_N ticks at 2000/s; prints the kernel's ns per tick
fanout() {
	local kind=$1 count=$2 port=$3 i opt= nice=
	# spinning readers at nice 19: 16 of them on 2 vCPUs must not starve
	# the publisher and the softirqs whose cost is being measured
	case $kind in recvmsg) opt=-R ;; epoll) opt=-E ;; ring) nice="nice -n 19" ;; esac
	rm -f "$RESULTS"/fan-*
	for i in $(seq "$count"); do
		# shellcheck disable=SC2086
		$nice tests/vm/ringtest read $opt -n "$FANOUT_N" -t 30 -i veth0 239.3.0.2 "$port" \
			>"$RESULTS/fan-$i.json" 2>"$RESULTS/fan-$i.err" &
	done
	for i in $(seq "$count"); do
		until grep -q bound "$RESULTS/fan-$i.err" 2>/dev/null; do sleep 0.1; done
	done
	user/tools/ibtick-pub -i veth1 -n "$FANOUT_N" -r 2000 239.3.0.2 "$port" >/dev/null 2>&1
	wait
	python3 - "$kind" "$count" "$RESULTS"/fan-*.json <<'PY'
import json, sys
kind, count, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
js = [json.load(open(f)) for f in files]
j = max(js, key=lambda x: x['feed_rx'])
ok = all(x['delivered'] + x['lost'] == x['feed_rx'] for x in js)
print(f"  {count:2d} {kind:8s} readers: feed_rx {j['feed_rx']:6d}  kernel ns/tick "
      f"{j['rx_drain_ns'] / max(j['feed_rx'], 1):8.0f}  lost(sum) {sum(x['lost'] for x in js):6d}"
      f"  delivered+lost==feed_rx: {ok}")
PY
}
insmod kmod/ibtick.ko
echo "== ib_send_lat -c UD -s 64 -n $N (rxe1 -> rxe0)"
floor
echo "== ibtick recvmsg ping-pong, blocking"
pingpong "" 7301 7302
echo "== ibtick recvmsg ping-pong, SO_BUSY_POLL 200 us"
pingpong "-b 200" 7311 7312
echo "== ibtick mapped ring ping-pong, spinning (libibtick)"
pingpong "-m" 7321 7322
if [[ ${BUSY:-0} == 1 ]]; then
	# 2 spinning readers + 2 poll threads on 2 vCPUs: slices, not latency
	echo "== ibtick mapped ring ping-pong, feeds in busy-poll mode (oversubscribed: 4 spinners, 2 vCPUs)"
	N=2000 pingpong "-m -B 1" 7331 7332
fi
echo "== ib_send_lat again (drift)"
floor
echo "== kernel cost per tick against the number of readers ($FANOUT_N ticks at 2000/s)"
port=7400
for kind in ring epoll recvmsg; do
	for count in 1 16; do
		fanout $kind $count $((port += 1))
	done
done
rmmod ibtick
