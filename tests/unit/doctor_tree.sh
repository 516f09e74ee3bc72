#!/usr/bin/env bash
# ibtick doctor's CPU checks read from a prepared sysfs tree
# (IBTICK_CPU_SYSFS): the cpuidle states, cpu/isolated and cpu/nohz_full
# are gathered as the cpu-latency check expects.  No kernel module needed:
# doctor reports it missing and goes on with the host checks.
#
#   doctor_tree.sh PATH_TO_IBTICK
set -u
bin=${1:?usage: doctor_tree.sh PATH_TO_IBTICK}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# state NAME CPU K LATENCY_US DISABLE
state() {
	local d=$T/cpu$2/cpuidle/state$3
	mkdir -p "$d"
	echo "$1" >"$d/name"
	echo "$4" >"$d/latency"
	echo "$5" >"$d/disable"
}
echo 0-2 >"$T/online"
echo 1 >"$T/isolated"
echo 1-2 >"$T/nohz_full"
for c in 0 1 2; do
	mkdir -p "$T/cpu$c/cpufreq"
	echo performance >"$T/cpu$c/cpufreq/scaling_governor"
done
# cpu0: C6 enabled (deep), C8 disabled, C1 shallow
state POLL 0 0 0 0
state C1 0 1 2 0
state C6 0 2 133 0
state C8 0 3 290 1
# cpu1: the deep one disabled, isolated and nohz_full
state POLL 1 0 0 0
state C6 1 1 133 1
# cpu2: no cpuidle directory at all, nohz_full but not isolated

n=0 pass=0 fail=0
out=$(IBTICK_CPU_SYSFS=$T "$bin" -j doctor --fast --app-cpus 0-2 2>/dev/null)
# check CPU STATUS TEXT...: cpu-latency of cpuCPU has STATUS and each TEXT
# in its seen or fix
check() {
	local cpu=$1 st=$2
	shift 2
	n=$((n + 1))
	if python3 - "$out" "$cpu" "$st" "$@" <<'PY'
import json, sys
j = json.loads(sys.argv[1])
cpu, st, texts = sys.argv[2], sys.argv[3], sys.argv[4:]
r = [c for c in j if c["check"] == "cpu-latency" and c["subject"] == "cpu" + cpu]
ok = len(r) == 1 and r[0]["status"] == st and all(t in r[0]["seen"] + (r[0].get("fix") or "") for t in texts)
if not ok:
    print("#", r)
sys.exit(0 if ok else 1)
PY
	then
		pass=$((pass + 1))
		echo "ok $n - doctor tree: cpu$cpu $st"
	else
		fail=$((fail + 1))
		echo "not ok $n - doctor tree: cpu$cpu $st $*"
	fi
}
check 0 WARN "1 idle state deeper than 10 us enabled (C6; up to 133 us to wake)" \
	"not in isolcpus, not nohz_full" "cpupower -c 0 idle-set -D 10" "isolcpus=0 nohz_full=0"
check 1 PASS "no idle state deeper than 10 us" "in isolcpus, nohz_full"
check 2 WARN "no cpuidle states" "not in isolcpus, nohz_full" "isolcpus=2"
echo "doctor_tree: $pass passed, $fail failed, 0 skipped"
((fail == 0))
