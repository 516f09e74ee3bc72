#!/usr/bin/env bash
# VM topic: the Debian packages on a host, start to finish.  The host built
# them (tests/package/deb.sh, KEEP=$RESULTS/debs: scripts/check.sh's vmdeb
# stage does it); here they are installed with dpkg -i, DKMS builds the
# module for the guest's kernel in ibtick-dkms's postinst, modprobe loads
# that module, the packaged ibtick answers, and after dpkg --purge nothing
# of them is left.
#
# The guest's root is the host's, read-only over 9p, so dpkg runs in a
# chroot on a copy-on-write overlay of it: the root as the lower layer, a
# tmpfs as the upper one, which therefore holds exactly what dpkg, the
# maintainer scripts and DKMS wrote.  /lib/modules is the guest's own
# (writable) module tree, bound in, so that the module DKMS installs is the
# one the guest's modprobe finds.
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/vm/lib.sh
. tests/vm/lib.sh

ALL_TESTS="deb_install_modprobe_purge"
VERSION=$(scripts/version.sh)
DEBS=${DEB_DIR:-$RESULTS/debs}
PKGS=(ibtick-dkms ibtick-tools libibtick0 libibtick-dev)
R=/run/ibtick-debroot
ROOT=$R/root

# modprobe must find the module unloaded
test_setup() {
	restore_rig
	rmmod ibtick 2>/dev/null
	true
}

drop_root() {
	[[ -d $ROOT ]] || return 0
	umount -R "$ROOT" 2>/dev/null || umount -R -l "$ROOT" 2>/dev/null
	rm -rf "$R"
}

cleanup() {
	modprobe -r ibtick 2>/dev/null
	if [[ -d $ROOT/proc/self ]]; then
		chroot "$ROOT" dpkg --purge "${PKGS[@]}" >/dev/null 2>&1
	fi
	drop_root
	rig_cleanup
}

# make_root: the writable view of the root described at the top.
make_root() {
	drop_root
	mkdir -p "$R/upper" "$R/work" "$ROOT" || return 1
	mount -t overlay overlay -o "lowerdir=/,upperdir=$R/upper,workdir=$R/work" "$ROOT" || return 1
	mount -t proc proc "$ROOT/proc" &&
	mount --rbind /sys "$ROOT/sys" &&
	mount --rbind /dev "$ROOT/dev" &&
	mount -t tmpfs -o mode=1777 tmpfs "$ROOT/tmp" &&
	mount -t tmpfs -o mode=755 tmpfs "$ROOT/run" &&
	mount --bind /lib/modules "$ROOT/lib/modules"
}

# in_root CMD...: run CMD in the chroot
in_root() {
	chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive "$@"
}

# what the overlay's upper layer holds: files and links, no whiteouts
upper_files() { (cd "$R/upper" && find . \( -type f -o -type l \) | sed 's|^\./||' | sort); }

deb_install_modprobe_purge() {
	local debs=() p path left st
	require_cmd dpkg chroot || return
	for p in "${PKGS[@]}"; do
		debs+=("$(ls "$DEBS/${p}_${VERSION}_"*.deb 2>/dev/null | head -n 1)")
	done
	[[ -n ${debs[0]} && -n ${debs[3]} ]] ||
		{ skip "no packages of version $VERSION in $DEBS (KEEP=\$RESULTS/debs tests/package/deb.sh)"; return; }
	[[ -e /lib/modules/$KVER/build ]] || ln -s "/usr/src/linux-headers-$KVER" "/lib/modules/$KVER/build"

	make_root
	check_err $? "cannot set up the overlay root"
	((RET == 0)) || { log_test deb_install_modprobe_purge; return; }
	mkdir -p "$ROOT/tmp/debs" && cp "${debs[@]}" "$ROOT/tmp/debs/"
	# man-db's trigger would rebuild its index over 9p for minutes under
	# TCG; without this flag file it skips (the packages do not need it)
	rm -f "$ROOT/var/lib/man-db/auto-update"
	upper_files >"$R/before"

	echo "  dpkg -i ${PKGS[*]} (DKMS builds for $KVER: minutes under TCG)"
	in_root dpkg -i "${debs[@]/#*\//\/tmp\/debs\/}" >"$RESULTS/deb-install.log" 2>&1
	check_err $? "dpkg -i failed (deb-install.log)"
	((RET == 0)) || tail -n 30 "$RESULTS/deb-install.log" | sed 's/^/  | /'
	cp "$ROOT/var/lib/dkms/ibtick/$VERSION/build/make.log" "$RESULTS/deb-dkms-make.log" 2>/dev/null

	st=$(in_root dkms status ibtick 2>&1)
	echo "  dkms status: $st"
	[[ $st == "ibtick/$VERSION, $KVER, "*": installed"* ]]
	check_err $? "DKMS did not install ibtick/$VERSION for $KVER: $st"
	path=$(in_root modinfo -n ibtick 2>/dev/null)
	echo "  modinfo -n ibtick: $path"
	[[ $path == "/lib/modules/$KVER/updates/dkms/ibtick.ko"* ]]
	check_err $? "modinfo finds '$path', not DKMS's module"
	in_root modprobe ibtick
	check_err $? "modprobe ibtick failed"
	check_eq "$(cat /sys/module/ibtick/version 2>/dev/null)" "$VERSION" "loaded module's version"
	check_eq "$(in_root ibtick -V 2>&1)" "ibtick $VERSION" "packaged ibtick -V"
	in_root ibtick dev show rxe0 >/dev/null
	check_err $? "packaged ibtick dev show rxe0 failed"
	in_root pkg-config --modversion libibtick >/dev/null 2>&1
	check_err $? "libibtick-dev's pkg-config file not found"
	modprobe -r ibtick
	check_err $? "modprobe -r ibtick failed"

	in_root dpkg --purge "${PKGS[@]}" >"$RESULTS/deb-purge.log" 2>&1
	check_err $? "dpkg --purge failed (deb-purge.log)"
	for p in "${PKGS[@]}"; do
		st=$(in_root dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)
		[[ -z $st || $st == not-installed ]]
		check_err $? "$p still known to dpkg as '$st'"
	done
	[[ -z $(in_root modinfo -n ibtick 2>/dev/null) ]]
	check_err $? "a module is still installed after purge"
	# anything named ibtick, in what the packages wrote or in the module tree
	left=$( (cd "$R/upper" && find . -name '*ibtick*'); find "/lib/modules/$KVER" -name '*ibtick*')
	[[ -z $left ]]
	check_err $? "left after purge: $(echo $left)"
	# and nothing else new but dpkg's and the dynamic linker's bookkeeping
	left=$(comm -13 "$R/before" <(upper_files) |
		grep -vE '^(var/lib/dpkg/|var/log/|var/cache/debconf/|etc/ld\.so\.cache$|var/cache/ldconfig/|var/lib/systemd/deb-systemd-helper)')
	[[ -z $left ]]
	check_err $? "new files after purge: $(echo $left)"
	log_test "deb_install_modprobe_purge"
	drop_root
}

run_tests
