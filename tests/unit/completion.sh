#!/usr/bin/env bash
# The bash completion (scripts/ibtick-completion.bash) called on prepared
# command lines, as bash calls it: COMP_WORDS/COMP_CWORD set, the
# function that "complete -p" names for the command run, COMPREPLY compared
# (sorted) with what the table expects.  Runs without bash-completion's
# helpers, the fallback path; nothing here needs the kernel module (feed
# names, which come from it, are not tested).
#
#   completion.sh [COMPLETION_FILE]
set -u
file=${1:-$(dirname "$0")/../../scripts/ibtick-completion.bash}
# shellcheck source=scripts/ibtick-completion.bash
. "$file"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/stream.ticks"
: >"$tmp/status.json"

# expected replies (blank separated, any order) | the command line; the
# last word is the one completed (empty after a trailing blank)
cases=(
	"dev feed sock conn stats monitor doctor relay help|ibtick "
	"-j -p -s -d -b -f -V -h --json --pretty --statistics --details --batch --force --version --help|ibtick -"
	"--details|ibtick --det"
	"show add set del save help|ibtick -d -j feed "
	"show add set del save help|ibtick feed "
	"show rule help|ibtick conn "
	"show add del save help|ibtick conn rule "
	"|ibtick conn rule add "
	"owner group mode|ibtick conn rule add 5000-5099 "
	"owner group|ibtick conn rule add 5000-5099 mode 0200 "
	"|ibtick conn rule add 5000 mode "
	"add|ibtick f a"
	"irq busy|ibtick feed add f1 poll "
	"socket deny|ibtick feed set f1 loopback "
	"arbitrate group port netdev slots slot-size poll comp-vector loopback owner mode member|ibtick feed add f1 "
	"rail seq-field window-us window-ticks reset-at slots slot-size comp-vector owner mode|ibtick feed add f1 arbitrate "
	"|ibtick feed add f1 arbitrate rail 239.1.1.1 "
	"lo|ibtick feed add f1 arbitrate rail 239.1.1.1 5 l"
	"rail seq-field window-us window-ticks reset-at slots slot-size comp-vector owner mode|ibtick feed add f1 arbitrate rail 239.1.1.1 5 lo "
	"publisher off|ibtick feed add f1 arbitrate rail 239.1.1.1 5 lo seq-field "
	"width|ibtick feed add f1 arbitrate seq-field off 0 "
	"4 8|ibtick feed add f1 arbitrate seq-field off 0 width "
	"le be rail window-us window-ticks reset-at slots slot-size comp-vector owner mode|ibtick feed add f1 arbitrate seq-field off 0 width 4 "
	"--app-cpus --interval --fast|ibtick doctor "
	"all dev feed sock conn|ibtick monitor "
	"udp-to-feed feed-to-udp|ibtick relay "
	"--from --to --slots --slot-size --loopback --ttl --multicast-loop --stats-interval|ibtick relay feed-to-udp -"
	"-i -n -s -r|ibtick-pub -"
	"|ibtick-pub -n "
	"lo|ibtick-pub -i l"
	"-i -n -t -S -Z -d -l -v -j|ibtick-sub -"
	"lo|ibtick-sub -n 5 -i l"
	"-s -n -r -c -o -d -j -h|ibtick-gen -"
	"$tmp/stream.ticks|ibtick-gen -d $tmp/str"
	"publish read|ibtick-md "
	"-i -x -l|ibtick-md publish -"
	"$tmp/stream.ticks|ibtick-md publish -x 2 $tmp/str"
	"|ibtick-md publish $tmp/stream.ticks $tmp/str"
	"mapped epoll recvmsg busy|ibtick-md read -k "
	"busy|ibtick-md read -k b"
	"-i -k -o -t|ibtick-md read -"
	"$tmp/status.json|ibtick-md read -o $tmp/sta"
	"-g -f -b -p -v -V -h --|ibtick-run -"
	"239.1.1.1:5@lo|ibtick-run -g 239.1.1.1:5@l"
	"|ibtick-run -g 239.1.1"
	"$tmp/status.json|ibtick-run -v -f $tmp/sta"
	"truncate|ibtick-run -g 239.1.1.1:5@lo -- truncat"
	"lat oneway rate fanout arb|ibtick-perf "
	"lo|ibtick-perf lat -I l"
	"lo|ibtick-perf lat -L l"
	"lo|ibtick-perf lat --netdev l"
	"$(ls /sys/class/infiniband 2>/dev/null | xargs)|ibtick-perf lat -d "
	"|ibtick-perf lat -d rxe0 -i "
	"|ibtick-perf lat -d rxe0 -x "
	"-L -d -i -x -I -e -k -B -n -w -s -S -a -r -N -c -C -j -H --netdev --ib-dev --ib-port --gid-index --peer-netdev --hist --compare --raw --counts --busy-us --rail-b --peer-rail-b --peer -h|ibtick-perf lat -"
	"--ib-dev --ib-port|ibtick-perf lat --ib-"
	"mapped epoll recvmsg busy|ibtick-perf oneway -k "
	"arb arb-cost|ibtick-perf arb -k ar"
	"arb,rail-a arb,rail-a-b arb,rail-a-cost|ibtick-perf arb -k arb,ra"
	"lo|ibtick-perf arb --rail-b l"
	"lo|ibtick-perf arb --peer-rail-b l"
	"mapped,run mapped,run-spin mapped,run-spin-ev|ibtick-perf lat -k mapped,ru"
	"spin-1g spin-1g-ev|ibtick-perf lat -k spin-1g"
	"inet-run-spin inet-run-spin-ev|ibtick-perf lat -k inet-run-s"
	"$tmp/status.json|ibtick-perf lat -H $tmp/sta"
	"udp-to-feed feed-to-udp|ibtick-relay "
	"239.1.1.1:5@lo|ibtick-relay udp-to-feed --from 239.1.1.1:5@l"
	"--from --to --rcvbuf --stats-interval -j|ibtick-relay udp-to-feed -"
)

n=0 pass=0 fail=0
for c in "${cases[@]}"; do
	want=${c%%|*}
	line=${c#*|}
	read -r -a COMP_WORDS <<<"$line"
	[[ $line == *" " ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE=$line
	COMP_POINT=${#line}
	COMPREPLY=()
	fn=$(complete -p "${COMP_WORDS[0]}" 2>/dev/null | sed -n 's/.*-F \([^ ]*\) .*/\1/p')
	n=$((n + 1))
	if [[ -z $fn ]]; then
		fail=$((fail + 1))
		echo "not ok $n - $line # no completion registered for ${COMP_WORDS[0]}"
		continue
	fi
	"$fn" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	got=$(printf '%s\n' "${COMPREPLY[@]}" | grep . | sort | xargs)
	exp=$(printf '%s\n' $want | sort | xargs)
	if [[ $got == "$exp" ]]; then
		pass=$((pass + 1))
		echo "ok $n - '$line'"
	else
		fail=$((fail + 1))
		echo "not ok $n - '$line' # got '$got', want '$exp'"
	fi
done
echo "completion: $pass passed, $fail failed, 0 skipped"
((fail == 0))
