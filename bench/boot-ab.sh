#!/usr/bin/env bash
# A/B of two ways to boot the measuring guest, with this tree's module:
# pairs of boots, one booted with the BASE tuning and one with the HEAD
# tuning (scripts/lib-tuning.sh: CLOCK and IDLE), in turn, each running
# the same rounds of the same paths; every path's time is a ratio to the
# verbs floor measured in the same boot and round, and round r of a base
# boot is paired with round r of the head boot after it (bench/ab.py).
# The boots alternate so that the host's drift falls on both alike.
#
# usage: bench/boot-ab.sh [-p PAIRS] [-r ROUNDS] [-n N] [-k KINDS] BASE HEAD [OUT_DIR]
#   BASE, HEAD: settings of lib-tuning.sh, e.g. IDLE=default and IDLE=poll
#   (the README's numbers: -p 3 -r 10 -n 2000 -k floor,mapped,busy,recvmsg,epoll).
#   PAIRS (default 3) pairs of boots, ROUNDS (default 10) rounds of N
#   (default 2000) samples of each path in KINDS (default
#   floor,mapped,busy,recvmsg,epoll; floor is always run).  OUT_DIR
#   (default bench/results/boot-ab): ab.json, summary.md.
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=3 rounds=10 n=2000 kinds=floor,mapped,busy,recvmsg,epoll
while getopts "p:r:n:k:" o; do
	case $o in
	p) pairs=$OPTARG ;;
	r) rounds=$OPTARG ;;
	n) n=$OPTARG ;;
	k) kinds=$OPTARG ;;
	*) sed -n '10,16p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
(($# >= 2)) || { sed -n '10,16p' "$0" >&2; exit 2; }
[[ $pairs =~ ^[1-9]$ && $rounds =~ ^[1-9][0-9]?$ && $n =~ ^[1-9][0-9]{0,6}$ ]] ||
	{ echo "bench/boot-ab.sh: PAIRS is 1..9, ROUNDS 1..99, N 1..9999999" >&2; exit 2; }
[[ $kinds =~ ^[a-z,-]+$ ]] || { echo "bench/boot-ab.sh: KINDS: a comma list of paths" >&2; exit 2; }
[[ ,$kinds, == *,floor,* ]] || kinds=floor,$kinds
for s in "$1" "$2"; do
	[[ $s =~ ^(CLOCK|IDLE)=[a-z]+$ ]] ||
		{ echo "bench/boot-ab.sh: '$s': a setting is CLOCK=... or IDLE=... (scripts/lib-tuning.sh)" >&2; exit 2; }
done
out=$(realpath -m "${3:-bench/results/boot-ab}")

scripts/deps.sh
make -s all
rm -rf "$out"
mkdir -p "$out"
: >"$out/ab.json"
boot=$out/boot	# each boot's results; guest-ab.sh loads boot/mods/MOD.ko
printf '{"base":"%s","head":"%s","boots":%d,"rounds":%d,"n":%d,"kinds":"%s","rev":"%s"}\n' \
	"$1" "$2" "$pairs" "$rounds" "$n" "$kinds" "$(git rev-parse HEAD)" >"$out/ab-head.json"
for ((p = 0; p < pairs; p++)); do
	for m in base head; do
		[[ $m == base ]] && setting=$1 || setting=$2
		echo "bench/boot-ab.sh: pair $((p + 1)) of $pairs, $m ($setting)"
		rm -rf "${boot:?}"
		mkdir -p "$boot/mods"
		cp kmod/ibtick.ko "$boot/mods/$m.ko"
		(
			export "${setting?}"
			# shellcheck source=scripts/lib-tuning.sh
			. "$PWD/scripts/lib-tuning.sh"
			ibt_guest_tuning bench/boot-ab.sh
			scripts/vm-run.sh -t $((300 + rounds * n / 20)) -o "$boot" -- \
				env AB_MODS="$m" AB_ROUND0=$((p * 100)) AB_COUNTED=0 AB_ROUNDS="$rounds" \
				AB_N="$n" AB_KINDS="$kinds" bench/guest-ab.sh
		) >"$out/boot-$((p + 1))-$m.log" 2>&1 ||
			{ echo "bench/boot-ab.sh: that boot failed: $out/boot-$((p + 1))-$m.log" >&2; exit 1; }
		cat "$boot/ab.json" >>"$out/ab.json"
	done
done
rm -rf "${boot:?}"
python3 bench/ab.py "$out" | tee "$out/summary.md"
