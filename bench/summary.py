#!/usr/bin/env python3
"""Summarise a bench/run.sh result directory as Markdown (stdout), and the
ping-pong rounds with their intervals and counts as DIR/summary.json.

usage: bench/summary.py DIR      (BOOT=1000 bootstrap draws)
"""
import gzip
import json
import os
import random
import sys
from pathlib import Path

# bootstrap draws for the confidence intervals (BOOT in the environment)
BOOT = int(os.environ.get('BOOT', '1000'))

PATHS = {
    # path: (title, class)
    'floor': ('ib_send_lat -c UD (the verbs floor)', 'spin'),
    'mapped': ('ibtick mapped ring, spinning reader', 'spin'),
    'busy': ('ibtick recvmsg + SO_BUSY_POLL', 'spin'),
    'kpoll': ('ibtick epoll reader + busy-poll thread', 'spin'),
    'udp-spin': ('sockperf UDP multicast, --nonblocked spin', 'spin'),
    'recvmsg': ('ibtick recvmsg, blocking', 'sleep'),
    'epoll': ('ibtick mapped ring + epoll', 'sleep'),
    'udp': ('sockperf UDP multicast, blocking', 'sleep'),
    # the same sockperf, unmodified, under ibtick-run: its group over feeds
    'run-spin': ('sockperf under ibtick-run, --nonblocked spin', 'spin'),
    'run': ('sockperf under ibtick-run, blocking', 'sleep'),
}

# what a row under ibtick-run is held against: ibtick's own socket path of
# its class (a spinning reader in the kernel, a blocking recvmsg)
NATIVE = {'run-spin': 'busy', 'run': 'recvmsg'}


def lines(path):
    p = Path(path)
    if not p.exists():
        return []
    return [json.loads(x) for x in p.read_text().splitlines() if x.startswith('{')]


def ratio(x):
    return '—' if x is None else f'{x:.2f}'


def met(x, limit):
    """x <= limit, where a missing measurement (None, 0) is never met."""
    return x is not None and 0 < x <= limit


def f2(x):
    return '—' if x is None or x < 0 else f'{x:.2f}'


def median(xs):
    """The median of sorted @xs as latstats' t_typical (mean of the middle two)."""
    n = len(xs)
    if not n:
        return None
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def pct(xs, p):
    """Nearest-rank percentile @p of sorted @xs, as latstats."""
    n = len(xs)
    if not n:
        return None
    k = -(-p * n // 100)  # ceil
    return xs[min(max(int(k) - 1, 0), n - 1)]


def load_raw(d, r, path):
    f = d / 'raw' / f'r{r}-{path}.txt.gz'
    if not f.exists():
        f = d / 'raw' / f'r{r}-{path}.txt'
        if not f.exists():
            return None
        return sorted(int(x) for x in f.read_text().split())
    with gzip.open(f, 'rt') as fh:
        return sorted(int(x) for x in fh.read().split())


def stats_of(rounds):
    """Median of round medians and pooled percentiles (ns) of @rounds (sorted lists)."""
    pooled = sorted(x for r in rounds for x in r)
    return {
        'median': median(sorted(median(r) for r in rounds)),
        'p99': pct(pooled, 99), 'p99.9': pct(pooled, 99.9), 'max': pooled[-1],
    }


def resample(rng, rounds, idx):
    """The rounds @idx, each resampled (with replacement), sorted."""
    out = []
    for i in idx:
        r = rounds[i]
        out.append(sorted(rng.choices(r, k=len(r))))
    return out


def bootstrap(rng, paths, base):
    """
    95 % intervals of each path's ratios to @base: per draw, the same rounds
    (with replacement) for every path, then samples within each chosen round.
    """
    rounds = len(paths[base])
    draws = {p: {'median': [], 'p99.9': [], 'p99': []} for p in paths}
    for _ in range(BOOT):
        idx = [rng.randrange(rounds) for _ in range(rounds)]
        b = stats_of(resample(rng, paths[base], idx))
        for p, rs in paths.items():
            if p == base:
                continue
            st = stats_of(resample(rng, rs, idx))
            for k in draws[p]:
                draws[p][k].append(st[k] / b[k])
    ci = {}
    for p, dk in draws.items():
        ci[p] = {}
        for k, v in dk.items():
            v.sort()
            ci[p][k] = (v[int(0.025 * len(v))], v[min(int(0.975 * len(v)), len(v) - 1)]) if v else None
    return ci


def ci_str(x, c):
    if x is None:
        return '—'
    if not c:
        return f'{x:.2f}'
    return f'{x:.2f} [{c[0]:.2f}, {c[1]:.2f}]'


def pingpong(d, w, goals):
    rows = lines(d / 'rounds.json')
    if not rows:
        return
    head = rows[0]
    nr = head['rounds']
    names = [p for p in head['paths'].split()]
    # a round without the floor's samples has nothing to divide by: it is
    # left out; so is a path without samples in one of the rounds kept
    kept = [r for r in range(1, nr + 1) if load_raw(d, r, 'floor')]
    if not kept:
        w("## Ping-pong\n\nNo floor samples: no ratios.\n")
        return
    paths = {}
    short = []
    for p in names:
        rs = [load_raw(d, r, p) for r in kept]
        if any(not r for r in rs):
            short.append(p)
            continue
        paths[p] = rs
    if len(kept) < nr:
        short.append(f"round(s) {', '.join(str(r) for r in range(1, nr + 1) if r not in kept)} (no floor)")
    nr = len(kept)
    st = {p: stats_of(rs) for p, rs in paths.items()}
    rng = random.Random(head['seed'])
    ci = bootstrap(rng, paths, 'floor')
    # the same in JSON, beside the counts (summary.json)
    counted = {x['kind']: x for x in lines(d / 'counts.json') if 'per_rt' in x}
    out = {'rounds': nr, 'n': head['n'], 'seed': head['seed'], 'boot': BOOT, 'paths': {}}
    for p in names:
        if p not in st:
            continue
        e = {'class': PATHS.get(p, ('', ''))[1], 'samples': sum(len(r) for r in paths[p]),
             'round_medians_us': [median(r) / 1e3 for r in paths[p]]}
        for k in ('median', 'p99', 'p99.9', 'max'):
            e[f'{k}_us'] = st[p][k] / 1e3
            e[f'{k}_ratio'] = st[p][k] / st['floor'][k]
            if ci.get(p, {}).get(k):
                e[f'{k}_ratio_ci95'] = list(ci[p][k])
        if p in counted:
            e['per_rt'] = counted[p]['per_rt']
            if 'feed_a' in counted[p]:
                e['feed_a'] = counted[p]['feed_a']
        out['paths'][p] = e
    (d / 'summary.json').write_text(json.dumps(out, indent=1) + '\n')
    fl = st['floor']
    n_of = {p: sum(len(r) for r in rs) for p, rs in paths.items()}
    orders = [x for x in rows if 'order' in x]
    w(f"## Ping-pong, 64 B, half round trip\n")
    w(f"{nr} round{'s' if nr != 1 else ''} in one boot; in each round every path ran once, {head['n']} samples after "
      f"{head['warm']} warm-up round trips, the paths in a random order (seed {head['seed']}; the orders "
      f"are in `rounds.json`). Both ends of every path are pinned the same way: the pinging side on vCPU 1, "
      f"the answering side (echo, server) on vCPU 0.\n")
    w("**median** is the median of the round medians; **p99**, **p99.9** and **max** are over all rounds' samples "
      "pooled. Each ratio is to the verbs floor (`ib_send_lat -c UD`, same boot, same rounds) with a bootstrap "
      f"95 % interval ({BOOT} draws): each draw picks {nr} rounds with replacement, the same rounds for the "
      "path and the floor (they ran interleaved, so a slow stretch of the machine is shared and cancels in the "
      "ratio), then resamples the samples within each picked round. Rounds are resampled because they are the "
      "independent repetitions: samples within a round share the state of the machine at that time, and "
      "resampling samples alone would make the interval too narrow. With few rounds the interval is coarse.\n")
    w("**class**: *spin* rows keep a CPU busy while waiting for the answer (the floor polls its CQ; the mapped "
      "reader spins on the ring; SO_BUSY_POLL spins in the kernel; the busy-poll thread spins for the feed while "
      "the reader sleeps; sockperf --nonblocked spins on recvfrom). *sleep* rows block until woken. Compare "
      "spin with spin and sleep with sleep: **× sockperf** is the median ratio to sockperf of the same class.\n")
    w("| path | class | samples | median µs | × floor median | p99 × floor | p99.9 µs | × floor p99.9 | max µs | × sockperf |")
    w("|---|---|---|---|---|---|---|---|---|---|")
    for cls in ('spin', 'sleep'):
        ref = 'udp-spin' if cls == 'spin' else 'udp'
        for p in names:
            if p not in st or PATHS.get(p, ('', ''))[1] != cls:
                continue
            s_ = st[p]
            c = ci.get(p, {})
            med_r = s_['median'] / fl['median']
            p99_r = s_['p99'] / fl['p99']
            p999_r = s_['p99.9'] / fl['p99.9']
            vs = f"{s_['median'] / st[ref]['median']:.2f}" if ref in st and p != ref else '—'
            w(f"| {PATHS[p][0]} | {cls} | {n_of[p]} | {s_['median'] / 1e3:.2f} | "
              f"{ci_str(med_r, c.get('median')) if p != 'floor' else '1'} | "
              f"{ci_str(p99_r, c.get('p99')) if p != 'floor' else '1'} | {s_['p99.9'] / 1e3:.2f} | "
              f"{ci_str(p999_r, c.get('p99.9')) if p != 'floor' else '1'} | {s_['max'] / 1e3:.2f} | {vs} |")
    w("")
    w("The same, with each round's median, the intervals and the counts below, is in `summary.json`.\n")
    if short:
        w(f"Left out (a round without samples): {', '.join(short)}.\n")
    svgs = [p for p in names if (d / f'lat-{p}.svg').exists()]
    if svgs:
        w("Histograms of the last round: " + ", ".join(f"[{p}](lat-{p}.svg)" for p in svgs) + ".\n")

    def goal(what, p, key, limit):
        if p not in ci or not ci[p].get(key):
            return
        r = st[p][key] / fl[key]
        hi = ci[p][key][1]
        goals.append((f"{what} ≤ {limit} × floor (upper bound of the 95 % interval)", r, hi, hi <= limit))
    goal("mapped ring, spinning: median", 'mapped', 'median', 1.10)
    goal("mapped ring, spinning: p99.9", 'mapped', 'p99.9', 1.5)
    goal("recvmsg + SO_BUSY_POLL: median", 'busy', 'median', 1.3)
    goal("blocking recvmsg: median", 'recvmsg', 'median', 2.5)
    goal("epoll: median", 'epoll', 'median', 2.5)
    # the preload library adds almost nothing to the socket path under it
    for p, base in NATIVE.items():
        if p not in paths or base not in paths:
            continue
        c2 = bootstrap(rng, {p: paths[p], base: paths[base]}, base)
        r = st[p]['median'] / st[base]['median']
        hi = c2[p]['median'][1] if c2[p].get('median') else r
        goals.append((f"{PATHS[p][0]}: median ≤ 1.1 × {PATHS[base][0]} (upper bound of the 95 % interval)",
                      r, hi, hi <= 1.1))


def counts_section(d, w, goals):
    rows = [x for x in lines(d / 'counts.json') if 'per_rt' in x]
    if not rows:
        return
    by = {r['kind']: r['per_rt'] for r in rows}
    if 'mapped' in by:
        # each host reads one direction of the ping-pong: one delivery each
        c = by['mapped']
        worst = max(c['qp_deliveries_a'], c['qp_deliveries_b'])
        goals.append(("QP deliveries per round trip on each host = 1 (mapped; the most of the two)", worst, None,
                      abs(c['qp_deliveries_a'] - 1) < 0.01 and abs(c['qp_deliveries_b'] - 1) < 0.01))
    feed = {r['kind']: r['feed_a'] for r in rows if 'feed_a' in r}
    for k, what in (('busy', 'SO_BUSY_POLL caller'), ('kpoll', 'busy-poll thread')):
        if k in feed:
            ev = feed[k]['cq_events']
            goals.append((f"CQ events per tick on the reading feed while a {what} owns its CQ = 0", ev, None,
                          ev < 0.01))
    n = rows[0]['per_rt']['round_trips']
    w("## Kernel work per round trip\n")
    w(f"Counted in a run of its own after the timed rounds (about {n:.0f} round trips per path; tracing slows "
      "every path, so these runs' times are not used). Counts do not depend on the emulated CPU's speed. "
      "Side a is the pinging side (rxe1, vCPU 1), side b the answering side (rxe0, vCPU 0).\n")
    w("| path | syscalls a | syscalls b | QP deliveries a | QP deliveries b | CQ events | CQ arms | NET_RX | IRQ_POLL | TASKLET | allocations |")
    w("|---|---|---|---|---|---|---|---|---|---|---|")

    def f(v):
        return '—' if v is None else f'{v:.2f}'
    for r in rows:
        c = r['per_rt']
        sq = c.get('softirqs', {})
        w(f"| {PATHS.get(r['kind'], (r['kind'],))[0]} | {f(c['syscalls_a'])} | {f(c['syscalls_b'])} | "
          f"{f(c['qp_deliveries_a'])} | {f(c['qp_deliveries_b'])} | {f(c['cq_events'])} | {f(c['cq_arms'])} | "
          f"{f(sq.get('NET_RX'))} | {f(sq.get('IRQ_POLL'))} | {f(sq.get('TASKLET'))} | {f(c['allocs'])} |")
    w("")
    w("- **syscalls a / b**: system calls entered on that side's vCPU (a tracefs histogram of "
      "`raw_syscalls:sys_enter` keyed by CPU; each side is pinned to its own vCPU). A spinning "
      "non-blocking receive counts every empty try.")
    w("- **QP deliveries a / b**: receives completed to a QP on that side's RDMA device (`rdma_recvs` in the "
      "port's hw_counters). The floor delivers once per hop, so 1 on each side per round trip; more means "
      "copies to QPs that do not want them.")
    w("- **CQ events**: completion events that reached ibtick's receive-CQ handler (a kprobe); **CQ arms**: "
      "calls of rxe's `req_notify_cq` by anyone (a kprobe). The floor polls and arms nothing.")
    w("- **NET_RX, IRQ_POLL, TASKLET**: softirqs run, from `/proc/softirqs`, all CPUs (rxe receives in "
      "NET_RX and completes in tasklets; ib_core's CQ polling runs in IRQ_POLL).")
    w("- **allocations**: `kmem:kmalloc` + `kmem:kmem_cache_alloc` events, all CPUs.")
    w("- ibtick rows count the timed loop (with its warm-up); the floor and sockperf count their whole "
      "process, setup included, which adds a little per round trip. `counts.json` has every softirq type "
      "and the packet counters.\n")
    fr = [r for r in rows if 'feed_a' in r]
    if fr:
        w("\nibtick's own counters of side a's reading feed (`IBTICK_STATISTICS`), per round trip: ticks written "
          "into the ring, CQ events, and completions drained in softirq context (the CQ event's own drain in "
          "rxe's tasklet, or the softirq poll), by the busy-poll thread and by SO_BUSY_POLL callers.\n")
        w("| path | ticks | CQ events | by softirq | by thread | by caller |")
        w("|---|---|---|---|---|---|")
        for r in fr:
            c = r['feed_a']
            w(f"| {PATHS.get(r['kind'], (r['kind'],))[0]} | {f(c['rx_ticks'])} | {f(c['cq_events'])} | "
              f"{f(c['cqe_irq'])} | {f(c['cqe_thread'])} | {f(c['cqe_caller'])} |")
        w("")


def main():
    d = Path(sys.argv[1])
    env = json.loads((d / 'env.json').read_text())
    out = []
    w = out.append
    w(f"# ibtick benchmark — {env['kernel']}, {env['vcpus']} vCPU ({env['cpu']}), {env['virt']}\n")
    host = {}
    if (d / 'host.json').exists():
        host = json.loads((d / 'host.json').read_text())
    boot = ' '.join(env.get('cmdline_clock') or []) or "the kernel's own choice"
    load = ' '.join(host.get('host_loadavg_before') or ['?'])
    w(f"Guest clocksource: **{env.get('clocksource', 'not recorded')}** (boot: {boot}); "
      f"host: {host.get('host_cpu', '?')}, {host.get('host_cpus', '?')} CPUs, load {load} before the run; "
      f"{host.get('qemu', '')}.\n")
    w("Every row was measured in the same guest boot on the same Soft-RoCE pair (rxe1 ↔ rxe0 over a veth pair). "
      "Under QEMU TCG absolute times are inflated many times and drift with the host's load; "
      "the **ratios to the floor**, measured interleaved, are the result.\n")

    goals = []
    pingpong(d, w, goals)
    counts_section(d, w, goals)

    ow = lines(d / 'oneway.json')
    if len(ow) > 1:
        o = ow[1]
        w("## One way, mapped reader, publisher probes at 5000/s (µs)\n")
        w(f"{o['n_iterations']} samples: median {f2(o['t_typical'])}, 99% {f2(o['percentile_99'])}, "
          f"99.9% {f2(o['percentile_99.9'])}, max {f2(o['t_max'])}. Stages from the kernel's own stamps: "
          f"send → receiving kernel's completion median {f2(o['wire_median'])} (99.9% {f2(o['wire_p99.9'])}); "
          f"completion → reader median {f2(o['deliver_median'])} (99.9% {f2(o['deliver_p99.9'])}). "
          f"Published {o['published']}; the feed took {o['feed_rx']} (lost on the wire {o['lost_wire']}) = "
          f"delivered {o['delivered']} + lost in the ring {o['lost_ring']}.\n")

    rate = [x for x in lines(d / 'rate.json')[1:] if not x.get('total')]
    rate_total = [x for x in lines(d / 'rate.json') if x.get('total')]
    bw = None
    bwt = d / 'bw.txt'
    if bwt.exists():
        txt = bwt.read_text().splitlines()
        for i, ln in enumerate(txt):
            if '#bytes' in ln and i + 1 < len(txt):
                nums = txt[i + 1].split()
                if len(nums) >= 5:
                    bw = float(nums[4]) * 1e6
    if rate:
        w("## Publish rate and loss, 64 B\n")
        w("| offered /s | sent | achieved /s | delivered | lost in ring | lost on wire | loss % |")
        w("|---|---|---|---|---|---|---|")
        for r in rate:
            w(f"| {r['offered'] or 'max'} | {r['sent']} | {r['achieved']:.0f} | {r['delivered']} | {r['lost_ring']} | "
              f"{r['lost_wire']} | {r['loss_pct']:.3f} |")
        w("")
        if rate_total:
            t = rate_total[0]
            w(f"In all: sent {t['sent']}; the feed took {t['feed_rx']} (lost on the wire {t['lost_wire']}) = "
              f"delivered {t['delivered']} + lost in the ring {t['lost_ring']}.\n")
        top = max(r['achieved'] for r in rate)
        flat = [r['achieved'] for r in rate if not r['offered']]
        if bw:
            w(f"`ib_send_bw -c UD -s 64` on the same pair: {bw:.0f} messages/s; ibtick flat out "
              f"{flat[0] if flat else 0:.0f}/s = {(flat[0] if flat else 0) / bw:.2f} × that; its best step "
              f"{top:.0f}/s = {top / bw:.2f} × that.\n")
            if flat:
                goals.append(("publish rate, flat out ≥ 0.9 × ib_send_bw -c UD", flat[0] / bw, None,
                              flat[0] >= 0.9 * bw))
        else:
            w("`ib_send_bw -c UD -s 64` gave no usable message rate in this run (see `bw.txt`): no ratio.\n")
            goals.append(("publish rate, flat out ≥ 0.9 × ib_send_bw -c UD", None, None, False))
            half = [r for r in rate if r['offered'] and r['offered'] <= bw / 2]
            if half:
                worst = max(half, key=lambda r: r['offered'])
                goals.append((f"zero loss at ≤ half that rate (offered {worst['offered']}/s)",
                              worst['loss_pct'], None, worst['loss_pct'] == 0))

    for kind in ('epoll', 'recvmsg', 'mapped'):
        fo = lines(d / f'fanout-{kind}.json')[1:]
        if not fo:
            continue
        w(f"## Fan-out, {kind} readers (sleeping), {fo[0]['published']} probes at 2000/s\n")
        w("One publisher on rxe1; 1 to 16 reader processes on one feed on rxe0, each sleeping until a tick "
          "comes (more spinning readers than the 2 vCPUs would measure the scheduler).\n")
        w("- **kernel ns/tick**: the feed's receive work (from the first completion of a CQ drain to its end: ring "
          "writes, receive reposts, wake-ups) divided by the ticks written, from `IBTICK_STATISTICS`. It is paid "
          "once per tick whatever the number of readers, except the wake-ups.")
        w("- **× 1 reader**: that cost against one reader's: what each further reader adds in the kernel.")
        w("- **median, 99.9 %**: one-way latency, publisher's send to a reader's read, over every reader's "
          "samples; with sleeping readers it includes waking each of them.")
        w("- **delivered, lost**: ticks the readers read in all, and ticks they lost (lapped in the ring).\n")
        w("| readers | kernel ns/tick | × 1 reader | median µs | 99.9% µs | delivered | lost |")
        w("|---|---|---|---|---|---|---|")
        for r in fo:
            w(f"| {r['readers']} | {r['kernel_ns_per_tick']:.0f} | {ratio(r['ratio'])} | {f2(r['t_typical'])} | "
              f"{f2(r['percentile_99.9'])} | {r['delivered']} | {r['lost']} |")
        w("")
        last = fo[-1]
        goals.append((f"fan-out kernel cost, {last['readers']} {kind} readers ≤ 1.2 × 1", last['ratio'], None,
                      met(last['ratio'], 1.2)))

    if goals:
        w("## Targets\n")
        w("Each target is checked against what this run measured; under TCG that says how the paths compare here, "
          "not what they would do on hardware. A latency ratio counts as met only when the upper bound of its "
          "95 % interval is below the target.\n")
        w("| target | measured | upper bound | met |")
        w("|---|---|---|---|")
        for g, v, hi, ok in goals:
            w(f"| {g} | {ratio(v)} | {ratio(hi)} | {'yes' if ok else '**no**'} |")
        w("")
    w("## Environment\n")
    w("```")
    w(json.dumps(env, indent=1))
    w("```")
    print("\n".join(out))


if __name__ == '__main__':
    main()
