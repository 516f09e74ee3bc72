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
# the guest boots as bench/run.sh's does, as a latency-tuned host runs: on
# the TSC clocksource (CLOCK=default keeps the emulated HPET the stock guest
# falls back to) and with idle=poll (IDLE=default lets idle vCPUs halt);
# scripts/lib-tuning.sh says what each costs
# shellcheck source=scripts/lib-tuning.sh
. "$PWD/scripts/lib-tuning.sh"
ibt_guest_tuning demo.sh || exit 2
echo "demo: booting the bench (first run downloads the guest kernel image)"
# a terminal gets the live table redrawn in place; a log gets snapshots
tty=
[[ -t 1 ]] && tty=1
exec scripts/vm-run.sh -t 900 -- env DEMO_TTY="$tty" scripts/demo-guest.sh
