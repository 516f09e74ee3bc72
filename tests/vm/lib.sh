# shellcheck shell=bash
#
# tests/vm/lib.sh - small kselftest-style helpers for test scripts that run
# inside the QEMU guest (scripts/vm-run.sh -- tests/vm/some_test.sh).
#
# A test script looks like:
#
#	#!/bin/bash
#	ALL_TESTS="load_unload mcast_join"
#	. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#	require_guest
#
#	cleanup() { rmmod ibtick 2>/dev/null || true; }   # runs on EXIT
#
#	load_unload() {
#		RET=0
#		insmod kmod/ibtick.ko
#		check_err $? "insmod failed"
#		check_eq "$(cat /sys/module/ibtick/initstate)" live "initstate"
#		log_test "load/unload"
#	}
#
#	run_tests
#
# run_tests runs the functions named in $TESTS (if set; vm-run.sh passes it
# through from the host) or else $ALL_TESTS, then prints "N passed, N failed"
# and exits 1 if anything failed, 0 otherwise.
#
# Per test: reset RET=0, call check_* after each step (the first failure is
# kept in RET/RETMSG), finish with log_test NAME, which prints
# "ok N - NAME" or "not ok N - NAME # MSG"; a test function that calls no
# log_test gets one under its own name.  Do not use "set -e" in test
# scripts: check_err needs to see the failing status.  V=1 (also passed
# through) makes run_cmd echo the commands it runs.

ksft_skip=4

RET=0           # status of the current test: 0 ok, 4 skip, else failure
RETMSG=""       # why it failed
__ksft_n=0      # log_test calls so far
__ksft_pass=0
__ksft_fail=0
__ksft_skip=0

# check_err RC [MSG]: the step just done must have succeeded (RC == 0).
check_err() {
	local rc=$1 msg=${2:-}
	if ((RET == 0 && rc != 0)); then
		RET=$rc
		RETMSG=$msg
	fi
}

# check_fail RC [MSG]: the step just done must have failed (RC != 0).
check_fail() {
	local rc=$1 msg=${2:-}
	if ((RET == 0 && rc == 0)); then
		RET=1
		RETMSG=$msg
	fi
}

# check_eq ACTUAL EXPECTED [MSG]: string comparison.
check_eq() {
	local actual=$1 expected=$2 msg=${3:-value}
	if ((RET == 0)) && [[ $actual != "$expected" ]]; then
		RET=1
		RETMSG="$msg: expected '$expected', got '$actual'"
	fi
}

# log_test NAME [RC [MSG]]: report one result.  RC and MSG default to RET
# and RETMSG; RC 4 ($ksft_skip) reports a skip.  Resets RET and RETMSG.
log_test() {
	local name=$1 rc=${2:-$RET} msg=${3:-$RETMSG}
	__ksft_n=$((__ksft_n + 1))
	if ((rc == 0)); then
		printf 'ok %d - %s\n' "$__ksft_n" "$name"
		__ksft_pass=$((__ksft_pass + 1))
	elif ((rc == ksft_skip)); then
		printf 'ok %d - %s # SKIP %s\n' "$__ksft_n" "$name" "$msg"
		__ksft_skip=$((__ksft_skip + 1))
	else
		printf 'not ok %d - %s # %s\n' "$__ksft_n" "$name" "${msg:-exit status $rc}"
		__ksft_fail=$((__ksft_fail + 1))
	fi
	RET=0
	RETMSG=""
	return 0
}

# skip REASON: the whole script cannot run here; exit 4.
skip() {
	printf '# SKIP: %s\n' "$*"
	exit "$ksft_skip"
}

# run_cmd CMD [ARGS...]: run a command, echoing it first when V is set.
run_cmd() {
	[[ -z ${V:-} || ${V:-} == 0 ]] || printf '# %s\n' "$*"
	"$@"
}

require_guest() {
	[[ ${IBTICK_GUEST:-} == 1 ]] || skip "run inside the test VM: scripts/vm-run.sh -- $0"
}

require_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null || skip "command '$c' not available"
	done
}

# IBTICK_SLOW: how many times slower than the stock kernel this guest runs
# (scripts/vm-debug.sh sets it for the KASAN/lockdep kernel, which under
# TCG is about ten times slower).  Timeouts are stretched by it and traffic
# volumes cut by it, so that a test asks the same of both kernels.
SLOW=${IBTICK_SLOW:-1}

# tmo SECONDS: a timeout for this kernel.
tmo() {
	echo $(($1 * SLOW))
}

# cnt N [MIN]: a tick count for this kernel: N / SLOW, but not below MIN
# (default 100) unless N itself is.
cnt() {
	local n=$(($1 / SLOW)) min=${2:-100}
	((n < min)) && n=$((min < $1 ? min : $1))
	echo "$n"
}

# wait_bound FILE...: until each file (a reader's stderr) says "bound"
# (10 s each, times SLOW); shows the file and fails when one never does.
wait_bound() {
	local f i
	for f in "$@"; do
		for i in $(seq $((100 * SLOW))); do
			grep -q bound "$f" 2>/dev/null && break
			sleep 0.1
		done
		grep -q bound "$f" || { echo "  $f: never bound"; cat "$f"; return 1; }
	done
}

# wait_state DEV STATE: until rdma shows port DEV/1 in STATE (10 s).
wait_state() {
	local i
	for i in $(seq 50); do
		rdma link show "$1/1" 2>/dev/null | grep -q "state $2 " && return 0
		sleep 0.2
	done
	return 1
}

# jtrue FILE EXPR: the python expression EXPR holds on the JSON in FILE
# (bound to j).
jtrue() {
	python3 -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"
}

# Print the summary line and exit: 1 if any test failed, else 0.
ksft_exit() {
	printf '%d passed, %d failed\n' "$__ksft_pass" "$__ksft_fail"
	((__ksft_skip == 0)) || printf '# %d skipped\n' "$__ksft_skip"
	((__ksft_fail == 0)) || exit 1
	exit 0
}

# run_tests: run each test function in ${TESTS:-$ALL_TESTS}, then exit
# through ksft_exit.  An unknown name counts as a failed test.
run_tests() {
	local t n
	for t in ${TESTS:-${ALL_TESTS:-}}; do
		if ! declare -F "$t" >/dev/null; then
			log_test "$t" 1 "no such test"
			continue
		fi
		RET=0
		RETMSG=""
		n=$__ksft_n
		"$t"
		((__ksft_n != n)) || log_test "$t"
	done
	ksft_exit
}

# The script's cleanup() (default: nothing) runs whenever it exits; define
# your own after sourcing this file.  The trap looks the name up at exit.
cleanup() { :; }
trap cleanup EXIT
