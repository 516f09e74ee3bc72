#!/bin/bash
#
# vm-kernel.sh - make sure the guest kernel for the QEMU test bench is in
# the cache and print its version.
#
# usage: scripts/vm-kernel.sh [-k KVER] [-v]
#
#   KVER defaults to the kernel of the installed linux-headers-amd64
#   (the newest /usr/src/linux-headers-*-amd64 otherwise).  The stock
#   linux-image-KVER package is downloaded with apt-get into $IBTICK_CACHE
#   (default /var/cache/ibtick), unpacked to $IBTICK_CACHE/img-KVER and
#   depmod'ed; the busybox initramfs and the guests' module subset
#   (img-KVER/guest-modules) are built next to it.  All steps are skipped
#   when already done.
#
#   stdout: KVER only (KVER=$(scripts/vm-kernel.sh)); with -v also the
#   paths as shell assignments.  Progress goes to stderr.
set -euo pipefail

IBTICK_PROG=vm-kernel
# shellcheck source-path=SCRIPTDIR source=lib-common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib-common.sh"

usage() {
	sed -n '/^# usage:/,/^[^#]/{/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}" >&2
	exit "${1:-2}"
}

kver=""
verbose=0
while getopts "k:vh" opt; do
	case $opt in
	k) kver=$OPTARG ;;
	v) verbose=1 ;;
	h) usage 0 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[[ $# -eq 0 ]] || usage

[[ -n $kver ]] || kver=$(ibtick_default_kver)
ibtick_prepare_image "$kver"
ibtick_prepare_initramfs "$kver"
ibtick_prepare_guest_modules "$kver"

if ((verbose)); then
	printf 'KVER=%q\nIBTICK_IMG=%q\nIBTICK_KERNEL=%q\nIBTICK_INITRD=%q\nIBTICK_GUEST_MODTREE=%q\n' \
		"$kver" "$IBTICK_IMG" "$IBTICK_KERNEL" "$IBTICK_INITRD" "$IBTICK_GUEST_MODTREE"
else
	printf '%s\n' "$kver"
fi
