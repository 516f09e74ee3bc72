#!/usr/bin/env bash
# The deb stage of make check: the Debian packages, built as a user would
# from a clean checkout.
#
#   deb_build       dpkg-buildpackage -b -us -uc succeeds in a copy of the
#                   tree holding only what git tracks (plus new files not
#                   ignored): no build products, no .check, no debian/ leftovers
#   deb_contents    each package holds what it should, at its version
#                   (scripts/version.sh): ibtick-dkms the module source and
#                   dkms.conf in /usr/src/ibtick-VERSION and no object file;
#                   ibtick-tools every program with its man page, the unit,
#                   the modules-load.d file, the modprobe.d conffile and
#                   the Wireshark dissector in tshark's global Lua plugin
#                   directory (tshark -G folders);
#                   libibtick0 the library; libibtick-dev headers, .pc, .a
#   lintian_clean   lintian -I -E --pedantic on the .changes reports no tag
#                   (overrides carry their reasons in debian/*.lintian-overrides)
#
# Ends with "deb: N passed, N failed, N skipped".  KEEP=DIR keeps the
# packages (and the build log) in DIR.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd -P)
cd "$top" || exit 1

# shellcheck source=tests/package/lib.sh
. tests/package/lib.sh
finish() {
	echo "deb: $pass passed, $fail failed, $skip skipped"
	((fail == 0))
	exit
}

for t in dpkg-buildpackage dh dh_dkms lintian git; do
	command -v $t >/dev/null || {
		echo "deb: 0 passed, 1 failed, 0 skipped ($t missing: scripts/deps.sh installs it)"
		exit 1
	}
done

if [[ -n ${KEEP:-} ]]; then
	mkdir -p "$KEEP" && work=$(cd "$KEEP" && pwd -P) && rm -rf "${work:?}"/*
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/ibtick-deb.XXXXXX")
	trap 'rm -rf "$work"' EXIT
fi
v=$(scripts/version.sh)
arch=$(dpkg --print-architecture)
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
echo "# version $v, $arch, in $work"

# --- deb_build
src=$work/ibtick-$v
mkdir -p "$src"
git ls-files -z -c -o --exclude-standard | while IFS= read -r -d '' f; do
	[[ -e $f ]] && printf '%s\0' "$f"
done | tar --null -T - -cf - | tar -C "$src" -xf -
if (cd "$src" && dpkg-buildpackage -b -us -uc -j2) >"$work/build.log" 2>&1; then
	ok deb_build
else
	tail -n 30 "$work/build.log" | sed 's/^/# /'
	notok deb_build "dpkg-buildpackage failed (see the log above)"
	skipped deb_contents "no packages"
	skipped lintian_clean "no packages"
	finish
fi
grep -E 'warning:' "$work/build.log" | sed 's/^/# build: /'

# --- deb_contents
r=0
deb() { echo "$work/${1}_${v}_${2:-$arch}.deb"; }
# has PKG ARCH PATH...: each PATH is in the package
has() {
	local p=$1 a=$2 f list
	shift 2
	list=$(dpkg-deb -c "$(deb "$p" "$a")" | awk '{print $6}' | sed 's|^\./|/|')
	for f; do
		grep -qx -- "$f" <<<"$list" || { echo "# $p lacks $f"; r=1; }
	done
}
for p in ibtick-dkms:all ibtick-tools libibtick0 libibtick-dev; do
	f=$(deb "${p%%:*}" "$([[ $p == *:* ]] && echo "${p#*:}" || echo "$arch")")
	[[ -f $f ]] || { echo "# no $f"; r=1; continue; }
	pv=$(dpkg-deb -f "$f" Version)
	[[ $pv == "$v" ]] || { echo "# $f has version $pv"; r=1; }
done
if ((r == 0)); then
	s=/usr/src/ibtick-$v
	has ibtick-dkms all "$s/dkms.conf" "$s/Kbuild" "$s/kmod/main.c" "$s/include/uapi/linux/ibtick.h" \
		"$s/scripts/dkms-make.sh"
	dpkg-deb -c "$(deb ibtick-dkms all)" | awk '{print $6}' | grep -E '\.(o|ko|cmd|mod)$' |
		sed 's/^/# object file in ibtick-dkms: /' | grep . && r=1
	dpkg-deb --fsys-tarfile "$(deb ibtick-dkms all)" | tar -xOf - ".$s/dkms.conf" |
		grep -qx "PACKAGE_VERSION=\"$v\"" || { echo "# ibtick-dkms: dkms.conf not at $v"; r=1; }
	dpkg-deb -f "$(deb ibtick-dkms all)" Depends | grep -q dkms || { echo "# ibtick-dkms does not depend on dkms"; r=1; }
	for b in ibtick ibtick-pub ibtick-sub ibtick-perf ibtick-gen ibtick-md ibtick-relay ibtick-run; do
		has ibtick-tools "$arch" "/usr/bin/$b"
	done
	has ibtick-tools "$arch" /usr/share/man/man8/ibtick.8.gz /usr/share/man/man7/ibtick.7.gz \
		/usr/share/man/man1/ibtick-pub.1.gz /usr/share/man/man1/ibtick-sub.1.gz \
		/usr/share/man/man1/ibtick-gen.1.gz /usr/share/man/man1/ibtick-md.1.gz \
		/usr/share/man/man1/ibtick-perf.1.gz /usr/share/man/man8/ibtick-run.8.gz \
		"/usr/lib/$ma/ibtick/libibtick-preload.so" \
		/usr/share/bash-completion/completions/ibtick /usr/share/bash-completion/completions/ibtick-md \
		/usr/share/bash-completion/completions/ibtick-run \
		/usr/share/bash-completion/completions/ibtick-perf \
		/usr/share/bash-completion/completions/ibtick-relay \
		/usr/share/man/man8/ibtick-relay.8.gz \
		/lib/systemd/system/ibtick-restore.service /lib/systemd/system/ibtick-relay@.service \
		/usr/lib/modules-load.d/ibtick.conf /etc/modprobe.d/ibtick.conf \
		"/usr/lib/$ma/wireshark/plugins/ibtick.lua"
	# where Debian's tshark looks for Lua plugins
	w=$(tshark -G folders 2>/dev/null | sed -n 's/^Global Lua Plugins:[[:space:]]*//p')
	[[ $w == "/usr/lib/$ma/wireshark/plugins" ]] ||
		{ echo "# tshark's global Lua plugin directory is '$w', not /usr/lib/$ma/wireshark/plugins"; r=1; }
	dpkg-deb --ctrl-tarfile "$(deb ibtick-tools)" | tar -xOf - ./conffiles 2>/dev/null |
		grep -qx /etc/modprobe.d/ibtick.conf || { echo "# modprobe.d file is not a conffile"; r=1; }
	has libibtick0 "$arch" "/usr/lib/$ma/libibtick.so.0"
	has libibtick-dev "$arch" /usr/include/ibtick/libibtick.h /usr/include/ibtick/linux/ibtick.h \
		/usr/include/ibtick/linux/ibtick_netlink.h "/usr/lib/$ma/libibtick.so" \
		"/usr/lib/$ma/libibtick.a" "/usr/lib/$ma/pkgconfig/libibtick.pc" \
		/usr/share/man/man3/libibtick.3.gz /usr/share/man/man3/ibtick_next.3.gz
fi
result deb_contents $r "a package lacks a file or has the wrong version"

# --- lintian_clean
lintian -I -E --pedantic "$work/ibtick_${v}_${arch}.changes" >"$work/lintian.log" 2>&1
tags=$(grep -E '^[EWIPXOC]: ' "$work/lintian.log")
[[ -z $tags ]] || printf '# %s\n' "$tags"
grep -q . <<<"$tags"
result lintian_clean $((!$?)) "lintian reported tags"

finish
