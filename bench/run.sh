#!/usr/bin/env bash
# The benchmark: boot the bench once, run bench/guest.sh (every ibtick-perf
# mode, with the verbs floor and kernel UDP in the same boot), then write
# summary.md next to the JSON and SVG results.
#
# usage: bench/run.sh [OUT_DIR]    (default bench/results/latest)
# N=5000 samples per path and round, ROUNDS=5 rounds in random order (SEED,
# default the time), NCOUNT=2000 round trips in the counted run.
# The defaults are sized to stay well under 25 minutes in all: one default
# run took 490 s on the shared 2-core rig at load 1.6, with the module and
# tools already built (a fresh build adds about 75 s); the arbitrated
# feed's section (ARB_ROUNDS=12 rounds, passed on like the others) added
# about 85 s of guest time to the committed run, which took 1109 s in all
# at load 3.7 (another build beside it); the run prints its own total.
# The committed run (ROUNDS=10 PAIR_ROUNDS=4, the -ev paths among the
# others) took 2270 s in all, from a host load of 0.5; summary.py's
# bootstrap (BOOT draws, one CPU) takes under a minute of that (11 min
# before it drew order statistics instead of sorting every resample).
# CLOCK=tsc (default) boots the guest with clocksource=tsc tsc=reliable and
# IDLE=poll (default) with idle=poll, as latency-tuned hosts run;
# CLOCK=default and IDLE=default keep the guest's own choices, to see what
# they cost (scripts/lib-tuning.sh says why).
# TOPOLOGIES="single pair" (default): the single guest (all of the above),
# then two guests of one vCPU each (scripts/vm-run.sh -T pair) for the
# ping-pong paths across two kernels, as between two hosts
# (bench/guest-pair.sh; N and ROUNDS as above, PAIR_ROUNDS overrides
# ROUNDS there; PAIR_PATHS, PAIR_RC_PATHS choose the paths), into
# OUT_DIR/pair; the summary reports both.
# PATHS (the single guest's ping-pong paths, bench/guest.sh's default when
# unset) and PINGPONG_ONLY=1 (the ping-pong alone, no other section, in
# both topologies) are passed on: a focused run, e.g.
# bench/results/preload-cost, bench/results/goals.
# PREFER_DEFER_US (default 2000; "" for none): the busy-prefer path reads feeds with that
# prefer-defer (ibtick-perf --prefer-defer, ibtick-feed(8)), in both
# topologies: NAPI's gro_flush_timeout scaled, as the deferral must outlast
# the time between a reader's calls, hundreds of microseconds under TCG
# where a host has a few (with the default 200 its timer fires between
# most calls here).
# BUSY_US (default 20000): the SO_BUSY_POLL time of the busy, busy-prefer
# and run-spin readers (ibtick-perf --busy-us), in both topologies.  A
# busy reader spins only while the answer comes within its time: under TCG
# a round trip takes 100-700 us with a tail of milliseconds, so
# ibtick-perf's own 200 us made the pair's busy rows sleeping readers (the
# spin over before the answer came; on a host 50 us covers a few us).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
make -s all
out=$(realpath -m "${1:-bench/results/latest}")
rm -rf "$out"
mkdir -p "$out"
# shellcheck source=scripts/lib-tuning.sh
. "$PWD/scripts/lib-tuning.sh"
ibt_guest_tuning bench/run.sh || exit 2
# the host side of the setup: the guest cannot see it
python3 - "$out/host.json" "${CLOCK:-tsc}" "${IDLE:-poll}" <<'PY'
import json, os, subprocess, sys
def sh(c):
    return subprocess.run(c, shell=True, capture_output=True, text=True).stdout.strip()
def source():
    # the code measured: the module and tools are built from this tree
    # ("+dirty": a change to it, not to the results this run replaces)
    rev = sh("git describe --always --abbrev=12 2>/dev/null")
    if not rev:
        return None
    diff = subprocess.run("git diff --quiet HEAD -- . ':!bench/results'", shell=True)
    return rev + ("+dirty" if diff.returncode == 1 else "")
json.dump({
    "qemu": sh("qemu-system-x86_64 --version | head -1"),
    "host_cpu": sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2").strip(),
    "host_cpus": os.cpu_count(),
    "host_loadavg_before": open("/proc/loadavg").read().split()[:3],
    "boot_clock": sys.argv[2],
    "boot_idle": sys.argv[3],
    "source": source(),
}, open(sys.argv[1], "w"), indent=1)
PY
seed=${SEED:-$(date +%s)}
topologies=${TOPOLOGIES:-single pair}
for t in $topologies; do
	case $t in
	single | pair) ;;
	*) echo "bench/run.sh: TOPOLOGIES: single and/or pair, not '$t'" >&2; exit 2 ;;
	esac
done
# a topology that fails still leaves the other's results and the summary
rc=0
if [[ " $topologies " == *" single "* ]]; then
	scripts/vm-run.sh -t 5400 -o "$out" -- env N="${N:-5000}" ROUNDS="${ROUNDS:-5}" SEED="$seed" NCOUNT="${NCOUNT:-2000}" \
		ARB_ROUNDS="${ARB_ROUNDS:-12}" ${RC_ROUNDS:+RC_ROUNDS="$RC_ROUNDS"} \
		PREFER_DEFER_US="${PREFER_DEFER_US-2000}" BUSY_US="${BUSY_US:-20000}" \
		${RATE_ROUNDS:+RATE_ROUNDS="$RATE_ROUNDS"} ${RATE_N:+RATE_N="$RATE_N"} \
		${PATHS:+PATHS="$PATHS"} ${PINGPONG_ONLY:+PINGPONG_ONLY="$PINGPONG_ONLY"} \
		bench/guest.sh || rc=1
fi
if [[ " $topologies " == *" pair "* ]]; then
	scripts/vm-run.sh -T pair -t 3600 -o "$out/pair" -- env N="${N:-5000}" \
		ROUNDS="${PAIR_ROUNDS:-${ROUNDS:-5}}" SEED="$seed" NCOUNT="${NCOUNT:-2000}" \
		PREFER_DEFER_US="${PREFER_DEFER_US-2000}" BUSY_US="${BUSY_US:-20000}" \
		${PAIR_PATHS:+PAIR_PATHS="$PAIR_PATHS"} ${PAIR_RC_PATHS:+PAIR_RC_PATHS="$PAIR_RC_PATHS"} \
		${PINGPONG_ONLY:+PINGPONG_ONLY="$PINGPONG_ONLY"} \
		bench/guest-pair.sh || rc=1
	# node 0's scratch: each echo's stderr, its counters before each count
	rm -rf "$out/pair/sync" "$out"/pair/vm0/echo-*.err "$out"/pair/vm0/b0-*
fi
# keep the results and the runs' own logs, not the emulator's
# (dmesg.txt names this machine's paths on the kernel command line)
for d in "$out" "$out"/pair/vm0 "$out"/pair/vm1; do
	rm -f "$d"/{console.log,qemu.log,dmesg.txt,.vm-cmd,rc,tainted,timing,setup-error}
done
bench/summary.py "$out" >"$out/summary.md"
cat "$out/summary.md"
echo "bench/run.sh: $SECONDS s in all (build, boot, guest, summary)"
((rc == 0)) || echo "bench/run.sh: a guest run failed (above); the summary has what was measured"
exit "$rc"
