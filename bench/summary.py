#!/usr/bin/env python3
"""Summarise a bench/run.sh result directory as Markdown (stdout), and the
ping-pong rounds with their intervals and counts as DIR/summary.json (the
arbitrated feed's under "arb").

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
# the rate target is judged on no fewer rounds than this
RATE_MIN_ROUNDS = 5

PATHS = {
    # path: (title, class)
    'floor': ('ib_send_lat -c UD (the verbs floor)', 'spin'),
    'mapped': ('ibtick mapped ring, spinning reader', 'spin'),
    'busy': ('ibtick recvmsg + SO_BUSY_POLL', 'spin'),
    'busy-prefer': ('ibtick recvmsg + SO_BUSY_POLL + SO_PREFER_BUSY_POLL', 'spin'),
    'kpoll': ('ibtick epoll reader + busy-poll thread', 'spin'),
    'udp-spin': ('sockperf UDP multicast, --nonblocked spin', 'spin'),
    'recvmsg': ('ibtick recvmsg, blocking', 'sleep'),
    'epoll': ('ibtick mapped ring + epoll', 'sleep'),
    'udp': ('sockperf UDP multicast, blocking', 'sleep'),
    # the same sockperf, unmodified, under ibtick-run: its group over feeds
    'run-spin': ('sockperf under ibtick-run, --nonblocked spin', 'spin'),
    'run': ('sockperf under ibtick-run, blocking', 'sleep'),
    # ibtick's own socket paths laid out as sockperf's ping-pong: one group
    # both ways, so each host's QP also gets its own sends (loopback, not read)
    'spin-1g': ('ibtick recvmsg(MSG_DONTWAIT) + SO_BUSY_POLL spin, one group both ways', 'spin'),
    'recvmsg-1g': ('ibtick recvmsg, blocking, one group both ways', 'sleep'),
    # udppp: ibtick-perf's own AF_INET ping-pong, laid out as sockperf's
    'inet-spin': ('udppp (AF_INET ping-pong of ours), kernel UDP, O_NONBLOCK spin', 'spin'),
    'inet': ('udppp (AF_INET ping-pong of ours), kernel UDP, blocking', 'sleep'),
    'inet-run-spin': ('udppp under ibtick-run, O_NONBLOCK spin', 'spin'),
    'inet-run': ('udppp under ibtick-run, blocking', 'sleep'),
    # the spinning one-group paths without busy polling (--busy-us 0): the
    # reads take what the CQ event brings; under ibtick-run the library
    # takes it from the mapped rings, with no system call
    'spin-1g-ev': ('ibtick recvmsg(MSG_DONTWAIT) spin without SO_BUSY_POLL, one group both ways', 'spin'),
    'inet-run-spin-ev': ('udppp under ibtick-run, O_NONBLOCK spin without busy polling (mapped rings)', 'spin'),
    'run-spin-ev': ('sockperf under ibtick-run, --nonblocked spin without busy polling (mapped rings)', 'spin'),
}

# what a row under ibtick-run is held against: ibtick's own socket path of
# its class laid out the same way (one group both ways), where the run has
# it; else the path of its class with a group each way (runs before the
# one-group paths existed)
NATIVE = {'run-spin': ('spin-1g', 'busy'), 'run': ('recvmsg-1g', 'recvmsg'),
          'inet-run-spin': ('spin-1g',), 'inet-run': ('recvmsg-1g',),
          'run-spin-ev': ('spin-1g-ev',), 'inet-run-spin-ev': ('spin-1g-ev',)}

# "What ibtick-run adds": (numerator, denominator, what the ratio shows)
RUN_PARTS = [
    ('run-spin', 'spin-1g', 'sockperf under ibtick-run against ibtick\'s own socket, same layout: the library and '
     'sockperf\'s own loop'),
    ('inet-run-spin', 'spin-1g', 'the library alone: the same loop (udppp), under ibtick-run against native'),
    ('run-spin', 'inet-run-spin', 'sockperf\'s loop against udppp\'s, both under ibtick-run'),
    ('udp-spin', 'inet-spin', 'sockperf\'s loop against udppp\'s, both on kernel UDP'),
    ('spin-1g', 'busy', 'one group both ways and a MSG_DONTWAIT spin, against a group each way and a spin in the '
     'kernel (SO_BUSY_POLL)'),
    ('run', 'recvmsg-1g', 'sockperf under ibtick-run against ibtick\'s own socket, same layout: the library and '
     'sockperf\'s own loop'),
    ('inet-run', 'recvmsg-1g', 'the library alone: the same loop (udppp), under ibtick-run against native'),
    ('run', 'inet-run', 'sockperf\'s loop against udppp\'s, both under ibtick-run'),
    ('udp', 'inet', 'sockperf\'s loop against udppp\'s, both on kernel UDP'),
    ('recvmsg-1g', 'recvmsg', 'one group both ways against a group each way: each host\'s QP gets its own sends too'),
    ('inet-run-spin-ev', 'spin-1g-ev', 'the library alone, spinning without busy polling: ticks from the mapped rings '
     'against native recvmsg(MSG_DONTWAIT)'),
    ('run-spin-ev', 'spin-1g-ev', 'sockperf under ibtick-run against ibtick\'s own socket, both spinning without '
     'busy polling'),
    ('spin-1g-ev', 'spin-1g', 'native, spinning without busy polling against with it'),
]


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


def load_raw(d, r, path, prefix=''):
    f = d / 'raw' / f'{prefix}r{r}-{path}.txt.gz'
    if not f.exists():
        f = d / 'raw' / f'{prefix}r{r}-{path}.txt'
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


def _order_median(rng, r):
    """
    The median of one resample (n draws with replacement) of sorted @r,
    drawn without drawing the resample: the k-th smallest of n uniform
    indices is n * Beta(k, n + 1 - k), and the next one lies above it as the
    smallest of the n - k uniforms left.
    """
    n = len(r)
    k = (n + 1) // 2
    u = rng.betavariate(k, n + 1 - k)
    a = r[min(int(n * u), n - 1)]
    if n % 2:
        return a
    u2 = u + (1 - u) * (1 - rng.random() ** (1 / (n - k)))
    return (a + r[min(int(n * u2), n - 1)]) / 2


def _order_top(rng, rounds, idx, ranks):
    """
    The values at descending @ranks (1 = largest) of the pooled resample of
    the rounds @idx: a round chosen m times contributes m * n draws from it,
    and the largest of M uniforms come one after another, each the one
    before times V ** (1 / remaining) (in logs).  The rounds' descending
    streams are merged with a heap, as far as the deepest rank.
    """
    import heapq
    import math
    mult = {}
    for i in idx:
        mult[i] = mult.get(i, 0) + 1
    heap, out, want = [], {}, sorted(set(ranks))
    state = {}
    for i, m in mult.items():
        r = rounds[i]
        big = m * len(r)
        lg = -rng.expovariate(1.0) / big
        state[i] = [lg, big - 1]
        heapq.heappush(heap, (-r[min(int(len(r) * math.exp(lg)), len(r) - 1)], i))
    rank = 0
    while heap and want:
        v, i = heapq.heappop(heap)
        rank += 1
        if rank == want[0]:
            out[rank] = -v
            want.pop(0)
        st = state[i]
        if st[1] <= 0:
            continue
        st[0] -= rng.expovariate(1.0) / st[1]
        st[1] -= 1
        r = rounds[i]
        heapq.heappush(heap, (-r[min(int(len(r) * math.exp(st[0])), len(r) - 1)], i))
    return out


def boot_stats(rng, rounds, idx):
    """
    stats_of(resample(rng, rounds, idx)) without 'max', drawn from the same
    distribution from order statistics alone: per draw a few thousand steps
    instead of sorting every resampled sample.
    """
    meds = sorted(_order_median(rng, rounds[i]) for i in idx)
    total = sum(len(rounds[i]) for i in idx)
    rank = {p: total - int(-(-p * total // 100)) + 1 for p in (99, 99.9)}
    top = _order_top(rng, rounds, idx, list(rank.values()))
    return {'median': median(meds), 'p99': top[rank[99]], 'p99.9': top[rank[99.9]]}


def bootstrap(rng, paths, base):
    """
    95 % intervals of each path's ratios to @base: per draw, the same rounds
    (with replacement) for every path, then samples within each chosen round.
    """
    rounds = len(paths[base])
    draws = {p: {'median': [], 'p99.9': [], 'p99': []} for p in paths}
    for _ in range(BOOT):
        idx = [rng.randrange(rounds) for _ in range(rounds)]
        b = boot_stats(rng, paths[base], idx)
        for p, rs in paths.items():
            if p == base:
                continue
            st = boot_stats(rng, rs, idx)
            for k in draws[p]:
                draws[p][k].append(st[k] / b[k])
    ci = {}
    for p, dk in draws.items():
        ci[p] = {}
        for k, v in dk.items():
            v.sort()
            ci[p][k] = (v[int(0.025 * len(v))], v[min(int(0.975 * len(v)), len(v) - 1)]) if v else None
    return ci


def paired_ratio(rng, a, b):
    """
    The median over rounds of each round's median ratio, path @a to path
    @b (lists of sorted rounds, round i of each run next to the other's),
    and its bootstrap 95 % interval: per draw the rounds with replacement,
    each round's two medians drawn as from a resample of its samples.  For
    paths run in pairs: a change of the emulator's speed between pairs
    moves both of a pair, and cancels in its ratio, where the ratio of two
    medians of round medians can take them from different speeds.
    """
    n = len(b)
    point = median(sorted(median(a[i]) / median(b[i]) for i in range(n)))
    draws = []
    for _ in range(BOOT):
        idx = [rng.randrange(n) for _ in range(n)]
        draws.append(median(sorted(_order_median(rng, a[i]) / _order_median(rng, b[i])
                                   for i in idx)))
    draws.sort()
    return point, (draws[int(0.025 * len(draws))], draws[min(int(0.975 * len(draws)), len(draws) - 1)])


def ci_str(x, c):
    if x is None:
        return '—'
    if not c:
        return f'{x:.2f}'
    return f'{x:.2f} [{c[0]:.2f}, {c[1]:.2f}]'


# how each topology's rows were pinned, and what its targets are called
PIN = {
    'single': "Both ends of every path are pinned the same way: the pinging side on vCPU 1, the answering side "
              "(echo, server) on vCPU 0.",
    'pair': "The pinging side runs in one guest and the answering side (echo, server) in the other, each on "
            "its guest's only vCPU: two kernels, two rxe devices, a virtual cable between them.",
}
PREFIX = {'single': '', 'pair': 'two guests: '}


def pingpong(d, w, goals, topo='single'):
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
        w(f"## {PREFIX[topo].capitalize()}Ping-pong\n\nNo floor samples: no ratios.\n")
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
    # paired: each round's median over the floor's of the same round
    pci = {p: paired_ratio(rng, paths[p], paths['floor']) for p in paths if p != 'floor'}
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
        if p in pci:
            e['median_ratio_paired'] = pci[p][0]
            e['median_ratio_paired_ci95'] = list(pci[p][1])
        if p in counted:
            e['per_rt'] = counted[p]['per_rt']
            if 'feed_a' in counted[p]:
                e['feed_a'] = counted[p]['feed_a']
        out['paths'][p] = e
    (d / 'summary.json').write_text(json.dumps(out, indent=1) + '\n')
    fl = st['floor']
    n_of = {p: sum(len(r) for r in rs) for p, rs in paths.items()}
    orders = [x for x in rows if 'order' in x]
    w(f"## {PREFIX[topo].capitalize()}Ping-pong, 64 B, half round trip\n")
    w(f"{nr} round{'s' if nr != 1 else ''} in one boot; in each round every path ran once, {head['n']} samples after "
      f"{head['warm']} warm-up round trips, the paths in a random order (seed {head['seed']}; the orders "
      f"are in `rounds.json`). {PIN[topo]}\n")
    w("**median** is the median of the round medians; **p99**, **p99.9** and **max** are over all rounds' samples "
      "pooled. Each ratio is to the verbs floor (`ib_send_lat -c UD`, same boot, same rounds) with a bootstrap "
      f"95 % interval ({BOOT} draws): each draw picks {nr} rounds with replacement, the same rounds for the "
      "path and the floor (they ran interleaved, so a slow stretch of the machine is shared and cancels in the "
      "ratio), then resamples the samples within each picked round. Rounds are resampled because they are the "
      "independent repetitions: samples within a round share the state of the machine at that time, and "
      "resampling samples alone would make the interval too narrow. With few rounds the interval is coarse.\n")
    w("**paired** is the median over the rounds of each round's ratio, the path's median to the floor's median of "
      "the same round, with its bootstrap 95 % interval (the rounds drawn with replacement, each round's two "
      "medians drawn as from a resample of its samples: `paired_ratio`). The median of round medians can take "
      "the path's middle round and the floor's from two different rounds, at two speeds of the emulator; the "
      "paired ratio divides within a round first, which is what running the paths interleaved is for. The "
      "median targets below are judged on it.\n")
    w("**class**: *spin* rows keep a CPU busy while waiting for the answer (the floor polls its CQ; the mapped "
      "reader spins on the ring; SO_BUSY_POLL spins in the kernel; the busy-poll thread spins for the feed while "
      "the reader sleeps; sockperf --nonblocked spins on recvfrom). *sleep* rows block until woken. Compare "
      "spin with spin and sleep with sleep: **× sockperf** is the median ratio to sockperf of the same class.\n")
    pd = head.get('prefer_defer_us', -1)
    if 'busy-prefer' in names:
        w(f"**SO_PREFER_BUSY_POLL** readers leave the CQ event off for a while after each call; the busy-prefer "
          + (f"path read feeds with `prefer-defer {pd}` µs (`ibtick-perf --prefer-defer`, ibtick-feed(8)), as "
             "NAPI's gro_flush_timeout is set for such readers: the deferral has to outlast the time between "
             "a reader's calls, hundreds of µs under TCG, a few on a host."
             if pd >= 0 else "path read feeds with the default deferral (200 µs).") + "\n")
    w("| path | class | samples | median µs | × floor median | paired | p99 × floor | p99.9 µs | × floor p99.9 | "
      "max µs | × sockperf |")
    w("|---|---|---|---|---|---|---|---|---|---|---|")
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
              f"{ci_str(*pci[p]) if p in pci else '1'} | "
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
        how = 'upper bound of the 95 % interval'
        if key == 'median':
            r, hi = pci[p][0], pci[p][1][1]
            how = 'paired; ' + how
        goals.append((f"{PREFIX[topo]}{what} ≤ {limit} × floor ({how})", r, hi, hi <= limit))
    goal("mapped ring, spinning: median", 'mapped', 'median', 1.10)
    goal("mapped ring, spinning: p99.9", 'mapped', 'p99.9', 1.5)
    goal("recvmsg + SO_BUSY_POLL: median", 'busy', 'median', 1.3)
    goal("recvmsg + SO_BUSY_POLL + SO_PREFER_BUSY_POLL: median", 'busy-prefer', 'median', 1.3)
    goal("blocking recvmsg: median", 'recvmsg', 'median', 2.5)
    goal("epoll: median", 'epoll', 'median', 2.5)
    # the preload library adds almost nothing to the socket path under it
    for p, bases in NATIVE.items():
        base = next((b for b in bases if b in paths), None)
        if p not in paths or base is None:
            continue
        r, c2 = paired_ratio(rng, paths[p], paths[base])
        goals.append((f"{PREFIX[topo]}{PATHS[p][0]}: median ≤ 1.1 × {PATHS[base][0]} (paired; upper bound of the "
                      "95 % interval)", r, c2[1], c2[1] <= 1.1))
    run_parts(w, rng, paths, st, topo)


def run_parts(w, rng, paths, st, topo):
    """What ibtick-run adds, split into its parts (RUN_PARTS), where the run
    has the one-group paths."""
    rows = [(a, b, why) for a, b, why in RUN_PARTS if a in paths and b in paths]
    if not any(b in ('spin-1g', 'recvmsg-1g') for _, b, _ in rows):
        return
    w(f"### {PREFIX[topo].capitalize()}What ibtick-run adds\n")
    w("sockperf's ping-pong uses one multicast group both ways, so each host's feed is a member of the group it "
      "sends to and its queue pair receives its own sends as well (2 QP deliveries per round trip on each host; "
      "ibtick drops the copy as loopback, as `IP_MULTICAST_LOOP` 0 asks). The `-1g` paths are ibtick's own "
      "socket laid out the same way; `udppp` is ibtick-perf's own AF_INET ping-pong (no ibtick header, "
      "`user/bench/udppp.c`), the same loop on kernel UDP and under ibtick-run. Each ratio: medians, paired "
      "medians, and p99.9 pooled, with the bootstrap 95 % interval over the rounds, as above.\n")
    w("| ratio | what it shows | median [95 %] | paired [95 %] | p99.9 [95 %] |")
    w("|---|---|---|---|---|")
    for a, b, why in rows:
        c = bootstrap(rng, {a: paths[a], b: paths[b]}, b)[a]
        w(f"| {a} / {b} | {why} | {ci_str(st[a]['median'] / st[b]['median'], c.get('median'))} | "
          f"{ci_str(*paired_ratio(rng, paths[a], paths[b]))} | "
          f"{ci_str(st[a]['p99.9'] / st[b]['p99.9'], c.get('p99.9'))} |")
    w("")


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
    # SO_BUSY_POLL alone re-arms the event as each call ends (by design:
    # the default); with SO_PREFER_BUSY_POLL the event stays off between
    # the calls, and that is where the goal is meant to be met
    for k, what in (('busy', 'SO_BUSY_POLL caller'),
                    ('busy-prefer', 'SO_BUSY_POLL + SO_PREFER_BUSY_POLL caller'),
                    ('kpoll', 'busy-poll thread')):
        if k in feed:
            ev = feed[k]['cq_events']
            goals.append((f"CQ events per tick on the reading feed while a {what} owns its CQ = 0", ev, None,
                          ev < 0.01))
    n = rows[0]['per_rt']['round_trips']
    w("## Kernel work per round trip\n")
    w(f"Counted in a run of its own after the timed rounds (about {n:.0f} round trips per path; tracing slows "
      "every path, so these runs' times are not used). Counts do not depend on the emulated CPU's speed. "
      "Side a is the pinging side (rxe1, vCPU 1), side b the answering side (rxe0, vCPU 0).\n")
    w("| path | syscalls a | syscalls b | QP deliveries a | QP deliveries b | CQ events | CQ arms | NET_RX | IRQ_POLL | TASKLET | ksoftirqd | allocations |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|")

    def f(v):
        return '—' if v is None else f'{v:.2f}'
    for r in rows:
        c = r['per_rt']
        sq = c.get('softirqs', {})
        w(f"| {PATHS.get(r['kind'], (r['kind'],))[0]} | {f(c['syscalls_a'])} | {f(c['syscalls_b'])} | "
          f"{f(c['qp_deliveries_a'])} | {f(c['qp_deliveries_b'])} | {f(c['cq_events'])} | {f(c['cq_arms'])} | "
          f"{f(sq.get('NET_RX'))} | {f(sq.get('IRQ_POLL'))} | {f(sq.get('TASKLET'))} | "
          f"{f(c.get('ksoftirqd_runs'))} | {f(c['allocs'])} |")
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
    w("- **ksoftirqd**: runs of the ksoftirqd threads (their voluntary context switches), all CPUs: softirq "
      "work a pass handed to the thread because it ran past its time or restarted too often. On 6.1 the "
      "softirqs raised on that CPU then wait until the thread is scheduled, behind a spinner's time "
      "slice; — where the run predates the count.")
    w("- **allocations**: `kmem:kmalloc` + `kmem:kmem_cache_alloc` events, all CPUs.")
    w("- ibtick's own socket's rows count the timed loop (with its warm-up); the floor, sockperf and "
      "udppp, with or without ibtick-run, count their whole processes, setup included, which adds a "
      "little per round trip (under ibtick-run, two processes that start with the library). "
      "`counts.json` has every softirq type and the packet counters.\n")
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


def pair_counts_section(d, w, goals):
    """The two guests' counted run: node 1's ibtick-perf --counts (host a) and
    node 0's own softirqs and QP deliveries (host b), per round trip."""
    rows = lines(d / 'counts.json')
    a = {r['kind']: r for r in rows if 'per_rt' in r}
    if not a:
        return
    # host b's totals over the run, per round trip as host a counted them
    b = {}
    for r in rows:
        if 'host_b_total' in r and r['kind'] in a:
            rts = a[r['kind']]['per_rt']['round_trips'] or 1
            t = r['host_b_total']
            b[r['kind']] = {'qp_deliveries': t['qp_deliveries'] / rts,
                            'softirqs': {k: v / rts for k, v in t['softirqs'].items()}}

    def f(v):
        return '—' if v is None else f'{v:.2f}'
    n = next(iter(a.values()))['per_rt']['round_trips']
    w("## Two guests: kernel work per round trip\n")
    w(f"Counted in a run of its own after the timed rounds (about {n:.0f} round trips per path; the times are "
      "not used). Host a is the pinging guest (node 1, counted by `ibtick-perf --counts`), host b the answering "
      "one (node 0, its `/proc/softirqs` and its device's `rdma_recvs` around the same run), divided by the round "
      "trips host a counted. Each host has one vCPU, so every softirq there shares the CPU with the spinning or "
      "sleeping reader. sockperf runs for a time: when its first run falls short of the samples and it runs "
      "again, host a counts the first run and host b all of them, so host b's columns over-count that row.\n")
    w("| path | syscalls a | QP deliveries a | QP deliveries b | CQ events a | NET_RX a | TASKLET a | "
      "NET_RX b | TASKLET b | feed a: by softirq / by caller |")
    w("|---|---|---|---|---|---|---|---|---|---|")
    for k, r in a.items():
        c = r['per_rt']
        sa = c.get('softirqs', {})
        hb = b.get(k, {})
        sb = hb.get('softirqs', {})
        fa = r.get('feed_a')
        fd = f"{f(fa['cqe_irq'])} / {f(fa['cqe_caller'])}" if fa else '—'
        title = PATHS.get(k, RC_PATHS.get(k, (k,)))[0]
        w(f"| {title} | {f(c.get('syscalls_a'))} | {f(c.get('qp_deliveries_a'))} | "
          f"{f(hb.get('qp_deliveries'))} | {f(c.get('cq_events'))} | {f(sa.get('NET_RX'))} | "
          f"{f(sa.get('TASKLET'))} | {f(sb.get('NET_RX'))} | {f(sb.get('TASKLET'))} | {fd} |")
    w("")
    if 'mapped' in a and 'mapped' in b:
        qa, qb = a['mapped']['per_rt']['qp_deliveries_a'], b['mapped']['qp_deliveries']
        goals.append(("two guests: QP deliveries per round trip on each host = 1 (mapped; the most of the two)",
                      max(qa, qb), None, abs(qa - 1) < 0.01 and abs(qb - 1) < 0.01))


def load_arb_raw(d, r, path):
    f = d / 'raw' / f'arb-r{r}-{path}.txt.gz'
    if not f.exists():
        return None
    with gzip.open(f, 'rt') as fh:
        return sorted(int(x) for x in fh.read().split())


def pooled_ratio(rows_a, rows_b, idx, num, den):
    """sum(num)/sum(den) of @rows_a over rounds @idx, over the same of @rows_b."""
    na = sum(rows_a[i][num] for i in idx)
    da = sum(rows_a[i][den] for i in idx)
    nb = sum(rows_b[i][num] for i in idx)
    db = sum(rows_b[i][den] for i in idx)
    if not da or not db or not nb:
        return None
    return (na / da) / (nb / db)


def round_boot(rng, rows_a, rows_b, num, den):
    """The pooled ratio and its 95 % interval, resampling the rounds."""
    n = len(rows_a)
    r = pooled_ratio(rows_a, rows_b, range(n), num, den)
    draws = []
    for _ in range(BOOT):
        idx = [rng.randrange(n) for _ in range(n)]
        x = pooled_ratio(rows_a, rows_b, idx, num, den)
        if x is not None:
            draws.append(x)
    draws.sort()
    ci = (draws[int(0.025 * len(draws))], draws[min(int(0.975 * len(draws)), len(draws) - 1)]) if draws else None
    return r, ci


def rate_rounds(d, w, goals, out):
    """
    The flat-out publish rate against ib_send_bw -c UD, in rounds of both
    (bench/guest.sh, rate-rounds.json): the median of the rounds' ratios,
    its interval by resampling the rounds.
    """
    if not (d / 'rate-rounds.json').exists():
        return      # a focused run (PINGPONG_ONLY=1): not measured
    rows = lines(d / 'rate-rounds.json')
    name = ("publish rate, flat out ≥ 0.9 × ib_send_bw -c UD (lower bound of the 95 % interval, at least "
            f"{RATE_MIN_ROUNDS} rounds)")
    if not rows:
        w("No rounds of the flat-out rate against `ib_send_bw` in this run (`rate-rounds.json`).\n")
        goals.append((name, None, None, False))
        return
    rounds = sorted({r['round'] for r in rows})
    by = {(r['round'], r['path']): r for r in rows}
    pairs = [(by[(i, 'ibtick')], by[(i, 'ib_send_bw')]) for i in rounds
             if (i, 'ibtick') in by and (i, 'ib_send_bw') in by
             and by[(i, 'ibtick')].get('achieved') and by[(i, 'ib_send_bw')].get('achieved')]
    left = [i for i in rounds if i not in {a['round'] for a, _ in pairs}]
    w(f"### Flat out against `ib_send_bw`, {len(pairs)} rounds\n")
    if left:
        w(f"Left out, a side missing or without a rate: round{'s' if len(left) > 1 else ''} "
          f"{', '.join(str(i) for i in left)}.\n")
    w("Each round runs `ibtick-perf rate -r 0` (one publisher flat out, a spinning mapped reader on the other "
      "device) and `ib_send_bw -c UD -s 64` (its server polling its CQ) once each, in a random order, the same "
      "message count, the same devices, both unpinned; the rates are the sender's. **ratio**: ibtick's rate "
      "over ib_send_bw's in the same round; below, the median of those ratios, its interval by resampling "
      "the rounds.\n")
    w("| round | ibtick /s | ib_send_bw /s | ratio | ibtick sent = delivered + lost in ring + lost on wire |")
    w("|---|---|---|---|---|")
    for a, b in pairs:
        w(f"| {a['round']} | {a['achieved']:.0f} | {b['achieved']:.0f} | {a['achieved'] / b['achieved']:.2f} | "
          f"{a['sent']} = {a['delivered']} + {a['lost_ring']} + {a['lost_wire']} |")
    w("")
    if not pairs:
        goals.append((name, None, None, False))
        return

    # a round's two runs are minutes apart at most: its own ratio cancels
    # the host's drift, which the rounds' medians would not
    per = [a['achieved'] / b['achieved'] for a, b in pairs]

    def med_ratio(idx):
        return median(sorted(per[i] for i in idx))

    rng = random.Random(4)
    n = len(pairs)
    x = med_ratio(range(n))
    draws = sorted(med_ratio([rng.randrange(n) for _ in range(n)]) for _ in range(BOOT))
    lo, hi = (draws[int(0.025 * BOOT)], draws[min(int(0.975 * BOOT), BOOT - 1)]) if draws else (x, x)
    lost = sum(a['lost_ring'] + a['lost_wire'] for a, _ in pairs)
    w(f"ibtick flat out: **{x:.2f} [{lo:.2f}, {hi:.2f}] × ib_send_bw**; lost over all rounds: {lost}.\n")
    out['rate'] = {'rounds': n, 'ratio': x, 'ci': [lo, hi], 'lost': lost,
                   'ibtick': [a['achieved'] for a, _ in pairs], 'ib_send_bw': [b['achieved'] for _, b in pairs]}
    # a handful of rounds makes an interval of nothing (one round: [x, x])
    goals.append((name, x, lo,
                  n >= RATE_MIN_ROUNDS and bool(draws) and lo >= 0.9))


def fanout_section(d, w, goals):
    """The fan-out runs (fanout-KIND.json), a table each, and their targets."""
    for kind in ('epoll', 'recvmsg', 'mapped'):
        fo = lines(d / f'fanout-{kind}.json')[1:]
        if not fo:
            continue
        w(f"## Fan-out, {kind} readers (sleeping), {fo[0]['published']} probes at 2000/s\n")
        w("One publisher on rxe1; 1 to 16 reader processes on one feed on rxe0, each sleeping until a tick "
          "comes (more spinning readers than the 2 vCPUs would measure the scheduler).\n")
        split = 'fill_ns_per_tick' in fo[0]
        w("- **kernel ns/tick**: the feed's receive work (from the first completion of a CQ drain to its end: ring "
          "writes, receive reposts, wake-ups) divided by the ticks written, from `IBTICK_STATISTICS`; "
          "**× 1 reader**: that against one reader's.")
        if split:
            w("- **fill ns/tick**: the same without the wake-ups (`feed_rx_wake_ns` taken out): the ring writes and "
              "reposts, paid once per tick however many read, which the shared ring promises not to grow with "
              "the readers; **× 1 reader** likewise. **wake-ups ns/tick**: waking the sleeping readers (each "
              "process, or its epoll instance), which grows with them as in any socket stack; "
              "**per reader**: that over the readers. These are times, and under TCG the same instructions take "
              "longer as the guest runs more processes: `bench/insn-count.sh` with `fan-` kinds counts the fill's "
              "instructions per tick by readers instead "
              "([`insn-count-fanout`](../insn-count-fanout/summary.md)).")
        w("- **median, 99.9 %**: one-way latency, publisher's send to a reader's read, over every reader's "
          "samples; with sleeping readers it includes waking each of them.")
        w("- **delivered, lost**: ticks the readers read in all, and ticks they lost (lapped in the ring).\n")
        if split:
            w("| readers | kernel ns/tick | × 1 reader | fill ns/tick | × 1 reader | wake-ups ns/tick | per reader "
              "| median µs | 99.9% µs | delivered | lost |")
            w("|---|---|---|---|---|---|---|---|---|---|---|")
        else:
            w("| readers | kernel ns/tick | × 1 reader | median µs | 99.9% µs | delivered | lost |")
            w("|---|---|---|---|---|---|---|")
        for r in fo:
            mid = ''
            if split:
                mid = (f" {r['fill_ns_per_tick']:.0f} | {ratio(r['fill_ratio'])} | {r['wake_ns_per_tick']:.0f} | "
                       f"{r['wake_ns_per_tick'] / r['readers']:.0f} |")
            w(f"| {r['readers']} | {r['kernel_ns_per_tick']:.0f} | {ratio(r['ratio'])} |{mid} {f2(r['t_typical'])} | "
              f"{f2(r['percentile_99.9'])} | {r['delivered']} | {r['lost']} |")
        w("")
        last = fo[-1]
        if split:
            goals.append((f"fan-out fill cost (the kernel's work without the wake-ups), {last['readers']} {kind} "
                          "readers ≤ 1.2 × 1", last['fill_ratio'], None, met(last['fill_ratio'], 1.2)))
        else:
            goals.append((f"fan-out kernel cost, {last['readers']} {kind} readers ≤ 1.2 × 1", last['ratio'], None,
                          met(last['ratio'], 1.2)))


def arb_section(d, w, goals, out):
    rows = lines(d / 'arb.json')
    if not rows or 'rounds' not in rows[0]:
        return
    head = rows[0]
    nr = head['rounds']
    by = {}
    for x in rows:
        if 'kind' in x and 'round' in x:
            by.setdefault(x['kind'], {})[x['round']] = x
    w("## Arbitrated feed (A/B rails)\n")
    w(f"An arbitrated feed (`ibtick feed add NAME arbitrate rail ... rail ...`, sequence in the payload's bytes "
      f"8..15) of two rails: rail A rxe0 (veth0) receiving what rxe1 (veth1) publishes, rail B rxe2 (veth2) "
      f"receiving what rxe3 (veth3) publishes, rail B delayed by {head['delay']} (netem on veth3). "
      f"`ibtick-perf arb`, {nr} rounds in one boot; in each round every path once, the paths of each "
      f"comparison next to each other, the groups and the order within each at random "
      f"(seed {head['seed']}; the orders are in `arb.json`); the reading side on vCPU 1, the other on vCPU 0; "
      f"the reader is the mapped ring, spinning.\n")
    w("- **arb**, **rail-a**: ping-pong, 64 B, half round trip, "
      f"{head['n']} samples after {head['warm']} warm-up ones per round. The echo side answers every ping on "
      "rail A, then on rail B, for both paths; the pinging side reads the arbitrated feed of both rails "
      "(**arb**) or rail A alone as a plain feed on the same group and netdev (**rail-a**: the fast rail alone)."
      + (" **rail-a-b**, where the run has it: rail-a, while a plain feed on rail B that nobody reads takes "
         "rail B's copies (the second rail's receive work without the arbitration: the control)."
         if 'rail-a-b' in head['paths'].split() else ''))
    w(f"- **arb-cost**, **rail-a-cost**: the other side publishes every tick on rail A, then on rail B, at "
      f"{head['rate']}/s ({head['n']} + {head['warm']} ticks); the reading side reads the arbitrated feed or "
      "rail A alone. **Kernel ns per completion**: the receive work (`rx_drain_ns`, from the first completion "
      "of a CQ drain to its end) divided by the completions drained (`cqe_irq + cqe_thread + cqe_caller`). "
      "For the arbitrated feed both rails' work over both rails' completions (each rail drains its own copy "
      "of every tick; a rail's drain includes the arbitration and the write into the arbitrated ring), from "
      "`ibtick -j -s feed show`; for the plain feed its own `IBTICK_STATISTICS`. Same rate, same payload, "
      "per completion: the arbitrated feed takes two completions per delivered tick, the plain one one.\n")
    w("Ratios are arb over rail-a with a bootstrap 95 % interval "
      f"({BOOT} draws) that resamples the rounds (the same rounds for both paths; latency: then the samples "
      "within each picked round). Latency: median of the round medians, p99.9 over all rounds' samples pooled. "
      "Kernel cost: the work summed over the rounds over the completions summed.\n")
    rng = random.Random(head['seed'])
    res = {'rounds': nr, 'n': head['n'], 'delay': head['delay'], 'rate': head['rate'], 'seed': head['seed']}
    # latency
    kept = [r for r in range(1, nr + 1)
            if load_arb_raw(d, r, 'arb') and load_arb_raw(d, r, 'rail-a')]
    if kept:
        paths = {p: [load_arb_raw(d, r, p) for r in kept] for p in ('arb', 'rail-a')}
        st = {p: stats_of(rs) for p, rs in paths.items()}
        ci = bootstrap(rng, paths, 'rail-a')['arb']
        w("| latency | rail-a µs | arb µs | arb / rail-a [95 % CI] | samples each |")
        w("|---|---|---|---|---|")
        for k in ('median', 'p99', 'p99.9', 'max'):
            r = st['arb'][k] / st['rail-a'][k]
            c = ci.get(k) if k in ci else None
            w(f"| {k} | {st['rail-a'][k] / 1e3:.2f} | {st['arb'][k] / 1e3:.2f} | {ci_str(r, c)} | "
              f"{sum(len(x) for x in paths['arb'])} |")
            res[f'lat_{k}_ratio'] = r
            if c:
                res[f'lat_{k}_ratio_ci95'] = list(c)
        w("")
        for k in ('median', 'p99.9'):
            r = st['arb'][k] / st['rail-a'][k]
            hi = ci[k][1] if ci.get(k) else None
            goals.append((f"arbitrated feed, rail B delayed {head['delay']}: {k} ≤ 1.05 × rail A alone "
                          "(upper bound of the 95 % interval)", r, hi, hi is not None and hi <= 1.05))
        if len(kept) < nr:
            w(f"Left out: round(s) {', '.join(str(r) for r in range(1, nr + 1) if r not in kept)} (no samples).\n")
        arb_control(w, rng, d, kept, paths, res, goals, head['delay'])
    # kernel cost per completion
    cost = []
    for a, b, what in (('arb-cost', 'rail-a-cost', f"published at {head['rate']}/s"),
                       ('arb', 'rail-a', 'ping-pong')):
        rr = [r for r in range(1, nr + 1) if r in by.get(a, {}) and r in by.get(b, {})]
        if not rr:
            continue
        ra = [by[a][r] for r in rr]
        rb = [by[b][r] for r in rr]
        ratio_, c = round_boot(rng, ra, rb, 'kernel_drain_ns', 'completions')
        sa = sum(x['kernel_drain_ns'] for x in ra) / max(1, sum(x['completions'] for x in ra))
        sb = sum(x['kernel_drain_ns'] for x in rb) / max(1, sum(x['completions'] for x in rb))
        cost.append((a, b, what, ra, rb, sa, sb, ratio_, c))
    if cost:
        w("| kernel receive work | plain feed ns / completion | arbitrated ns / completion | arb / plain [95 % CI] "
          "| completions per delivered tick (arb; plain) | ns per delivered tick (arb; plain) "
          "| delivered (arb; plain) |")
        w("|---|---|---|---|---|---|---|")
        for a, b, what, ra, rb, sa, sb, ratio_, c in cost:
            dla = sum(x['delivered'] for x in ra)
            dlb = sum(x['delivered'] for x in rb)
            ca = sum(x['completions'] for x in ra)
            cb = sum(x['completions'] for x in rb)
            w(f"| {what} | {sb:.0f} | {sa:.0f} | {ci_str(ratio_, c)} | "
              f"{ca / max(1, dla):.2f}; {cb / max(1, dlb):.2f} | "
              f"{sa * ca / max(1, dla):.0f}; {sb * cb / max(1, dlb):.0f} | {dla}; {dlb} |")
            key = 'cost' if a == 'arb-cost' else 'pingpong_cost'
            res[f'{key}_ns_per_cqe'] = {'arb': sa, 'plain': sb}
            res[f'{key}_ratio'] = ratio_
            if c:
                res[f'{key}_ratio_ci95'] = list(c)
        w("")
        a, b, what, ra, rb, sa, sb, ratio_, c = cost[0]
        if a == 'arb-cost':
            goals.append(("arbitrated feed: kernel ns per completion (both rails) ≤ 1.2 × a plain feed's, same "
                          "rate and payload (upper bound of the 95 % interval)", ratio_, c[1] if c else None,
                          bool(c) and c[1] <= 1.2))
    # the arbiter's own counts, summed over the rounds
    w("The arbiter's counts summed over the rounds (`ibtick -j -s feed show`: each rail's receives, ticks won "
      "and duplicates dropped), with the reader's resends and lapped ticks:\n")
    w("| path | delivered | rail A rx / won / dup | rail B rx / won / dup | resent | reader lost |")
    w("|---|---|---|---|---|---|")
    for p in ('arb', 'arb-cost', 'rail-a', 'rail-a-b', 'rail-a-cost'):
        xs = list(by.get(p, {}).values())
        if not xs:
            continue

        def rail(i, k):
            return sum(x['rails'][i][k] for x in xs if 'rails' in x)
        rails = [f"{rail(i, 'rx')} / {rail(i, 'won')} / {rail(i, 'dup')}" if 'rails' in xs[0] else '—'
                 for i in (0, 1)]
        w(f"| {p} | {sum(x['delivered'] for x in xs)} | {rails[0]} | {rails[1]} | "
          f"{sum(x.get('resent', 0) for x in xs)} | {sum(x['reader_lost'] for x in xs)} |")
        res.setdefault('counts', {})[p] = {
            'delivered': sum(x['delivered'] for x in xs),
            'completions': sum(x['completions'] for x in xs),
            'rails': [{k: rail(i, k) for k in ('rx', 'won', 'dup', 'completions')} for i in (0, 1)]
            if 'rails' in xs[0] else None}
    w("")
    out['arb'] = res


def arb_control(w, rng, d, kept, paths, res, goals, delay):
    """The control row: rail A read alone while rail B's copies are received
    by a plain feed (rail-a-b), against arb and against rail-a, over the
    rounds @kept (arb's and rail-a's samples in @paths) that have it."""
    idx = [i for i, r in enumerate(kept) if load_arb_raw(d, r, 'rail-a-b')]
    if not idx:
        return
    ps = {p: [paths[p][i] for i in idx] for p in ('arb', 'rail-a')}
    ps['rail-a-b'] = [load_arb_raw(d, kept[i], 'rail-a-b') for i in idx]
    st = {p: stats_of(rs) for p, rs in ps.items()}
    w("What the gap is made of: **arb / rail-a-b** is the arbitration against receiving both rails at all; "
      "**rail-a-b / rail-a** is what receiving the second rail's copies costs this host. On Soft-RoCE each copy "
      "is a software receive (the UDP stack, rxe's packet processing and its completion) on the same two vCPUs "
      "as the ping-pong; a host channel adapter receives in hardware, and the host pays the completion's drain "
      "(the kernel cost above).\n")
    w("| ratio | median [95 % CI] | p99.9 [95 % CI] | rounds |")
    w("|---|---|---|---|")
    for a, b in (('arb', 'rail-a-b'), ('rail-a-b', 'rail-a')):
        c = bootstrap(rng, {a: ps[a], b: ps[b]}, b)[a]
        rm, rp = st[a]['median'] / st[b]['median'], st[a]['p99.9'] / st[b]['p99.9']
        w(f"| {a} / {b} | {ci_str(rm, c.get('median'))} | {ci_str(rp, c.get('p99.9'))} | {len(idx)} |")
        res[f"control_{a}_over_{b}_median"] = rm
        if c.get('median'):
            res[f"control_{a}_over_{b}_median_ci95"] = list(c['median'])
        if a == 'arb':
            hi = c['median'][1] if c.get('median') else None
            goals.append((f"arbitrated feed, rail B delayed {delay}: median ≤ 1.05 × rail A read while rail B's "
                          "copies are received by a plain feed (the arbitration alone; upper bound of the 95 % "
                          "interval)", rm, hi, hi is not None and hi <= 1.05))
    w("")


RC_PATHS = {
    'floor-rc': ('ib_send_lat -c RC (the verbs floor)', 'spin'),
    'conn-spin': ('ibtick connection, recv(MSG_DONTWAIT) spin', 'spin'),
    'conn-map': ('ibtick connection, mapped ring, spinning', 'spin'),
    'tcp-spin': ('sockperf TCP, --nonblocked spin', 'spin'),
    'conn': ('ibtick connection, blocking recv', 'sleep'),
    'tcp': ('sockperf TCP, blocking', 'sleep'),
}


def rc_section(d, w, goals, out, topo='single'):
    rows = lines(d / 'rc.json')
    if not rows:
        return
    head = rows[0]
    nr = head['rounds']
    names = head['paths'].split()
    kept = [r for r in range(1, nr + 1) if load_raw(d, r, 'floor-rc', 'rc-')]
    if not kept:
        w(f"## {PREFIX[topo].capitalize()}Connections (RC)\n\nNo floor samples: no ratios.\n")
        return
    paths = {}
    for p in names:
        rs = [load_raw(d, r, p, 'rc-') for r in kept]
        if all(rs):
            paths[p] = rs
    st = {p: stats_of(rs) for p, rs in paths.items()}
    rng = random.Random(head['seed'] + 700)
    ci = bootstrap(rng, paths, 'floor-rc')
    fl = st['floor-rc']
    counted = {x['kind']: x['per_rt'] for x in lines(d / 'rc-counts.json') if 'per_rt' in x}
    w(f"## {PREFIX[topo].capitalize()}Connections (RC), ping-pong, 64 B, half round trip\n")
    w(f"{len(kept)} rounds in the same boot, {head['n']} samples each after {head['warm']} warm-up round trips, "
      "the paths in a random order each round (`rc.json`), pinned as above. The floor is `ib_send_lat -c RC` "
      "(user-space verbs polling its CQ); the ibtick connection's spinning reader calls recv(MSG_DONTWAIT), "
      "which drains the connection's CQ itself. The mapped reader spins on the connection's ring with no "
      "system call, and the CQ event writes the ring: on rxe that event is a tasklet, "
      + ("which runs after the softirq pass that delivered the message has also sent and processed its RC "
         "acknowledgement on the same CPU, so here it comes later than a reader polling the CQ finds the "
         "message (counts: one tasklet more per message). " if topo == 'single' else
         "and here the acknowledgement is the other guest's work. ") +
      "sockperf runs over kernel TCP on the same "
      f"{'veth pair' if topo == 'single' else 'link between the guests'}. On this "
      "rig rxe runs on the kernel's UDP stack, so TCP here does not pay what RoCE pays: it is a reference, "
      "not a competitor. Ratios with bootstrap 95 % intervals as above. Maxima of a few milliseconds in "
      "the RC rows (the floor's too) are rxe's own spurious retransmissions: its retransmit timer (67 ms "
      "at the usual timeout 14) is armed only when it is not pending and not pushed back by ACKs that "
      "come in time, so in a steady ping-pong it expires every 67 ms and retries whatever is in flight "
      "then (the ports' `completer_retry_err` and `duplicate_request` counters count them); a host "
      "channel adapter does not do this.\n")
    # rxe's RC counters of each timed run (ibtick-perf's "rc_ctrs"), over
    # the kept rounds: retransmissions, duplicates, RNR NAKs; and the rounds
    # whose maximum went past 2 ms, with how many of them had a retry
    ctrs = {}
    for x in rows:
        rc = x.get('rc_ctrs')
        if x.get('round') not in kept or not rc or 'kind' not in x:
            continue
        e = ctrs.setdefault(x['kind'], {'retry': 0, 'dup': 0, 'rnr': 0, 'slow': 0, 'slow_retry': 0})
        for k in ('retry', 'dup', 'rnr'):
            e[k] += (rc.get(k + '_a') or 0) + (rc.get(k + '_b') or 0)
        if x.get('t_max', 0) > 2000:
            e['slow'] += 1
            e['slow_retry'] += 1 if (rc.get('retry_a') or 0) + (rc.get('retry_b') or 0) else 0
    w("| path | class | median µs | × floor median | p99.9 µs | × floor p99.9 | × TCP (same class) | "
      "syscalls / RT | softirqs / RT | ksoftirqd / RT | CQ events / RT | retries / dups / RNR | "
      "rounds max > 2 ms (with a retry) |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    res = {'rounds': len(kept), 'n': head['n'], 'paths': {}}
    for p in RC_PATHS:
        if p not in st:
            continue
        cls = RC_PATHS[p][1]
        ref = 'tcp-spin' if cls == 'spin' else 'tcp'
        c = ci.get(p, {})
        med_r = st[p]['median'] / fl['median']
        p999_r = st[p]['p99.9'] / fl['p99.9']
        vs = (f"{st[p]['median'] / st[ref]['median']:.2f} / {st[p]['p99.9'] / st[ref]['p99.9']:.2f}"
              if ref in st and p != ref else '—')
        pc = counted.get(p, {})
        sirq = sum(pc.get('softirqs', {}).values()) if pc else None
        w(f"| {RC_PATHS[p][0]} | {cls} | {st[p]['median'] / 1e3:.2f} | "
          f"{ci_str(med_r, c.get('median')) if p != 'floor-rc' else '1'} | {st[p]['p99.9'] / 1e3:.2f} | "
          f"{ci_str(p999_r, c.get('p99.9')) if p != 'floor-rc' else '1'} | {vs} | "
          f"{f2(pc.get('syscalls'))} | {f2(sirq)} | {f2(pc.get('ksoftirqd_runs'))} | {f2(pc.get('cq_events'))} | "
          + (f"{ctrs[p]['retry']} / {ctrs[p]['dup']} / {ctrs[p]['rnr']} | "
             f"{ctrs[p]['slow']} ({ctrs[p]['slow_retry']}) |" if p in ctrs else "— | — |"))
        res['paths'][p] = {'median_us': st[p]['median'] / 1e3, 'p99.9_us': st[p]['p99.9'] / 1e3,
                           'median_ratio': med_r, 'p99.9_ratio': p999_r,
                           'median_ratio_ci95': list(c['median']) if c.get('median') else None,
                           'p99.9_ratio_ci95': list(c['p99.9']) if c.get('p99.9') else None,
                           'per_rt': pc or None, 'rc_ctrs': ctrs.get(p)}
    w("")
    w("× TCP is median / p99.9. Counts per round trip from a separate counted run (`rc-counts.json`; tracing "
      "slows every path, so its times are not used). **retries / dups / RNR**: rxe's `completer_retry_err`, "
      "`duplicate_request` and `rcvd_rnr_err` of both ports over the timed runs of all rounds (warm-up "
      "included; ibtick-perf's `rc_ctrs`), — for TCP; **rounds max > 2 ms**: rounds whose slowest sample "
      "took over 2 ms, and how many of those had a retry.\n")
    # the goal is the spinning reader's, which drains the CQ itself as the
    # floor polls its own; the mapped reader waits for the CQ event
    if 'conn-spin' in ci and ci['conn-spin'].get('median'):
        r = st['conn-spin']['median'] / fl['median']
        hi = ci['conn-spin']['median'][1]
        goals.append((f"{PREFIX[topo]}connection, spinning: median ≤ 1.3 × ib_send_lat -c RC (upper bound "
                      "of the 95 % interval)", r, hi, hi <= 1.3))
    for p, ref in (('conn-spin', 'tcp-spin'), ('conn', 'tcp')):
        if p in st and ref in st:
            for k in ('median', 'p99.9'):
                r = st[p][k] / st[ref][k]
                goals.append((f"{PREFIX[topo]}{RC_PATHS[p][0]}: {k} below sockperf TCP of its class "
                              "(ratio < 1)", r, None, r < 1))
    out['rc'] = res


def main():
    d = Path(sys.argv[1])
    pair = d / 'pair'
    # TOPOLOGIES=pair alone: the pair's environment heads the page
    env = json.loads((d / 'env.json' if (d / 'env.json').exists() else pair / 'env.json').read_text())
    out = []
    w = out.append
    w(f"# ibtick benchmark — {env['kernel']}, {env['vcpus']} vCPU ({env['cpu']}), {env['virt']}\n")
    host = {}
    if (d / 'host.json').exists():
        host = json.loads((d / 'host.json').read_text())
    boot = ' '.join(env.get('cmdline_tuning', env.get('cmdline_clock')) or []) or "the kernel's own choices"
    load = ' '.join(host.get('host_loadavg_before') or ['?'])
    w(f"Guest clocksource: **{env.get('clocksource', 'not recorded')}** (boot: {boot}); "
      f"host: {host.get('host_cpu', '?')}, {host.get('host_cpus', '?')} CPUs, load {load} before the run; "
      f"{host.get('qemu', '')}"
      + (f"; source `{host['source']}`" if host.get('source') else '') + ".\n")
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

    arb = {}    # summary.json's keys beyond the ping-pong rounds
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
            w(f"`ib_send_bw -c UD -s 64` on the same pair, one run: {bw:.0f} messages/s; ibtick flat out "
              f"{flat[0] if flat else 0:.0f}/s = {(flat[0] if flat else 0) / bw:.2f} × that; its best step "
              f"{top:.0f}/s = {top / bw:.2f} × that. One run of each compares two moments of a host whose "
              "speed drifts; the rounds below compare them.\n")
            half = [r for r in rate if r['offered'] and r['offered'] <= bw / 2]
            if half:
                worst = max(half, key=lambda r: r['offered'])
                goals.append((f"zero loss at ≤ half ib_send_bw's rate (offered {worst['offered']}/s)",
                              worst['loss_pct'], None, worst['loss_pct'] == 0))
        else:
            w("`ib_send_bw -c UD -s 64` gave no usable message rate in this run (see `bw.txt`).\n")
    rate_rounds(d, w, goals, arb)

    fanout_section(d, w, goals)

    arb_section(d, w, goals, arb)
    rc_section(d, w, goals, arb)
    if arb:
        sj = d / 'summary.json'
        j = json.loads(sj.read_text()) if sj.exists() else {}
        j.update(arb)
        sj.write_text(json.dumps(j, indent=1) + '\n')

    if (pair / 'rounds.json').exists() or (pair / 'rc.json').exists():
        penv = json.loads((pair / 'env.json').read_text()) if (pair / 'env.json').exists() else {}
        w("# Two guests\n")
        w("`bench/run.sh` runs the ping-pong paths once more between two guests of one vCPU each "
          "(`scripts/vm-run.sh -T pair`): each guest has its own kernel and its own rxe device on a virtio NIC, "
          "and the two NICs are joined by a QEMU UDP socket on the host, so publisher and reader are in "
          "different kernels, as on two hosts. The answering side is `ibtick-perf lat -e` (or the path's own "
          "server) in guest 0, the pinging side `ibtick-perf lat --peer` in guest 1 "
          "(`bench/guest-pair.sh`); both walk the same random order of paths each round. Spinning and the "
          "softirqs share each guest's one vCPU, and there is no busy-poll thread (it would measure the "
          "scheduler). Results in `pair/`; guest clocksource "
          f"**{penv.get('clocksource', 'not recorded')}**.\n")
        pout = {}
        pingpong(pair, w, goals, 'pair')
        rc_section(pair, w, goals, pout, 'pair')
        pair_counts_section(pair, w, goals)
        if pout:
            sj = pair / 'summary.json'
            j = json.loads(sj.read_text()) if sj.exists() else {}
            j.update(pout)
            sj.write_text(json.dumps(j, indent=1) + '\n')

    if goals:
        w("## Targets\n")
        w("Each target is checked against what this run measured; under TCG that says how the paths compare here, "
          "not what they would do on hardware. A latency ratio counts as met only when the upper bound of its "
          "95 % interval is below the target, a rate ratio only when the lower bound is above it.\n")
        w("| target | measured | bound of the 95 % interval | met |")
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
