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
#	load_unload() {
#		RET=0
#		require_cmd rdma || return
#		insmod kmod/ibtick.ko
#		check_err $? "insmod failed"
#		check_eq "$(cat /sys/module/ibtick/initstate)" live "initstate"
#		log_test "load/unload"
#	}
#
#	run_tests
#
# run_tests runs the functions named in $TESTS (if set; vm-run.sh passes it
# through from the host) or else $ALL_TESTS, then prints
# "N passed, N failed, N skipped" and exits 1 if anything failed, 0
# otherwise (skips are counted, not failures).
#
# Per test: reset RET=0, call check_* after each step (the first failure is
# kept in RET/RETMSG), finish with log_test NAME, which prints
# "ok N - NAME", "ok N - NAME # SKIP WHY" or "not ok N - NAME # MSG"; a test
# function that calls no log_test gets one under its own name.  skip WHY
# and require_cmd, called in a test, mark that test alone (skipped, or
# failed for a missing tool) and return 1: follow them with "|| return".
# Called outside a test they settle every selected test and exit.  Do not
# use "set -e" in test scripts: check_err needs to see the failing status.
# V=1 (also passed through) makes run_cmd echo the commands it runs.
#
# Each test starts on the standard rig and leaves it so: before every test
# test_setup (default: restore_rig, which loads the module) and after it
# test_teardown (default: kill_jobs, then restore_rig) run; a topic may
# redefine either after sourcing this file.  At exit, cleanup (default:
# kill_jobs, restore_rig, rmmod) runs from the EXIT trap; a topic that
# redefines it can call rig_cleanup for the common part.

ksft_skip=4

RET=0           # status of the current test: 0 ok, 4 skip, else failure
RETMSG=""       # why it failed
__ksft_n=0      # log_test calls so far
__ksft_pass=0
__ksft_fail=0
__ksft_skip=0
__ksft_in_test=0 # 1 while run_tests runs a test function

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
# and RETMSG; a check_* that failed (RET) fails the test even when RC is
# given as 0.  RC 4 ($ksft_skip) reports a skip.  Resets RET and RETMSG.
log_test() {
	local name=$1 rc=${2:-$RET} msg=${3:-$RETMSG}
	if ((rc == 0 && RET != 0)); then
		rc=$RET
		msg=$RETMSG
	fi
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

# settle_all RC REASON: outside a test, report every selected test with
# RC (0 is not allowed here: 4 skip, else fail) and REASON, then exit
# through ksft_exit.
settle_all() {
	local rc=$1 t
	shift
	printf '# %s: %s\n' "$( ((rc == ksft_skip)) && echo SKIP || echo FAIL)" "$*"
	for t in ${TESTS:-${ALL_TESTS:-}}; do
		log_test "$t" "$rc" "$*"
	done
	ksft_exit
}

# skip REASON: in a test, that test is skipped (return 1: "|| return");
# outside one, every selected test is skipped with REASON and the script
# exits.
skip() {
	if ((__ksft_in_test)); then
		RET=$ksft_skip
		RETMSG=$*
		return 1
	fi
	settle_all "$ksft_skip" "$@"
}

# run_cmd CMD [ARGS...]: run a command, echoing it first when V is set.
run_cmd() {
	[[ -z ${V:-} || ${V:-} == 0 ]] || printf '# %s\n' "$*"
	"$@"
}

require_guest() {
	[[ ${IBTICK_GUEST:-} == 1 ]] || skip "run inside the test VM: scripts/vm-run.sh -- $0"
}

# require_cmd CMD...: the suite's tools are installed by scripts/deps.sh,
# so a missing one is a failure, not a skip: of the current test (return
# 1: "|| return"), or outside a test of every selected test (exit).
require_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null && continue
		if ((__ksft_in_test)); then
			check_err 1 "command '$c' not available (scripts/deps.sh installs it)"
			return 1
		fi
		settle_all 1 "command '$c' not available (scripts/deps.sh installs it)"
	done
}

# NOBODY CMD...: run CMD as the unprivileged user nobody (65534), with no
# supplementary group and no inheritable capability: "${NOBODY[@]}" CMD
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)

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

# nap SECONDS: sleep SECONDS (fractions allowed) times SLOW.  For pacing
# only: wait for a state or a message instead wherever there is one.
nap() {
	sleep "$(awk -v s="$1" -v k="$SLOW" 'BEGIN { print s * k }')"
}

# wait_for FILE TEXT [SECONDS]: until FILE contains TEXT (default 10 s,
# times SLOW); shows the file and fails when it never does.
wait_for() {
	local f=$1 text=$2 i
	for i in $(seq $((${3:-10} * 10 * SLOW))); do
		grep -q -- "$text" "$f" 2>/dev/null && return 0
		sleep 0.1
	done
	grep -q -- "$text" "$f" 2>/dev/null && return 0
	echo "  $f: no '$text' in $((${3:-10} * SLOW)) s:"
	sed 's/^/  | /' "$f" 2>/dev/null | head -20
	return 1
}

# wait_bound FILE...: until each file (a reader's stderr) says "bound"
# (10 s each, times SLOW).
wait_bound() {
	local f
	for f in "$@"; do
		wait_for "$f" bound || return 1
	done
}

# rig_routes: the multicast routes the single guest's rig gives veth0 and
# veth1 (scripts/vm-guest-init.sh) back in place.  A link taken down takes
# its routes with it; a test that flaps one calls this once it is up, so
# that the tests after it find the rig as it was booted.
rig_routes() {
	[[ -e /sys/class/net/veth0 && -e /sys/class/net/veth1 ]] || return 0
	ip route replace 224.0.0.0/4 dev veth0 metric 100 &&
		ip route replace 224.0.0.0/4 dev veth1 metric 101
}

# wait_state DEV STATE: until rdma shows port DEV/1 in STATE (10 s, times
# SLOW).
wait_state() {
	local i
	for i in $(seq $((50 * SLOW))); do
		rdma link show "$1/1" 2>/dev/null | grep -q "state $2 " && return 0
		sleep 0.2
	done
	echo "  $1/1 not $2: $(rdma link show "$1/1" 2>&1)"
	return 1
}

# wait_blocked PID: until the process PID sleeps in the kernel (state S),
# as a reader blocked in recv does (10 s, times SLOW).
wait_blocked() {
	local i
	for i in $(seq $((100 * SLOW))); do
		[[ $(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) == S ]] && return 0
		sleep 0.1
	done
	echo "  pid $1 never blocked"
	return 1
}

# rxe_delete_under PID OUT DEV NETDEV: rdma link delete DEV under the
# process PID (which must then exit 0; its output OUT is shown), then add it
# back over NETDEV and wait for its port to be ACTIVE.
rxe_delete_under() {
	local pid=$1 out=$2 dev=$3 netdev=$4 rc=0
	rdma link delete "$dev" || rc=1
	wait "$pid" || { echo "  pid $pid (under $dev) exited $?"; rc=1; }
	cat "$out"
	rdma link add "$dev" type rxe netdev "$netdev" || rc=1
	wait_state "$dev" ACTIVE || rc=1
	return $rc
}

# wait_gone PID SECONDS: until PID has exited (SIGKILLed and fail after
# SECONDS times SLOW).
wait_gone() {
	local i
	for i in $(seq $(($2 * 10 * SLOW))); do
		kill -0 "$1" 2>/dev/null || { wait "$1" 2>/dev/null; return 0; }
		sleep 0.1
	done
	kill -9 "$1" 2>/dev/null
	return 1
}

# JSON, always bound to j in EXPR, a python expression:
#   jtrue FILE EXPR   status 0 when EXPR holds on the JSON in FILE
#   jget FILE EXPR    print EXPR on the JSON in FILE
#   jin EXPR          print EXPR on the JSON read from stdin; JIN_BIND, a
#                     python statement, may bind more names first
#                     (JIN_BIND="f = j[0]")
# EXPR may be a tuple, "a, b": it prints its items separated by spaces.
jtrue() {
	python3 -c "import json,sys; j=json.load(open(sys.argv[1])); sys.exit(0 if ($2) else 1)" "$1"
}

jget() {
	python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"
}

jin() {
	python3 -c "import json,sys; j=json.load(sys.stdin); ${JIN_BIND:-pass}; print($1)"
}

# Print the summary line and exit: 1 if any test failed, else 0.
ksft_exit() {
	printf '%d passed, %d failed, %d skipped\n' "$__ksft_pass" "$__ksft_fail" "$__ksft_skip"
	((__ksft_fail == 0)) || exit 1
	exit 0
}

# kill_jobs: end this script's background jobs (SIGTERM, then SIGKILL
# after 2 s) and reap them.
kill_jobs() {
	local p
	p=$(jobs -p)
	[[ -n $p ]] || return 0
	kill $p 2>/dev/null
	for _ in $(seq 20); do
		[[ -n $(jobs -pr) ]] || break
		sleep 0.1
	done
	p=$(jobs -pr)
	[[ -z $p ]] || kill -9 $p 2>/dev/null
	wait 2>/dev/null
	return 0
}

# restore_rig: the standard rig - veth0/veth1 up, rxe0/rxe1 present and
# ACTIVE, the ibtick module loaded (with auto_feeds on).  Cheap when it
# already is.
restore_rig() {
	local i
	for i in 0 1; do
		ip link show "veth$i" 2>/dev/null | grep -q 'state UP' ||
			ip link set "veth$i" up 2>/dev/null
		rdma dev show "rxe$i" >/dev/null 2>&1 ||
			rdma link add "rxe$i" type rxe netdev "veth$i" 2>/dev/null
		rdma link show "rxe$i/1" 2>/dev/null | grep -q 'state ACTIVE ' ||
			wait_state "rxe$i" ACTIVE >/dev/null
	done
	[[ -d /sys/module/ibtick ]] || insmod kmod/ibtick.ko ||
		echo "  restore_rig: insmod failed"
	local m=/sys/module/ibtick/parameters
	[[ ! -w $m/auto_feeds ]] || echo 1 >$m/auto_feeds
	[[ ! -w $m/max_feeds ]] || echo 256 >$m/max_feeds
	[[ ! -w $m/max_user_feeds ]] || echo 32 >$m/max_user_feeds
	[[ ! -w /sys/kernel/debug/ibtick/slow_join_ms ]] || echo 0 >/sys/kernel/debug/ibtick/slow_join_ms
	return 0
}

test_setup() { restore_rig; }
test_teardown() { kill_jobs; restore_rig; }

# rig_cleanup: what every topic's exit needs: no jobs, the rig back, the
# module unloaded.
rig_cleanup() {
	kill_jobs
	restore_rig
	rmmod ibtick 2>/dev/null
	return 0
}

# run_tests: run each test function in ${TESTS:-$ALL_TESTS} between
# test_setup and test_teardown, then exit through ksft_exit.  An unknown
# name counts as a failed test.
run_tests() {
	local t n
	for t in ${TESTS:-${ALL_TESTS:-}}; do
		if ! declare -F "$t" >/dev/null; then
			log_test "$t" 1 "no such test"
			continue
		fi
		test_setup
		RET=0
		RETMSG=""
		n=$__ksft_n
		__ksft_in_test=1
		"$t"
		__ksft_in_test=0
		((__ksft_n != n)) || log_test "$t"
		test_teardown
	done
	ksft_exit
}

# The EXIT trap looks cleanup up when it runs: a topic may redefine it.
cleanup() { rig_cleanup; }
trap cleanup EXIT
