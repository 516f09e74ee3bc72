#!/usr/bin/env bash
# The benchmark, inside the bench guest (bench/run.sh boots it): everything
# ibtick-perf measures, in one boot, as JSON lines into $RESULTS:
#   env.json      kernel, CPU, vCPUs, devices, governor, virtualisation,
#                 the clocksource (bench/run.sh writes host.json beside it)
#   compare.json  lat --compare: ib_send_lat -c UD before/after, ibtick with
#                 each reader kind, sockperf UDP multicast (+ lat-KIND.svg)
#   oneway.json   one-way latency with the kernel's stages (+ oneway.svg)
#   rate.json     loss against offered rate; bw.txt ib_send_bw -c UD's rate
#   fanout-KIND.json  kernel cost per tick and latency for 1..16 readers
# N (default 100000) samples per latency row.
set -euo pipefail
[[ ${IBTICK_GUEST:-} == 1 ]] || { echo "bench/guest.sh runs inside the bench (bench/run.sh)" >&2; exit 2; }
N=${N:-100000}
R=$RESULTS
P=user/tools/ibtick-perf
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
    "cmdline_clock": [w for w in open("/proc/cmdline").read().split()
                      if w.startswith(("clocksource=", "tsc="))],
}
json.dump(env, open(sys.argv[1], "w"), indent=1)
PY

say "ping-pong, 64 B, $N samples per row: the floor, ibtick's four readers, sockperf, the floor again"
# each side (and each tool's server and client) pinned to its own vCPU
$P lat --compare -j -k mapped,busy,recvmsg,epoll -n "$N" -w 1000 -c 1 -C 0 -i veth1 -I veth0 \
	-H "$R/lat.svg" 239.9.0.1 7900 >"$R/compare.json"
grep '"compare"' "$R/compare.json" | cut -c1-160

say "one way, mapped reader, 5000/s"
$P oneway -j -k mapped -n "$N" -w 1000 -r 5000 -i veth0 -I veth1 -H "$R/oneway.svg" \
	239.9.0.2 7920 >"$R/oneway.json"
tail -n 1 "$R/oneway.json" | cut -c1-200

say "publish rate and loss"
$P rate -j -n 20000 -r 5000 -i veth0 -I veth1 239.9.0.3 7930 >"$R/rate.json"
tail -n +2 "$R/rate.json" | cut -c1-200
timeout 300 ib_send_bw -d rxe0 -c UD -s 64 -n 100000 -F >"$R/bw-server.txt" 2>&1 &
sleep 2
timeout 300 ib_send_bw -d rxe1 -c UD -s 64 -n 100000 -F 10.99.0.1 >"$R/bw.txt" 2>&1 || true
wait || true
grep -A1 '#bytes' "$R/bw.txt" || true

for k in mapped epoll; do
	say "fan-out, $k readers"
	port=7940
	[[ $k == epoll ]] && port=7950
	$P fanout -j -k $k -N 1,2,4,8,16 -n 5000 -w 0 -r 2000 -i veth0 -I veth1 \
		239.9.0.4 $port >"$R/fanout-$k.json"
	tail -n +2 "$R/fanout-$k.json" | cut -c1-200
done
rmmod ibtick
