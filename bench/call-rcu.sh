#!/usr/bin/env bash
# Who hands the kernel work to RCU during a ping-pong: a kprobe on
# call_rcu() and kvfree_call_rcu() records each call's stack while
# ibtick-perf lat runs, and the calls are counted by their first frames
# below the probe.  It shows what a path costs RCU per round trip, and so
# how often the grace-period thread and ksoftirqd will take the CPU from
# a spinning reader: the switches to those threads are counted too.  The
# rig routes multicast on each rxe netdev (scripts/vm-guest-init.sh);
# NOROUTE=1 deletes those routes first: rxe then builds a route for each
# packet it sends to a group, and frees it through RCU.
#
# usage: bench/call-rcu.sh [-n N] [-k KINDS] [OUT_DIR]
#   N (default 5000) round trips after 1000 warm-up ones of each of KINDS
#   (default mapped,floor; ibtick-perf lat -k names), 64 B, ping on rxe1,
#   echo on rxe0, one guest boot.  OUT_DIR (default
#   bench/results/call-rcu): summary.md (the calls by their four frames
#   below the probe, per path, with the round trips run), every call's
#   frames in calls-KIND.txt.gz, the switches in switches-KIND.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ${IBTICK_GUEST:-} == 1 ]]; then
	# inside the guest (scripts/vm-run.sh)
	T=/sys/kernel/tracing R=$RESULTS P=user/tools/ibtick-perf
	if [[ ${CR_NOROUTE:-} == 1 ]]; then
		ip route del 224.0.0.0/4 dev veth0
		ip route del 224.0.0.0/4 dev veth1
	fi
	insmod kmod/ibtick.ko
	echo 'p:ibt_crcu call_rcu' >>$T/kprobe_events
	echo 'p:ibt_kfrcu kvfree_call_rcu' >>$T/kprobe_events
	echo 1 >$T/options/stacktrace
	echo 32768 >$T/buffer_size_kb
	for kind in ${CR_KINDS//,/ }; do
		echo 0 >$T/tracing_on
		echo >$T/trace
		echo 1 >$T/events/kprobes/ibt_crcu/enable
		echo 1 >$T/events/kprobes/ibt_kfrcu/enable
		echo 'next_comm ~ "rcu_*" || next_comm ~ "ksoftirqd*"' \
			>$T/events/sched/sched_switch/filter
		echo 1 >$T/events/sched/sched_switch/enable
		echo 1 >$T/tracing_on
		$P lat -j -k "$kind" -n "$CR_N" -w 1000 -c 1 -C 0 -L veth1 -I veth0 \
			239.9.0.1 7900 >"$R/lat-$kind.json"
		echo 0 >$T/tracing_on
		echo 0 >$T/events/kprobes/ibt_crcu/enable
		echo 0 >$T/events/kprobes/ibt_kfrcu/enable
		echo 0 >$T/events/sched/sched_switch/enable
		# the four frames of each probed call's stack, one line a call
		awk '/ ibt_(crcu|kfrcu): / { k = 1 } / sched_switch: / { k = 0 }
			/<stack trace>/ && k { getline a; getline b; getline c; getline d
			print a b c d }' $T/trace | sed 's/ *=> */ < /g; s/^ < //' >"$R/calls-$kind.txt"
		# the CPU taken by the RCU threads and ksoftirqd: switches to them
		grep -o 'next_comm=[^ ]*' $T/trace | sed 's/next_comm=//; s/[0-9/]*$//' |
			sort | uniq -c >"$R/switches-$kind.txt" || true
	done
	ip route show | grep '^224' >"$R/routes.txt" || true
	exit 0
fi
n=5000 kinds=mapped,floor
while getopts "n:k:" o; do
	case $o in
	n) n=$OPTARG ;;
	k) kinds=$OPTARG ;;
	*) sed -n '12,18p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[[ $n =~ ^[1-9][0-9]{0,6}$ && $kinds =~ ^[a-z0-9,-]+$ ]] ||
	{ echo "bench/call-rcu.sh: N is 1..9999999, KINDS ibtick-perf lat -k names" >&2; exit 2; }
out=$(realpath -m "${1:-bench/results/call-rcu}")
# shellcheck source=scripts/lib-tuning.sh
. "$PWD/scripts/lib-tuning.sh"
ibt_guest_tuning bench/call-rcu.sh || exit 2
scripts/deps.sh
make -s all
rm -rf "$out"
mkdir -p "$out"
scripts/vm-run.sh -t 900 -o "$out" -- env CR_N="$n" CR_KINDS="$kinds" \
	CR_NOROUTE="${NOROUTE:-}" bench/call-rcu.sh
{
	echo "# Calls to call_rcu() and kvfree_call_rcu() during a ping-pong"
	echo
	routes=$(sed 's/ *$//' "$out/routes.txt" 2>/dev/null | paste -sd';' | sed 's/;/; /g')
	echo "Source \`$(git describe --always --abbrev=12)\`;" \
		"\`${NOROUTE:+NOROUTE=1 }bench/call-rcu.sh -n $n -k $kinds\`." \
		"Multicast routes in the guest: ${routes:-none}."
	echo "Each path ran $n round trips after 1000 warm-up ones (ibtick-perf lat); every call in that time is"
	echo "counted, the whole guest's, by the four frames of its stack (the function probed, then its callers); per round trip: by the round trips with the warm-up."
	for kind in ${kinds//,/ }; do
		echo
		echo "## $kind: $(wc -l <"$out/calls-$kind.txt") calls"
		echo
		echo "Switches to the RCU threads and to ksoftirqd, all CPUs:" \
			"$(awk -v n="$n" '{ printf "%s%s %d (%.3f per round trip)", s, $2, $1, $1 / (n + 1000); s = ", " }' \
				"$out/switches-$kind.txt")."
		echo
		echo "| calls | per round trip | frames |"
		echo "|---|---|---|"
		sort "$out/calls-$kind.txt" | uniq -c | sort -rn | head -8 |
			awk -v n="$n" '{ c = $1; $1 = ""; sub(/^ /, "")
				printf "| %d | %.3f | `%s` |\n", c, c / (n + 1000), $0 }'
	done
} >"$out/summary.md"
cat "$out/summary.md"
gzip -9f "$out"/calls-*.txt
# the VM's own files (dmesg.txt names this machine's paths on the kernel
# command line); output.log keeps what the guest printed
rm -f "$out"/{console.log,qemu.log,dmesg.txt,.vm-cmd,rc,tainted,timing,setup-error}
