#!/usr/bin/env bash
# The Wireshark dissector (user/wireshark/ibtick.lua) on prepared captures
# (tests/unit/ibtick_pcap.py writes them): RoCEv2 over UDP 4791 and native
# InfiniBand in ibdump's ERF records, each with six ticks (payloads of 0 to
# 64 bytes, one header of a later version's 40 bytes); bad headers flagged
# by expert info; payloads that are not ibtick left alone.  tshark comes
# from scripts/deps.sh: without it every check fails.
#
#   wireshark.sh [PATH_TO_IBTICK_LUA]
set -u
top=$(cd "$(dirname "$0")/../.." && pwd -P)
lua=${1:-$top/user/wireshark/ibtick.lua}
TAP_NAME=wireshark
# shellcheck source=tests/unit/tap.sh
. "$top/tests/unit/tap.sh"

# ts FILE ARGS...: tshark with the dissector on FILE (its banner about
# running as root dropped)
ts() {
	local f=$1
	shift
	tshark -n -X "lua_script:$lua" -r "$f" "$@" 2>"$T/err"
	grep -v '^Running as user' "$T/err" >&2
}

if ! command -v tshark >/dev/null; then
	check "tshark installed (scripts/deps.sh)" missing present
	tap_end
	exit 1
fi

# the script loads and registers its fields and expert infos
check "fields registered" \
	"$(tshark -G fields -X "lua_script:$lua" 2>/dev/null | awk -F'\t' '$1 == "F" && $5 == "ibtick" { print $3 }' | sort | xargs)" \
	"ibtick.bad_hdr_len ibtick.bad_len ibtick.feed_port ibtick.hdr_extra ibtick.hdr_len ibtick.len ibtick.magic ibtick.pub_id ibtick.pub_seq ibtick.reserved ibtick.reserved_set ibtick.send_ns ibtick.send_time ibtick.short ibtick.trailer ibtick.version"

for k in roce ib bad foreign; do
	python3 "$top/tests/unit/ibtick_pcap.py" "$k" "$T/$k.pcap" || echo "# ibtick_pcap.py $k failed"
done

good="1 7200 0 0x11223344 32 1700000000001000000 Nov 14, 2023 22:13:20.001000000 UTC
2 7200 1 0x11223344 32 1700000000002000000 Nov 14, 2023 22:13:20.002000000 UTC
3 7200 2 0x11223344 32 1700000000003000000 Nov 14, 2023 22:13:20.003000000 UTC
4 7200 3 0x11223344 32 1700000000004000000 Nov 14, 2023 22:13:20.004000000 UTC
5 7200 64 0x11223344 32 1700000000005000000 Nov 14, 2023 22:13:20.005000000 UTC
6 7200 8 0x11223344 40 1700000000006000000 Nov 14, 2023 22:13:20.006000000 UTC"
for k in roce ib; do
	check "$k: every header field of six ticks" \
		"$(ts "$T/$k.pcap" -Y ibtick -T fields -E separator=' ' -e ibtick.pub_seq \
			-e ibtick.feed_port -e ibtick.len -e ibtick.pub_id -e ibtick.hdr_len \
			-e ibtick.send_ns -e ibtick.send_time)" "$good"
	# the payload is handed to the data dissector, cut at len; the pad
	# (PadCnt) and a later version's header bytes are shown apart
	check "$k: payload as data, padding and longer header apart" \
		"$(ts "$T/$k.pcap" -T fields -E separator='|' -e data.data -e ibtick.trailer -e ibtick.hdr_extra)" \
		"||
02|000000|
0304|0000|
040506|00|
$(python3 -c 'print(bytes((5 + i) & 255 for i in range(64)).hex())')||
060708090a0b0c0d||0000000000000000"
	check "$k: the display filter selects by field" \
		"$(ts "$T/$k.pcap" -Y 'ibtick.pub_seq >= 3 && ibtick.len < 10 && ibtick.feed_port == 7200' -T fields -e ibtick.pub_seq | xargs)" \
		"3 4 6"
	check "$k: no expert info on good ticks" \
		"$(ts "$T/$k.pcap" -T fields -E separator='|' -e ibtick.pub_seq -e _ws.expert.message | xargs)" \
		"1| 2| 3| 4| 5| 6|"
done

check "bad: hdr_len < 32, len beyond the packet, short header flagged" \
	"$(ts "$T/bad.pcap" -T fields -E separator='|' -e ibtick.pub_seq -e _ws.expert.message -e _ws.expert.severity)" \
	"1|Header length 16: not in 32..40 (the packet's ibtick bytes)|8388608
2|Payload length 200, but 64 bytes follow the header|8388608
|20 bytes, shorter than the 32-byte ibtick header|8388608"
check "bad: the expert infos are filterable" \
	"$(ts "$T/bad.pcap" -Y 'ibtick.bad_hdr_len || ibtick.bad_len || ibtick.short' -T fields -e frame.number | xargs)" \
	"1 2 3"

# (not with -Y ibtick: a broken script also finds nothing, tshark refusing
# the filter; here every frame prints, with no ibtick field)
check "foreign RoCEv2 and UDP 4791: nothing claimed" \
	"$(ts "$T/foreign.pcap" -T fields -E separator='|' -e frame.number -e ibtick.magic | xargs)" "1| 2| 3| 4|"
check "foreign RoCEv2: still UD SENDs, payload as data" \
	"$(ts "$T/foreign.pcap" -T fields -e frame.protocols | head -n 3 | sort -u)" \
	"eth:ethertype:ip:udp:infiniband:data"
check "foreign IB: nothing claimed" \
	"$(ts "$T/foreign.pcap.ib" -T fields -E separator='|' -e frame.number -e ibtick.magic | xargs)" "1| 2| 3|"
check "foreign IB: 3 UD SENDs read" \
	"$(ts "$T/foreign.pcap.ib" -Y 'infiniband.bth.opcode == 100' -T fields -e frame.number | xargs)" "1 2 3"

tap_end
