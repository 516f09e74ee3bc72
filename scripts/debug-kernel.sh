#!/bin/bash
#
# debug-kernel.sh - build the reliability bench's debug kernel (KASAN,
# lockdep, kmemleak, DEBUG_OBJECTS, fault injection) from Debian's
# linux-source-6.1 and lay it out like an unpacked linux-image package, so
# that scripts/vm-run.sh -k KVER boots it.  Prints KVER.
#
# usage: scripts/debug-kernel.sh [-v | -q]
#
#   -v  print KVER, KDIR and IMG as shell assignments
#   -q  query: print KVER and exit 0 if the kernel for the current inputs
#       is cached, exit 1 (building nothing) if not
#
# The config: Debian's config of the stock guest kernel, cut down to the
# modules the bench loads (localmodconfig with tests/debug/modules), plus
# tests/debug/debug.config (the debug options; no debug info, no module
# signing).  The result is cached in $IBTICK_CACHE/img-KVER, where KVER is
# 6.1.SUBLEVEL-ibtick-debug-HASH and HASH covers the config inputs and the
# source version: a change of either builds a new kernel, an unchanged one
# is reused.  The build tree stays in $IBTICK_CACHE/debug/build-HASH (KDIR
# for ibtick.ko: -v prints it).  About 20-40 minutes on 2 cores, cold.
set -euo pipefail

IBTICK_PROG=debug-kernel
# shellcheck source-path=SCRIPTDIR source=lib-common.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib-common.sh"

verbose=0
query=0
[[ ${1:-} == -v ]] && verbose=1
[[ ${1:-} == -q ]] && query=1

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
frag=$repo/tests/debug/debug.config
modlist=$repo/tests/debug/modules
tarball=/usr/src/linux-source-6.1.tar.xz
jobs=${IBTICK_JOBS:-$(nproc)}

[[ -f $tarball ]] || die "$tarball missing (apt-get install linux-source-6.1)"
stock=$(ibtick_default_kver)
ibtick_prepare_image "$stock"
base=$IBTICK_IMG/boot/config-$stock
[[ -f $base ]] || die "no $base"

hash=$( { sha256sum "$base" "$frag" "$modlist" | cut -d' ' -f1; stat -c %s "$tarball"; } |
	sha256sum | cut -c1-12)
work=$IBTICK_CACHE/debug
src=$work/linux-source-6.1
build=$work/build-$hash

if ((query)); then
	for img in "$IBTICK_CACHE"/img-6.1.*-ibtick-debug-"$hash"; do
		if [[ -f $img/.ibtick-ready && -f $build/.ibtick-built ]]; then
			printf '%s\n' "${img##*/img-}"
			exit 0
		fi
	done
	exit 1
fi

_unpack_locked() {
	[[ -f $src/.ibtick-unpacked ]] && [[ $(cat "$src/.ibtick-unpacked") == "$(stat -c %s "$tarball")" ]] &&
		return 0
	msg "unpacking $tarball into $work (about a minute)"
	rm -rf "$src"
	mkdir -p "$work"
	tar -C "$work" -xf "$tarball"
	stat -c %s "$tarball" >"$src/.ibtick-unpacked"
}
ibtick_with_cache_lock _unpack_locked

sublevel=$(sed -n 's/^SUBLEVEL = //p' "$src/Makefile")
kver=6.1.$sublevel-ibtick-debug-$hash
img=$IBTICK_CACHE/img-$kver

report() {
	if ((verbose)); then
		printf 'KVER=%q\nKDIR=%q\nIMG=%q\n' "$kver" "$build" "$img"
	else
		printf '%s\n' "$kver"
	fi
}
if [[ -f $img/.ibtick-ready && -f $build/.ibtick-built ]]; then
	report
	exit 0
fi

kmake() { make -C "$src" O="$build" -j"$jobs" "$@"; }

if [[ ! -f $build/.ibtick-built ]]; then
	mkdir -p "$build"
	cp "$base" "$build/.config"
	msg "config: $(basename "$base") -> modules in $(basename "$modlist") -> + $(basename "$frag")"
	kmake olddefconfig >/dev/null
	# keep only the modules the bench loads; everything else =m goes
	(yes '' || true) | kmake LSMOD="$modlist" localmodconfig >/dev/null 2>&1
	"$src/scripts/kconfig/merge_config.sh" -m -O "$build" "$build/.config" "$frag" >/dev/null
	kmake olddefconfig >/dev/null
	# every line of the fragment must have survived (a dependency missing
	# silently drops an option)
	while IFS= read -r line; do
		[[ $line =~ ^(CONFIG_[A-Z0-9_]+)=(.*)$ ]] || continue
		grep -qx "$line" "$build/.config" ||
			die "debug.config: '$line' did not stick (got: $(grep "^${BASH_REMATCH[1]}=" "$build/.config" || echo unset))"
	done <"$frag"
	msg "building $kver with $jobs jobs (progress: a line every 500 objects)"
	t0=$SECONDS
	kmake LOCALVERSION="-ibtick-debug-$hash" bzImage modules 2>&1 |
		awk '/^  CC/ { n++; if (n % 500 == 0) { printf "debug-kernel: %d objects\n", n; fflush() } }
		     /error:|Error [0-9]/ { print; fflush() }'
	[[ ${PIPESTATUS[0]} == 0 ]] || die "kernel build failed (make -C $src O=$build)"
	[[ $(kmake -s kernelrelease LOCALVERSION="-ibtick-debug-$hash") == "$kver" ]] ||
		die "kernelrelease is not $kver"
	touch "$build/.ibtick-built"
	msg "built in $((SECONDS - t0)) s"
fi

_install_locked() {
	rm -rf "$img"
	mkdir -p "$img/boot"
	kmake LOCALVERSION="-ibtick-debug-$hash" INSTALL_MOD_PATH="$img" INSTALL_MOD_STRIP=1 \
		modules_install >/dev/null
	# the guest and DKMS look for build/ and source/ through the host root
	rm -f "$img/lib/modules/$kver/build" "$img/lib/modules/$kver/source"
	cp "$build/arch/x86/boot/bzImage" "$img/boot/vmlinuz-$kver"
	cp "$build/.config" "$img/boot/config-$kver"
	cp "$build/System.map" "$img/boot/System.map-$kver"
	depmod -b "$img" "$kver"
	echo "debug-$hash" >"$img/.ibtick-ready"
	# no vmlinux extraction: boot the bzImage
	: >"$img/.ibtick-no-vmlinux"
}
ibtick_with_cache_lock _install_locked
msg "installed into $img"
report
