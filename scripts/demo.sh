#!/usr/bin/env bash
# Quick start, the main job: install what is needed (apt, idempotent), build
# ibtick, boot the Soft-RoCE bench (a QEMU guest with the stock Debian kernel
# and two rxe devices), load ibtick.ko there and show what it sees.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
echo "demo: building the module and the CLI"
make -s all
echo "demo: booting the bench (first run downloads the guest kernel image)"
exec scripts/vm-run.sh -- scripts/demo-guest.sh
