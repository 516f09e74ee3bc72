#!/usr/bin/env bash
# VM topic: the DKMS path an ops team takes on a real host.  The host staged
# `dkms add` + `dkms build` for the guest's kernel in private trees under
# $RESULTS/dkms-stage (scripts/dkms-stage.sh, run by scripts/check.sh); here
# `dkms install` puts the module into the guest's /lib/modules, `modprobe
# ibtick` must load that installed module (not the build tree's) and it must
# work; then `dkms remove` takes it away again.
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/vm/lib.sh
. tests/vm/lib.sh

IBTICK=user/ibtick/ibtick
ALL_TESTS="dkms_install_modprobe"
VERSION=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
STAGE=${DKMS_STAGE:-$RESULTS/dkms-stage}
TREES=(--sourcetree "$STAGE/src" --dkmstree "$STAGE/dkms")

# modprobe must find the module unloaded
test_setup() {
	restore_rig
	rmmod ibtick 2>/dev/null
	true
}

cleanup() {
	modprobe -r ibtick 2>/dev/null
	dkms remove "ibtick/$VERSION" --all "${TREES[@]}" >/dev/null 2>&1
	rig_cleanup
}

dkms_install_modprobe() {
	local rc=0 path
	require_cmd dkms || return
	[[ -d $STAGE/dkms/ibtick/$VERSION/$KVER ]] ||
		{ skip "no staged DKMS build in $STAGE (scripts/dkms-stage.sh DIR $KVER)"; return; }
	[[ -e /lib/modules/$KVER/build ]] || ln -s "/usr/src/linux-headers-$KVER" "/lib/modules/$KVER/build"
	dkms status "${TREES[@]}" ibtick
	dkms install "ibtick/$VERSION" -k "$KVER" "${TREES[@]}" >"$RESULTS/dkms-install.log" 2>&1 ||
		{ rc=1; tail -20 "$RESULTS/dkms-install.log"; }
	path=$(modinfo -n ibtick 2>/dev/null)
	echo "  modinfo -n ibtick: $path"
	[[ $path == */updates/dkms/ibtick.ko* ]] || rc=1
	modprobe ibtick || rc=1
	[[ -d /sys/module/ibtick ]] || rc=1
	[[ $(cat /sys/module/ibtick/version 2>/dev/null) == "$VERSION" ]] || { echo "  version mismatch"; rc=1; }
	"$IBTICK" dev show rxe0 >/dev/null || rc=1
	modprobe -r ibtick || rc=1
	dkms remove "ibtick/$VERSION" --all "${TREES[@]}" >/dev/null || rc=1
	[[ -z $(modinfo -n ibtick 2>/dev/null) ]] || { echo "  still installed after dkms remove"; rc=1; }
	log_test "dkms install (staged build), modprobe loads the installed module" $rc
}

run_tests
