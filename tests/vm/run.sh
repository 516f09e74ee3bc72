#!/usr/bin/env bash
# The VM suite: every topic script in one guest boot (run by scripts/vm-run.sh,
# from `make check`).  Each topic ends with "N passed, N failed, N skipped"
# (tests/vm/lib.sh); this sums them, lists each topic's line, and prints the
# total as "vm: N passed, N failed, N skipped".  TOPICS="dev lifecycle"
# selects topics; TESTS= selects tests inside them.
#
# EACH=1 runs every test of each topic on its own instead (the topic script
# once per name in its ALL_TESTS, with TESTS=<that name>), still in one
# boot: it shows that no test leans on another's leftovers.  Then each line
# is "TOPIC/TEST: ..." and each run must count exactly one result.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
[[ ${IBTICK_GUEST:-} == 1 ]] || { echo "run inside the bench: scripts/vm-run.sh -- $0" >&2; exit 2; }

topics=${TOPICS:-dev ctl lifecycle feed wire ring conserve relay arb conn perf preload fuzz faults dkms leaks}
pass=0
fail=0
skipped=0
lines=()

# run_topic TOPIC LABEL WANT: run tests/vm/TOPIC.sh (with the caller's TESTS),
# add its counts; WANT, when set, is the number of results it must count.
run_topic() {
	local t=$1 label=$2 want=$3 out rc line p=0 f=0 s=0
	out=$(mktemp)
	bash "tests/vm/$t.sh" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$out" | tail -n 1)
	rm -f "$out"
	if [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped$ ]]; then
		p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]} s=${BASH_REMATCH[3]}
	fi
	# a topic that died, ended without its count line, or counted other
	# than it should, counts a failure
	if ((rc != 0 && f == 0)) || [[ -z $line ]] ||
	   [[ -n $want && $((p + f + s)) -ne $want ]]; then
		echo "### $label: status $rc, counted '$line'"
		f=$((f + 1))
	fi
	pass=$((pass + p))
	fail=$((fail + f))
	skipped=$((skipped + s))
	lines+=("$(printf '%-9s %3d passed, %d failed, %d skipped' "$label:" "$p" "$f" "$s")")
}

for t in $topics; do
	if [[ ${EACH:-0} != 1 ]]; then
		echo "### tests/vm/$t.sh"
		run_topic "$t" "$t" ""
		continue
	fi
	# the topic's ALL_TESTS="..." (on one line or several)
	names=$(perl -0ne 'print $1 if /^ALL_TESTS="([^"]*)"/m' "tests/vm/$t.sh" | xargs)
	for name in $names; do
		echo "### tests/vm/$t.sh TESTS=$name"
		TESTS=$name run_topic "$t" "$t/$name" 1
	done
done
echo "### ${EACH:+each test alone, }by topic"
printf '  %s\n' "${lines[@]}"
echo "vm: $pass passed, $fail failed, $skipped skipped"
((fail == 0))
