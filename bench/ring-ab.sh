#!/usr/bin/env bash
# The preload library reading the mapped rings against reading every tick
# through recvmsg (ibtick-run -K, IBTICK_RING=0), in one guest boot: the
# same library, the same paths, rounds interleaved (K first in odd rounds,
# the rings first in even ones), each path's median held against the same
# path's in the other mode, and each ibtick-run path against ibtick's own
# socket of its kind in that mode (the library's cost).
#
# usage: bench/ring-ab.sh [-r ROUNDS] [-n N] [OUT_DIR]
#   ROUNDS (default 10) rounds of N (default 3000) samples of two sets, 64 B
#   ping-pong on rxe1 <- rxe0 as bench/run.sh runs them: with busy polling
#   (--busy-us 200: spin-1g, inet-run-spin, run-spin, recvmsg-1g, inet-run,
#   run) and without (--busy-us 0: spin-1g, inet-run-spin, run-spin), each
#   ibtick-run path - udppp's loop (inet-run*) and sockperf's (run*) - run
#   next to ibtick's own of its kind.  OUT_DIR (default
#   bench/results/ring-ab): raw/{K,R}{b,n}/rROUND-PATH.txt.gz, summary.md
#   (bench/ring_ab.py).  CLOCK=tsc and IDLE=poll as bench/run.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ${IBTICK_GUEST:-} == 1 ]]; then
	# inside the guest (scripts/vm-run.sh)
	R=$RESULTS P=user/tools/ibtick-perf
	export PATH="$PWD/user/preload:$PWD/user/ibtick:$PATH"
	insmod kmod/ibtick.ko
	# each ibtick-run path right next to ibtick's own of its kind: the
	# emulator's speed drifts with the host's load over seconds, and the
	# ratio is of two runs.  Each group is ibtick's own path (first) and
	# the two ibtick-run ones: the own path in the middle, which of the
	# others comes first, and the order of the groups random
	PB="spin-1g inet-run-spin run-spin|recvmsg-1g inet-run run" PN="spin-1g inet-run-spin run-spin"
	shuffle() { python3 -c 'import random, sys
rng = random.Random(int(sys.argv[1])); groups = [g.split() for g in sys.argv[2].split("|")]
rng.shuffle(groups)
for g in groups:
    others = g[1:]
    rng.shuffle(others)
    g[:] = others[:1] + g[:1] + others[1:]
print(",".join(k for g in groups for k in g))' "$1" "$2"; }
	for ((r = 1; r <= AB_ROUNDS; r++)); do
		ob=$(shuffle "$r" "$PB") on=$(shuffle $((r + 1000)) "$PN")
		for v in $( ((r % 2)) && echo "K R" || echo "R K"); do
			ring=1
			[[ $v == K ]] && ring=0
			echo "round $r, ${v/K/recvmsg (-K)}: $ob; $on"
			mkdir -p "$R/raw/${v}b" "$R/raw/${v}n"
			IBTICK_RING=$ring $P lat -j -k "$ob" -n "$AB_N" -w 1000 -c 1 -C 0 -L veth1 -I veth0 \
				--busy-us 200 --raw "$R/raw/${v}b/r$r-" 239.9.0.1 7900 >>"$R/rows.json"
			IBTICK_RING=$ring $P lat -j -k "$on" -n "$AB_N" -w 1000 -c 1 -C 0 -L veth1 -I veth0 \
				--busy-us 0 --raw "$R/raw/${v}n/r$r-" 239.9.0.1 7900 >>"$R/rows.json"
		done
	done
	gzip -9f "$R"/raw/*/*.txt
	exit 0
fi
rounds=10 n=3000
while getopts "r:n:" o; do
	case $o in
	r) rounds=$OPTARG ;;
	n) n=$OPTARG ;;
	*) sed -n '9,16p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[[ $rounds =~ ^[1-9][0-9]?$ && $n =~ ^[1-9][0-9]{0,6}$ ]] ||
	{ echo "bench/ring-ab.sh: ROUNDS is 1..99, N 1..9999999" >&2; exit 2; }
out=$(realpath -m "${1:-bench/results/ring-ab}")
# shellcheck source=scripts/lib-tuning.sh
. "$PWD/scripts/lib-tuning.sh"
ibt_guest_tuning bench/ring-ab.sh || exit 2
scripts/deps.sh
make -s all
rm -rf "$out"
mkdir -p "$out"
printf '{"head":"%s%s","rounds":%d,"n":%d}\n' "$(git rev-parse HEAD)" \
	"$(git diff --quiet HEAD -- user kmod include || echo +dirty)" "$rounds" "$n" >"$out/ab-head.json"
scripts/vm-run.sh -t $((900 + rounds * n / 5)) -o "$out" -- env AB_ROUNDS="$rounds" AB_N="$n" bench/ring-ab.sh
python3 bench/ring_ab.py "$out" "$rounds" | tee "$out/summary.md"
# the VM's own files (dmesg.txt names this machine's paths on the kernel
# command line); output.log keeps what the guest printed
rm -f "$out"/{console.log,qemu.log,dmesg.txt,.vm-cmd,rc,tainted,timing,setup-error}
