#!/usr/bin/env bash
# Where a two-guest round trip's time goes, hop by hop: each path's
# ping-pong runs between the two guests of the pair bench (one vCPU each)
# with the kernel's tracer on in both, and each host's part of a round
# trip - from the interrupt that brings the other host's tick to the
# packet that carries the answer out - is cut into segments at events
# every path passes through:
#
#   irq>net_rx   the NIC's receive interrupt to its NET_RX softirq
#   net_rx       that softirq (virtio-net, IP, UDP, rxe's receive)
#   >cq_event    to ibtick's CQ event (ibt_rx_comp(), rxe's CQ tasklet)
#   >ring        to the drain that wrote the tick (ibt_rx_drain() > 0)
#   >send        to the program's send system call: its read of the tick
#                and whatever it does before answering
#   >ibtick      to ibtick's sendmsg
#   >xmit        to the packet handed to the NIC's driver
#                (net_dev_start_xmit: before the emulated NIC sends it)
#   hop          the whole: interrupt to that hand-over
#
# Each segment's median per host, path and round (the warm-up's round
# trips left out), and the paired difference of each path from the first,
# round by round; and how much of the round trip the two hosts' hops
# account for (the rest: the transits between the guests and the ping's
# read).  The times are the emulator's and the tracer adds its own:
# compare paths with each other, in the same boot, never with a run
# without tracing.
#
# usage: bench/hop-split.sh [-r ROUNDS] [-n N] [-k KINDS] [OUT_DIR]
#   ROUNDS (default 6) rounds of N (default 2000) round trips after 1000
#   warm-up ones of each of KINDS (default spin-1g,inet-run-spin;
#   ibtick-perf lat -k names), in an order that alternates round by round,
#   64 B, node 1 pinging, node 0 answering (as bench/guest-pair.sh).
#   OUT_DIR (default bench/results/hop-split): rounds.json (each round's
#   segment medians and round-trip time per host and path), summary.md
#   (bench/hop_split.py); KEEP=1 keeps the traces (vmNODE/trace-*.txt,
#   tens of MB each).  CLOCK=tsc and IDLE=poll as bench/run.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ${IBTICK_GUEST:-} == 1 ]]; then
	# inside each guest of the pair (scripts/vm-run.sh -T pair)
	T=/sys/kernel/tracing R=$RESULTS P=user/tools/ibtick-perf
	node=$IBTICK_NODE sync_dir=$IBTICK_SHARED/sync
	export PATH="$PWD/user/preload:$PWD/user/ibtick:$PATH"
	# shellcheck source=tests/vm/pair-sync.sh
	. tests/vm/pair-sync.sh
	nic=$(rdma link show "rxe$node/1" | sed -n 's/.*netdev \([^ ]*\).*/\1/p')
	insmod kmod/ibtick.ko
	trace_on() {
		echo 0 >$T/tracing_on
		echo >$T/trace
		echo 65536 >$T/buffer_size_kb
		echo 0 >$T/options/overwrite	# a full buffer stops, keeping the start
		echo 'p:hs_cq ibtick:ibt_rx_comp' >$T/kprobe_events
		echo 'p:hs_send ibtick:ibt_sendmsg' >>$T/kprobe_events
		echo 'r:hs_drain ibtick:ibt_rx_drain ret=$retval' >>$T/kprobe_events
		echo 'ret != 0' >$T/events/kprobes/hs_drain/filter
		echo 1 >$T/events/kprobes/enable
		# sendto, sendmsg, write, writev: how a program answers
		echo 'id == 44 || id == 46 || id == 1 || id == 20' >$T/events/raw_syscalls/sys_enter/filter
		for e in raw_syscalls/sys_enter irq/irq_handler_entry irq/softirq_entry \
			irq/softirq_exit net/net_dev_start_xmit sched/sched_switch; do
			echo 1 >"$T/events/$e/enable"
		done
		echo 1 >$T/tracing_on
	}
	trace_off() {	# the copy first: removing the probes empties the buffer
		echo 0 >$T/tracing_on
		cp $T/trace "$R/trace-$1.txt"
		echo 0 >$T/events/enable
		echo >$T/kprobe_events
	}
	if ((node == 1)); then
		mkdir -p "$sync_dir"
		pair_flag start
	else
		pair_wait start 120
	fi
	for ((r = 1; r <= HS_ROUNDS; r++)); do
		kinds=${HS_KINDS//,/ }
		((r % 2)) || kinds=$(tr ' ' '\n' <<<"$kinds" | tac | paste -sd' ')
		for k in $kinds; do
			tag=$k-$r
			if ((node == 0)); then
				trace_on
				pair_echo_serve "$tag" "$R/echo-$tag.err" \
					$P lat -e -k "$k" -n "$HS_N" -w 1000 -L "$nic" -c 0 239.9.0.1 7900
				trace_off "$tag"
			else
				pair_wait "ready-$tag" 900 || { pair_flag "done-$tag"; continue; }
				trace_on
				$P lat -j -k "$k" -n "$HS_N" -w 1000 -L "$nic" -c 0 --peer 10.99.0.1 \
					239.9.0.1 7900 >"$R/lat-$tag.json" || echo "round $r: $k failed"
				trace_off "$tag"
				pair_flag "done-$tag"
			fi
		done
	done
	rmmod ibtick
	exit 0
fi
rounds=6 n=2000 kinds=spin-1g,inet-run-spin
while getopts "r:n:k:" o; do
	case $o in
	r) rounds=$OPTARG ;;
	n) n=$OPTARG ;;
	k) kinds=$OPTARG ;;
	*) sed -n '28,36p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[[ $rounds =~ ^[1-9][0-9]?$ && $n =~ ^[1-9][0-9]{0,4}$ && $kinds =~ ^[a-z0-9-]+(,[a-z0-9-]+)+$ ]] ||
	{ echo "bench/hop-split.sh: ROUNDS is 1..99, N 1..99999, KINDS two or more ibtick-perf lat -k names" >&2; exit 2; }
out=$(realpath -m "${1:-bench/results/hop-split}")
# shellcheck source=scripts/lib-tuning.sh
. "$PWD/scripts/lib-tuning.sh"
ibt_guest_tuning bench/hop-split.sh || exit 2
scripts/deps.sh
make -s all
rm -rf "$out"
mkdir -p "$out"
printf '{"head":"%s%s","rounds":%d,"n":%d,"warm":1000,"kinds":"%s"}\n' "$(git rev-parse HEAD)" \
	"$(git diff --quiet HEAD -- user kmod include || echo +dirty)" "$rounds" "$n" "$kinds" >"$out/head.json"
scripts/vm-run.sh -T pair -t $((900 + rounds * n / 10)) -o "$out" -- \
	env HS_ROUNDS="$rounds" HS_N="$n" HS_KINDS="$kinds" bench/hop-split.sh
python3 bench/hop_split.py "$out" | tee "$out/summary.md"
[[ ${KEEP:-} == 1 ]] || rm -f "$out"/vm*/trace-*.txt
# the VMs' own files (dmesg.txt names this machine's paths on the kernel
# command line); output.log keeps what each guest printed
rm -rf "$out"/sync
rm -f "$out"/{rc,timing,setup-error,.vm-cmd} "$out"/vm*/{console.log,qemu.log,dmesg.txt,.vm-cmd,rc,tainted,timing,setup-error}
