#!/usr/bin/env bash
# The VM suite: every topic script in one guest boot (run by scripts/vm-run.sh,
# from `make check`).  Each topic ends with "N passed, N failed, N skipped"
# (tests/vm/lib.sh); this sums them, lists each topic's line, and prints the
# total as "vm: N passed, N failed, N skipped".  TOPICS="dev lifecycle"
# selects topics; TESTS= selects tests inside them.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
[[ ${IBTICK_GUEST:-} == 1 ]] || { echo "run inside the bench: scripts/vm-run.sh -- $0" >&2; exit 2; }

topics=${TOPICS:-dev ctl lifecycle feed ring conserve perf fuzz faults dkms leaks}
pass=0
fail=0
skipped=0
lines=()
for t in $topics; do
	echo "### tests/vm/$t.sh"
	out=$(mktemp)
	bash "tests/vm/$t.sh" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$out" | tail -n 1)
	rm -f "$out"
	p=0 f=0 s=0
	if [[ $line =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped$ ]]; then
		p=${BASH_REMATCH[1]} f=${BASH_REMATCH[2]} s=${BASH_REMATCH[3]}
	fi
	# a topic that died, or ended without its count line, counts a failure
	if ((rc != 0 && f == 0)) || [[ -z $line ]]; then
		echo "### $t exited with status $rc without counting a failure"
		f=$((f + 1))
	fi
	pass=$((pass + p))
	fail=$((fail + f))
	skipped=$((skipped + s))
	lines+=("$(printf '%-9s %3d passed, %d failed, %d skipped' "$t:" "$p" "$f" "$s")")
done
echo "### topics"
printf '  %s\n' "${lines[@]}"
echo "vm: $pass passed, $fail failed, $skipped skipped"
((fail == 0))
