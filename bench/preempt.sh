#!/usr/bin/env bash
# What takes the CPU from a ping-pong's two ends: each path once (N round
# trips, one guest, ends pinned as bench/guest.sh pins them) with the
# scheduler's switches and wake-ups traced, then, per task that ran in
# their place, how often and for how long (from the switch away to the
# switch back, on that CPU), and the wake-ups of ksoftirqd by what woke
# it.  For reading a path's tail: a round trip that waited for another
# task is one of the slow ones.  Counts and the guest's own clock; the
# tracing slows every path, so its times are not the bench's.
#
# usage (on the host):
#   scripts/vm-run.sh -o DIR -- bench/preempt.sh [PATH...]
#   (default paths: floor mapped busy); IBTICK_VM_APPEND as bench/run.sh
#   boots (clocksource=tsc tsc=reliable idle=poll) for a like-for-like look.
# Writes DIR/preempt-PATH.txt (the trace) and prints the tables.
set -euo pipefail
[[ ${IBTICK_GUEST:-} == 1 ]] || { echo "bench/preempt.sh runs in the guest (scripts/vm-run.sh -- bench/preempt.sh)" >&2; exit 2; }
N=${N:-5000}
P=user/tools/ibtick-perf
T=/sys/kernel/tracing
export PATH="$PWD/user/preload:$PWD/user/ibtick:$PATH"
(($# > 0)) || set -- floor mapped busy
lsmod | grep -q '^ibtick ' || insmod kmod/ibtick.ko
[[ -d $T/events ]] || mount -t tracefs nodev "$T"
echo 16384 >"$T/buffer_size_kb"
echo 'stacktrace if comm ~ "ksoftirqd*"' >"$T/events/sched/sched_wakeup/trigger"
echo 1 >"$T/events/sched/sched_switch/enable"
echo 1 >"$T/events/sched/sched_wakeup/enable"
trap 'echo 0 >"$T/events/enable"; echo "!stacktrace" >"$T/events/sched/sched_wakeup/trigger" || true' EXIT
for k in "$@"; do
	echo >"$T/trace"
	"$P" lat -j -k "$k" -n "$N" -w 1000 -c 1 -C 0 -L veth1 -I veth0 --busy-us 20000 \
		239.9.0.1 7900 >"$RESULTS/preempt-$k.json"
	cp "$T/trace" "$RESULTS/preempt-$k.txt"
	python3 - "$RESULTS/preempt-$k.txt" "$k" "$N" <<'PY'
import collections, re, sys
path, kind, n = sys.argv[1], sys.argv[2], int(sys.argv[3]) + 1000
away, durs = {}, collections.defaultdict(list)
woke = collections.Counter()
rec = re.compile(r'\[(\d+)\]\s+\S+\s+(\d+\.\d+): (\w+): (.*)')
lines = open(path).read().split('\n')
for i, l in enumerate(lines):
    m = rec.search(l)
    if not m:
        continue
    cpu, ts, ev, rest = int(m[1]), float(m[2]), m[3], m[4]
    if ev == 'sched_switch':
        prev = re.search(r'prev_comm=(.*?) prev_pid', rest)[1]
        nxt = re.search(r'next_comm=(.*?) next_pid', rest)[1]
        if prev == 'ibtick-perf' or prev.startswith('ib_send_lat'):
            away[cpu] = (ts, nxt)
        elif cpu in away and (nxt == 'ibtick-perf' or nxt.startswith('ib_send_lat')):
            t0, who = away.pop(cpu)
            durs[re.sub(r'\d+$', 'N', who)].append((ts - t0) * 1e6)
    elif ev == 'sched_wakeup' and 'comm=ksoftirqd' in rest:
        # the stack the trigger wrote after it: the first frame of ours
        # or the first past the scheduler's own names
        frames = []
        for s in lines[i + 1:i + 40]:
            s = s.strip()
            if s.startswith('=>'):
                frames.append(s[3:].split('+')[0])
            elif frames:
                break
        skip = ('trace_', '__traceiter_', 'ttwu', 'try_to_wake_up', 'wakeup_softirqd', 'raise_softirq',
                '__raise', 'handle_softirqs', 'do_softirq', '__do_softirq', '__local_bh_enable_ip', 'irq_exit',
                '__irq_exit_rcu', 'swake_up', '__tasklet_schedule', 'tasklet_schedule')
        where = next((f for f in frames if not f.startswith(skip)), '?')
        woke[where] += 1
print(f"== {kind}: {n} round trips traced")
print("  in the ends' place          times  per 1000 RT  median us  max us")
for who, v in sorted(durs.items(), key=lambda x: -len(x[1])):
    v.sort()
    print(f"  {who:26s} {len(v):6d} {1000 * len(v) / n:12.2f} {v[len(v) // 2]:10.1f} {v[-1]:7.0f}")
print("  ksoftirqd woken from            times  per 1000 RT")
for where, c in woke.most_common(8):
    print(f"  {where:32s} {c:5d} {1000 * c / n:12.2f}")
PY
done
