#!/usr/bin/env bash
# VM topic, last on the debug kernel: after everything the suite did, with
# the module unloaded, kmemleak finds nothing that ibtick allocated.
# Skips on kernels without kmemleak (the stock one).
cd "$(dirname "$0")/../.." || exit 1
# shellcheck source=tests/vm/lib.sh
. tests/vm/lib.sh

KML=/sys/kernel/debug/kmemleak
ALL_TESTS="no_leaks_after_the_suite"
[[ -w $KML ]] || skip "no kmemleak in this kernel"

no_leaks_after_the_suite() {
	local rc=0 report
	rmmod ibtick 2>/dev/null
	# an object is reported only when it stayed unreferenced over two scans
	echo scan >"$KML"
	sleep 5
	echo scan >"$KML"
	report=$(cat "$KML")
	if grep -qE 'ibt_|ibtick' <<<"$report"; then
		echo "$report"
		rc=1
	elif [[ -n $report ]]; then
		# leaks of other code (ib_core, rxe) are shown, not counted ours
		echo "  kmemleak: reports outside ibtick:"
		sed 's/^/  | /' <<<"$report" | head -40
	fi
	log_test "kmemleak: no object allocated by ibtick left unreferenced after the suite" $rc
}

run_tests
