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

# status|arguments|what stderr/stdout must contain (optional)
cases=(
	"2||Usage:"
	"0|help|OBJECT :="
	"0|-h|OBJECT :="
	"0|--help|OBJECT :="
	"0|-V|ibtick "
	"2|-x dev|Usage:"
	"2|--bogus|Usage:"
	"2|foo|unknown object \"foo\""
	"2|dev foo|unknown command \"foo\" for object \"dev\""
	"0|dev help|ibtick dev show"
	"0|d help|ibtick dev show"
	"2|dev show rxe0 extra|unexpected argument \"extra\""
	"2|-j dev bogus|unknown command"
)
if ((!module_loaded)); then
	cases+=(
		"1|dev show|ibtick module not loaded"
		"1|-j dev|ibtick module not loaded"
		"1|dev show rxe0|ibtick module not loaded"
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
