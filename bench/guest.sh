#!/usr/bin/env bash
# The benchmark, inside the bench guest (bench/run.sh boots it): everything
# ibtick-perf measures, in one boot, as JSON lines into $RESULTS:
#   env.json      kernel, CPU, vCPUs, devices, governor, virtualisation,
#                 the clocksource (bench/run.sh writes host.json beside it)
#   rounds.json   ping-pong rounds: every path (the verbs floor, ibtick's
#                 readers, sockperf blocking and spinning) each round, in a
#                 random order; raw/rROUND-PATH.txt.gz every sample (ns)
#   counts.json   the same paths with the kernel's work per round trip
#   oneway.json   one-way latency with the kernel's stages (+ oneway.svg)
#   rate.json     loss against offered rate; bw.txt ib_send_bw -c UD's rate
#   rate-rounds.json  the flat-out publish rate against ib_send_bw -c UD:
#                 RATE_ROUNDS rounds, each both once in a random order;
#                 bw/rROUND.txt each ib_send_bw run's output
#   fanout-KIND.json  kernel cost per tick and latency for 1..16 readers
#   arb.json      the arbitrated feed of two rails (B delayed) against rail A
#                 alone: ping-pong rounds and the kernel's work per completion
#   rc.json       connections (RC): ping-pong rounds of an ibtick connection
#                 (spinning, blocking) against ib_send_lat -c RC and sockperf
#                 over TCP on the same netdevs; rc-counts.json counted once
# N (default 5000) samples per path and round, ROUNDS (default 5) rounds,
# SEED (default: the time) orders them; NCOUNT (default 2000) round trips
# per path in the counted run.  The arbitrated feed: ARB_ROUNDS (default
# 12) rounds of ARB_N (default N) samples, rail B delayed by ARB_DELAY
# (default 1ms), the cost paths at ARB_RATE (default 5000) ticks/s.
# Connections: RC_ROUNDS (default 8) rounds of RC_N (default N) samples.
# Publish rate: RATE_ROUNDS (default 10) rounds of RATE_N (default 20000)
# messages each way.  PREFER_DEFER_US (default 2000; "" for none): the
# busy-prefer path's feeds' prefer-defer (ibtick-perf --prefer-defer).
# BUSY_US (default: ibtick-perf's, 200): the SO_BUSY_POLL time of the busy
# paths' readers (ibtick-perf --busy-us).  PATHS: the ping-pong paths
# (ibtick-perf lat -k names); PINGPONG_ONLY=1 stops after the ping-pong
# rounds and their counted run.
set -euo pipefail
[[ ${IBTICK_GUEST:-} == 1 ]] || { echo "bench/guest.sh runs inside the bench (bench/run.sh)" >&2; exit 2; }
N=${N:-5000}
ROUNDS=${ROUNDS:-5}
SEED=${SEED:-$(date +%s)}
NCOUNT=${NCOUNT:-2000}
RATE_ROUNDS=${RATE_ROUNDS:-10}
RATE_N=${RATE_N:-20000}
PREFER_DEFER_US=${PREFER_DEFER_US-2000}
defer=(${PREFER_DEFER_US:+--prefer-defer "$PREFER_DEFER_US"} ${BUSY_US:+--busy-us "$BUSY_US"})
PATHS=${PATHS:-floor mapped busy busy-prefer kpoll udp-spin run-spin spin-1g inet-run-spin spin-1g-ev inet-run-spin-ev run-spin-ev recvmsg epoll udp run recvmsg-1g inet-run}
R=$RESULTS
P=user/tools/ibtick-perf
# A path named KIND-ev is ibtick-perf's KIND spinning without busy polling
# (as --busy-us 0, in the same ibtick-perf as the others): spin-1g-ev,
# inet-run-spin-ev and run-spin-ev spin on non-blocking reads that take
# what the CQ event brings, which under ibtick-run the library takes from
# the mapped rings.
# run, run-spin: ibtick-perf starts sockperf under this tree's ibtick-run;
# --prefer-defer: this tree's ibtick makes the feeds
export PATH="$PWD/user/preload:$PWD/user/ibtick:$PATH"
say() { printf '\n== %s\n' "$*"; }

insmod kmod/ibtick.ko
python3 - "$R/env.json" <<'PY'
import json, os, platform, subprocess, sys
def sh(c):
    return subprocess.run(c, shell=True, capture_output=True, text=True).stdout.strip()
cpu = sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2").strip()
env = {
    "kernel": platform.release(),
    "cpu": cpu,
    "vcpus": os.cpu_count(),
    "virt": "qemu-tcg" if "QEMU" in cpu else "unknown",
    "governor": sh("cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor 2>/dev/null") or "none",
    "rdma": sh("rdma link show").splitlines(),
    "perftest": sh("dpkg-query -W -f '${Version}' perftest"),
    "sockperf": sh("sockperf --version 2>&1 | head -1"),
    "ibtick": sh("cat /sys/module/ibtick/version"),
    "clocksource": sh("cat /sys/devices/system/clocksource/clocksource0/current_clocksource"),
    "cmdline_tuning": [w for w in open("/proc/cmdline").read().split()
                      if w.startswith(("clocksource=", "tsc=", "idle="))],
}
json.dump(env, open(sys.argv[1], "w"), indent=1)
PY

# Ping-pong, 64 B: every path ROUNDS times in one boot, each round in its
# own random order (SEED, recorded), N samples each after 1000 warm-up
# ones.  Each side (and each tool's server and client) pinned to its own
# vCPU, the same for every path.  Raw samples: raw/rROUND-PATH.txt.gz.
say "ping-pong, 64 B: $ROUNDS rounds x $N samples of: $PATHS (seed $SEED)"
mkdir -p "$R/raw"
: >"$R/rounds.json"
printf '{"rounds":%d,"n":%d,"warm":1000,"seed":%d,"paths":"%s","prefer_defer_us":%d}\n' \
	"$ROUNDS" "$N" "$SEED" "$PATHS" "${PREFER_DEFER_US:--1}" >>"$R/rounds.json"
for ((r = 1; r <= ROUNDS; r++)); do
	order=$(python3 -c 'import random, sys
rng = random.Random(int(sys.argv[1]) * 1000 + int(sys.argv[2]))
p = sys.argv[3].split()
rng.shuffle(p)
print(",".join(p))' "$SEED" "$r" "$PATHS")
	echo "round $r: $order"
	printf '{"round":%d,"order":"%s"}\n' "$r" "$order" >>"$R/rounds.json"
	hist=()
	((r == ROUNDS)) && hist=(-H "$R/lat.svg")
	$P lat -j -k "$order" -n "$N" -w 1000 -c 1 -C 0 -L veth1 -I veth0 "${defer[@]}" \
		--raw "$R/raw/r$r-" "${hist[@]}" 239.9.0.1 7900 |
		sed "s/^{/{\"round\":$r,/" >>"$R/rounds.json" ||
		echo "round $r: ibtick-perf failed; the summary leaves out what has no samples"
	gzip -9f "$R"/raw/r"$r"-*.txt 2>/dev/null || true
done
grep -c '"kind"' "$R/rounds.json" | sed 's/$/ rows/'

# The same paths once more with the kernel's work counted per round trip
# (tracing slows every path: these times are not used)
say "ping-pong, counted: system calls, softirqs, CQ events and arms, QP deliveries, allocations"
: >"$R/counts.json"
$P lat -j --counts -k "${PATHS// /,}" -n "$NCOUNT" -w 100 -c 1 -C 0 -L veth1 -I veth0 \
	"${defer[@]}" 239.9.0.1 7900 >>"$R/counts.json"
grep -o '"kind":"[^"]*"\|"qp_deliveries_[ab]":[0-9.]*\|"cq_events":[0-9.]*' "$R/counts.json" | paste -sd' ' | fold -w 160
if [[ ${PINGPONG_ONLY:-} == 1 ]]; then
	say "PINGPONG_ONLY=1: the other sections are not run"
	rmmod ibtick
	exit 0
fi

say "one way, mapped reader, 5000/s"
$P oneway -j -k mapped -n "$N" -w 1000 -r 5000 -L veth0 -I veth1 -H "$R/oneway.svg" \
	239.9.0.2 7920 >"$R/oneway.json"
tail -n 1 "$R/oneway.json" | cut -c1-200

say "publish rate and loss"
$P rate -j -n 20000 -r 5000 -L veth0 -I veth1 239.9.0.3 7930 >"$R/rate.json"
tail -n +2 "$R/rate.json" | cut -c1-200
timeout 300 ib_send_bw -d rxe0 -c UD -s 64 -n 100000 -F >"$R/bw-server.txt" 2>&1 &
sleep 2
timeout 300 ib_send_bw -d rxe1 -c UD -s 64 -n 100000 -F 10.99.0.1 >"$R/bw.txt" 2>&1 || true
wait || true
grep -A1 '#bytes' "$R/bw.txt" || true

# The flat-out rate against ib_send_bw, like for like: the same message
# count and size, the same devices, a reader spinning on the other end
# (the mapped ring; ib_send_bw's server polls its CQ), both unpinned, in
# rounds of both in a random order (the host's speed drifts: one run of
# each would compare two moments).  ib_send_bw's rate is the sender's
# (perftest's MsgRate), as is ibtick's "achieved".
say "flat-out publish rate against ib_send_bw: $RATE_ROUNDS rounds x $RATE_N"
RANDOM=$SEED
: >"$R/rate-rounds.json"
mkdir -p "$R/bw"
for ((i = 0; i < RATE_ROUNDS; i++)); do
	order="ibtick ib_send_bw"
	((RANDOM % 2)) && order="ib_send_bw ibtick"
	for x in $order; do
		if [[ $x == ibtick ]]; then
			$P rate -j -r 0 -n "$RATE_N" -L veth0 -I veth1 239.9.0.5 7935 |
				grep '"offered":0' | sed "s/^{/{\"round\":$i,\"path\":\"ibtick\",/" \
				>>"$R/rate-rounds.json" ||
				echo "rate round $i: ibtick-perf failed (the round is left out)"
			continue
		fi
		timeout 120 ib_send_bw -d rxe0 -c UD -s 64 -n "$RATE_N" -F >"$R/bw/r$i-server.txt" 2>&1 &
		sleep 2
		timeout 120 ib_send_bw -d rxe1 -c UD -s 64 -n "$RATE_N" -F 10.99.0.1 >"$R/bw/r$i.txt" 2>&1 || true
		wait || true
		python3 - "$R/bw/r$i.txt" "$i" >>"$R/rate-rounds.json" <<-'PY'
			import json, sys
			t = open(sys.argv[1]).read().splitlines()
			rate = None
			for k, ln in enumerate(t):
			    if ln.strip().startswith('#bytes') and k + 1 < len(t):
			        f = t[k + 1].split()
			        if len(f) >= 5:
			            rate = float(f[4]) * 1e6
			print(json.dumps({"round": int(sys.argv[2]), "path": "ib_send_bw", "achieved": rate}))
		PY
	done
done
cat "$R/rate-rounds.json"

# fan-out with sleeping readers: more spinning readers than vCPUs would
# measure the scheduler
for k in epoll recvmsg; do
	say "fan-out, $k readers"
	port=7940
	[[ $k == recvmsg ]] && port=7950
	$P fanout -j -k $k -N 1,2,4,8,16 -n 5000 -w 0 -r 2000 -L veth0 -I veth1 \
		239.9.0.4 $port >"$R/fanout-$k.json"
	tail -n +2 "$R/fanout-$k.json" | cut -c1-200
done

# Arbitrated feed (A/B rails): the second veth pair and its rxe devices
# (tests/vm/rails.sh, as the VM suite's arb topic), rail B delayed by
# ARB_DELAY (netem on veth3, where rail B is published).  ARB_ROUNDS
# rounds, the paths in a random order: ping-pong reading the
# arbitrated feed (arb) or rail A alone as a plain feed (rail-a), the echo
# answering on A then B either way, and rail-a with rail B's copies taken
# by a plain feed nobody reads (rail-a-b, the control: the second rail's
# receive work without the arbitration); and both rails published at
# ARB_RATE for the kernel's receive work per completion (arb-cost,
# rail-a-cost).  The paths compared run next to each other (the host's
# load drifts within a round), the groups and the order in each at random.
# Every sample: raw/arb-rROUND-PATH.txt.gz.
ARB_ROUNDS=${ARB_ROUNDS:-12}
ARB_N=${ARB_N:-$N}
ARB_RATE=${ARB_RATE:-5000}
ARB_DELAY=${ARB_DELAY:-1ms}
ARB_PATHS="arb rail-a rail-a-b arb-cost rail-a-cost"
say "arbitrated feed: $ARB_ROUNDS rounds x $ARB_N of: $ARB_PATHS (rail B delayed $ARB_DELAY, cost at $ARB_RATE/s)"
# shellcheck source=tests/vm/rails.sh
. tests/vm/rails.sh
export PATH="$PWD/user/ibtick:$PATH"	# ibtick-perf arb makes its feeds with ibtick
: >"$R/arb.json"
if rails_up && tc qdisc add dev veth3 root netem delay "$ARB_DELAY"; then
	printf '{"rounds":%d,"n":%d,"warm":500,"seed":%d,"paths":"%s","delay":"%s","rate":%d}\n' \
		"$ARB_ROUNDS" "$ARB_N" "$SEED" "$ARB_PATHS" "$ARB_DELAY" "$ARB_RATE" >>"$R/arb.json"
	for ((r = 1; r <= ARB_ROUNDS; r++)); do
		order=$(python3 -c 'import random, sys
rng = random.Random(int(sys.argv[1]) * 1000 + 500 + int(sys.argv[2]))
pairs = [["arb", "rail-a", "rail-a-b"], ["arb-cost", "rail-a-cost"]]
for p in pairs:
    rng.shuffle(p)
rng.shuffle(pairs)
print(",".join(pairs[0] + pairs[1]))' "$SEED" "$r")
		echo "round $r: $order"
		printf '{"round":%d,"order":"%s"}\n' "$r" "$order" >>"$R/arb.json"
		$P arb -j -k "$order" -n "$ARB_N" -w 500 -r "$ARB_RATE" -c 1 -C 0 \
			-L veth0 -I veth1 --rail-b veth2 --peer-rail-b veth3 \
			--raw "$R/raw/arb-r$r-" 239.9.2.1 7960 |
			sed "s/^{/{\"round\":$r,/" >>"$R/arb.json" ||
			echo "round $r: ibtick-perf arb failed; the summary leaves out what has no samples"
		gzip -9f "$R"/raw/arb-r"$r"-*.txt 2>/dev/null || true
	done
	grep -o '"kind":"[^"]*"\|"t_typical":[0-9.]*\|"kernel_ns_per_cqe":[0-9.]*' "$R/arb.json" |
		paste -sd' ' | fold -w 160 | tail -n 4
else
	echo "arbitrated feed: the second rail did not come up; no rows"
fi
rails_down

# Connections (RC): ping-pong, 64 B, each path every round in a random
# order, pinned as the feeds' paths: ib_send_lat -c RC (the floor: it
# spins on its CQ), an ibtick connection spinning on recv(MSG_DONTWAIT),
# one spinning on its mapped ring and one blocking in recv, sockperf over
# TCP spinning and blocking.
# Every sample: raw/rc-rROUND-PATH.txt.gz.
RC_ROUNDS=${RC_ROUNDS:-8}
RC_N=${RC_N:-$N}
RC_PATHS="floor-rc conn-spin conn-map conn tcp-spin tcp"
say "connections (RC): $RC_ROUNDS rounds x $RC_N of: $RC_PATHS"
: >"$R/rc.json"
printf '{"rounds":%d,"n":%d,"warm":1000,"seed":%d,"paths":"%s"}\n' \
	"$RC_ROUNDS" "$RC_N" "$SEED" "$RC_PATHS" >>"$R/rc.json"
for ((r = 1; r <= RC_ROUNDS; r++)); do
	order=$(python3 -c 'import random, sys
rng = random.Random(int(sys.argv[1]) * 1000 + 700 + int(sys.argv[2]))
p = sys.argv[3].split()
rng.shuffle(p)
print(",".join(p))' "$SEED" "$r" "$RC_PATHS")
	echo "round $r: $order"
	printf '{"round":%d,"order":"%s"}\n' "$r" "$order" >>"$R/rc.json"
	$P lat -j -k "$order" -n "$RC_N" -w 1000 -c 1 -C 0 -L veth1 -I veth0 \
		--raw "$R/raw/rc-r$r-" 239.9.3.1 7980 |
		sed "s/^{/{\"round\":$r,/" >>"$R/rc.json" ||
		echo "round $r: ibtick-perf failed; the summary leaves out what has no samples"
	gzip -9f "$R"/raw/rc-r"$r"-*.txt 2>/dev/null || true
done
$P lat -j --counts -k "${RC_PATHS// /,}" -n "$NCOUNT" -w 100 -c 1 -C 0 -L veth1 -I veth0 \
	239.9.3.1 7980 >"$R/rc-counts.json" || true
grep -o '"kind":"[^"]*"\|"t_typical":[0-9.]*' "$R/rc.json" | paste -sd' ' | fold -w 160 | tail -n 3
rmmod ibtick
