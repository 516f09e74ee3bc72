#!/usr/bin/env bash
# ibtick-run and libibtick-preload.so on a host without the ibtick module:
# bad configuration (malformed rule, unknown interface, missing module, a
# missing file) gives one clear message each and the program still runs, on
# kernel UDP, as if started without ibtick-run; a child that the program
# starts with fork + exec is not told again; usage errors exit 2, a command
# that is not there 127, and the command's own status comes back.
# Kernel UDP multicast over lo carries the test traffic.
#
#   preload_host.sh [BUILD_TOP]      (default: this tree)
set -u
top=${1:-$(cd "$(dirname "$0")/../.." && pwd -P)}
run=$top/user/preload/ibtick-run
lib=$top/user/preload/libibtick-preload.so
send=$top/tests/vm/mcsend
recv=$top/tests/vm/mcrecv
T=$(mktemp -d "${TMPDIR:-/tmp}/ibtick-preload.XXXXXX")
trap 'rm -rf "$T"' EXIT
n=0 pass=0 fail=0 skipped=0

result() {	# result NAME RC [WHY]
	n=$((n + 1))
	if (($2 == 0)); then
		pass=$((pass + 1))
		echo "ok $n - $1"
	elif (($2 == 4)); then
		skipped=$((skipped + 1))
		echo "ok $n - $1 # SKIP $3"
	else
		fail=$((fail + 1))
		echo "not ok $n - $1 # $3"
	fi
}

# lines FILE TEXT: how many lines of FILE contain TEXT
lines() { grep -cF -- "$2" "$1"; }

# udp_pair PORT GROUP WRAP...: mcrecv (plain) and mcsend (under WRAP) over lo;
# $T/r.out, $T/s.out, $T/s.err
udp_pair() {
	local port=$1 group=$2
	shift 2
	"$recv" -m poll -i 127.0.0.1 -n 100 -t 2000 "$group:$port" >"$T/r.out" 2>"$T/r.err" &
	local rp=$!
	for _ in $(seq 50); do grep -q ready "$T/r.err" && break; sleep 0.1; done
	"$@" "$send" -i 127.0.0.1 -L -r 5 -n 100 "$group:$port" >"$T/s.out" 2>"$T/s.err"
	local rc=$?
	wait "$rp"
	return $rc
}

delivered_all() { grep -q "^total delivered 100 drops 0 gaps 0 tail 0 expected 100$" "$T/r.out"; }

for f in "$run" "$lib" "$send" "$recv"; do
	[[ -x $f || -f $f ]] || { echo "# missing $f: make user tests"; echo "preload_host: 0 passed, 1 failed, 0 skipped"; exit 1; }
done
if [[ -e /sys/module/ibtick ]]; then
	nomod="the ibtick module is loaded on this host"
else
	nomod=""
fi

# bad rules and an unknown interface: one message each, the good rules kept
# (-v lists them), and with no module the program still runs on kernel UDP
t=bad_rules_told_program_runs
if [[ -n $nomod ]]; then
	result $t 4 "$nomod"
else
	rc=0
	udp_pair 47001 239.77.0.1 "$run" -v -g 239.77.0.1:47001@lo -g 239.77.0.300:47001 \
		-g 239.77.0.2:47001@nosuchif0 -g 10.1.1.1:47001 -- || rc=1
	e=$T/s.err why=""
	(($(lines "$e" "'239.77.0.300:47001': '239.77.0.300' is not an IPv4 address: rule ignored") == 1)) || why="malformed group not told once"
	(($(lines "$e" "239.77.0.2:47001@nosuchif0: no network interface nosuchif0: rule ignored") == 1)) || why="unknown interface not told once"
	(($(lines "$e" "10.1.1.1 is not a multicast group") == 1)) || why="unicast group not told"
	(($(lines "$e" "over ibtick: 239.77.0.1:47001@lo") == 1)) || why="good rule not listed by -v"
	(($(lines "$e" "the ibtick module is not loaded (modprobe ibtick): $send runs on kernel UDP") == 1)) || why="missing module not told once"
	(($(wc -l <"$e") == 5)) || why="other messages too"
	grep -q "^sent 239.77.0.1:47001 100$" "$T/s.out" || why="sender did not send 100"
	delivered_all || why="kernel UDP did not deliver all 100: $(tail -1 "$T/r.out")"
	((rc == 0)) || why="sender failed"
	[[ -z $why ]] || sed 's/^/# /' "$e"
	result $t "$([[ -z $why ]]; echo $?)" "$why"
fi

# LD_PRELOAD by hand (no ibtick-run): the library tells what is wrong once
# per process tree, not again in a child started by fork + exec, and the
# program and the child run on kernel UDP
t=library_tells_once_per_tree
if [[ -n $nomod ]]; then
	result $t 4 "$nomod"
else
	why=""
	udp_pair 47002 239.77.0.3 env -u IBTICK_RUN_CHECKED LD_PRELOAD="$lib" \
		IBTICK_RUN_GROUPS="239.77.0.3:47002@lo 239.77.0.9:x" \
		sh -c '"$0" "$@"; echo child $? >&2' || why="sender failed"
	e=$T/s.err
	(($(lines "$e" "'239.77.0.9:x': port must be 1..65535 or '*': rule ignored") == 1)) || why="bad rule not told exactly once"
	(($(lines "$e" "the ibtick module is not loaded (modprobe ibtick): every socket stays kernel UDP") == 1)) || why="missing module not told exactly once"
	grep -q "^child 0$" "$e" || why="the child failed"
	delivered_all || why="kernel UDP did not deliver all 100: $(tail -1 "$T/r.out")"
	[[ -z $why ]] || sed 's/^/# /' "$e"
	result $t "$([[ -z $why ]]; echo $?)" "$why"
fi

# the configuration file: comments, several rules a line, a bad line told
# with its file and line number; -f of a missing file is a usage error
t=config_file_read
cat >"$T/run.conf" <<'CONF'
# test configuration
239.77.1.1:5000@lo     # one group
239.77.2.0/24:6000-6009, 239.77.3.1:*
239.77.4.1:0
CONF
why=""
"$run" -v -f "$T/run.conf" -- true 2>"$T/f.err"
rc=$?
((rc == 0)) || why="status $rc"
for w in "over ibtick: 239.77.1.1:5000@lo" "over ibtick: 239.77.2.0/24:6000-6009" \
	 "over ibtick: 239.77.3.1:*" "$T/run.conf:4: '239.77.4.1:0': port must be 1..65535 or '*': rule ignored"; do
	(($(lines "$T/f.err" "$w") == 1)) || why="no '$w'"
done
"$run" -f "$T/missing.conf" -- true 2>"$T/m.err"
rc=$?
((rc == 2)) || why="missing -f file: status $rc, not 2"
grep -qF "$T/missing.conf: No such file or directory" "$T/m.err" || why="missing -f file not told"
[[ -z $why ]] || sed 's/^/# /' "$T/f.err" "$T/m.err"
result $t "$([[ -z $why ]]; echo $?)" "$why"

# exit status: the command's own, 127 when it is not there, 2 for usage
t=exit_status
why=""
"$run" -g 239.77.0.1:1@lo -- sh -c 'exit 7' 2>/dev/null; rc=$?
((rc == 7)) || why="command's status: $rc"
"$run" -g 239.77.0.1:1@lo -- /nonexistent/cmd 2>/dev/null; rc=$?
((rc == 127)) || why="missing command: $rc"
"$run" 2>/dev/null; rc=$?
((rc == 2)) || why="no command: $rc"
"$run" -q -- true 2>/dev/null; rc=$?
((rc == 2)) || why="unknown option: $rc"
IBTICK_BUSY_POLL=fast "$run" -g 239.77.0.1:1@lo -- true 2>"$T/b.err"; rc=$?
((rc == 2)) && grep -qF "IBTICK_BUSY_POLL=fast: microseconds, 0..1000000" "$T/b.err" ||
	why="inherited IBTICK_BUSY_POLL=fast: status $rc, $(head -1 "$T/b.err")"
for b in "" "-b 0"; do
	# shellcheck disable=SC2086 # "-b 0" is two words
	"$run" -p $b -g 239.77.0.1:1@lo -- true 2>"$T/b.err"; rc=$?
	((rc == 2)) && grep -qF -- "-p goes with -b USEC, USEC > 0" "$T/b.err" ||
		why="-p with '$b': status $rc, $(head -1 "$T/b.err")"
done
for b in -1 x 1000001 ""; do
	"$run" -b "$b" -g 239.77.0.1:1@lo -- true 2>"$T/b.err"; rc=$?
	((rc == 2)) && grep -qF -- "-b $b: microseconds, 0..1000000" "$T/b.err" ||
		why="-b '$b': status $rc, $(head -1 "$T/b.err")"
done
result $t "$([[ -z $why ]]; echo $?)" "$why"

# IBTICK_BUSY_POLL that is not a number: said once, ignored, the program runs
t=busy_poll_env_bad
why=""
udp_pair 47004 239.77.0.5 env LD_PRELOAD="$lib" IBTICK_RUN_GROUPS=239.77.0.99:1@lo IBTICK_BUSY_POLL=fast ||
	why="sender failed"
(($(lines "$T/s.err" "IBTICK_BUSY_POLL=fast: not a number of microseconds 0..1000000: ignored") == 1)) ||
	why="not told once: $(head -2 "$T/s.err")"
delivered_all || why="kernel UDP did not deliver all 100: $(tail -1 "$T/r.out")"
result $t "$([[ -z $why ]]; echo $?)" "$why"

# no rule at all: the library leaves every socket alone, silently
t=no_rules_untouched
why=""
udp_pair 47003 239.77.0.4 env LD_PRELOAD="$lib" IBTICK_RUN_GROUPS= IBTICK_LOG=1 || why="sender failed"
[[ ! -s $T/s.err ]] || why="messages: $(head -1 "$T/s.err")"
delivered_all || why="kernel UDP did not deliver all 100: $(tail -1 "$T/r.out")"
result $t "$([[ -z $why ]]; echo $?)" "$why"

echo "preload_host: $pass passed, $fail failed, $skipped skipped"
((fail == 0))
