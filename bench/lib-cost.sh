#!/usr/bin/env bash
# What the preload library's own code costs per call, in instructions:
# udppp's ping side (user/bench/udppp.c, AF_INET alone) run under
# valgrind's callgrind, which counts the instructions executed inside
# recvfrom() and sendto() - the library's hooks, what they call, and
# libc's system call wrappers; never the kernel's work - per round trip.
# Counts, unlike times, do not depend on the emulated CPU's speed or on
# the host's load: a change to the library's per-call path shows here
# exactly, where a ping-pong's times would bury it.
#
# usage: bench/lib-cost.sh [-n N] [BASE] [OUT_DIR]
#   N (default 2000) round trips and 200 warm-up ones, every call counted
#   and divided by the round trips udppp reports, 64 B,
#   ping on rxe1 (vCPU 1), echo on rxe0 (vCPU 0) in one guest boot, the
#   modes: blocking reads under ibtick-run; blocking with -b 200 (the
#   library's SO_BUSY_POLL reads, spinning in the kernel's wait); and
#   kernel UDP without ibtick-run (libc's wrappers alone, the baseline).
#   BASE (a git revision; an argument that is none is OUT_DIR): the
#   library built there too, run the same way
#   (IBTICK_PRELOAD), next to the work tree's.  OUT_DIR (default
#   bench/results/lib-cost): counts.json, summary.md; with KEEP_CG=1 also
#   callgrind's own files (cg-LIB-MODE-CALL.out, for callgrind_annotate;
#   they name this machine's paths, so they are not for committing).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ${IBTICK_GUEST:-} == 1 ]]; then
	# inside the guest (scripts/vm-run.sh)
	R=$RESULTS P=$PWD/user/tools/ibtick-perf G=239.9.0.7 PORT=7991
	export PATH="$PWD/user/preload:$PWD/user/ibtick:$PATH"
	insmod kmod/ibtick.ko
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
			taskset -c 0 "${run_b[@]}" "$P" _udppp echo block 10.99.0.1 "$G" "$PORT" 64 \
				"$LC_N" 200 2>"$R/echo-$lib-$mode.err" &
			e=$!
			sleep 1
			for fn in recvfrom sendto; do
				tag=$lib-$mode-$fn
				taskset -c 1 "${run_a[@]}" valgrind --tool=callgrind \
					--callgrind-out-file="$R/cg-$tag.out" --toggle-collect="$fn" \
					"$P" _udppp ping block 10.99.0.2 "$G" "$PORT" 64 "$LC_N" 200 \
					"/tmp/lat-$tag.txt" 2>"$R/cg-$tag.err" || echo "$tag: the ping failed"
				ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$R/cg-$tag.err")
				rt=$(sed -n 's/^# round_trips \([0-9]*\).*/\1/p' "/tmp/lat-$tag.txt")
				printf '{"lib":"%s","mode":"%s","fn":"%s","ir":%s,"round_trips":%s}\n' \
					"$lib" "$mode" "$fn" "${ir:-null}" "${rt:-null}" >>"$R/counts.json"
			done
			kill "$e" 2>/dev/null || true
			wait "$e" 2>/dev/null || true
		done
	done
	exit 0
fi
n=2000 base=
while getopts "n:" o; do
	case $o in
	n) n=$OPTARG ;;
	*) sed -n '11,23p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[[ $n =~ ^[1-9][0-9]{0,5}$ ]] || { echo "bench/lib-cost.sh: N is 1..999999" >&2; exit 2; }
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
printf '{"head":"%s%s","base":"%s","n":%d}\n' "$(git rev-parse HEAD)" \
	"$(git diff --quiet HEAD -- user include || echo +dirty)" "$base" "$n" >"$out/head.json"
scripts/vm-run.sh -t $((600 + n)) -o "$out" -- env LC_LIBS="$libs" LC_N="$n" bench/lib-cost.sh
python3 - "$out" <<'PY' | tee "$out/summary.md"
import json, sys
from pathlib import Path
d = Path(sys.argv[1])
h = json.loads((d / 'head.json').read_text())
rows = [json.loads(l) for l in (d / 'counts.json').read_text().splitlines() if l.strip()]
c = {(r['lib'], r['mode'], r['fn']): r for r in rows}
print("# What the preload library's own code costs per call, in instructions\n")
print(f"Source `{h['head'][:12]}`" + (f", base `{h['base'][:12]}`" if h['base'] else "") +
      f"; `bench/lib-cost.sh -n {h['n']}`: {h['n']} round trips and 200 warm-up ones, 64 B, every call "
      "counted and divided by the round trips udppp reports. "
      "udppp's ping side under callgrind (`--toggle-collect` on the call): the instructions executed "
      "inside each recvfrom() and sendto() in user space - the library's hooks and all they call, and libc's "
      "system call wrapper - per round trip (one of each). The kernel's work is not counted. "
      "*kernel UDP* is the same program without ibtick-run: libc's wrapper alone. *busy*: ibtick-run -b 200, "
      "its blocking reads spinning in the kernel (in recvmsg, or since IBTICK_SIOC_WAIT in the wait).\n")
print("| library | mode | recvfrom | sendto | both | above kernel UDP |")
print("|---|---|---|---|---|---|")
def per(k):
    r = c.get(k)
    if not r or not r['ir'] or not r['round_trips']:
        return None
    return r['ir'] / r['round_trips']
udp = [per(('head', 'udp', f)) for f in ('recvfrom', 'sendto')]
udp_both = sum(udp) if None not in udp else None
for lib in ('base', 'head'):
    for mode in ('block', 'busy', 'udp'):
        v = [per((lib, mode, f)) for f in ('recvfrom', 'sendto')]
        if v == [None, None]:
            continue
        both = sum(v) if None not in v else None
        cells = [f"{x:.0f}" if x is not None else "—" for x in v + [both]]
        above = f"{both - udp_both:.0f}" if both is not None and udp_both is not None and mode != 'udp' else "—"
        name = {'block': 'blocking', 'busy': 'busy (-b 200)', 'udp': 'kernel UDP, no ibtick-run'}[mode]
        print(f"| {lib} | {name} | " + " | ".join(cells) + f" | {above} |")
PY
rm -f "$out"/{console.log,qemu.log,dmesg.txt,.vm-cmd,rc,tainted,timing,setup-error,lib-base.so}
[[ ${KEEP_CG:-} == 1 ]] || rm -f "$out"/cg-*.out "$out"/cg-*.err "$out"/echo-*.err
