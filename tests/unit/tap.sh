# shellcheck shell=bash
#
# tests/unit/tap.sh - sourced by the unit scripts that compare strings
# (abi32.sh, wireshark.sh).  Set TAP_NAME first.  Gives T, a temporary
# dir removed at exit; check NAME ACTUAL EXPECTED, one TAP line ("ok N -
# TAP_NAME: NAME"; when they differ, "not ok" and the diff as comments);
# tap_end, the count line the unit stage sums ("TAP_NAME: P passed, F
# failed, 0 skipped"), status 1 when a check failed.
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
n=0 pass=0 fail=0
check() {
	n=$((n + 1))
	if [[ $2 == "$3" ]]; then
		pass=$((pass + 1))
		echo "ok $n - $TAP_NAME: $1"
	else
		fail=$((fail + 1))
		echo "not ok $n - $TAP_NAME: $1"
		diff <(echo "$3") <(echo "$2") | sed 's/^/# /'
	fi
}
tap_end() {
	echo "$TAP_NAME: $pass passed, $fail failed, 0 skipped"
	((fail == 0))
}
