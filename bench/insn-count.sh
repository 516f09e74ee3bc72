#!/usr/bin/env bash
# Instructions per round trip, in the kernel and in user space apart, of
# ibtick-perf lat paths, counted by the emulator itself: QEMU runs the
# guest with bench/qemu/insncount.c, a TCG plugin that counts every
# instruction each vCPU executes, and a marker program (bench/qemu/mark.c)
# has it note the counts before and after each run.  Two runs of each path
# (N1 and N2 samples) are subtracted and divided by N2 - N1: what starting
# the programs and setting up the feeds costs cancels out.  The kernel's
# instructions are also put on functions (the guest's /proc/kallsyms), and
# each path is set against the first: where the kernel's work differs.
# Counts, unlike times, do not move with the emulator's speed or the
# host's load; they do not say what an instruction costs (under TCG some
# cost far more than others), so they sit next to the times, not instead.
#
# usage: bench/insn-count.sh [-n N1,N2] [-k KINDS] [-r RATE] [-p] [OUT_DIR]
#   N1,N2 (default 2000,12000) samples of the two runs of each path, twice
#   over, in one boot, 64 B, ping on rxe1 (vCPU 1) <- echo on rxe0 (vCPU 0);
#   KINDS (default recvmsg-1g,inet-run: ibtick's own blocking socket and
#   the same ping-pong, unmodified on AF_INET, under ibtick-run), as
#   ibtick-perf lat -k takes them; a spinning reader's count includes its
#   spins, so only sleeping readers give a count per round trip.  The guest
#   halts idle vCPUs (IDLE=default: an idle=poll vCPU would execute
#   instructions while it waits) and reads the TSC (CLOCK=tsc).
#   A kind fan-K-R (K epoll or recvmsg, R readers, e.g. fan-epoll-16) runs
#   ibtick-perf fanout instead: N1 and N2 ticks published at RATE per second
#   (-r, default 1000) on rxe1 to R sleeping readers of kind K on rxe0,
#   counted per tick; with fan- kinds alone the summary is the fan-out's:
#   the drain's own functions (the ring writes and reposts, paid once per
#   tick) against the rest (the readers' wake-ups and reads), by readers.
#   -p: between the two guests of the pair bench (scripts/vm-run.sh -T
#   pair, one vCPU each): node 0 answers, node 1 pings and is the one
#   counted (the marker runs there only), every instruction of its one vCPU;
#   the summary adds the kernel's receive and transmit path by function
#   (NIC, IP, UDP, rxe), the work a spinning reader's loop does not repeat.
#   Both QEMUs load the plugin (slowed alike) with the same log; node 0's
#   never writes to it.
#   OUT_DIR (default bench/results/insn-count, with -p
#   bench/results/insn-count-pair): summary.md, kernel.tsv
#   (instructions per round trip by kernel function and path), rows.json.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ${IBTICK_GUEST:-} == 1 && ${IBTICK_TOPOLOGY:-} == pair ]]; then
	# inside each guest of the pair (-p): node 1 pings and is counted
	R=$IBTICK_SHARED P=$PWD/user/tools/ibtick-perf M=$IBTICK_SHARED/.build/mark
	node=$IBTICK_NODE sync_dir=$IBTICK_SHARED/sync
	export PATH="$PWD/user/preload:$PWD/user/ibtick:$PATH"
	# shellcheck source=tests/vm/pair-sync.sh
	. tests/vm/pair-sync.sh
	nic=$(rdma link show "rxe$node/1" | sed -n 's/.*netdev \([^ ]*\).*/\1/p')
	insmod kmod/ibtick.ko
	if ((node == 1)); then
		echo 0 >/proc/sys/kernel/kptr_restrict
		cat /proc/kallsyms >"$R/.build/kallsyms.txt"
		: >"$R/.build/windows.txt"
		mkdir -p "$sync_dir"
		pair_flag start
	else
		pair_wait start 120
	fi
	for rep in 1 2; do
		for k in ${IC_KINDS//,/ }; do
			for n in ${IC_N//,/ }; do
				tag=$rep-$k-$n
				if ((node == 0)); then
					pair_echo_serve "$tag" "$RESULTS/echo-$tag.err" \
						$P lat -e -k "$k" -n "$n" -w 500 -L "$nic" -c 0 239.9.0.1 7900
				else
					pair_wait "ready-$tag" 900 || true
					"$M"
					$P lat -j -k "$k" -n "$n" -w 500 -L "$nic" -c 0 --peer 10.99.0.1 \
						239.9.0.1 7900 >>"$R/rows.json" 2>>"$R/lat.err" ||
						echo "$k $n: lat failed" >&2
					"$M"
					echo "$rep $k $n" >>"$R/.build/windows.txt"
					pair_flag "done-$tag"
				fi
			done
		done
	done
	exit 0
fi
if [[ ${IBTICK_GUEST:-} == 1 ]]; then
	# inside the guest (scripts/vm-run.sh)
	R=$RESULTS P=$PWD/user/tools/ibtick-perf M=$RESULTS/.build/mark
	export PATH="$PWD/user/preload:$PWD/user/ibtick:$PATH"
	insmod kmod/ibtick.ko
	echo 0 >/proc/sys/kernel/kptr_restrict
	cat /proc/kallsyms >"$R/.build/kallsyms.txt"
	: >"$R/.build/windows.txt"
	for rep in 1 2; do
		for k in ${IC_KINDS//,/ }; do
			for n in ${IC_N//,/ }; do
				"$M"
				case $k in
				fan-*)	# fan-KIND-READERS: n ticks to READERS readers
					r=${k##*-} fk=${k#fan-}
					echo "{\"window\":\"$rep $k $n\"}" >>"$R/fanout.json"
					$P fanout -j -k "${fk%-*}" -N "$r" -n "$n" -w 0 -r "$IC_RATE" \
						-L veth0 -I veth1 239.9.0.4 7910 >>"$R/fanout.json" \
						2>>"$R/lat.err" || echo "$k $n: fanout failed" >&2
					;;
				*)
					$P lat -j -k "$k" -n "$n" -w 500 -c 1 -C 0 -L veth1 -I veth0 \
						239.9.0.1 7900 >>"$R/rows.json" 2>>"$R/lat.err" ||
						echo "$k $n: lat failed" >&2
					;;
				esac
				"$M"
				echo "$rep $k $n" >>"$R/.build/windows.txt"
			done
		done
	done
	exit 0
fi
ns=2000,12000 kinds=recvmsg-1g,inet-run rate=1000 pair=0
while getopts "n:k:r:p" o; do
	case $o in
	n) ns=$OPTARG ;;
	k) kinds=$OPTARG ;;
	r) rate=$OPTARG ;;
	p) pair=1 ;;
	*) sed -n '15,39p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[[ $ns =~ ^[1-9][0-9]{0,6},[1-9][0-9]{0,6}$ ]] && ((${ns%,*} < ${ns#*,})) ||
	{ echo "bench/insn-count.sh: -n N1,N2 with N1 < N2" >&2; exit 2; }
[[ $kinds =~ ^[a-z0-9-]+(,[a-z0-9-]+)*$ ]] ||
	{ echo "bench/insn-count.sh: -k KIND[,KIND...]" >&2; exit 2; }
[[ $rate =~ ^[1-9][0-9]{0,5}$ ]] ||
	{ echo "bench/insn-count.sh: -r RATE, ticks per second" >&2; exit 2; }
((!pair)) || [[ ! ,$kinds, =~ ,fan- ]] ||
	{ echo "bench/insn-count.sh: -p takes ping-pong kinds, not fan-" >&2; exit 2; }
def=bench/results/insn-count
((!pair)) || def=bench/results/insn-count-pair
out=$(realpath -m "${1:-$def}")
# shellcheck source=scripts/lib-tuning.sh
. "$PWD/scripts/lib-tuning.sh"
topo=()
((!pair)) || topo=(-T pair)
IDLE=default ibt_guest_tuning bench/insn-count.sh || exit 2
scripts/deps.sh
make -s all
rm -rf "$out"
mkdir -p "$out/.build/tbs"
# the plugin runs in QEMU on this host; the marker in the guest, which
# sees the results directory (not this host's /tmp)
cc -O2 -Wall -Wextra -shared -fPIC -fvisibility=hidden -o "$out/.build/insncount.so" \
	bench/qemu/insncount.c -lpthread
cc -O1 -Wall -Wextra -static -no-pie -Wl,--section-start=.mark=0x5e5f0000 \
	-o "$out/.build/mark" bench/qemu/mark.c
printf '{"head":"%s%s","n":"%s","kinds":"%s","rate":%d,"pair":%d}\n' "$(git rev-parse HEAD)" \
	"$(git diff --quiet HEAD -- user kmod include || echo +dirty)" "$ns" "$kinds" "$rate" "$pair" \
	>"$out/head.json"
IBTICK_VM_QEMU_ARGS="-plugin $out/.build/insncount.so,mark=0x5e5f0000,dump=$out/.build/tbs -d plugin -D $out/.build/plugin.log" \
	scripts/vm-run.sh "${topo[@]}" -t $((900 + 4 * ${ns#*,} / 100)) -o "$out" -- \
	env IC_KINDS="$kinds" IC_N="$ns" IC_RATE="$rate" bench/insn-count.sh
python3 bench/insn_count.py "$out" | tee "$out/summary.md"
# the VM's own files (dmesg.txt, .build name this machine's paths)
rm -rf "$out"/{console.log,qemu.log,dmesg.txt,.vm-cmd,rc,tainted,timing,setup-error,.build,sync}
rm -f "$out"/vm*/{console.log,qemu.log,dmesg.txt,.vm-cmd,rc,tainted,timing,setup-error}
