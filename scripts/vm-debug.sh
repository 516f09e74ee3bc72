#!/bin/bash
#
# vm-debug.sh - the VM suite on the debug kernel (KASAN, lockdep, kmemleak,
# DEBUG_OBJECTS, fault injection; scripts/debug-kernel.sh builds it).
#
# usage: scripts/vm-debug.sh [-o RESULTS_DIR] [-t TIMEOUT_S]
#
# ibtick.ko is built against the debug kernel's tree in a staged copy of
# the repository ($IBTICK_CACHE/debug/stage: the sources and the userspace
# binaries already built here), so the repository's own kmod/ibtick.ko
# stays the stock kernel's.  The guest runs tests/vm/run.sh from the stage
# with TOPICS (default: ctl feed ring conserve arb conn fuzz faults leaks, the ones that
# drive the data path and its failure paths; dev and lifecycle are left to
# the stock run to keep make check within its hour); any
# KASAN, lockdep, kmemleak, DEBUG_OBJECTS or WARN report in the guest's
# kernel log fails the run (scripts/vm-run.sh) and is printed.
set -euo pipefail

IBTICK_PROG=vm-debug
# shellcheck source-path=SCRIPTDIR source=lib-common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib-common.sh"

out=""
timeout=3600
while getopts "o:t:" opt; do
	case $opt in
	o) out=$OPTARG ;;
	t) timeout=$OPTARG ;;
	*) exit 2 ;;
	esac
done

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
eval "$(scripts/debug-kernel.sh -v)"	# KVER KDIR IMG
stage=$IBTICK_CACHE/debug/stage
msg "staging the repository into $stage and building ibtick.ko for $KVER"
mkdir -p "$stage"
rsync -a --delete --exclude .git --exclude .check --exclude '*.ko' --exclude '*.o' \
	--exclude '*.mod*' --exclude '.*.cmd' "$repo/" "$stage/"
make -s -C "$stage" module KDIR="$KDIR" W=1 >"$stage/.module-build.log" 2>&1 ||
	{ cat "$stage/.module-build.log"; die "ibtick.ko does not build against $KDIR"; }
if grep -q 'warning:' "$stage/.module-build.log"; then
	cat "$stage/.module-build.log"
	die "ibtick.ko builds with warnings against $KDIR"
fi
[[ -n $out ]] && mkdir -p "$out"
topics=${TOPICS:-ctl feed ring conserve arb conn fuzz faults leaks}
# the debug kernel has only the bench's modules: the guest gets all of them
export IBTICK_VM_MODULES=full
# Under KASAN + TCG the ACPI interpreter is so slow that evaluating _PRT
# hits its 30 s loop timeout once per PCI slot (2 min of a 2.5 min boot);
# legacy PCI interrupt routing needs none of it.
export IBTICK_VM_APPEND=${IBTICK_VM_APPEND:-pci=noacpi}
# The debug kernel runs about ten times slower than the stock one here:
# tests stretch their timeouts and cut their volumes by IBTICK_SLOW
# (tests/vm/lib.sh); the long loops get counts that fit make check.  Each
# can be set from the environment, e.g. CYCLES=100 for the long fault run;
# vm-run.sh passes FAULT_ALL, TESTS and the others in its PASS_ENV as well.
exec "$repo/scripts/vm-run.sh" -k "$KVER" -t "$timeout" ${out:+-o "$out"} -- \
	env TOPICS="$topics" IBTICK_SLOW="${IBTICK_SLOW:-10}" \
	SEEDS="${SEEDS:-4}" TICKS="${TICKS:-20000}" CYCLES="${CYCLES:-5}" \
	FUZZ_OPS="${FUZZ_OPS:-20000}" FUZZ_TIMEOUT="${FUZZ_TIMEOUT:-1500}" \
	"$stage/tests/vm/run.sh"
