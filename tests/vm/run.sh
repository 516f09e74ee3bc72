#!/usr/bin/env bash
# The VM suite: every topic script in one guest boot (run by scripts/vm-run.sh,
# from `make check`).  Each topic prints "N passed, N failed"; this sums them
# and prints the total the same way.  TOPICS="dev lifecycle" selects topics;
# TESTS= selects tests inside them.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
[[ ${IBTICK_GUEST:-} == 1 ]] || { echo "run inside the bench: scripts/vm-run.sh -- $0" >&2; exit 2; }

topics=${TOPICS:-dev ctl lifecycle feed ring conserve perf fuzz faults dkms leaks}
pass=0
fail=0
for t in $topics; do
	echo "### tests/vm/$t.sh"
	out=$(mktemp)
	bash "tests/vm/$t.sh" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out" | tail -n 1)
	rm -f "$out"
	if [[ $line =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed ]]; then
		pass=$((pass + BASH_REMATCH[1]))
		fail=$((fail + BASH_REMATCH[2]))
	fi
	# a topic that skipped (4) counts nothing; one that died counts a failure
	if ((rc != 0 && rc != 4)) && [[ ! $line =~ [1-9][0-9]*\ failed ]]; then
		echo "### $t exited with status $rc without counting a failure"
		fail=$((fail + 1))
	fi
done
echo "vm: $pass passed, $fail failed"
((fail == 0))
