#!/usr/bin/env bash
# Quick start, the tests: install what is needed (apt, idempotent), then
# `make check` (build, unit tests, KUnit, the QEMU/Soft-RoCE suite).
# The last line is "N passed, N failed, N skipped"; exit status 0 only when nothing failed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
exec make check
