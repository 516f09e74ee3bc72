#!/usr/bin/env bash
# Every test of every topic on its own: for each topic in TOPICS (default
# all of them), run the topic script once per test with TESTS=<that test>,
# in one guest boot (scripts/vm-run.sh -- tests/vm/each.sh).  Shows that no
# test leans on another's leftovers.  Prints one line per test,
# "TOPIC/TEST: N passed, N failed, N skipped", then the sum as
# "each: N passed, N failed, N skipped".
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
[[ ${IBTICK_GUEST:-} == 1 ]] || { echo "run inside the bench: scripts/vm-run.sh -- $0" >&2; exit 2; }

topics=${TOPICS:-dev ctl lifecycle feed ring conserve perf fuzz faults dkms leaks}
pass=0 fail=0 skipped=0
lines=()
for t in $topics; do
	# the topic's ALL_TESTS="..." (it may span lines)
	names=$(sed -n '/^ALL_TESTS="/,/"/p' "tests/vm/$t.sh" | sed 's/^ALL_TESTS="//; s/"$//' | xargs)
	for name in $names; do
		echo "### tests/vm/$t.sh TESTS=$name"
		out=$(mktemp)
		TESTS=$name bash "tests/vm/$t.sh" 2>&1 | tee "$out"
		rc=${PIPESTATUS[0]}
		line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$out" | tail -n 1)
		rm -f "$out"
		p=0 f=0 s=0
		if [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped$ ]]; then
			p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]} s=${BASH_REMATCH[3]}
		fi
		if ((rc != 0 && f == 0)) || [[ -z $line ]] || ((p + f + s != 1)); then
			echo "### $t/$name: status $rc, counted '$line': want exactly one result"
			f=$((f + 1))
		fi
		pass=$((pass + p)) fail=$((fail + f)) skipped=$((skipped + s))
		lines+=("$t/$name: $p passed, $f failed, $s skipped")
	done
done
echo "### each test alone"
printf '  %s\n' "${lines[@]}"
echo "each: $pass passed, $fail failed, $skipped skipped"
((fail == 0))
