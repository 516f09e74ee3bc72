#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/kunit.sh - build and run ibtick's KUnit tests in a UML kernel.
#
# The pure-logic parts of the module (kmod/*.c that need no RDMA or
# networking headers) and their KUnit tests (tests/kunit/*_test.c) are
# compiled into a User Mode Linux kernel built from Debian's
# linux-source-6.1, which then boots, runs the tests and exits.
#
# Usage:
#   scripts/kunit.sh [kunit.py exec options] [filter_glob]
#
#   e.g.  scripts/kunit.sh                     # all ibtick suites
#         scripts/kunit.sh 'ibtick_portattr*'  # only matching suites
#         scripts/kunit.sh --raw_output=all    # show the whole kernel log
#
# Everything on the command line is handed to `kunit.py exec` unchanged.
# The last line printed is always
#   kunit: N passed, N failed, N skipped
# counted over test cases (each parameter of a parameterised case counts).
# The exit status is 0 only if the build succeeded, at least one test case
# ran and none failed or crashed.
#
# Environment:
#   IBTICK_CACHE           cache root (default /var/cache/ibtick); the kernel
#                          tree lives in $IBTICK_CACHE/kunit/linux-source-6.1,
#                          objects in $IBTICK_CACHE/kunit/build
#   IBTICK_SRC             tree the listed sources are relative to
#                          (default: this repository)
#   IBTICK_KUNIT_SOURCES   list of sources to compile
#                          (default: $IBTICK_SRC/tests/kunit/sources)
#   IBTICK_KUNITCONFIG     kunitconfig fragment
#                          (default: tests/kunit/kunitconfig of this repo)
#   IBTICK_JOBS            parallel make jobs (default: number of CPUs)
#   IBTICK_KUNIT_WERROR    0 to stop treating warnings in our files as errors
#   IBTICK_KUNIT_NO_APT    1 to never call apt-get (fail instead)

set -euo pipefail

script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$script_dir/.." && pwd)

src_root=${IBTICK_SRC:-$repo}
sources_list=${IBTICK_KUNIT_SOURCES:-$src_root/tests/kunit/sources}
kunitconfig=${IBTICK_KUNITCONFIG:-$repo/tests/kunit/kunitconfig}
cache=${IBTICK_CACHE:-/var/cache/ibtick}
jobs=${IBTICK_JOBS:-$(nproc 2>/dev/null || echo 2)}
werror=${IBTICK_KUNIT_WERROR:-1}

src_pkg=linux-source-6.1
tarball=/usr/src/$src_pkg.tar.xz
subdir=lib/ibtick            # where our files go inside the kernel tree
composite=ibtick_kunit       # name of the composite object

say() { printf 'kunit: %s\n' "$*"; }
die() { printf 'kunit: ERROR: %s\n' "$*" >&2; exit 1; }

summary_printed=0
summary() {
	# The one line other tools grep for; always the last thing printed.
	printf 'kunit: %d passed, %d failed, %d skipped\n' "$1" "$2" "${3:-0}"
	summary_printed=1
}
# On an early failure (bad source list, build error, ...) still end with the
# summary line, so that the output format holds whatever happened.
trap 'rc=$?; if [ "$summary_printed" = 0 ]; then summary 0 0; fi; exit $rc' EXIT

case ${1:-} in
-h|--help)
	sed -n '4,/^$/{s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"
	summary_printed=1
	exit 0
	;;
esac

# ---------------------------------------------------------------- packages --

# Everything a UML build and kunit.py need (UML has no objtool, so no libelf;
# no module signing, so no libssl), plus the package with the kernel source.
need_pkgs=(gcc make flex bison bc python3 libc6-dev xz-utils tar "$src_pkg")

pkg_installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q ' ok installed$'
}

ensure_packages() {
	local missing=() p
	for p in "${need_pkgs[@]}"; do
		pkg_installed "$p" || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "${IBTICK_KUNIT_NO_APT:-0}" = 1 ] || [ "$(id -u)" != 0 ]; then
		die "missing packages: ${missing[*]} (apt-get install ${missing[*]})"
	fi
	say "installing ${missing[*]} with apt-get"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# -------------------------------------------------------------- kernel tree --

mkdir -p "$cache/kunit"
cache=$(cd "$cache" && pwd)
kdir=$cache/kunit/$src_pkg
build=$cache/kunit/build
stamp=$kdir/.ibtick-kunit-stamp

# Add our Kconfig and directory to the kernel build, once.  lib/ is built
# for every architecture including UML (lib/Makefile already hosts many
# *_kunit.o tests), and lib/Kconfig.debug is where lib/kunit/Kconfig is
# sourced, so CONFIG_KUNIT is visible there.
hook_tree() {
	local kconf=$kdir/lib/Kconfig.debug mk=$kdir/lib/Makefile
	local kline="source \"$subdir/Kconfig\"" mline="obj-y += ibtick/"
	grep -qxF "$kline" "$kconf" ||
		printf '\n# ibtick KUnit tests (added by ibtick scripts/kunit.sh)\n%s\n' \
			"$kline" >>"$kconf"
	grep -qxF "$mline" "$mk" ||
		printf '\n# ibtick KUnit tests (added by ibtick scripts/kunit.sh)\n%s\n' \
			"$mline" >>"$mk"
}

ensure_tree() {
	local want have="" tmp t0
	want="$src_pkg $(dpkg-query -W -f='${Version}' "$src_pkg")"
	[ -f "$stamp" ] && have=$(cat "$stamp")
	if [ "$have" != "$want" ]; then
		[ -f "$tarball" ] || die "$tarball not found (is $src_pkg installed?)"
		say "extracting $tarball (${want#* }) into $kdir"
		say "this takes a minute or two; it happens once per package version"
		rm -rf "$kdir" "$build" "$cache/kunit/extract."*
		tmp=$(mktemp -d "$cache/kunit/extract.XXXXXX")
		t0=$SECONDS
		# ~1.3 GB unpacked, i.e. about 130000 tar records of 10 KiB.
		tar -xJf "$tarball" -C "$tmp" --checkpoint=20000 \
			--checkpoint-action='echo=unpacked %{}T'
		[ -d "$tmp/$src_pkg" ] || die "$tarball has no top directory $src_pkg"
		mv "$tmp/$src_pkg" "$kdir"
		rmdir "$tmp"
		say "extracted in $((SECONDS - t0))s"
		printf '%s\n' "$want" >"$stamp"
	fi
	hook_tree
}

# ------------------------------------------------------------ our sources --

# Our copies in the kernel tree, by their path under $subdir, to the path of
# the original relative to $src_root; filled in by sync_sources.
declare -A origin=()

# Copy $1 to $2 only when the content differs, so that kbuild sees no new
# mtime and an unchanged file is not recompiled.
sync_file() {
	if ! cmp -s "$1" "$2"; then
		mkdir -p "$(dirname "$2")"
		cp "$1" "$2.ibtick-tmp" && mv -f "$2.ibtick-tmp" "$2"
		say "updated $subdir/${2#"$dest"/}"
	fi
}

sync_sources() {
	dest=$kdir/$subdir
	local line path base objs=() f rel tmp
	declare -A seen=() keep=()
	origin=()

	[ -f "$sources_list" ] || die "no source list at $sources_list"
	[ -d "$src_root" ] || die "IBTICK_SRC=$src_root is not a directory"

	# Listed files: .c are compiled into the composite object, .h copied.
	while IFS= read -r line || [ -n "$line" ]; do
		line=${line%%#*}
		line=$(printf '%s' "$line" | tr -d '[:space:]')
		[ -n "$line" ] || continue
		path=$src_root/$line
		[ -f "$path" ] || die "$sources_list lists $line, which does not exist"
		base=$(basename "$line")
		case $base in
		"$composite.c")
			die "$line: the name $base is reserved for the composite object" ;;
		*.c) objs+=("${base%.c}.o") ;;
		*.h) ;;
		*) die "$sources_list: $line is neither a .c nor a .h file" ;;
		esac
		[ -z "${seen[$base]:-}" ] ||
			die "$line and ${seen[$base]} have the same file name"
		seen[$base]=$line
		sync_file "$path" "$dest/$base"
		origin[$base]=$line
		keep[$base]=1
	done <"$sources_list"
	[ ${#objs[@]} -gt 0 ] || die "$sources_list lists no .c files"

	# All module headers, so that any pure-logic file can include them.
	for f in "$src_root"/kmod/*.h; do
		[ -f "$f" ] || continue
		base=$(basename "$f")
		[ -n "${keep[$base]:-}" ] && continue    # listed explicitly already
		sync_file "$f" "$dest/$base"
		keep[$base]=1
		origin[$base]=kmod/$base
	done
	# uapi headers, included as <linux/ibtick*.h>.
	for f in "$src_root"/include/uapi/linux/ibtick*.h; do
		[ -f "$f" ] || continue
		base=uapi/linux/$(basename "$f")
		sync_file "$f" "$dest/$base"
		keep[$base]=1
		origin[$base]=include/$base
	done

	# Generated Kconfig and Makefile, rewritten only when they change.
	tmp=$(mktemp)
	{
		echo "# Generated by ibtick scripts/kunit.sh; do not edit."
		echo "config IBTICK_KUNIT_TEST"
		echo "	bool \"KUnit tests for the ibtick module's pure logic\" if !KUNIT_ALL_TESTS"
		echo "	depends on KUNIT=y"
		echo "	default KUNIT_ALL_TESTS"
		echo "	help"
		echo "	  Builds the sources listed in tests/kunit/sources of the ibtick"
		echo "	  repository into the kernel, so that their KUnit suites run at"
		echo "	  boot. Only meant for ibtick's scripts/kunit.sh."
	} >"$tmp"
	sync_file "$tmp" "$dest/Kconfig"
	keep[Kconfig]=1

	{
		echo "# Generated by ibtick scripts/kunit.sh; do not edit."
		echo "obj-\$(CONFIG_IBTICK_KUNIT_TEST) += $composite.o"
		echo "$composite-y := ${objs[*]}"
		echo "ccflags-y += -I\$(srctree)/$subdir -I\$(srctree)/$subdir/uapi"
		# __FILE__ (and so KUnit's "EXPECTATION FAILED at ...") names the
		# file as it is in the ibtick tree, not its copy in the kernel tree.
		for rel in $(printf '%s\n' "${!origin[@]}" | LC_ALL=C sort); do
			echo "ccflags-y += -fmacro-prefix-map=\$(srctree)/$subdir/$rel=${origin[$rel]}"
		done
		# The warnings of the kernel's W=1, for our files only.
		echo "ccflags-y += -Wextra -Wunused -Wno-unused-parameter"
		echo "ccflags-y += -Wmissing-declarations -Wmissing-prototypes"
		echo "ccflags-y += -Wmissing-format-attribute -Wold-style-definition"
		echo "ccflags-y += -Wmissing-include-dirs"
		echo "ccflags-y += \$(call cc-option, -Wunused-but-set-variable)"
		echo "ccflags-y += \$(call cc-option, -Wunused-const-variable)"
		echo "ccflags-y += \$(call cc-option, -Wstringop-truncation)"
		echo "ccflags-y += -Wno-missing-field-initializers -Wno-sign-compare"
		echo "ccflags-y += -Wno-type-limits -Wno-shift-negative-value"
		if [ "$werror" != 0 ]; then
			echo "ccflags-y += -Werror"
		fi
	} >"$tmp"
	sync_file "$tmp" "$dest/Makefile"
	keep[Makefile]=1
	rm -f "$tmp"

	# Drop files that are no longer listed (or whose header was removed).
	while IFS= read -r -d '' f; do
		rel=${f#"$dest"/}
		if [ -z "${keep[$rel]:-}" ]; then
			rm -f "$f"
			say "removed $subdir/$rel"
		fi
	done < <(find "$dest" -type f -print0)
}

# ------------------------------------------------------------------- build --

# kbuild's output, condensed: our own files and every warning or error are
# shown, the rest of the kernel is summarised every 150 steps.  The full
# output is kept in $build/ibtick-build.log.
condense() {
	local rel map=""
	for rel in "${!origin[@]}"; do
		map+="$kdir/$subdir/$rel	${origin[$rel]}"$'\n'
	done
	IBTICK_PATHMAP=$map awk -v sub_="$subdir/" '
	BEGIN {
		# Diagnostics name the copies; show the originals instead.
		n_map = split(ENVIRON["IBTICK_PATHMAP"], lines, "\n")
		for (i = 1; i <= n_map; i++)
			if (split(lines[i], f, "\t") == 2) { from[i] = f[1]; to[i] = f[2] }
	}
	function unmap(s,   i, p, out) {
		for (i in from) {
			out = ""
			while ((p = index(s, from[i])) > 0) {
				out = out substr(s, 1, p - 1) to[i]
				s = substr(s, p + length(from[i]))
			}
			s = out s
		}
		return s
	}
	/^make(\[[0-9]+\])?: (Entering|Leaving) directory/ { next }
	# binutils >= 2.39 says this about every UML link; it is harmless.
	/ld: warning: .*(missing \.note\.GNU-stack|LOAD segment with RWX)/ { next }
	/ld: NOTE: This behaviour is deprecated/ { next }
	/^  [A-Z][A-Z0-9_]* +[^ ]/ {
		n++
		if (index($2, sub_) == 1) { print; fflush(); next }
		if (n % 150 == 0) {
			printf "kunit: build: %d steps, at %s\n", n, $2; fflush()
		}
		next
	}
	{ print unmap($0); fflush() }
	END { printf "kunit: build: %d steps\n", n }'
}

build_kernel() {
	local log=$build/ibtick-build.log t0=$SECONDS rc
	say "building UML kernel with $jobs jobs in $build (full log: $log)"
	set +e
	make -C "$kdir" ARCH=um O="$build" --jobs="$jobs" 2>&1 |
		tee "$log" | condense
	rc=${PIPESTATUS[0]}
	set -e
	[ "$rc" -eq 0 ] || die "build failed (make exit $rc); see above or $log"
	say "build took $((SECONDS - t0))s"
}

# ------------------------------------------------------------- the counts --

# Count test cases in the KTAP output of the last boot with kunit.py's own
# parser: leaves of the result tree, so each parameter of a parameterised
# case counts; crashed or missing results count as failed.
count_results() {
	python3 - "$kdir/tools/testing/kunit" "$1" 3>&1 >/dev/null <<-'EOF'
	import os, sys
	sys.path.insert(0, sys.argv[1])
	import kunit_parser   # binds its printer to stdout, which is /dev/null
	with open(sys.argv[2], errors='backslashreplace') as f:
	    test = kunit_parser.parse_run_tests(f.read().splitlines())
	c = test.counts
	with os.fdopen(3, 'w') as out:
	    out.write(f'{c.passed} {c.failed + c.crashed} {c.skipped}\n')
	EOF
}

# -------------------------------------------------------------------- main --

[ -f "$kunitconfig" ] || die "no kunitconfig at $kunitconfig"
kunitconfig=$(cd "$(dirname "$kunitconfig")" && pwd)/$(basename "$kunitconfig")

ensure_packages

mkdir -p "$cache/kunit"
exec 9>"$cache/kunit/.lock"
if ! flock -n 9; then
	say "another kunit.sh is using $cache/kunit; waiting for it"
	flock 9
fi

ensure_tree
sync_sources
mkdir -p "$build"

kunit_py=(python3 "$kdir/tools/testing/kunit/kunit.py")

# 1. .config from the kunitconfig (kunit.py checks every option took).
"${kunit_py[@]}" config --arch=um --build_dir="$build" \
	--kunitconfig="$kunitconfig" ||
	die "kunit.py config failed (is IBTICK_KUNIT_TEST in $subdir/Kconfig?)"

# 2. Build, with progress and warnings shown (kunit.py build is silent).
build_kernel

# 3. Boot it and let kunit.py parse and print the results.
rm -f "$build/test.log"
# kunit.py ends with `stty sane`, which complains when stdin is no terminal.
set +e
"${kunit_py[@]}" exec --arch=um --build_dir="$build" \
	--kunitconfig="$kunitconfig" "$@" \
	2> >(grep -v "^stty: 'standard input': Inappropriate ioctl" >&2)
exec_rc=$?
set -e

counts=""
if [ -s "$build/test.log" ]; then
	counts=$(count_results "$build/test.log") ||
		say "could not parse $build/test.log"
fi
read -r passed failed skipped <<<"${counts:-0 0 0}" || true
rc=0
if [ "$exec_rc" -ne 0 ]; then
	say "kunit.py exec exited with $exec_rc"
	rc=1
fi
listing=0
for arg in "$@"; do
	case $arg in --list_tests*) listing=1 ;; esac
done
if [ $((passed + failed)) -eq 0 ] && [ "$listing" = 0 ]; then
	say "ERROR: no test case ran (is the suite registered with kunit_test_suite?)"
	rc=1
fi
[ "$failed" -eq 0 ] || rc=1
summary "$passed" "$failed" "$skipped"
exit "$rc"
