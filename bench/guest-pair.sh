#!/usr/bin/env bash
# The two-guest bench (bench/run.sh, TOPOLOGIES has "pair"): runs in both
# guests of vm-run.sh -T pair, node 0 answering (every path's echo or
# server: ibtick-perf lat -e), node 1 pinging (ibtick-perf lat --peer),
# each guest 1 vCPU with its own kernel and rxe device, the two joined by a
# virtual cable.  The same paths, rounds and formats as bench/guest.sh, in
# $IBTICK_SHARED (node 1 writes them):
#   env.json      as bench/guest.sh's, from node 1
#   rounds.json   feeds' ping-pong (vs ib_send_lat -c UD), raw/rR-PATH.txt.gz
#   rc.json       connections' (vs ib_send_lat -c RC), raw/rc-rR-PATH.txt.gz
#   counts.json   every path once more with the work per round trip counted
#                 on each host: node 1's by ibtick-perf --counts (system
#                 calls, softirqs, CQ events, its device's QP deliveries,
#                 its reading feed's counters), node 0's softirqs and QP
#                 deliveries by node 0 ("host_b")
# Both nodes walk the same random orders (SEED).  Each step is a
# handshake in the shared dir: node 0 starts the echo and says ready when
# it listens; node 1 measures and says done; node 0 stops the echo.
# N (default 5000) samples per path and round after 1000 warm-up ones,
# ROUNDS (default 5) rounds, NCOUNT (default 2000) round trips counted;
# PAIR_PATHS and PAIR_RC_PATHS name the paths.  PREFER_DEFER_US (default
# 2000; "" for none): the busy-prefer path's feeds' prefer-defer, on each
# node (ibtick-perf --prefer-defer).  BUSY_US (default: ibtick-perf's, 200):
# the SO_BUSY_POLL time of the busy paths' readers and echoes
# (ibtick-perf --busy-us).
# PINGPONG_ONLY=1: the feeds' ping-pong rounds and their counted runs, no
# connections (as bench/guest.sh's, which also skips its other sections).
# No busy-poll thread (kpoll): with one vCPU it would measure the
# scheduler.
set -euo pipefail
[[ ${IBTICK_GUEST:-} == 1 && ${IBTICK_TOPOLOGY:-} == pair ]] ||
	{ echo "bench/guest-pair.sh runs in both guests of the pair bench (bench/run.sh)" >&2; exit 2; }
N=${N:-5000}
ROUNDS=${ROUNDS:-5}
NCOUNT=${NCOUNT:-2000}
SEED=${SEED:-1}
PATHS=${PAIR_PATHS:-floor mapped busy busy-prefer udp-spin run-spin spin-1g inet-run-spin spin-1g-ev inet-run-spin-ev run-spin-ev recvmsg epoll udp run recvmsg-1g inet-run}
RC_PATHS=${PAIR_RC_PATHS:-floor-rc conn-spin conn-map conn tcp-spin tcp}
PREFER_DEFER_US=${PREFER_DEFER_US-2000}
defer=(${PREFER_DEFER_US:+--prefer-defer "$PREFER_DEFER_US"} ${BUSY_US:+--busy-us "$BUSY_US"})
P=user/tools/ibtick-perf
export PATH="$PWD/user/preload:$PWD/user/ibtick:$PATH"
node=$IBTICK_NODE
out=$IBTICK_SHARED
sync_dir=$IBTICK_SHARED/sync
peer=10.99.0.1
nic=$(rdma link show "rxe$node/1" | sed -n 's/.*netdev \([^ ]*\).*/\1/p')
[[ -n $nic ]] || { echo "node $node: no netdev behind rxe$node" >&2; exit 1; }
say() { printf '\n== node %s: %s\n' "$node" "$*"; }

# pair_flag NAME tells the other node, pair_wait NAME [SECS] waits for it
# shellcheck source=tests/vm/pair-sync.sh
. tests/vm/pair-sync.sh

# order SALT ROUND PATHS...: the round's random order, the same on both
order() {
	python3 -c 'import random, sys
rng = random.Random(int(sys.argv[1]) * 1000 + int(sys.argv[2]) + int(sys.argv[3]))
p = sys.argv[4:]
rng.shuffle(p)
print(" ".join(p))' "$SEED" "$1" "$2" "${@:3}"
}

# host_counts: this host's softirqs by type (all CPUs) and its device's
# QP deliveries, as "NAME VALUE" lines
host_counts() {
	awk 'NR > 1 { s = 0; for (i = 2; i <= NF; i++) s += $i; sub(":", "", $1); print $1, s }' /proc/softirqs
	echo "QP_DELIVERIES $(cat "/sys/class/infiniband/rxe$node/ports/1/hw_counters/rdma_recvs")"
}

# step KIND ROUND PATH GROUP PORT FILE: one path once, on both nodes
# (KIND count: node 1 counts with --counts, node 0 its own host's work)
step() {
	local kind=$1 r=$2 p=$3 g=$4 port=$5 file=$6 tag=$1-$2-$3 e n=$N w=1000
	[[ $kind != count ]] || { n=$NCOUNT; w=100; }
	if ((node == 0)); then
		[[ $kind != count ]] || host_counts >"$RESULTS/b0-$p"
		"$P" lat -e -k "$p" -n "$n" -w "$w" -L "$nic" -c 0 "${defer[@]}" "$g" "$port" \
			2>"$RESULTS/echo-$tag.err" &
		e=$!
		pair_echo_up "$RESULTS/echo-$tag.err" "$e" || echo "node 0: $tag: no echo"
		pair_flag "ready-$tag"
		pair_wait "done-$tag" 900 || true
		kill "$e" 2>/dev/null || true
		wait "$e" 2>/dev/null || true
		# the feed a killed echo made for busy-prefer (--prefer-defer)
		[[ $p != busy-prefer || -z $PREFER_DEFER_US ]] ||
			user/ibtick/ibtick feed del "ibtick-perf-$port" 2>/dev/null || true
		if [[ $kind == count ]]; then
			# totals over the run; summary.py divides them by the round
			# trips node 1 counted (sockperf runs for a time, not a count)
			host_counts | python3 -c 'import json, sys
before = dict(l.split() for l in open(sys.argv[1]))
after = dict(l.split() for l in sys.stdin)
d = {k: int(after[k]) - int(before[k]) for k in after}
print(json.dumps({"kind": sys.argv[2], "host_b_total": {
    "qp_deliveries": d.pop("QP_DELIVERIES"), "softirqs": d}}))' "$RESULTS/b0-$p" "$p" >>"$file"
			pair_flag "counted-$tag"
		fi
	elif [[ $kind == count ]]; then
		# no echo within the time: this path is left out, the run goes on
		pair_wait "ready-$tag" 900 || { pair_flag "done-$tag"; return 0; }
		"$P" lat -j --counts -k "$p" -n "$n" -w "$w" -L "$nic" -c 0 --peer "$peer" "${defer[@]}" \
			"$g" "$port" >>"$file" || echo "counted: $p failed"
		pair_flag "done-$tag"
		pair_wait "counted-$tag" 120 || true
	else
		pair_wait "ready-$tag" 900 || { pair_flag "done-$tag"; return 0; }
		"$P" lat -j -k "$p" -n "$n" -w "$w" -L "$nic" -c 0 --peer "$peer" "${defer[@]}" \
			--raw "$out/raw/${kind#feed}r$r-" "$g" "$port" |
			sed "s/^{/{\"round\":$r,/" >>"$file" ||
			echo "round $r: $p failed; the summary leaves out what has no samples"
		gzip -9f "$out"/raw/"${kind#feed}"r"$r"-*.txt 2>/dev/null || true
		pair_flag "done-$tag"
	fi
	# the feed a killed ping side made for busy-prefer (--prefer-defer)
	((node == 0)) || [[ $p != busy-prefer || -z $PREFER_DEFER_US ]] ||
		user/ibtick/ibtick feed del "ibtick-perf-$((port + 1))" 2>/dev/null || true
}

insmod kmod/ibtick.ko
if ((node == 1)); then
	# (vm-run.sh -T pair empties sync/ before the guests boot)
	rm -rf "$out/raw"
	mkdir -p "$out/raw" "$sync_dir"
	python3 - "$out/env.json" <<'PY'
import json, os, platform, subprocess, sys
def sh(c):
    return subprocess.run(c, shell=True, capture_output=True, text=True).stdout.strip()
json.dump({
    "kernel": platform.release(),
    "cpu": sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2").strip(),
    "vcpus": os.cpu_count(),
    "virt": "qemu-tcg",
    "topology": "pair: two guests, one vCPU each, one rxe each on a virtio NIC, the NICs joined by a QEMU UDP socket",
    "rdma": sh("rdma link show").splitlines(),
    "ibtick": sh("cat /sys/module/ibtick/version"),
    "clocksource": sh("cat /sys/devices/system/clocksource/clocksource0/current_clocksource"),
    "cmdline_tuning": [w for w in open("/proc/cmdline").read().split()
                      if w.startswith(("clocksource=", "tsc=", "idle="))],
}, open(sys.argv[1], "w"), indent=1)
PY
	printf '{"rounds":%d,"n":%d,"warm":1000,"seed":%d,"paths":"%s","prefer_defer_us":%d}\n' \
		"$ROUNDS" "$N" "$SEED" "$PATHS" "${PREFER_DEFER_US:--1}" >"$out/rounds.json"
	[[ ${PINGPONG_ONLY:-} == 1 ]] ||
		printf '{"rounds":%d,"n":%d,"warm":1000,"seed":%d,"paths":"%s"}\n' \
			"$ROUNDS" "$N" "$SEED" "$RC_PATHS" >"$out/rc.json"
	pair_flag start
else
	pair_wait start 120
fi

# rounds KIND SALT GROUP PORT FILE PATHS...: ROUNDS rounds of PATHS, each
# round in its own random order (recorded in FILE by node 1)
rounds() {
	local kind=$1 salt=$2 g=$3 port=$4 file=$5 r ord p
	shift 5
	for ((r = 1; r <= ROUNDS; r++)); do
		ord=$(order "$salt" "$r" "$@")
		say "round $r: $ord"
		((node == 0)) || printf '{"round":%d,"order":"%s"}\n' "$r" "${ord// /,}" >>"$file"
		for p in $ord; do
			step "$kind" "$r" "$p" "$g" "$port" "$file"
		done
	done
}

say "feeds: $ROUNDS rounds x $N samples of: $PATHS (seed $SEED)"
# shellcheck disable=SC2086 # one word a path
rounds feed 0 239.9.0.1 7900 "$out/rounds.json" $PATHS
if [[ ${PINGPONG_ONLY:-} == 1 ]]; then
	say "PINGPONG_ONLY=1: no connections"
	RC_PATHS=
else
	say "connections: $ROUNDS rounds x $N samples of: $RC_PATHS"
	# shellcheck disable=SC2086 # one word a path
	rounds rc- 700 239.9.3.1 7980 "$out/rc.json" $RC_PATHS
fi
say "counted: $NCOUNT round trips of each path, the work on each host"
for p in $PATHS $RC_PATHS; do
	g=239.9.0.1 port=7900
	[[ " $RC_PATHS " != *" $p "* ]] || { g=239.9.3.1; port=7980; }
	step count 0 "$p" "$g" "$port" "$out/counts.json"
done
((node == 0)) || cat "$out/rounds.json" ${RC_PATHS:+"$out/rc.json"} |
	grep -o '"kind":"[^"]*"\|"t_typical":[0-9.]*' | paste -sd' ' | fold -w 160 | tail -n 4
rmmod ibtick
