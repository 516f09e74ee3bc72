#!/usr/bin/env bash
# The package stage of make check: what a user installs.
#
#   install_file_list        make install DESTDIR=D puts exactly the files of
#                            the list below in place (module included when an
#                            installed kernel has a build directory)
#   install_prefix_usr       PREFIX=/usr moves every path with it: nothing
#                            outside usr/, etc/ and lib/modules; the unit,
#                            the .pc name the right directories
#   pkgconfig_links          a program builds against the staged headers and
#                            library through pkg-config alone
#   depmod_finds_module      depmod/modinfo in D find the staged module for
#                            KVER and its vermagic names KVER
#   uninstall_leaves_nothing make uninstall removes every file install made,
#                            and the directories it made for ibtick alone
#                            (include/ibtick, lib/ibtick, the Wireshark
#                            plugin directory): only the shared hierarchy
#                            is left
#   edited_modprobe_kept     an edited modprobe.d file survives uninstall and
#                            a second install
#   install_refused_over_dkms  make install refuses to put a second module
#                            next to the one DKMS installed
#   version_agrees           every copy of the version equals dkms.conf's:
#                            scripts/version.sh --check (man pages,
#                            libibtick.h, debian/changelog), ibtick -V, the
#                            module's modinfo version; README has no literal
#                            version in a command
#   man_pages                every installed program has a page in man1 or
#                            man8, and man --warnings reports nothing for any
#                            installed page (.so links resolved in the tree)
#   dkms_add_dot             the README's `dkms add .` registers ibtick with
#                            dkms.conf's version (private DKMS trees)
#
# Ends with "package: N passed, N failed, N skipped".
#   tests/package/run.sh [TEST...]
# Each test runs alone too: those that look at the staged install make it
# first when no earlier test has.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd -P)
cd "$top" || exit 1

# shellcheck source=tests/package/lib.sh
. tests/package/lib.sh

work=$(mktemp -d "${TMPDIR:-/tmp}/ibtick-package.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The kernel to install the module for: the running one when it has a build
# directory, else the newest installed one that has.
KVER= KDIR=
for d in "/lib/modules/$(uname -r)/build" $(ls -d /lib/modules/*/build 2>/dev/null | sort -rV); do
	if [[ -e $d/include/generated/utsrelease.h ]]; then
		KDIR=$(readlink -f "$d")
		KVER=$(basename "$(dirname "$d")")
		break
	fi
done
if [[ -n $KDIR ]]; then
	echo "# module for $KVER, headers in $KDIR"
	install_target=install uninstall_target=uninstall
else
	echo "# no /lib/modules/*/build: the module part is skipped"
	install_target=install-user uninstall_target=uninstall-user
fi

# quiet make with this tree's KDIR; output kept in $work/make.log
mk() { make -s --no-print-directory ${KDIR:+KDIR="$KDIR"} "$@" >>"$work/make.log" 2>&1; }

# every file and link under $1, relative, sorted
files_in() { (cd "$1" && find . \( -type f -o -type l \) | sed 's|^\./||' | sort); }

# What make install puts under DESTDIR with the default PREFIX=/usr/local.
expected_files() {
	local p=usr/local m
	[[ -z $KVER ]] || echo "lib/modules/$KVER/updates/ibtick.ko"
	echo etc/modprobe.d/ibtick.conf
	for m in ibtick ibtick-gen ibtick-md ibtick-perf ibtick-pub ibtick-relay ibtick-run ibtick-sub; do echo "$p/bin/$m"; done
	echo "$p/include/ibtick/libibtick.h"
	echo "$p/include/ibtick/linux/ibtick.h"
	echo "$p/include/ibtick/linux/ibtick_netlink.h"
	echo "$p/lib/ibtick/libibtick-preload.so"
	echo "$p/lib/libibtick.a"
	echo "$p/lib/libibtick.so"
	echo "$p/lib/libibtick.so.0"
	echo "$p/lib/modules-load.d/ibtick.conf"
	echo "$p/lib/pkgconfig/libibtick.pc"
	echo "$p/lib/systemd/system/ibtick-relay@.service"
	echo "$p/lib/systemd/system/ibtick-restore.service"
	echo "$p/lib/wireshark/plugins/ibtick.lua"
	for m in ibtick ibtick-gen ibtick-md ibtick-perf ibtick-pub ibtick-relay ibtick-run ibtick-sub; do
		echo "$p/share/bash-completion/completions/$m"
	done
	for m in ibtick-gen.1 ibtick-md.1 ibtick-perf.1 ibtick-pub.1 ibtick-sub.1; do echo "$p/share/man/man1/$m"; done
	for m in ibtick_arm ibtick_done ibtick_next ibtick_read ibtick_reader_open ibtick_wait libibtick; do
		echo "$p/share/man/man3/$m.3"
	done
	echo "$p/share/man/man7/ibtick.7"
	for m in ibtick ibtick-conn ibtick-dev ibtick-doctor ibtick-feed ibtick-monitor ibtick-relay ibtick-run ibtick-sock ibtick-stats; do
		echo "$p/share/man/man8/$m.8"
	done
}

want() { [[ -z ${only:-} || " $only " == *" $1 "* ]]; }
only="$*"

# Directories left under $1 that are not the shared hierarchy's (where
# programs, pages, libraries, units and modules go on any host): after an
# uninstall there must be none, e.g. no include/ibtick, lib/ibtick or an
# empty lib/wireshark/plugins.  $2: the PREFIX, without its leading /.
own_dirs_left() {
	local p=$2 d
	(cd "$1" && find . -mindepth 1 -type d | sed 's|^\./||' | sort) | while read -r d; do
		case $d in
		etc | etc/modprobe.d | lib | lib/modules | "lib/modules/$KVER" | "lib/modules/$KVER/updates") ;;
		usr | "$p" | "$p"/bin | "$p"/include | "$p"/lib | "$p"/lib/pkgconfig) ;;
		"$p"/lib/systemd | "$p"/lib/systemd/system | "$p"/lib/modules-load.d) ;;
		"$p"/share | "$p"/share/man | "$p"/share/man/man[1378]) ;;
		"$p"/share/bash-completion | "$p"/share/bash-completion/completions) ;;
		*) echo "$d" ;;
		esac
	done
}

# The install most tests look at, made once by the first that needs it, so
# that each test runs alone too (tests/package/run.sh man_pages).
D=$work/dest
staged_rc=
# staged TEST: 0 when D holds make $install_target; else says so for TEST
staged() {
	if [[ -z $staged_rc ]]; then
		staged_rc=0
		mk "$install_target" DESTDIR="$D" || staged_rc=$?
		((staged_rc == 0)) || tail -n 20 "$work/make.log"
	fi
	((staged_rc == 0)) && return 0
	notok "$1" "make $install_target failed (status $staged_rc)"
	return 1
}

if want install_file_list && staged install_file_list; then
	diff -u <(expected_files | sort) <(files_in "$D") >"$work/list.diff"
	d=$?
	sed 's/^/# /' "$work/list.diff"
	result install_file_list $d "installed files differ from the list (- missing, + extra)"
fi

if want pkgconfig_links && staged pkgconfig_links; then
	r=0
	pc=$D/usr/local/lib/pkgconfig
	flags=$(PKG_CONFIG_PATH=$pc PKG_CONFIG_SYSROOT_DIR=$D pkg-config --cflags --libs libibtick) || r=1
	echo "# pkg-config: $flags"
	# the example includes <libibtick.h>, which includes <linux/ibtick.h>:
	# both must come from D, never from this tree
	# shellcheck disable=SC2086
	cc -std=gnu11 -Wall -Wextra -Werror -o "$work/spin-reader" user/examples/spin-reader.c \
		$flags -Wl,-rpath-link,"$D/usr/local/lib" -MD -MF "$work/deps" >>"$work/make.log" 2>&1 || r=1
	if grep -q "$top/\(user\|include\)" "$work/deps" 2>/dev/null; then
		echo "# a header came from the source tree"; r=1
	fi
	readelf -d "$work/spin-reader" 2>/dev/null | grep -q 'NEEDED.*\[libibtick\.so\.0\]' ||
		{ echo "# not linked to libibtick.so.0"; r=1; }
	result pkgconfig_links $r "see $work/make.log"
fi

if want man_pages && staged man_pages; then
	r=0
	M=$D/usr/local/share/man
	for b in "$D"/usr/local/bin/*; do
		b=${b##*/}
		[[ -f $M/man1/$b.1 || -f $M/man8/$b.8 ]] || { r=1; echo "# $b has no man page"; }
	done
	# from the tree's root, as man does, so that ".so man3/x.3" resolves
	pages=0
	for f in "$M"/man*/*; do
		pages=$((pages + 1))
		w=$(cd "$M" && LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "${f#"$M"/}" 2>&1 >/dev/null)
		[[ -z $w ]] || { r=1; printf '# %s:\n%s\n' "${f#"$M"/}" "$w" | sed '2,$s/^/#   /'; }
	done
	((pages > 0)) || { r=1; echo "# no man pages installed"; }
	echo "# $pages pages checked"
	result man_pages $r "a program without a page, or man --warnings output"
fi

if want depmod_finds_module; then
	if [[ -z $KVER ]]; then
		skipped depmod_finds_module "no installed kernel has a build directory"
	elif staged depmod_finds_module; then
		r=0
		depmod -b "$D" "$KVER" 2>>"$work/make.log" || r=1
		f=$(modinfo -b "$D" -k "$KVER" -F filename ibtick 2>&1) || r=1
		vm=$(modinfo -b "$D" -k "$KVER" -F vermagic ibtick 2>&1) || r=1
		echo "# modinfo: $f; vermagic $vm"
		[[ $f == "$D/lib/modules/$KVER/updates/ibtick.ko" ]] || r=1
		[[ $vm == "$KVER "* ]] || r=1
		# depmod's own output is not part of what uninstall removes
		rm -f "$D/lib/modules/$KVER"/modules.*
		result depmod_finds_module $r "module not found for $KVER, or built for another release"
	fi
fi

if want uninstall_leaves_nothing && staged uninstall_leaves_nothing; then
	r=0
	[[ -d $D/usr/local/lib/wireshark/plugins ]] || { r=1; echo "# nothing installed to remove"; }
	mk "$uninstall_target" DESTDIR="$D" || r=1
	left=$(files_in "$D")
	[[ -z $left ]] || { r=1; printf '# left: %s\n' $left; }
	left=$(own_dirs_left "$D" usr/local)
	[[ -z $left ]] || { r=1; printf '# directory left: %s\n' $left; }
	result uninstall_leaves_nothing $r "make $uninstall_target left files or directories of its own behind"
fi

if want install_prefix_usr; then
	r=0
	P=$work/usr
	mk install-user DESTDIR="$P" PREFIX=/usr || r=1
	outside=$(files_in "$P" | grep -v '^usr/\|^etc/')
	[[ -z $outside ]] || { r=1; printf '# outside usr/ and etc/: %s\n' $outside; }
	grep -qx 'ExecStart=/usr/bin/ibtick -f -b /etc/ibtick/feeds.batch' \
		"$P/usr/lib/systemd/system/ibtick-restore.service" || { r=1; echo "# unit's ExecStart"; }
	grep -qx 'ExecStart=/usr/bin/ibtick-relay $RELAY_ARGS' \
		"$P/usr/lib/systemd/system/ibtick-relay@.service" || { r=1; echo "# relay unit's ExecStart"; }
	pc=$P/usr/lib/pkgconfig/libibtick.pc
	[[ $(PKG_CONFIG_PATH=${pc%/*} pkg-config --variable=includedir libibtick) == /usr/include ]] ||
		{ r=1; echo "# .pc includedir"; }
	[[ $(PKG_CONFIG_PATH=${pc%/*} pkg-config --modversion libibtick) == "$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)" ]] ||
		{ r=1; echo "# .pc version"; }
	[[ -e $P/usr/lib/modules-load.d/ibtick.conf ]] || { r=1; echo "# modules-load.d file"; }
	[[ -e $P/usr/lib/wireshark/plugins/ibtick.lua ]] || { r=1; echo "# Wireshark dissector"; }
	mk uninstall-user DESTDIR="$P" PREFIX=/usr || r=1
	[[ -z $(files_in "$P") ]] || { r=1; echo "# uninstall-user left files"; }
	left=$(own_dirs_left "$P" usr)
	[[ -z $left ]] || { r=1; printf '# directory left: %s\n' $left; }
	result install_prefix_usr $r
fi

if want edited_modprobe_kept; then
	r=0
	E=$work/edit
	conf=$E/etc/modprobe.d/ibtick.conf
	mk install-user DESTDIR="$E" || r=1
	echo "options ibtick max_feeds=16" >>"$conf"
	cp "$conf" "$work/edited"
	mk install-user DESTDIR="$E" || r=1
	cmp -s "$conf" "$work/edited" || { r=1; echo "# a second install overwrote the edited file"; }
	mk uninstall-user DESTDIR="$E" || r=1
	[[ $(files_in "$E") == etc/modprobe.d/ibtick.conf ]] || { r=1; echo "# uninstall: $(files_in "$E" | xargs)"; }
	result edited_modprobe_kept $r
fi

if want install_refused_over_dkms; then
	if [[ -z $KVER ]]; then
		skipped install_refused_over_dkms "no installed kernel has a build directory"
	else
		r=0
		K=$work/dkmscopy
		mkdir -p "$K/lib/modules/$KVER/updates/dkms"
		: >"$K/lib/modules/$KVER/updates/dkms/ibtick.ko"
		if mk install-module DESTDIR="$K"; then
			r=1; echo "# make install-module succeeded"
		fi
		grep -q 'DKMS has installed ibtick' "$work/make.log" || { r=1; echo "# no reason given"; }
		[[ ! -e $K/lib/modules/$KVER/updates/ibtick.ko ]] || { r=1; echo "# second copy installed"; }
		result install_refused_over_dkms $r
	fi
fi

if want version_agrees; then
	r=0
	v=$(scripts/version.sh)
	echo "# version $v"
	scripts/version.sh --check | sed 's/^/# /'
	((PIPESTATUS[0] == 0)) || r=1
	mk user/ibtick/ibtick || r=1
	[[ $(user/ibtick/ibtick -V) == "ibtick $v" ]] || { r=1; echo "# ibtick -V: $(user/ibtick/ibtick -V)"; }
	if [[ -n $KVER ]]; then
		mk module || r=1
		mv=$(modinfo -F version kmod/ibtick.ko)
		[[ $mv == "$v" ]] || { r=1; echo "# modinfo version: $mv"; }
	fi
	lit=$(grep -nE 'ibtick[/-][0-9]+\.[0-9]+' README.md)
	[[ -z $lit ]] || { r=1; echo "# README names a version: $lit"; }
	result version_agrees $r "a copy of the version differs from dkms.conf's"
fi

if want dkms_add_dot; then
	if ! command -v dkms >/dev/null; then
		skipped dkms_add_dot "dkms not installed"
	elif ((EUID != 0)); then
		skipped dkms_add_dot "dkms add needs root"
	else
		r=0
		v=$(scripts/version.sh)
		T=(--sourcetree "$work/src" --dkmstree "$work/dkms")
		mkdir -p "$work/src" "$work/dkms"
		dkms add . "${T[@]}" >>"$work/make.log" 2>&1 || r=1
		[[ -f $work/src/ibtick-$v/dkms.conf ]] || { r=1; echo "# no source in ibtick-$v"; }
		st=$(dkms status "${T[@]}" ibtick 2>&1)
		echo "# dkms status: $st"
		[[ $st == "ibtick/$v: added" ]] || r=1
		result dkms_add_dot $r
	fi
fi

echo "package: $pass passed, $fail failed, $skip skipped"
((fail == 0))
