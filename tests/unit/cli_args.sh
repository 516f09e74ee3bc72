#!/usr/bin/env bash
# The CLI's command-line handling as a table of {exit status, arguments}
# (ethtool's test-cmdline idea).  Cases here need no kernel module: with the
# module absent, commands that reach the kernel exit 1 ("module not loaded");
# tests/vm covers them against the real module.
#
#   cli_args.sh PATH_TO_IBTICK
set -u
bin=${1:?usage: cli_args.sh PATH_TO_IBTICK}

module_loaded=0
[[ -d /sys/module/ibtick ]] && module_loaded=1

# "ibtick relay" runs the ibtick-relay beside it or on PATH: the build
# tree's, for these cases
tools=$(cd "$(dirname "$bin")/../tools" 2>/dev/null && pwd)
[[ -n $tools ]] && PATH=$tools:$PATH
relay_batch=$(mktemp)
trap 'rm -f "$relay_batch"' EXIT
echo "relay udp-to-feed --from 239.1.1.1:1@lo --to 239.1.1.1:1" >"$relay_batch"

# status|arguments|what stderr/stdout must contain (optional)
cases=(
	"2||Usage:"
	"0|help|OBJECT :="
	"0|-h|OBJECT :="
	"0|--help|OBJECT :="
	"0|-V|ibtick "
	"2|-x dev|Usage:"
	"0|-d help|-d[etails]"
	"0|--details dev help|ibtick dev show"
	"0|-d -j -s feed help|ibtick feed show"
	"2|-d feed bogus|unknown command \"bogus\" for object \"feed\""
	"2|--detail=1 dev|Usage:"
	"2|--bogus|Usage:"
	"2|foo|unknown object \"foo\""
	"0|relay --help|Usage: ibtick-relay udp-to-feed"
	"2|relay bogus|unknown mode \"bogus\""
	"2|-j relay|Usage: ibtick-relay"
	"2|-b $relay_batch|relay runs until stopped: not from a batch"
	"2|dev foo|unknown command \"foo\" for object \"dev\""
	"0|dev help|ibtick dev show"
	"0|d help|ibtick dev show"
	"2|dev show rxe0 extra|unexpected argument \"extra\""
	"2|-j dev bogus|unknown command"
	"0|feed help|ibtick feed add NAME"
	"2|feed bogus|unknown command \"bogus\" for object \"feed\""
	"2|feed add|feed name required"
	"2|feed add f1|needs group and port"
	"2|feed add f1 group 239.1.1.1|needs group and port"
	"2|feed add f1 group 1.2.3|is not an IPv4 address"
	"2|feed add f1 group 239.1.1.1 port 0|not a number in 1..65535"
	"2|feed add f1 group 239.1.1.1 port 65536|not a number in 1..65535"
	"2|feed add f1 group 239.1.1.1 port -1|not a number"
	"2|feed add f1 group 239.1.1.1 port 1 slots|needs a value"
	"2|feed add f1 group 239.1.1.1 port 1 slots x|not a number"
	"0|feed help|ibtick feed add NAME arbitrate rail GROUP PORT NETDEV"
	"2|feed add f1 arbitrate rail|rail needs GROUP PORT NETDEV"
	"2|feed add f1 arbitrate rail 239.1.1.1 5|rail needs GROUP PORT NETDEV"
	"2|feed add f1 arbitrate rail 1.2.3 5 lo|is not an IPv4 address"
	"2|feed add f1 arbitrate rail 239.1.1.1 0 lo|not a number in 1..65535"
	"2|feed add f1 arbitrate rail 239.1.1.1 5 nosuchif0|no network interface \"nosuchif0\""
	"2|feed add f1 arbitrate rail 239.1.1.1 5 lo seq-field|seq-field is \"publisher\" or"
	"2|feed add f1 arbitrate rail 239.1.1.1 5 lo seq-field off x|seq-field is"
	"2|feed add f1 arbitrate rail 239.1.1.1 5 lo seq-field off 0|needs \"width 4\" or \"width 8\""
	"2|feed add f1 arbitrate rail 239.1.1.1 5 lo window-us|\"window-us\" needs a value"
	"2|feed add f1 arbitrate rail 239.1.1.1 5 lo window-ticks -1|not a number"
	"2|feed add f1 arbitrate rail 239.1.1.1 5 lo reset-at x|reset-at \"x\" is not a number"
	"2|feed add f1 arbitrate rail 239.1.1.1 5 lo bogus 1|unknown feed add parameter \"bogus\""
	"2|feed add f1 group 239.1.1.1 port 1 poll sometimes|poll is \"irq\" or \"busy\""
	"2|feed add f1 group 239.1.1.1 port 1 poll busy cpu x|not a number"
	"2|feed add f1 group 239.1.1.1 port 1 loopback maybe|loopback is \"socket\" or \"deny\""
	"2|feed add f1 group 239.1.1.1 port 1 mode 9|not an octal mode"
	"2|feed add f1 group 239.1.1.1 port 1 owner no-such-user-x|no such user"
	"2|feed add f1 group 239.1.1.1 port 1 owner 0:no-such-group-x|no such group"
	"2|feed add f1 group 239.1.1.1 port 1 netdev no-such-if0|no network interface"
	"2|feed add f1 group 239.1.1.1 port 1 colour red|unknown feed add parameter"
	"2|feed set f1 group 239.1.1.1|unknown feed set parameter \"group\""
	"2|feed del|feed name required"
	"2|feed del f1 extra|unexpected argument"
	"2|feed show f1 extra|unexpected argument"
	"2|sock show pid|needs a value"
	"2|sock show pid 0|not a number"
	"2|sock show colour red|unknown sock show filter"
	"2|sock show feed|needs a value"
	"2|sock show pid 1 colour|needs a value"
	"2|sock show pid x|not a number"
	"0|sock help|ibtick sock show"
	"2|conn show pid|needs a value"
	"2|conn show pid 0|not a number"
	"2|conn show colour red|unknown conn show filter"
	"2|conn show feed x|unknown conn show filter"
	"0|conn help|ibtick conn show"
	"0|conn rule help|ibtick conn rule add PORT[-PORT]"
	"2|conn rule bogus|Usage: ibtick conn rule"
	"2|conn rule add|a port or port range"
	"2|conn rule add x|not a number in 1..65535"
	"2|conn rule add 0|not a number in 1..65535"
	"2|conn rule add 5000-65536|not a number in 1..65535"
	"2|conn rule add 5000-x|not a number in 1..65535"
	"2|conn rule add 5000 mode|\"mode\" needs a value"
	"2|conn rule add 5000 mode 9|not an octal mode"
	"2|conn rule add 5000 owner no-such-user-x|no such user"
	"2|conn rule add 5000 group no-such-group-x|no such group"
	"2|conn rule add 5000 colour red|unknown conn rule add parameter"
	"2|conn rule del|a port or port range"
	"2|conn rule del 5000 extra|unexpected argument"
	"2|conn rule show extra|unexpected argument"
	"2|conn rule save extra|unexpected argument"
	"0|stats help|ibtick stats reset"
	"2|stats bogus|unknown stats argument"
	"2|stats interval 0|not a number in 1..3600"
	"2|stats reset extra|unexpected argument"
	"0|monitor help|ibtick monitor"
	"2|monitor bogus|unknown monitor object"
	"2|monitor feed extra|unexpected argument"
	"0|monitor help|conn ]"
	"2|monitor conn extra|unexpected argument"
	"2|-b|Usage:"
	"2|-b /dev/null dev show|-b takes no command"
	"1|-b /nonexistent-batch|No such file"
	"0|-b /dev/null|"
	"2|doctor --bogus|Usage:"
	"2|doctor --interval x|"
	"2|doctor --app-cpus 1-|"
)
if ((!module_loaded)); then
	cases+=(
		"1|dev show|ibtick module not loaded"
		"1|-j dev|ibtick module not loaded"
		"1|dev show rxe0|ibtick module not loaded"
		"1|feed show|ibtick module not loaded"
		"1|feed add f1 group 239.1.1.1 port 1|ibtick module not loaded"
		"1|sock show|ibtick module not loaded"
		"1|conn show|ibtick module not loaded"
		"1|sock show pid 1|ibtick module not loaded"
		"1|monitor conn|ibtick module not loaded"
		"1|conn rule show|ibtick module not loaded"
		"1|conn rule add 5000-5099 mode 0220|ibtick module not loaded"
		"1|conn rule del 5000-5099|ibtick module not loaded"
		"1|-d dev show|ibtick module not loaded"
		"1|-j -d feed show|ibtick module not loaded"
		"1|--details sock show|ibtick module not loaded"
		"1|stats|ibtick module not loaded"
		"1|monitor|ibtick module not loaded"
	)
fi

pass=0
fail=0
for c in "${cases[@]}"; do
	IFS='|' read -r want args expect <<<"$c"
	# shellcheck disable=SC2086 # word splitting of the arguments is wanted
	out=$("$bin" $args 2>&1)
	got=$?
	if [[ $got == "$want" && ( -z $expect || $out == *"$expect"* ) ]]; then
		pass=$((pass + 1))
		echo "ok - ibtick $args -> $got"
	else
		fail=$((fail + 1))
		echo "not ok - ibtick $args -> $got (want $want${expect:+, output containing \"$expect\"})"
		printf '    %s\n' "$out" | head -5
	fi
done
echo "cli_args: $pass passed, $fail failed"
((fail == 0))
