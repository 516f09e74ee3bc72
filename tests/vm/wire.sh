#!/usr/bin/env bash
# VM topic: ibtick on the wire, as Wireshark shows it.  tcpdump captures
# veth0 (under rxe0) while ibtick-pub on rxe1 publishes to a subscriber on
# rxe0; tshark with the dissector (user/wireshark/ibtick.lua) on the
# RoCEv2 capture must show every tick the subscriber got, in order, with the
# feed port, payload length and publisher id that were sent, and must not
# claim UDP 4791 traffic that is not ibtick.  tshark and tcpdump come from
# the host (scripts/deps.sh), through the guest's read-only root.
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/vm/lib.sh
. tests/vm/lib.sh

SUB=user/tools/ibtick-sub
PUB=user/tools/ibtick-pub
LUA=user/wireshark/ibtick.lua
ALL_TESTS="dissect_capture foreign_not_claimed"
N=${N:-$(cnt 2000)}

# tshark, run as root in the guest: no personal configuration to read
# (HOME on the results directory), the banner about root dropped
ts() {
	HOME=$RESULTS tshark -n -X "lua_script:$LUA" "$@" 2> >(grep -v '^Running as user' >&2)
}

# capture_start FILE GROUP COUNT: tcpdump on veth0, UDP 4791 to GROUP,
# until COUNT packets; returns when it listens.  Immediate mode, and an
# exit of its own at COUNT: a tcpdump stopped by a signal leaves what is
# still in its ring buffer unwritten.  It writes to the guest's tmpfs (on
# 9p, $RESULTS, the slow writes make the kernel drop packets), as root
# (-Z: Debian's tcpdump would switch to user tcpdump).  capture_stop FILE
# waits for that exit (10 s, then SIGINT), copies the capture to FILE and
# fails when the kernel dropped any packet.
capture_start() {
	CAPTMP=$(mktemp /tmp/wire.XXXXXX)
	tcpdump -i veth0 -Z root --immediate-mode -U -B 16384 -c "$3" -w "$CAPTMP" \
		udp port 4791 and dst host "$2" 2>"$1.err" &
	CAP=$!
	wait_for "$1.err" "listening on" || return 1
}

capture_stop() {
	local f=$1 i
	for i in $(seq $((100 * SLOW))); do
		kill -0 "$CAP" 2>/dev/null || break
		sleep 0.1
	done
	kill -INT "$CAP" 2>/dev/null && echo "  tcpdump: stopped before its count"
	wait "$CAP"
	cp "$CAPTMP" "$f" && rm -f "$CAPTMP"
	sed 's/^/  tcpdump: /' "$f.err"
	grep -q '^0 packets dropped by kernel' "$f.err" || { echo "  tcpdump dropped packets"; return 1; }
}

dissect_capture() {
	local rc=0 r=$RESULTS/wire want got sub
	require_cmd tcpdump tshark || return
	mkdir -p "$r"
	capture_start "$r/ticks.pcap" 239.2.9.1 "$N" || rc=1
	$SUB -i veth0 -v -n "$N" -t "$(tmo 10)" 239.2.9.1 7290 >"$r/sub.out" 2>"$r/sub.err" &
	sub=$!
	wait_bound "$r/sub.err" || rc=1
	# paced, so that neither the feed nor tcpdump has a reason to drop
	$PUB -i veth1 -n "$N" -s 100 -r 1000 239.2.9.1 7290 >"$r/pub.out" || rc=1
	wait "$sub" || { echo "  ibtick-sub failed"; rc=1; }
	capture_stop "$r/ticks.pcap" || rc=1
	tail -n 1 "$r/sub.out"
	cat "$r/pub.out"

	ts -r "$r/ticks.pcap" -Y ibtick -T fields -E separator=' ' -e ibtick.pub_id \
		-e ibtick.pub_seq -e ibtick.feed_port -e ibtick.len -e ibtick.hdr_len \
		-e ibtick.send_ns -e frame.time_epoch >"$r/fields" || { echo "  tshark failed"; rc=1; }
	echo "  tshark: $(wc -l <"$r/fields") ibtick packets in $(ts -r "$r/ticks.pcap" -T fields -e frame.number | wc -l) captured"
	# the sequences 1..N, in order, none missing, none twice
	check_eq "$(awk '{ print $2 }' "$r/fields" | sha1sum)" "$(seq 1 "$N" | sha1sum)" \
		"pub_seq is not 1..$N in order ($(awk 'NR == 1 { f = $2 } { l = $2 } END { print NR " values, " f ".." l }' "$r/fields"))"
	# feed port, length, header length as sent; one publisher
	check_eq "$(awk '{ print $3, $4, $5 }' "$r/fields" | sort | uniq -c | xargs)" "$N 7290 100 32" \
		"feed_port len hdr_len counts"
	check_eq "$(awk '{ print $1 }' "$r/fields" | sort -u | wc -l)" 1 "publisher ids"
	# what the subscriber received, tick by tick, is what tshark decoded
	want=$(awk '$1 == "tick" { print "0x" $3, $5, $7 }' "$r/sub.out" | sha1sum)
	got=$(awk '{ print $1, $2, $4 }' "$r/fields" | sha1sum)
	check_eq "$got" "$want" "ticks decoded differ from the ticks ibtick-sub received"
	check_eq "$(grep -c '^tick ' "$r/sub.out")" "$N" "ticks ibtick-sub received"
	# send_ns is the publisher's CLOCK_REALTIME: never backwards, and
	# within 10 s of the capture's timestamp of the same packet
	awk '{ d = $7 - $6 / 1e9; if (d < -10 || d > 10 || $6 < prev) bad++; prev = $6 }
		END { exit bad > 0 }' "$r/fields"
	check_err $? "send_ns goes backwards or is more than 10 s off the capture time"
	# no expert info: every header is well formed
	check_eq "$(ts -r "$r/ticks.pcap" -Y 'ibtick && _ws.expert' -T fields -e frame.number | wc -l)" 0 \
		"packets with expert info"
	log_test "$N ticks rxe1 -> rxe0 captured by tcpdump: tshark's ibtick.pub_seq is 1..$N in order, feed port, len, pub id as sent and received" $rc
}

# UDP 4791 datagrams from veth1's address that are not ibtick ticks: an
# ibtick header without BTH/DETH, and UD SENDs (BTH/DETH, dummy ICRC: rxe0
# drops them) whose payload has another magic, version 2, or is ibtick's
foreign_not_claimed() {
	local rc=0 r=$RESULTS/foreign ip
	require_cmd tcpdump tshark || return
	mkdir -p "$r"
	ip=$(ip -4 -o addr show dev veth1 | awk '{ sub("/.*", "", $4); print $4; exit }')
	capture_start "$r/foreign.pcap" 239.2.9.2 4 || rc=1
	python3 - "$ip" <<'PY' || rc=1
import socket, struct, sys
hdr = lambda magic, ver: struct.pack(">HBBHHIIQQ", magic, ver, 32, 7291, 8,
                                     0x1234, 0, 1, 0) + bytes(8)
bth_deth = struct.pack(">BBHIIII", 0x64, 0, 0xFFFF, 0xFFFFFF, 7, 0x80010000, 17)
datagrams = [hdr(0x4954, 1),                        # no BTH: not a UD SEND
             bth_deth + hdr(0x4955, 1) + bytes(4),  # another magic
             bth_deth + hdr(0x4954, 2) + bytes(4),  # another version
             bth_deth + hdr(0x4954, 1) + bytes(4)]  # a tick: the control
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton(sys.argv[1]))
for d in datagrams:
    s.sendto(d, ("239.2.9.2", 4791))
PY
	capture_stop "$r/foreign.pcap" || rc=1
	ts -r "$r/foreign.pcap" -Y 'ip.dst == 239.2.9.2' -T fields -E separator='|' -e udp.dstport \
		-e ibtick.magic -e ibtick.version >"$r/fields" || { echo "  tshark failed"; rc=1; }
	sed 's/^/  /' "$r/fields"
	# all four captured, only the last one (the control) is ibtick
	check_eq "$(xargs <"$r/fields")" "4791|| 4791|| 4791|| 4791|0x4954|1" \
		"udp port|ibtick magic|version, in the order sent"
	log_test "UDP 4791 that is not an ibtick tick (no BTH, other magic, version 2) is not claimed; a tick in the same capture is" $rc
}

run_tests
