#!/usr/bin/env bash
# A first latency side-by-side, in one guest boot (run it with
#   scripts/vm-run.sh -- scripts/bench-lat.sh
# ): perftest's ib_send_lat -c UD (the verbs floor, a tool nobody here
# wrote) before and after ibtick's recvmsg ping-pong over two feeds on the
# same rxe pair, blocking and with SO_BUSY_POLL.  64-byte payloads, N
# samples, half round trips in microseconds.  Under TCG only the ratios
# mean something.
set -euo pipefail
[[ ${IBTICK_GUEST:-} == 1 ]] || { echo "run inside the bench: scripts/vm-run.sh -- $0" >&2; exit 2; }
N=${N:-20000}
floor() {
	ib_send_lat -d rxe0 -c UD -s 64 -n "$N" >"$RESULTS/ib_send_lat-server.log" 2>&1 &
	sleep 1
	ib_send_lat -d rxe1 -c UD -s 64 -n "$N" 10.99.0.1 | grep -A1 '#bytes'
	wait
}
pingpong() {	# $1: SO_BUSY_POLL usec (0: off), $2 $3: feed ports
	user/tools/ibtick-lat -b "$1" -e -i veth0 -n "$N" 239.3.0.1 "$2" "$3" 2>"$RESULTS/echo-$2.err" &
	sleep 2
	user/tools/ibtick-lat -b "$1" -i veth1 -n "$N" 239.3.0.1 "$2" "$3"
	wait
}
insmod kmod/ibtick.ko
echo "== ib_send_lat -c UD -s 64 -n $N (rxe1 -> rxe0)"
floor
echo "== ibtick recvmsg ping-pong, blocking"
pingpong 0 7301 7302
echo "== ibtick recvmsg ping-pong, SO_BUSY_POLL 200 us"
pingpong 200 7311 7312
echo "== ib_send_lat again (drift)"
floor
rmmod ibtick
