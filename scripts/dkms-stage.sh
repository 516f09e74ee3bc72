#!/usr/bin/env bash
# Stage a DKMS build of ibtick for kernel KVER in private trees under DIR,
# as a package build host would: `dkms add` + `dkms build` with --sourcetree
# and --dkmstree, touching nothing of the system's DKMS state.  The VM suite
# (tests/vm/dkms.sh) then runs `dkms install` from DIR inside the guest and
# `modprobe ibtick`.  Compiling in the guest instead would take many minutes
# under TCG for no extra coverage: the compiler is the same.
#
#   dkms-stage.sh DIR KVER
set -euo pipefail
dir=${1:?usage: dkms-stage.sh DIR KVER}
kver=${2:?usage: dkms-stage.sh DIR KVER}
top=$(cd "$(dirname "$0")/.." && pwd -P)
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")

rm -rf "$dir"
mkdir -p "$dir/src/ibtick-$ver" "$dir/dkms"
# the source as a release tarball carries it: no build products
tar -C "$top" -cf - --exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
	--exclude='*.mod.c' --exclude='.*.cmd' --exclude=Module.symvers \
	--exclude=modules.order \
	dkms.conf Kbuild Makefile kmod include scripts/dkms-make.sh |
	tar -C "$dir/src/ibtick-$ver" -xf -
trees=(--sourcetree "$dir/src" --dkmstree "$dir/dkms")
dkms add "ibtick/$ver" "${trees[@]}" >"$dir/add.log" 2>&1 ||
	{ cat "$dir/add.log"; exit 1; }
if ! dkms build "ibtick/$ver" -k "$kver" "${trees[@]}" >"$dir/build.log" 2>&1; then
	cat "$dir/build.log"
	cat "$dir/dkms/ibtick/$ver/build/make.log" 2>/dev/null || true
	exit 1
fi
echo "dkms-stage: ibtick/$ver built for $kver in $dir"
