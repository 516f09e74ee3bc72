#!/usr/bin/env bash
# The benchmark: boot the bench once, run bench/guest.sh (every ibtick-perf
# mode, with the verbs floor and kernel UDP in the same boot), then write
# summary.md next to the JSON and SVG results.
#
# usage: bench/run.sh [OUT_DIR]    (default bench/results/latest)
# N=100000 samples per latency row (the default).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
make -s all
out=$(realpath -m "${1:-bench/results/latest}")
rm -rf "$out"
mkdir -p "$out"
scripts/vm-run.sh -t 5400 -o "$out" -- env N="${N:-100000}" bench/guest.sh
# keep the results and the run's own log, not the emulator's
# (dmesg.txt names this machine's paths on the kernel command line)
rm -f "$out"/{console.log,qemu.log,dmesg.txt,.vm-cmd,rc,tainted,timing,setup-error}
bench/summary.py "$out" >"$out/summary.md"
cat "$out/summary.md"
