#!/usr/bin/env bash
# make check: every test ibtick has, in order of cost, then one summary line.
#
#   build   the module (W=1, and sparse: make sparse) and userspace
#           (-Wall -Wextra), warning-free
#   unit    userspace unit tests, the CLI argument table, the Wireshark
#           dissector on prepared captures
#   package make install/uninstall staged in a DESTDIR, file by file,
#           the version's copies, the man pages (tests/package/run.sh)
#   deb     the Debian packages from a clean copy, their contents,
#           lintian (tests/package/deb.sh)
#   fuzz    libFuzzer on the ring reader, the CLI's arguments and its netlink
#           replies (tests/fuzz/lib/run.sh; FUZZ_RUNS=, FUZZ_SECONDS=)
#   model   the ring protocol's Promela model, every interleaving (spin)
#   kunit   pure kernel logic on UML (scripts/kunit.sh)
#   vm      the module in a QEMU guest with Soft-RoCE (scripts/vm-run.sh)
#   vmpair  ibtick between two guests, a kernel and an rxe device each
#           (scripts/vm-run.sh -T pair -- tests/vm/pair.sh)
#   vmdeb   the Debian packages in a guest: dpkg -i, DKMS build for its
#           kernel, modprobe, purge (tests/vm/deb.sh); uses the packages
#           the deb stage built in this run, or builds them
#   vmdebug the VM suite again on the debug kernel (KASAN, lockdep,
#           kmemleak, fault injection; scripts/vm-debug.sh), when that
#           kernel is cached; without it the stage says so and is skipped,
#           as building it takes about an hour on 2 cores: build it with
#           scripts/debug-kernel.sh, or IBTICK_DEBUG_BUILD=1 make check
#
# STAGES="build unit" selects stages; TESTS= is passed to the VM suite.
# Each stage ends with a "NAME: N passed, N failed, N skipped" line, or
# with "NAME: skipped: WHY" when it could not run here (a skipped stage
# counts as one skip).  The summary lists every stage's line and the skip
# reasons its tests gave; the last line is the sum alone,
# "N passed, N failed, N skipped".  Exit status 1 if anything failed.
# A tool a stage needs (spin, clang's libFuzzer, strace...) is installed by
# scripts/deps.sh: its absence fails the stage, it is not a skip.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd -P)
cd "$top" || exit 1
stages=${STAGES:-build unit package deb fuzz model kunit vm vmpair vmdeb vmdebug}
logdir=${IBTICK_LOGDIR:-$top/.check}
mkdir -p "$logdir"

total_pass=0
total_fail=0
total_skip=0
declare -a summary

# Add the counts found in stage $1's log $2 (exit status $3) to the totals:
# its last "N passed, N failed[, N skipped]" line, or one skip for a
# "NAME: skipped: WHY" line.  A stage that exited non-zero without counting
# a failure, or printed neither line, counts one failure.
account() {
	local name=$1 log=$2 rc=$3 line p=0 f=0 s=0 why
	line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	why=$(grep -E "^$name: skipped: " "$log" | tail -n 1)
	if [[ $line =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed(,\ ([0-9]+)\ skipped)? ]]; then
		p=${BASH_REMATCH[1]}
		f=${BASH_REMATCH[2]}
		s=${BASH_REMATCH[4]:-0}
	elif [[ -n $why && $rc == 0 ]]; then
		total_skip=$((total_skip + 1))
		summary+=("$why")
		return
	fi
	if ((rc != 0 && f == 0)) || [[ -z $line ]]; then
		f=$((f + 1))
		echo "check: $name exited with status $rc without counting a failure"
	fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	total_skip=$((total_skip + s))
	summary+=("$(printf '%-8s %4d passed, %d failed, %d skipped' "$name:" "$p" "$f" "$s")")
	# and why each skipped test was skipped (TAP "# SKIP" lines)
	while read -r line; do
		summary+=("    $line")
	done < <(grep -E '^ok [0-9]+ - .* # SKIP ' "$log" | sed 's/^ok [0-9]* - //' | sort | uniq -c |
		sed 's/^ *1 //; s/^ *\([0-9][0-9]*\) /\1 x /')
}

# Run a stage with its output shown live and kept in $logdir/NAME.log.
stage() {
	local name=$1 rc
	shift
	echo "=== $name: $*"
	"$@" 2>&1 | tee "$logdir/$name.log"
	rc=${PIPESTATUS[0]}
	account "$name" "$logdir/$name.log" "$rc"
}

build() {
	local rc=0 warn
	make -s WERROR=1 all >"$logdir/build.out" 2>&1 || rc=$?
	# sparse's warnings count as the compiler's (scripts/deps.sh has it)
	((rc == 0)) && { make -s sparse >>"$logdir/build.out" 2>&1 || rc=$?; }
	cat "$logdir/build.out"
	warn=$(grep -c 'warning:' "$logdir/build.out")
	if ((rc == 0 && warn == 0)); then
		echo "build: 1 passed, 0 failed, 0 skipped"
	else
		echo "build: 0 passed, 1 failed, 0 skipped ($warn warnings, status $rc)"
		return 1
	fi
}

unit() {
	local rc=0
	make -s WERROR=1 tests/unit/unit user/preload/ibtick-run \
		user/preload/libibtick-preload.so tests/vm/mcsend tests/vm/mcrecv \
		user/tools/ibtick-perf || return 1
	tests/unit/unit || rc=1
	tests/unit/cli_args.sh user/ibtick/ibtick || rc=1
	tests/unit/perf_args.sh user/tools/ibtick-perf || rc=1
	bash --norc --noprofile tests/unit/completion.sh || rc=1
	tests/unit/doctor_tree.sh user/ibtick/ibtick || rc=1
	tests/unit/preload_host.sh || rc=1
	tests/unit/wireshark.sh user/wireshark/ibtick.lua || rc=1
	python3 tests/unit/bench_summary.py bench/summary.py || rc=1
	tests/unit/abi32.sh || rc=1
	return $rc
}

# The unit stage runs nine programs; sum their count lines.
account_unit() {
	local log=$logdir/unit.log p=0 f=0 s=0 line
	while read -r line; do
		[[ $line =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed(,\ ([0-9]+)\ skipped)? ]] || continue
		p=$((p + BASH_REMATCH[1]))
		f=$((f + BASH_REMATCH[2]))
		s=$((s + ${BASH_REMATCH[4]:-0}))
	done <"$log"
	echo "unit: $p passed, $f failed, $s skipped" >>"$log"
}

vm() {
	local out=$logdir/vm kver
	rm -rf "$out"
	mkdir -p "$out"
	kver=$(scripts/vm-kernel.sh) || return 1
	scripts/dkms-stage.sh "$out/dkms-stage" "$kver" || return 1
	scripts/vm-run.sh -t "${VM_TIMEOUT:-3600}" -k "$kver" -o "$out" -- tests/vm/run.sh
}

# Two guests: node 1 counts the tests, node 0 serves them (tests/vm/pair.sh).
vmpair() {
	local out=$logdir/vmpair kver
	rm -rf "$out"
	mkdir -p "$out"
	kver=$(scripts/vm-kernel.sh) || return 1
	# TESTS= names the vm stage's tests, not this topic's
	env -u TESTS scripts/vm-run.sh -T pair -t "${VM_PAIR_TIMEOUT:-900}" -k "$kver" -o "$out" -- tests/vm/pair.sh
}

# tests/fuzz/lib/run.sh ends with "libfuzz: N passed, N failed"; without
# clang's libFuzzer it exits 4: scripts/deps.sh installs it, so that fails.
fuzz() {
	local rc=0
	tests/fuzz/lib/run.sh || rc=$?
	if ((rc == 4)); then
		echo "fuzz: 0 passed, 1 failed, 0 skipped (clang/libFuzzer not installed: scripts/deps.sh)"
		return 1
	fi
	return $rc
}

# tests/model/run.sh ends with "model: N passed, N failed"; without spin it
# exits 4: scripts/deps.sh installs spin, so that fails.
model() {
	local rc=0
	tests/model/run.sh || rc=$?
	if ((rc == 4)); then
		echo "model: 0 passed, 1 failed, 0 skipped (spin not installed: scripts/deps.sh)"
		return 1
	fi
	return $rc
}

# The packages come from this run's deb stage when it passed; otherwise
# they are built here, and a failed build fails this stage.
deb_ran=0
vmdeb() {
	local out=$logdir/vmdeb kver
	rm -rf "$out"
	mkdir -p "$out/debs"
	kver=$(scripts/vm-kernel.sh) || return 1
	if ((deb_ran)) && grep -q '^deb: [0-9]* passed, 0 failed' "$logdir/deb.log"; then
		cp "$logdir"/deb/*.deb "$out/debs/" || return 1
	else
		KEEP=$out/debs tests/package/deb.sh || return 1
	fi
	scripts/vm-run.sh -t "${VM_TIMEOUT:-3600}" -k "$kver" -o "$out" -- env TOPICS=deb tests/vm/run.sh
}

vmdebug() {
	local out=$logdir/vmdebug
	rm -rf "$out"
	mkdir -p "$out"
	if [[ ${IBTICK_DEBUG_BUILD:-0} != 1 ]] && ! scripts/debug-kernel.sh -q >/dev/null; then
		echo "vmdebug: skipped: no debug kernel cached for these inputs" \
			"(scripts/debug-kernel.sh builds it, about an hour here)"
		return 0
	fi
	scripts/vm-debug.sh -t "${VM_TIMEOUT:-3600}" -o "$out"
}

for s in $stages; do
	case $s in
	build) stage build build ;;
	unit)
		echo "=== unit"
		unit 2>&1 | tee "$logdir/unit.log"
		rc=${PIPESTATUS[0]}
		account_unit
		account unit "$logdir/unit.log" "$rc"
		;;
	package) stage package tests/package/run.sh ;;
	deb)
		KEEP=$logdir/deb stage deb tests/package/deb.sh
		deb_ran=1
		;;
	fuzz) stage fuzz fuzz ;;
	model) stage model model ;;
	kunit) stage kunit scripts/kunit.sh ;;
	vm) stage vm vm ;;
	vmpair) stage vmpair vmpair ;;
	vmdeb) stage vmdeb vmdeb ;;
	vmdebug) stage vmdebug vmdebug ;;
	*)
		echo "check: unknown stage $s"
		total_fail=$((total_fail + 1))
		summary+=("$s: unknown stage, 1 failed")
		;;
	esac
done

echo "=== summary"
printf '  %s\n' "${summary[@]}"
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
((total_fail == 0))
