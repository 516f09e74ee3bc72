#!/usr/bin/env bash
# What the preload library's own code costs per call, in instructions:
# the ping side of a ping-pong on AF_INET alone - udppp's
# (user/bench/udppp.c) and sockperf's - run under valgrind's callgrind,
# which counts the instructions executed inside recvfrom() and sendto() -
# the library's hooks, what they call, and libc's system call wrappers;
# never the kernel's work - per round trip.
# Counts, unlike times, do not depend on the emulated CPU's speed or on
# the host's load: a change to the library's per-call path shows here
# exactly, where a ping-pong's times would bury it; and two programs'
# counts say whether the library costs one of them more than the other.
#
# usage: bench/lib-cost.sh [-n N] [-t SECS] [BASE] [OUT_DIR]
#   N (default 2000) round trips of udppp and 200 warm-up ones, SECS
#   (default 4) seconds of sockperf's ping-pong, every call counted and
#   divided by the round trips the program reports (sockperf's messages
#   sent, its warm-up's included, as their calls are counted too), 64 B,
#   ping on rxe1 (vCPU 1), echo on rxe0 (vCPU 0) in one guest boot, the
#   modes: blocking reads under ibtick-run; blocking with -b 200 (the
#   library's SO_BUSY_POLL reads, spinning in the kernel's wait); and
#   kernel UDP without ibtick-run (libc's wrappers alone, the baseline).
#   BASE (a git revision; an argument that is none is OUT_DIR): the
#   library built there too, run the same way
#   (IBTICK_PRELOAD), next to the work tree's.  OUT_DIR (default
#   bench/results/lib-cost): counts.json, summary.md; with KEEP_CG=1 also
#   callgrind's own files (cg-PROG-LIB-MODE-CALL.out, for callgrind_annotate;
#   they name this machine's paths, so they are not for committing).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ${IBTICK_GUEST:-} == 1 ]]; then
	# inside the guest (scripts/vm-run.sh)
	R=$RESULTS P=$PWD/user/tools/ibtick-perf G=239.9.0.7 PORT=7991
	export PATH="$PWD/user/preload:$PWD/user/ibtick:$PATH"
	insmod kmod/ibtick.ko
	for prog in $LC_PROGS; do
		for lib in $LC_LIBS; do
			pre=$PWD/user/preload/libibtick-preload.so
			[[ $lib == head ]] || pre=$R/lib-$lib.so
			for mode in block busy udp; do
				[[ $lib == head || $mode != udp ]] || continue
				run_a=() run_b=()
				if [[ $mode != udp ]]; then
					b=0
					[[ $mode == busy ]] && b=200
					run_a=(env IBTICK_PRELOAD="$pre" ibtick-run -b "$b" -g "$G:$PORT@veth1" --)
					run_b=(env IBTICK_PRELOAD="$pre" ibtick-run -b "$b" -g "$G:$PORT@veth0" --)
				fi
				if [[ $prog == udppp ]]; then
					echo_cmd=("$P" _udppp echo block 10.99.0.1 "$G" "$PORT" 64 "$LC_N" 200)
				else
					echo_cmd=(sockperf server -i "$G" -p "$PORT"
						  --mc-rx-if 10.99.0.1 --mc-tx-if 10.99.0.1)
				fi
				taskset -c 0 "${run_b[@]}" "${echo_cmd[@]}" >/dev/null \
					2>"$R/echo-$prog-$lib-$mode.err" &
				e=$!
				sleep 1
				for fn in recvfrom sendto; do
					tag=$prog-$lib-$mode-$fn
					if [[ $prog == udppp ]]; then
						ping_cmd=("$P" _udppp ping block 10.99.0.2 "$G" "$PORT" 64
							  "$LC_N" 200 "/tmp/lat-$tag.txt")
					else
						ping_cmd=(sockperf ping-pong -i "$G" -p "$PORT" -m 64
							  --mc-rx-if 10.99.0.2 --mc-tx-if 10.99.0.2 -t "$LC_T")
					fi
					taskset -c 1 "${run_a[@]}" valgrind --tool=callgrind \
						--callgrind-out-file="$R/cg-$tag.out" --toggle-collect="$fn" \
						"${ping_cmd[@]}" >"/tmp/out-$tag.txt" 2>"$R/cg-$tag.err" ||
						echo "$tag: the ping failed"
					ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$R/cg-$tag.err")
					# the round trips: udppp's own count; sockperf's
					# messages sent, its warm-up's among them as
					# callgrind counts their calls too
					if [[ $prog == udppp ]]; then
						rt=$(sed -n 's/^# round_trips \([0-9]*\).*/\1/p' "/tmp/lat-$tag.txt")
					else
						rt=$(sed -n 's/.*\[Total Run\].*SentMessages=\([0-9]*\).*/\1/p' \
							"/tmp/out-$tag.txt" "$R/cg-$tag.err" | head -1)
					fi
					printf '{"prog":"%s","lib":"%s","mode":"%s","fn":"%s","ir":%s,"round_trips":%s}\n' \
						"$prog" "$lib" "$mode" "$fn" "${ir:-null}" "${rt:-null}" >>"$R/counts.json"
				done
				kill "$e" 2>/dev/null || true
				wait "$e" 2>/dev/null || true
			done
		done
	done
	exit 0
fi
n=2000 secs=4 base=
while getopts "n:t:" o; do
	case $o in
	n) n=$OPTARG ;;
	t) secs=$OPTARG ;;
	*) sed -n '13,27p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[[ $n =~ ^[1-9][0-9]{0,5}$ ]] || { echo "bench/lib-cost.sh: N is 1..999999" >&2; exit 2; }
[[ $secs =~ ^[1-9][0-9]?$ ]] || { echo "bench/lib-cost.sh: SECS is 1..99" >&2; exit 2; }
if (($# >= 1)) && git rev-parse -q --verify "$1^{commit}" >/dev/null; then
	base=$(git rev-parse "$1^{commit}")
	shift
fi
out=$(realpath -m "${1:-bench/results/lib-cost}")
scripts/deps.sh
command -v valgrind >/dev/null || apt-get install -y valgrind
make -s all
rm -rf "$out"
mkdir -p "$out"
libs="head"
if [[ -n $base ]]; then
	tree=$(mktemp -d)
	trap 'git worktree remove --force "$tree" 2>/dev/null || rm -rf "$tree"' EXIT
	git worktree add -q --detach "$tree" "$base"
	echo "bench/lib-cost.sh: building the library at ${base:0:12}"
	make -s -C "$tree" user/preload/libibtick-preload.so >/dev/null
	cp "$tree/user/preload/libibtick-preload.so" "$out/lib-base.so"
	libs="base head"
fi
printf '{"head":"%s%s","base":"%s","n":%d,"secs":%d}\n' "$(git rev-parse HEAD)" \
	"$(git diff --quiet HEAD -- user include || echo +dirty)" "$base" "$n" "$secs" >"$out/head.json"
scripts/vm-run.sh -t $((600 + n + 60 * secs)) -o "$out" -- \
	env LC_PROGS="udppp sockperf" LC_LIBS="$libs" LC_N="$n" LC_T="$secs" bench/lib-cost.sh
python3 - "$out" <<'PY' | tee "$out/summary.md"
import json, sys
from pathlib import Path
d = Path(sys.argv[1])
h = json.loads((d / 'head.json').read_text())
rows = [json.loads(l) for l in (d / 'counts.json').read_text().splitlines() if l.strip()]
c = {(r.get('prog', 'udppp'), r['lib'], r['mode'], r['fn']): r for r in rows}
print("# What the preload library's own code costs per call, in instructions\n")
print(f"Source `{h['head'][:12]}`" + (f", base `{h['base'][:12]}`" if h['base'] else "") +
      f"; `bench/lib-cost.sh -n {h['n']} -t {h.get('secs', 4)}`: the ping side of two ping-pongs on AF_INET "
      f"alone under callgrind (`--toggle-collect` on the call), 64 B: udppp, {h['n']} round trips and 200 "
      f"warm-up ones, and sockperf's `ping-pong` for {h.get('secs', 4)} s. Every call is counted and divided by "
      "the round trips the program reports (sockperf's messages sent, its warm-up's included). The "
      "instructions executed inside each recvfrom() and sendto() in user space - the library's hooks and all "
      "they call, and libc's system call wrapper - per round trip (one of each). The kernel's work is not "
      "counted. *kernel UDP* is the same program without ibtick-run: libc's wrapper alone. *busy*: "
      "ibtick-run -b 200, its blocking reads spinning in the kernel (in recvmsg, or since IBTICK_SIOC_WAIT "
      "in the wait).\n")
print("| program | library | mode | recvfrom | sendto | both | above kernel UDP |")
print("|---|---|---|---|---|---|---|")
def per(k):
    r = c.get(k)
    if not r or not r['ir'] or not r['round_trips']:
        return None
    return r['ir'] / r['round_trips']
for prog in ('udppp', 'sockperf'):
    udp = [per((prog, 'head', 'udp', f)) for f in ('recvfrom', 'sendto')]
    udp_both = sum(udp) if None not in udp else None
    for lib in ('base', 'head'):
        for mode in ('block', 'busy', 'udp'):
            v = [per((prog, lib, mode, f)) for f in ('recvfrom', 'sendto')]
            if v == [None, None]:
                continue
            both = sum(v) if None not in v else None
            cells = [f"{x:.0f}" if x is not None else "—" for x in v + [both]]
            above = f"{both - udp_both:.0f}" if both is not None and udp_both is not None and mode != 'udp' else "—"
            name = {'block': 'blocking', 'busy': 'busy (-b 200)', 'udp': 'kernel UDP, no ibtick-run'}[mode]
            print(f"| {prog} | {lib} | {name} | " + " | ".join(cells) + f" | {above} |")
PY
rm -f "$out"/{console.log,qemu.log,dmesg.txt,.vm-cmd,rc,tainted,timing,setup-error,lib-base.so}
[[ ${KEEP_CG:-} == 1 ]] || rm -f "$out"/cg-*.out "$out"/cg-*.err "$out"/echo-*.err
