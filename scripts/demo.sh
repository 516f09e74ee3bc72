#!/usr/bin/env bash
# Quick start, the main job: install what is needed (apt, idempotent), build
# ibtick, boot the Soft-RoCE bench (a QEMU guest with the stock Debian kernel
# and two rxe devices) and run the live demo there (scripts/demo-guest.sh):
# a synthetic futures feed read three ways with a live table, every message
# accounted for, then tail latency next to the verbs floor and kernel UDP.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
echo "demo: building the module and the CLI"
make -s all
# the guest's clock: the TSC, as real hosts run, the same as bench/run.sh;
# CLOCK=default keeps the emulated HPET the stock guest falls back to, where
# every clock read is an emulated device access
case ${CLOCK:-tsc} in
tsc) export IBTICK_VM_APPEND="${IBTICK_VM_APPEND:+$IBTICK_VM_APPEND }clocksource=tsc tsc=reliable" ;;
default) ;;
*) echo "demo.sh: CLOCK is tsc or default" >&2; exit 2 ;;
esac
echo "demo: booting the bench (first run downloads the guest kernel image)"
# a terminal gets the live table redrawn in place; a log gets snapshots
tty=
[[ -t 1 ]] && tty=1
exec scripts/vm-run.sh -t 900 -- env DEMO_TTY="$tty" scripts/demo-guest.sh
