#!/usr/bin/env bash
# ibtick's version.  The one place it is kept is PACKAGE_VERSION in
# dkms.conf: the Makefile (ibtick -V, libibtick.pc), Kbuild (MODULE_VERSION),
# scripts/dkms-stage.sh, the tests and debian/rules read it from there.
# Some files must carry it as text, because they are read without the
# build: the man pages' .TH lines, LIBIBTICK_VERSION in the installed
# libibtick.h and the latest debian/changelog entry.  --set writes it into
# all of them; --check (tests/package/run.sh) fails when one disagrees.
#
#   version.sh              print the version
#   version.sh --check      list the copies that disagree; exit 1 if any
#   version.sh --set X.Y.Z  set it everywhere (a new debian/changelog entry)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd -P)
cd "$top"

get() { sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf; }

# the version each copy carries, as "FILE VERSION" lines
copies() {
	local f v
	for f in user/man/*.[1-8]; do
		# .so redirects have no .TH line
		grep -q '^\.TH ' "$f" || continue
		v=$(sed -n 's/^\.TH [^ ]* [0-9] "[^"]*" "ibtick \([^"]*\)".*/\1/p' "$f")
		echo "$f ${v:-none}"
	done
	v=$(sed -n 's/^#define LIBIBTICK_VERSION[[:space:]]*"\(.*\)"$/\1/p' user/lib/libibtick.h)
	echo "user/lib/libibtick.h ${v:-none}"
	if [[ -f debian/changelog ]]; then
		# the newest entry's version, without a Debian revision if
		# there is one (the package is native: 0.2.0)
		v=$(sed -n '1s/^ibtick (\([^)-]*\)\(-[^)]*\)\{0,1\}).*/\1/p' debian/changelog)
		echo "debian/changelog ${v:-none}"
	fi
}

case ${1:-} in
"")
	get
	;;
--check)
	want=$(get)
	[[ -n $want ]] || { echo "version: no PACKAGE_VERSION in dkms.conf" >&2; exit 1; }
	bad=0
	while read -r f v; do
		if [[ $v != "$want" ]]; then
			echo "version: $f says $v, dkms.conf $want"
			bad=1
		fi
	done < <(copies)
	exit $bad
	;;
--set)
	new=${2:?usage: version.sh --set X.Y.Z}
	[[ $new =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "version: $new is not X.Y.Z" >&2; exit 2; }
	sed -i "s/^PACKAGE_VERSION=\".*\"$/PACKAGE_VERSION=\"$new\"/" dkms.conf
	sed -i "1s/^\(\.TH [^ ]* [0-9] \"[^\"]*\" \)\"ibtick [^\"]*\"/\1\"ibtick $new\"/" user/man/*.[1-8]
	sed -i "s/^\(#define LIBIBTICK_VERSION[[:space:]]*\)\".*\"$/\1\"$new\"/" user/lib/libibtick.h
	if [[ -f debian/changelog ]] && [[ $(sed -n '1s/^ibtick (\([^)-]*\)[-)].*/\1/p' debian/changelog) != "$new" ]]; then
		who=$(sed -n 's/^ -- \(.*>\)  .*/\1/p' debian/changelog | head -n 1)
		{
			printf 'ibtick (%s) unstable; urgency=medium\n\n  * Version %s.\n\n -- %s  %s\n\n' \
				"$new" "$new" "$who" "$(date -R)"
			cat debian/changelog
		} >debian/changelog.new
		mv debian/changelog.new debian/changelog
	fi
	"$0" --check
	;;
*)
	sed -n '/^#   version.sh/s/^# *//p' "$0" >&2
	exit 2
	;;
esac
