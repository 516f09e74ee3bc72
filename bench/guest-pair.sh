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
# Both nodes walk the same random orders (SEED).  Each step is a
# handshake in the shared dir: node 0 starts the echo and says ready when
# it listens; node 1 measures and says done; node 0 stops the echo.
# N (default 5000) samples per path and round after 1000 warm-up ones,
# ROUNDS (default 5) rounds; PAIR_PATHS and PAIR_RC_PATHS name the paths.
# No busy-poll thread (kpoll): with one vCPU it would measure the
# scheduler.
set -euo pipefail
[[ ${IBTICK_GUEST:-} == 1 && ${IBTICK_TOPOLOGY:-} == pair ]] ||
	{ echo "bench/guest-pair.sh runs in both guests of the pair bench (bench/run.sh)" >&2; exit 2; }
N=${N:-5000}
ROUNDS=${ROUNDS:-5}
SEED=${SEED:-1}
PATHS=${PAIR_PATHS:-floor mapped busy udp-spin run-spin recvmsg epoll udp run}
RC_PATHS=${PAIR_RC_PATHS:-floor-rc conn-spin conn tcp-spin tcp}
P=user/tools/ibtick-perf
export PATH="$PWD/user/preload:$PATH"
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

# step KIND ROUND PATH GROUP PORT FILE: one path once, on both nodes
step() {
	local kind=$1 r=$2 p=$3 g=$4 port=$5 file=$6 tag=$1-$2-$3 e i
	if ((node == 0)); then
		"$P" lat -e -k "$p" -n "$N" -w 1000 -L "$nic" -c 0 "$g" "$port" \
			2>"$RESULTS/echo-$tag.err" &
		e=$!
		for ((i = 0; i < 1200; i++)); do
			grep -q "echo ready" "$RESULTS/echo-$tag.err" && break
			kill -0 "$e" 2>/dev/null || break
			sleep 0.1
		done
		grep -q "echo ready" "$RESULTS/echo-$tag.err" ||
			{ echo "node 0: $tag: the echo did not start:"; cat "$RESULTS/echo-$tag.err"; }
		pair_flag "ready-$tag"
		pair_wait "done-$tag" 900 || true
		kill "$e" 2>/dev/null || true
		wait "$e" 2>/dev/null || true
	else
		pair_wait "ready-$tag" 900
		"$P" lat -j -k "$p" -n "$N" -w 1000 -L "$nic" -c 0 --peer "$peer" \
			--raw "$out/raw/${kind#feed}r$r-" "$g" "$port" |
			sed "s/^{/{\"round\":$r,/" >>"$file" ||
			echo "round $r: $p failed; the summary leaves out what has no samples"
		gzip -9f "$out"/raw/"${kind#feed}"r"$r"-*.txt 2>/dev/null || true
		pair_flag "done-$tag"
	fi
}

insmod kmod/ibtick.ko
if ((node == 1)); then
	rm -rf "$out/raw" "$sync_dir"
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
    "cmdline_clock": [w for w in open("/proc/cmdline").read().split()
                      if w.startswith(("clocksource=", "tsc="))],
}, open(sys.argv[1], "w"), indent=1)
PY
	printf '{"rounds":%d,"n":%d,"warm":1000,"seed":%d,"paths":"%s"}\n' \
		"$ROUNDS" "$N" "$SEED" "$PATHS" >"$out/rounds.json"
	printf '{"rounds":%d,"n":%d,"warm":1000,"seed":%d,"paths":"%s"}\n' \
		"$ROUNDS" "$N" "$SEED" "$RC_PATHS" >"$out/rc.json"
	pair_flag start
else
	pair_wait start 120
fi

say "feeds: $ROUNDS rounds x $N samples of: $PATHS (seed $SEED)"
for ((r = 1; r <= ROUNDS; r++)); do
	# shellcheck disable=SC2086 # one word a path
	ord=$(order 0 "$r" $PATHS)
	say "round $r: $ord"
	((node == 0)) || printf '{"round":%d,"order":"%s"}\n' "$r" "${ord// /,}" >>"$out/rounds.json"
	for p in $ord; do
		step feed "$r" "$p" 239.9.0.1 7900 "$out/rounds.json"
	done
done
say "connections: $ROUNDS rounds x $N samples of: $RC_PATHS"
for ((r = 1; r <= ROUNDS; r++)); do
	# shellcheck disable=SC2086 # one word a path
	ord=$(order 700 "$r" $RC_PATHS)
	say "round $r: $ord"
	((node == 0)) || printf '{"round":%d,"order":"%s"}\n' "$r" "${ord// /,}" >>"$out/rc.json"
	for p in $ord; do
		step rc- "$r" "$p" 239.9.3.1 7980 "$out/rc.json"
	done
done
((node == 0)) || grep -o '"kind":"[^"]*"\|"t_typical":[0-9.]*' "$out/rounds.json" "$out/rc.json" |
	paste -sd' ' | fold -w 160 | tail -n 4
rmmod ibtick
