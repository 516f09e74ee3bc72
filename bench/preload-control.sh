#!/usr/bin/env bash
# The control for what ibtick-run's library adds to a spinning reader
# between two guests: ibtick's own spin-1g path run plain, then with
# bench/control/padrecv.c preloaded - an interposed recvmsg() that does
# LOOPS turns of a trivial loop (6 instructions a turn), or N calls of
# tiny functions packed on one page or each on its own page, and nothing
# else - and udppp under ibtick-run (inet-run-spin) beside them.  What the
# padded rows cost over the plain one is what any preload library's least
# work costs on the rig, whatever the library does.
#
# usage: bench/preload-control.sh [-r ROUNDS] [-n N] [-l LOOPS] [OUT_DIR]
#   ROUNDS (default 12) rounds of N (default 3000) round trips after 1000
#   warm-up ones of each row, the rows' order turned by one each round, the
#   two guests of the pair bench (one vCPU each), 64 B, node 1 pinging;
#   LOOPS (default 0,128,p64,f64) the padded rows: a number L is loop
#   turns (row padL), pN N calls of functions packed on one page (row
#   pkN), fN N calls of functions each on its own page (row fnN); N is
#   1..64.
#   OUT_DIR (default bench/results/preload-control): rounds.json (each
#   row's median round trip per round), summary.md (bench/preload_control.py:
#   each row against spin-1g and against the library, the median of the
#   rounds' ratios with a bootstrap 95 % interval).  CLOCK=tsc and
#   IDLE=poll as bench/run.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ${IBTICK_GUEST:-} == 1 ]]; then
	# inside each guest of the pair (scripts/vm-run.sh -T pair)
	R=$RESULTS P=user/tools/ibtick-perf
	node=$IBTICK_NODE sync_dir=$IBTICK_SHARED/sync
	export PATH="$PWD/user/preload:$PWD/user/ibtick:$PATH"
	# shellcheck source=tests/vm/pair-sync.sh
	. tests/vm/pair-sync.sh
	nic=$(rdma link show "rxe$node/1" | sed -n 's/.*netdev \([^ ]*\).*/\1/p')
	insmod kmod/ibtick.ko
	rows=(spin-1g inet-run-spin)
	for l in ${PC_LOOPS//,/ }; do
		case $l in
		f*) rows+=("fn${l#f}") ;;
		p*) rows+=("pk${l#p}") ;;
		*) rows+=("pad$l") ;;
		esac
	done
	if ((node == 1)); then
		mkdir -p "$sync_dir"
		pair_flag start
	else
		pair_wait start 120
	fi
	for ((r = 1; r <= PC_ROUNDS; r++)); do
		n=${#rows[@]}
		for ((i = 0; i < n; i++)); do
			row=${rows[$(((i + r) % n))]} tag=$row-$r env=() k=$row
			if [[ $row == pad* ]]; then
				env=(LD_PRELOAD="$IBTICK_SHARED/.build/padrecv.so" PADRECV_LOOPS="${row#pad}")
				k=spin-1g
			elif [[ $row == fn* || $row == pk* ]]; then
				env=(LD_PRELOAD="$IBTICK_SHARED/.build/padrecv.so" PADRECV_FUNCS="${row:2}")
				[[ $row == fn* ]] || env+=(PADRECV_PACKED=1)
				k=spin-1g
			fi
			if ((node == 0)); then
				pair_echo_serve "$tag" "$R/echo-$tag.err" \
					env "${env[@]}" $P lat -e -k "$k" -n "$PC_N" -w 1000 -L "$nic" -c 0 239.9.0.1 7900
			else
				pair_wait "ready-$tag" 900 || { pair_flag "done-$tag"; continue; }
				env "${env[@]}" $P lat -j -k "$k" -n "$PC_N" -w 1000 -L "$nic" -c 0 --peer 10.99.0.1 \
					239.9.0.1 7900 | sed -n "s/^{\"mode\"/{\"row\":\"$row\",\"round\":$r,\"mode\"/p" \
					>>"$IBTICK_SHARED/rounds.json" || echo "round $r: $row failed"
				pair_flag "done-$tag"
			fi
		done
	done
	rmmod ibtick
	exit 0
fi
rounds=12 n=3000 loops=0,128,p64,f64
while getopts "r:n:l:" o; do
	case $o in
	r) rounds=$OPTARG ;;
	n) n=$OPTARG ;;
	l) loops=$OPTARG ;;
	*) sed -n '11,23p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[[ $rounds =~ ^[1-9][0-9]?$ && $n =~ ^[1-9][0-9]{0,4}$ && $loops =~ ^([0-9]{1,4}|[fp]([1-9]|[1-5][0-9]|6[0-4]))(,([0-9]{1,4}|[fp]([1-9]|[1-5][0-9]|6[0-4])))*$ ]] ||
	{ echo "bench/preload-control.sh: ROUNDS is 1..99, N 1..99999, LOOPS numbers 0..9999, p1..p64 or f1..f64 (comma-separated)" >&2; exit 2; }
out=$(realpath -m "${1:-bench/results/preload-control}")
# shellcheck source=scripts/lib-tuning.sh
. "$PWD/scripts/lib-tuning.sh"
ibt_guest_tuning bench/preload-control.sh || exit 2
scripts/deps.sh
make -s all
rm -rf "$out"
mkdir -p "$out/.build"
cc -O2 -Wall -Wextra -shared -fPIC -fvisibility=hidden -o "$out/.build/padrecv.so" \
	bench/control/padrecv.c -ldl
printf '{"head":"%s%s","rounds":%d,"n":%d,"loops":"%s"}\n' "$(git rev-parse HEAD)" \
	"$(git diff --quiet HEAD -- user kmod include bench/control || echo +dirty)" "$rounds" "$n" "$loops" >"$out/head.json"
scripts/vm-run.sh -T pair -t $((900 + rounds * n / 8)) -o "$out" -- \
	env PC_ROUNDS="$rounds" PC_N="$n" PC_LOOPS="$loops" bench/preload-control.sh
python3 bench/preload_control.py "$out" | tee "$out/summary.md"
# the VMs' own files (dmesg.txt names this machine's paths on the kernel
# command line); output.log keeps what each guest printed
rm -rf "$out"/{sync,.build}
rm -f "$out"/{rc,timing,setup-error,.vm-cmd} "$out"/vm*/{console.log,qemu.log,dmesg.txt,.vm-cmd,rc,tainted,timing,setup-error}
