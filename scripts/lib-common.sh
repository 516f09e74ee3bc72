# shellcheck shell=bash
#
# lib-common.sh - helpers shared by the ibtick VM scripts (vm-kernel.sh,
# vm-run.sh).  Source it; do not execute it.
#
# Cache layout (under $IBTICK_CACHE, default /var/cache/ibtick):
#
#   linux-image-KVER_*.deb          the downloaded stock Debian image package
#   img-KVER/                       that package unpacked with dpkg-deb -x
#     boot/vmlinuz-KVER             the packaged (compressed) kernel
#     boot/vmlinux-KVER             uncompressed ELF extracted from it; QEMU
#                                   boots it through its PVH entry point,
#                                   skipping ~4 s of BIOS + decompression
#                                   under TCG (falls back to vmlinuz)
#     boot/config-KVER              its config (module vs built-in checks)
#     lib/modules/KVER/             modules, depmod'ed in place
#     .ibtick-ready                 stamp: unpack + depmod completed
#     guest-modules/lib/modules/KVER/  the subset of the modules that guests
#                                   see (hard links, depmod'ed; stamp
#                                   .ibtick-ready holds the selection)
#   initramfs-KVER-HASH.cpio.gz     busybox initramfs; HASH covers the init
#                                   script, busybox and the module list, so
#                                   edits rebuild it
#   .lock                           flock(1) lock serialising cache updates
#
# Everything here writes diagnostics to stderr only.

# shellcheck disable=SC2034 # the variables below are used by the callers
IBTICK_SCRIPTS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
IBTICK_REPO_DIR=$(cd "$IBTICK_SCRIPTS_DIR/.." && pwd -P)
IBTICK_CACHE=${IBTICK_CACHE:-/var/cache/ibtick}
[[ $IBTICK_CACHE == /* ]] || IBTICK_CACHE="$PWD/$IBTICK_CACHE"

# Modules the initramfs loads before it can reach the host root over 9p.
# Their dependencies are resolved from the image's modules.dep; entries
# that the image's config builds in are skipped.
IBTICK_INITRAMFS_MODULES=(virtio_pci 9pnet_virtio 9p overlay)

# The guest's /lib/modules/KVER holds only these subtrees of kernel/
# (about 1000 of the 4000 modules): depmod, which every "dkms install"
# runs, reads every module and takes ~90 s for the full set under TCG.
# IBTICK_VM_MODULES=full gives guests the complete set instead.
IBTICK_GUEST_MODULES_INCLUDE=(arch block crypto fs lib mm net virt
	drivers/infiniband drivers/virtio drivers/net drivers/char drivers/block
	drivers/md drivers/crypto)
IBTICK_GUEST_MODULES_EXCLUDE=(net/bluetooth net/wireless net/mac80211 net/nfc
	drivers/net/ethernet drivers/net/wireless drivers/net/usb drivers/net/can
	drivers/net/wwan drivers/net/ieee802154 drivers/net/hamradio drivers/net/wan)

msg() { printf '%s: %s\n' "${IBTICK_PROG:-ibtick}" "$*" >&2; }
die() { msg "error: $*"; exit 2; }

# Kernel version to test against: the headers package that the
# linux-headers-amd64 metapackage depends on, else the newest installed
# /usr/src/linux-headers-*-amd64.
ibtick_default_kver() {
	local dep kver=""
	dep=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null || true)
	if [[ $dep =~ linux-headers-([0-9][^[:space:],]*-amd64) ]]; then
		kver=${BASH_REMATCH[1]}
		[[ -d /usr/src/linux-headers-$kver ]] || kver=""
	fi
	if [[ -z $kver ]]; then
		kver=$(find /usr/src -maxdepth 1 -name 'linux-headers-*-amd64' -printf '%f\n' 2>/dev/null |
			sed 's/^linux-headers-//' | sort -V | tail -n 1)
	fi
	[[ -n $kver ]] || die "no /usr/src/linux-headers-*-amd64 installed (apt-get install linux-headers-amd64)"
	printf '%s\n' "$kver"
}

# Run "$@" while holding the cache lock.
ibtick_with_cache_lock() {
	mkdir -p "$IBTICK_CACHE" || die "cannot create $IBTICK_CACHE"
	(
		flock 9 || die "cannot lock $IBTICK_CACHE/.lock"
		"$@"
	) 9>"$IBTICK_CACHE/.lock"
}

# Unpack linux-image-KVER into $IBTICK_CACHE/img-KVER (download first if
# the .deb is not in the cache) and depmod it.  Idempotent via a stamp.
_ibtick_prepare_image_locked() {
	local kver=$1 img="$IBTICK_CACHE/img-$1" pkg="linux-image-$1" deb t0
	[[ -f $img/.ibtick-ready ]] && return 0

	deb=$(find "$IBTICK_CACHE" -maxdepth 1 -name "${pkg}_*_amd64.deb" -printf '%p\n' | sort -V | tail -n 1)
	if [[ -z $deb ]]; then
		t0=$SECONDS
		msg "downloading $pkg into $IBTICK_CACHE ..."
		# apt's sandbox user may not be able to write the cache directory;
		# the resulting warning is harmless, keep the output short.
		(cd "$IBTICK_CACHE" && apt-get -q download "$pkg") 2>&1 |
			grep -v -e 'unsandboxed' -e '^$' >&2 || true
		deb=$(find "$IBTICK_CACHE" -maxdepth 1 -name "${pkg}_*_amd64.deb" -printf '%p\n' | sort -V | tail -n 1)
		[[ -n $deb ]] || die "apt-get download $pkg failed (try: apt-get update)"
		msg "downloaded $(basename "$deb") ($(du -h "$deb" | cut -f1)) in $((SECONDS - t0))s"
	fi

	msg "unpacking $(basename "$deb") into $img"
	rm -rf "$img"
	mkdir -p "$img"
	dpkg-deb -x "$deb" "$img" || die "dpkg-deb -x $deb failed"
	[[ -f $img/boot/vmlinuz-$kver ]] || die "$deb has no boot/vmlinuz-$kver"
	depmod -b "$img" "$kver" || die "depmod -b $img $kver failed"
	printf '%s\n' "$(basename "$deb")" >"$img/.ibtick-ready"
}

# Extract the uncompressed kernel from boot/vmlinuz-KVER into
# boot/vmlinux-KVER: find the payload's compression magic, decompress from
# there and keep the result if it is an ELF file.
_ibtick_extract_vmlinux_locked() {
	local kver=$1 boot="$IBTICK_IMG/boot" magic tool off
	[[ -f $boot/vmlinux-$kver ]] && return 0
	grep -q '^CONFIG_PVH=y' "$boot/config-$kver" 2>/dev/null || return 0
	for magic in '\xfd7zXZ\x00:xz' '\x28\xb5\x2f\xfd:zstd' '\x1f\x8b\x08:gzip'; do
		tool=${magic##*:}
		command -v "$tool" >/dev/null || continue
		off=$(LC_ALL=C grep -obUaP "${magic%:*}" "$boot/vmlinuz-$kver" | head -n 1 | cut -d: -f1)
		[[ -n $off ]] || continue
		tail -c +$((off + 1)) "$boot/vmlinuz-$kver" | "$tool" -dc >"$boot/vmlinux.tmp" 2>/dev/null || true
		if [[ $(head -c 4 "$boot/vmlinux.tmp" | od -An -tx1 | tr -d ' ') == 7f454c46 ]]; then
			mv "$boot/vmlinux.tmp" "$boot/vmlinux-$kver"
			return 0
		fi
	done
	rm -f "$boot/vmlinux.tmp"
	msg "note: could not extract vmlinux from vmlinuz-$kver, booting the bzImage"
}

# ibtick_prepare_image KVER: sets IBTICK_IMG and IBTICK_KERNEL (the
# kernel for qemu -kernel: vmlinux if it could be extracted, else vmlinuz).
ibtick_prepare_image() {
	local kver=$1
	IBTICK_IMG="$IBTICK_CACHE/img-$kver"
	if [[ ! -f $IBTICK_IMG/.ibtick-ready ]]; then
		ibtick_with_cache_lock _ibtick_prepare_image_locked "$kver"
	fi
	if [[ ! -f $IBTICK_IMG/boot/vmlinux-$kver && ! -f $IBTICK_IMG/.ibtick-no-vmlinux ]]; then
		ibtick_with_cache_lock _ibtick_extract_vmlinux_locked "$kver"
		[[ -f $IBTICK_IMG/boot/vmlinux-$kver ]] || : >"$IBTICK_IMG/.ibtick-no-vmlinux"
	fi
	# shellcheck disable=SC2034 # used by the callers
	if [[ -f $IBTICK_IMG/boot/vmlinux-$kver ]]; then
		IBTICK_KERNEL="$IBTICK_IMG/boot/vmlinux-$kver"
	else
		IBTICK_KERNEL="$IBTICK_IMG/boot/vmlinuz-$kver"
	fi
}

# Build img-KVER/guest-modules: hard links to the selected modules plus
# the modules.builtin* and modules.order files, depmod'ed.
_ibtick_prepare_guest_modules_locked() {
	local kver=$1 spec=$2 root="$IBTICK_IMG/guest-modules" d
	local src="$IBTICK_IMG/lib/modules/$kver" dst="$IBTICK_IMG/guest-modules/lib/modules/$kver"
	local -a prune=()
	[[ $(cat "$root/.ibtick-ready" 2>/dev/null) == "$spec" ]] && return 0
	msg "selecting guest modules into $root"
	rm -rf "$root"
	mkdir -p "$dst"
	for d in "${IBTICK_GUEST_MODULES_EXCLUDE[@]}"; do
		prune+=(-path "kernel/$d" -prune -o)
	done
	(
		cd "$src" &&
			find "${IBTICK_GUEST_MODULES_INCLUDE[@]/#/kernel/}" "${prune[@]}" \
				-name '*.ko*' -print 2>/dev/null |
			cpio -pdml --quiet "$dst"
	) || die "cannot link guest modules into $dst"
	cp "$src"/modules.builtin "$src"/modules.builtin.modinfo "$src"/modules.order "$dst"/
	depmod -b "$root" "$kver" || die "depmod -b $root $kver failed"
	printf '%s\n' "$spec" >"$root/.ibtick-ready"
}

# ibtick_prepare_guest_modules KVER: sets IBTICK_GUEST_MODTREE, the guest's
# module tree relative to img-KVER (lib/modules for the full set).
ibtick_prepare_guest_modules() {
	local kver=$1 spec
	ibtick_prepare_image "$kver"
	if [[ ${IBTICK_VM_MODULES:-} == full ]]; then
		IBTICK_GUEST_MODTREE=lib/modules
		return 0
	fi
	spec="include=${IBTICK_GUEST_MODULES_INCLUDE[*]} exclude=${IBTICK_GUEST_MODULES_EXCLUDE[*]}"
	if [[ $(cat "$IBTICK_IMG/guest-modules/.ibtick-ready" 2>/dev/null) != "$spec" ]]; then
		ibtick_with_cache_lock _ibtick_prepare_guest_modules_locked "$kver" "$spec"
	fi
	# shellcheck disable=SC2034 # used by the callers
	IBTICK_GUEST_MODTREE=guest-modules/lib/modules
}

# Print the modules (paths relative to lib/modules/KVER) needed to load
# "$@", dependencies first, each once.  Built-in modules print nothing.
_ibtick_resolve_modules() {
	local kver=$1
	shift
	local mdir="$IBTICK_IMG/lib/modules/$kver"
	awk -v want="$*" '
		function base(p,   b) { b = p; sub(/.*\//, "", b); sub(/\.ko(\.[a-z]+)?$/, "", b); gsub(/-/, "_", b); return b }
		function visit(name,   i, n, d) {
			if (name in seen) return
			seen[name] = 1
			if (!(name in path)) {
				if (!(name in builtin)) { print "missing module: " name > "/dev/stderr"; bad = 1 }
				return
			}
			n = split(deps[name], d, " ")
			for (i = n; i >= 1; i--) visit(base(d[i]))
			print path[name]
		}
		FILENAME ~ /modules\.builtin$/ { builtin[base($0)] = 1; next }
		{
			p = $1; sub(/:$/, "", p)
			name = base(p); path[name] = p
			$1 = ""; deps[name] = $0
		}
		END {
			n = split(want, w, " ")
			for (i = 1; i <= n; i++) { x = w[i]; gsub(/-/, "_", x); visit(x) }
			exit bad
		}
	' "$mdir/modules.builtin" "$mdir/modules.dep"
}

# The initramfs /init.  Runs under busybox; parameters arrive from the
# kernel command line as environment variables (IBTICK_INIT, ...).
_ibtick_initramfs_init() {
	cat <<'EOF'
#!/bin/busybox sh
# ibtick initramfs init: load virtio/9p, mount the host root read-only
# and hand over to the repo's scripts/vm-guest-init.sh inside a chroot.
/bin/busybox --install -s /bin
export PATH=/bin

fail() {
	echo "ibtick-initramfs: $*" >&2
	echo "ibtick-initramfs: powering off" >&2
	sync
	poweroff -f
	sleep 30
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

while read -r m; do
	[ -n "$m" ] || continue
	insmod "/lib/modules/$m" || fail "insmod $m failed"
done </modules.list

mkdir -p /newroot
mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=512000,cache=loose hostroot /newroot ||
	fail "cannot mount the host root (9p tag hostroot)"

# No modprobe helper is needed for module autoloading: PID 1 shares its
# fs_struct (root directory) with kthreadd, so after the chroot below the
# kernel's usermode helpers run /sbin/modprobe inside the chroot too.

[ -n "$IBTICK_INIT" ] || fail "IBTICK_INIT not set on the kernel command line"
[ -f "/newroot$IBTICK_INIT" ] || fail "$IBTICK_INIT not found in the host root"

umount /proc /sys /dev
exec chroot /newroot /bin/bash "$IBTICK_INIT"
fail "exec chroot failed"
EOF
}

# ibtick_prepare_initramfs KVER: sets IBTICK_INITRD (builds if needed).
ibtick_prepare_initramfs() {
	local kver=$1 mods hash
	ibtick_prepare_image "$kver"
	mods=$(_ibtick_resolve_modules "$kver" "${IBTICK_INITRAMFS_MODULES[@]}") ||
		die "cannot resolve initramfs modules for $kver"
	hash=$( {
		_ibtick_initramfs_init
		printf '%s\n' "$mods"
		sha256sum </bin/busybox
	} | sha256sum | cut -c1-16)
	IBTICK_INITRD="$IBTICK_CACHE/initramfs-$kver-$hash.cpio.gz"
	if [[ ! -f $IBTICK_INITRD ]]; then
		ibtick_with_cache_lock _ibtick_build_initramfs_locked "$kver" "$IBTICK_INITRD" "$mods"
	fi
}

_ibtick_build_initramfs_locked() {
	local kver=$1 out=$2 mods=$3 tmp m
	[[ -f $out ]] && return 0
	[[ -x /bin/busybox ]] || die "/bin/busybox missing (apt-get install busybox-static)"
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/ibtick-initramfs.XXXXXX")
	mkdir -p "$tmp"/{bin,dev,proc,sys,newroot,lib/modules}
	cp /bin/busybox "$tmp/bin/busybox"
	_ibtick_initramfs_init >"$tmp/init"
	chmod 755 "$tmp/init"
	: >"$tmp/modules.list"
	while read -r m; do
		[[ -n $m ]] || continue
		mkdir -p "$tmp/lib/modules/$(dirname "$m")"
		# busybox insmod wants plain .ko files.
		case $m in
		*.ko.xz) xz -dc "$IBTICK_IMG/lib/modules/$kver/$m" >"$tmp/lib/modules/${m%.xz}" ;;
		*.ko.zst) zstd -qdc "$IBTICK_IMG/lib/modules/$kver/$m" >"$tmp/lib/modules/${m%.zst}" ;;
		*.ko.gz) gzip -dc "$IBTICK_IMG/lib/modules/$kver/$m" >"$tmp/lib/modules/${m%.gz}" ;;
		*) cp "$IBTICK_IMG/lib/modules/$kver/$m" "$tmp/lib/modules/$m" ;;
		esac || die "cannot copy module $m"
		printf '%s\n' "${m%.ko*}.ko" >>"$tmp/modules.list"
	done <<<"$mods"
	(cd "$tmp" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) |
		gzip -6 >"$out.tmp" || { rm -rf "$tmp" "$out.tmp"; die "cpio failed"; }
	mv "$out.tmp" "$out"
	msg "built $(basename "$out") with $(wc -l <"$tmp/modules.list") modules"
	rm -rf "$tmp"
	# Older initramfs images of this kernel are stale now.
	find "$IBTICK_CACHE" -maxdepth 1 -name "initramfs-$kver-*.cpio.gz" ! -path "$out" -delete
}
