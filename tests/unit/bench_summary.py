#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
bench/summary.py's statistics, on made-up data with fixed seeds:

- boot_stats() (order statistics) draws the median of round medians and
  the pooled p99 and p99.9 from the same distribution as sorting every
  resample (stats_of(resample())): over 600 draws each, the two means agree
  within four standard errors, for odd and even round sizes, rounds chosen
  once and twice;
- rate_rounds(): the ratio is the median of the per-round ratios, the
  interval holds it, the 0.9 target is judged on the lower bound and on
  at least five rounds, rounds missing a side are named and left out,
  BOOT=0 gives no interval, and no file is a target not met;
- fanout_section(): the target is the fill's ratio (the wake-ups apart)
  when the run has it, the whole cost's otherwise;
- rc_section(): the spinning connection's goal is its ratio to the RC
  floor; the mapped connection gets a row and no goal;
- arb_section(): with rail-a-b (the control) the ratio to rail A alone is
  split into the arbitration and the second rail's receive work;
- pingpong(): sockperf and udppp under ibtick-run are held against
  ibtick's socket in sockperf's layout when the run has it;
- bench/ab.py's compare(): each path against the floor of its own round
  and module (a connection against the RC floor when the run has it),
  head / base and its interval, a round lacking a side left out;
- bench/hop_split.py's hops(): a made-up two-guest trace cut into each
  hop's segments, which add up to the hop, a context switch inside a hop
  counted, a hop the trace ends in left out;
- bench/preload_control.py: made-up rounds, each row a fixed multiple of
  spin-1g, give that multiple against spin-1g, the library and each other,
  a row missing from a round left out of that round only.

  bench_summary.py [PATH_TO_SUMMARY_PY]
"""
import contextlib
import importlib.util
import io
import json
import math
import os
import random
import statistics
import sys
import tempfile
from pathlib import Path

top = Path(__file__).resolve().parents[2]
path = sys.argv[1] if len(sys.argv) > 1 else top / 'bench' / 'summary.py'
spec = importlib.util.spec_from_file_location('summary', path)
S = importlib.util.module_from_spec(spec)
spec.loader.exec_module(S)

n = passed = failed = 0


def check(name, ok, why=''):
    global n, passed, failed
    n += 1
    if ok:
        passed += 1
        print(f"ok {n} - bench summary: {name}")
    else:
        failed += 1
        print(f"not ok {n} - bench summary: {name}")
        if why:
            print(f"# {why}")


def agree(name, draw_a, draw_b, draws=600):
    """Means of @draw_a() and @draw_b() (dicts) agree within 4 standard errors."""
    a = [draw_a() for _ in range(draws)]
    b = [draw_b() for _ in range(draws)]
    for k in ('median', 'p99', 'p99.9'):
        xa, xb = [d[k] for d in a], [d[k] for d in b]
        se = math.sqrt(statistics.pvariance(xa) / draws + statistics.pvariance(xb) / draws)
        diff = abs(statistics.mean(xa) - statistics.mean(xb))
        check(f"{name}: {k} drawn as by sorting resamples", diff <= 4 * se + 1e-9,
              f"means {statistics.mean(xa):.1f} and {statistics.mean(xb):.1f}, "
              f"{diff / se if se else float('inf'):.1f} standard errors apart")


gen = random.Random(11)
for size in (601, 600):
    rounds = [sorted(int(gen.lognormvariate(3 + 0.2 * j, 0.7) * 100) for _ in range(size))
              for j in range(3)]
    for idx in ([0, 1, 2], [0, 0, 2]):
        ra, rb = random.Random(1), random.Random(2)
        agree(f"{size} samples a round, rounds {idx}",
              lambda: S.stats_of(S.resample(ra, rounds, idx)),
              lambda: S.boot_stats(rb, rounds, idx))

# a single value: every draw is that value
one = [[5] * 101, [5] * 100]
st = S.boot_stats(random.Random(3), one, [0, 1, 1])
check("constant rounds give the constant", st == {'median': 5, 'p99': 5, 'p99.9': 5}, str(st))


def rate_dir(rows):
    d = Path(tempfile.mkdtemp())
    with open(d / 'rate-rounds.json', 'w') as f:
        for r in rows:
            f.write(json.dumps(r) + '\n')
    return d


def ib(i, a, lost=0):
    return {"round": i, "path": "ibtick", "offered": 0, "sent": 1000, "achieved": a,
            "delivered": 1000 - lost, "lost_ring": lost, "lost_wire": 0}


def bw(i, a):
    return {"round": i, "path": "ib_send_bw", "achieved": a}


def run_rate(rows):
    d = rate_dir(rows)
    text, goals, out = [], [], {}
    S.rate_rounds(d, text.append, goals, out)
    for f in d.iterdir():
        f.unlink()
    d.rmdir()
    return text, goals, out


# per-round ratios 1.0, 1.2, 0.8, 1.1, 0.95 (the host twice as fast in
# round 1: a ratio of the rounds' medians would not give 1.0)
pairs = [(1000, 1000), (2400, 2000), (800, 1000), (1100, 1000), (950, 1000)]
rows = [x for i, (a, b) in enumerate(pairs) for x in (ib(i, a, lost=i), bw(i, b))]
rows.append(ib(9, 500))  # a round without its ib_send_bw run: left out
text, goals, out = run_rate(rows)
r = out.get('rate', {})
check("rate: the median of the per-round ratios",
      r.get('rounds') == 5 and abs(r.get('ratio', 0) - 1.0) < 1e-12, str(r))
check("rate: the interval holds the ratio",
      r and r['ci'][0] <= r['ratio'] <= r['ci'][1] and r['ci'][0] >= 0.8 and r['ci'][1] <= 1.2, str(r))
check("rate: lost ticks summed", r.get('lost') == 0 + 1 + 2 + 3 + 4, str(r))
g = goals[-1] if goals else None
check("rate: the target judged on the lower bound",
      g is not None and g[2] == r['ci'][0] and g[3] == (r['ci'][0] >= 0.9), str(g))

rows = [x for i in range(6) for x in (ib(i, 950 + i), bw(i, 1000))]
_, goals, out = run_rate(rows)
check("rate: 0.95 to 0.955 in every round is met",
      goals and goals[-1][3] is True and 0.9 < out['rate']['ci'][0], str(goals))

rows = [x for i in range(6) for x in (ib(i, 880), bw(i, 1000))]
_, goals, _ = run_rate(rows)
check("rate: 0.88 in every round is not", goals and goals[-1][3] is False, str(goals))

rows = [x for i in range(4) for x in (ib(i, 990), bw(i, 1000))]
_, goals, out = run_rate(rows)
check("rate: 0.99 in four rounds is too few rounds to be met",
      goals and goals[-1][3] is False and out['rate']['rounds'] == 4, str(goals))

rows = [ib(0, 1000), bw(0, 1000), ib(1, 1000), bw(1, None), bw(2, 1000)]
text, goals, out = run_rate(rows)
check("rate: rounds missing a side or a rate are named and left out",
      out['rate']['rounds'] == 1 and any('1, 2' in t for t in text), '\n'.join(text[:3]))

saved = S.BOOT
S.BOOT = 0
_, goals, out = run_rate([x for i in range(6) for x in (ib(i, 950), bw(i, 1000))])
S.BOOT = saved
check("rate: BOOT=0 gives no interval and no target met",
      goals and goals[-1][3] is False and out['rate']['ci'] == [0.95, 0.95], str(goals))

_, goals, out = run_rate([])
check("rate: no rounds, a target not met and no ratio",
      goals == [(goals[0][0], None, None, False)] and 'rate' not in out, str(goals))

# fanout_section(): with the wake-ups apart (ibtick-perf after 0.4.0), the
# target is the fill's ratio and the wake-ups are shown per reader; an
# older run keeps the whole cost's target.
def fanout_dir(rows, kind='epoll'):
    d = Path(tempfile.mkdtemp())
    with open(d / f'fanout-{kind}.json', 'w') as f:
        f.write(json.dumps({"env": {}}) + '\n')
        for r in rows:
            f.write(json.dumps(r) + '\n')
    return d


def fo_row(readers, fill, wake, base_fill, base_all):
    row = {"mode": "fanout", "kind": "epoll", "readers": readers, "published": 5000,
           "kernel_ns_per_tick": fill + wake, "ratio": (fill + wake) / base_all,
           "t_typical": 50.0, "percentile_99.9": 900.0, "delivered": 5000 * readers, "lost": 0}
    if base_fill:
        row.update(fill_ns_per_tick=fill, fill_ratio=fill / base_fill, wake_ns_per_tick=wake)
    return row


def run_fanout(rows):
    d = fanout_dir(rows)
    text, goals = [], []
    S.fanout_section(d, text.append, goals)
    for f in d.iterdir():
        f.unlink()
    d.rmdir()
    return text, goals


text, goals = run_fanout([fo_row(1, 4000, 2000, 4000, 6000), fo_row(16, 4400, 32000, 4000, 6000)])
check("fanout: the fill's ratio is the target, met at 1.1",
      len(goals) == 1 and 'fill' in goals[0][0] and abs(goals[0][1] - 1.1) < 1e-9 and goals[0][3] is True,
      str(goals))
check("fanout: the wake-ups per reader shown (32000 / 16 = 2000)",
      any(t.startswith('| 16 |') and '| 2000 |' in t and '| 32000 |' in t for t in text), '\n'.join(text))
_, goals = run_fanout([fo_row(1, 4000, 2000, 4000, 6000), fo_row(16, 5200, 32000, 4000, 6000)])
check("fanout: a fill 1.3 x one reader's is not met", goals and goals[0][3] is False, str(goals))
_, goals = run_fanout([fo_row(1, 4000, 2000, 0, 6000), fo_row(16, 4400, 32000, 0, 6000)])
check("fanout: a run without the split keeps the whole cost's target",
      goals and 'kernel cost' in goals[0][0] and abs(goals[0][1] - 36400 / 6000) < 1e-9 and goals[0][3] is False,
      str(goals))


def rc_dir(meds, rounds=5, n=200):
    """A run's rc.json and raw samples: each path's samples around its median (ns)."""
    d = Path(tempfile.mkdtemp())
    (d / 'raw').mkdir()
    rng = random.Random(7)
    with open(d / 'rc.json', 'w') as f:
        f.write(json.dumps({"rounds": rounds, "n": n, "warm": 100, "seed": 3,
                            "paths": ' '.join(meds)}) + '\n')
        for r in range(1, rounds + 1):
            for p, m in meds.items():
                xs = [int(m * (0.9 + 0.2 * rng.random())) for _ in range(n)]
                (d / 'raw' / f'rc-r{r}-{p}.txt').write_text('\n'.join(map(str, xs)))
                f.write(json.dumps({"round": r, "kind": p, "t_typical": m / 1e3}) + '\n')
    return d


def run_rc(meds):
    d = rc_dir(meds)
    text, goals, out = [], [], {}
    S.rc_section(d, text.append, goals, out)
    return text, goals, out


text, goals, out = run_rc({'floor-rc': 20000, 'conn-spin': 24000, 'conn-map': 36000,
                           'conn': 60000, 'tcp-spin': 19000, 'tcp': 32000})
spin = [g for g in goals if 'connection, spinning: median' in g[0]]
check("rc: the spinning connection's goal is judged on its own ratio (1.2, met)",
      len(spin) == 1 and abs(spin[0][1] - 1.2) < 0.02 and spin[0][3] is True, str(goals))
check("rc: the mapped connection has a row with its ratio (1.8) and no goal of its own",
      any(t.startswith('| ibtick connection, mapped ring, spinning | spin |') and '| 1.80 [' in t for t in text)
      and not any('mapped' in g[0] for g in goals) and abs(out['rc']['paths']['conn-map']['median_ratio'] - 1.8) < 0.02,
      '\n'.join(text) + str(goals))


def lat_raw_dir(meds, name, head, fmt, rounds=6, n=200, gz=False):
    """A run's NAME json (HEAD first) and raw samples (FMT.format(r=, p=))
    around each path's median (ns)."""
    import gzip
    d = Path(tempfile.mkdtemp())
    (d / 'raw').mkdir()
    rng = random.Random(11)
    with open(d / name, 'w') as f:
        f.write(json.dumps(dict(head, rounds=rounds, n=n, paths=' '.join(meds))) + '\n')
        for r in range(1, rounds + 1):
            for p, m in meds.items():
                xs = '\n'.join(str(int(m * (0.9 + 0.2 * rng.random()))) for _ in range(n))
                fn = d / 'raw' / fmt.format(r=r, p=p)
                if gz:
                    with gzip.open(str(fn) + '.gz', 'wt') as g:
                        g.write(xs)
                else:
                    fn.write_text(xs)
                f.write(json.dumps({"round": r, "kind": p, "delivered": n, "completions": n,
                                    "kernel_drain_ns": n * 1000, "reader_lost": 0}) + '\n')
    return d


# arb_section(): rail-a-b, the control, splits arb / rail-a into the
# arbitration (arb / rail-a-b) and the second rail's receive work
d = lat_raw_dir({'arb': 34000, 'rail-a': 28000, 'rail-a-b': 33000}, 'arb.json',
                {'warm': 500, 'seed': 5, 'delay': '1ms', 'rate': 5000}, 'arb-r{r}-{p}.txt', gz=True)
text, goals, out = [], [], {}
S.arb_section(d, text.append, goals, out)
ctl = [g for g in goals if 'the arbitration alone' in g[0]]
check("arb: the control's rows (34 / 33, 33 / 28) and its own target beside rail A alone's",
      any(t.startswith('| arb / rail-a-b | 1.03 [') for t in text)
      and any(t.startswith('| rail-a-b / rail-a | 1.18 [') for t in text)
      and len(ctl) == 1 and abs(ctl[0][1] - 34 / 33) < 0.01
      and any('≤ 1.05 × rail A alone' in g[0] for g in goals), '\n'.join(text) + str(goals))
text, goals, out = [], [], {}
d = lat_raw_dir({'arb': 34000, 'rail-a': 28000}, 'arb.json',
                {'warm': 500, 'seed': 5, 'delay': '1ms', 'rate': 5000}, 'arb-r{r}-{p}.txt', gz=True)
S.arb_section(d, text.append, goals, out)
check("arb: a run without rail-a-b has no control rows and no control target",
      not any('rail-a-b' in t for t in text if t.startswith('|'))
      and not any('the arbitration alone' in g[0] for g in goals), '\n'.join(text))

# pingpong(): sockperf under ibtick-run is held against ibtick's socket in
# sockperf's layout (spin-1g, recvmsg-1g) when the run has it, else busy
# and recvmsg; udppp under ibtick-run likewise; "What ibtick-run adds"
# only with the one-group paths
meds = {'floor': 25000, 'busy': 30000, 'spin-1g': 40000, 'run-spin': 42000, 'inet-run-spin': 41000,
        'recvmsg': 50000, 'recvmsg-1g': 70000, 'run': 80000, 'inet-run': 75000}
d = lat_raw_dir(meds, 'rounds.json', {'warm': 1000, 'seed': 4}, 'r{r}-{p}.txt', gz=True)
text, goals = [], []
S.pingpong(d, text.append, goals)
g = {x[0].split(':')[0]: x for x in goals if 'ibtick-run' in x[0]}
check("pingpong: run-spin and run against the one-group paths (42 / 40, 80 / 70), udppp's too",
      abs(g['sockperf under ibtick-run, --nonblocked spin'][1] - 1.05) < 0.02
      and 'one group both ways' in g['sockperf under ibtick-run, --nonblocked spin'][0]
      and abs(g['sockperf under ibtick-run, blocking'][1] - 80 / 70) < 0.02
      and abs(g['udppp under ibtick-run, blocking'][1] - 75 / 70) < 0.02
      and any(t.startswith('### What ibtick-run adds') for t in text)
      and any(t.startswith('| inet-run / recvmsg-1g | the library alone') and '| 1.07 [' in t for t in text),
      str(goals) + '\n'.join(text))
for p in ('spin-1g', 'recvmsg-1g', 'inet-run-spin', 'inet-run'):
    del meds[p]
d = lat_raw_dir(meds, 'rounds.json', {'warm': 1000, 'seed': 4}, 'r{r}-{p}.txt', gz=True)
text, goals = [], []
S.pingpong(d, text.append, goals)
g = {x[0].split(':')[0]: x for x in goals if 'ibtick-run' in x[0]}
check("pingpong: without the one-group paths, run-spin and run against busy and recvmsg, no parts table",
      abs(g['sockperf under ibtick-run, --nonblocked spin'][1] - 42 / 30) < 0.02
      and abs(g['sockperf under ibtick-run, blocking'][1] - 80 / 50) < 0.02
      and not any('What ibtick-run adds' in t for t in text), str(goals))

# bench/ab.py's compare(): each path against its own round's and module's
# floor; head / base of the medians of those over rounds, with an interval
# that holds it; a round lacking a side is left out for that path.
spec = importlib.util.spec_from_file_location('ab', Path(path).parent / 'ab.py')
AB = importlib.util.module_from_spec(spec)
spec.loader.exec_module(AB)


def ab_row(rnd, mod, kind, med, p999):
    return {'round': rnd, 'mod': mod, 'kind': kind, 't_typical': med, 'percentile_99.9': p999}


rows = []
for rnd in range(1, 8):
    drift = 1 + 0.3 * (rnd % 3)	# the host's speed moves between rounds
    fb, fh = 50 * drift, 60 * drift	# and between the two modules' turns
    rows += [ab_row(rnd, 'base', 'floor', fb, 10 * fb), ab_row(rnd, 'head', 'floor', fh, 10 * fh),
             ab_row(rnd, 'base', 'spin', 2 * fb, 30 * fb), ab_row(rnd, 'head', 'spin', 1.5 * fh, 30 * fh)]
rows.append(ab_row(8, 'base', 'floor', 50, 500))
rows.append(ab_row(8, 'base', 'spin', 500, 5000))	# no head in round 8
c = AB.compare(rows, draws=200)
sp = c.get('spin', {})
check("ab: ratios to each round's own floor, head / base 0.75, p99.9 unchanged, the lone round left out",
      sp.get('rounds') == 7 and abs(sp['median'][0] - 2) < 1e-9 and abs(sp['median'][1] - 1.5) < 1e-9
      and abs(sp['median'][2] - 0.75) < 1e-9 and abs(sp['p99.9'][2] - 1) < 1e-9, str(sp))
check("ab: the interval holds the ratio (every round agrees: a point)",
      sp and sp['median'][3] <= sp['median'][2] <= sp['median'][4]
      and abs(sp['median'][4] - sp['median'][3]) < 1e-9, str(sp))
noisy = [dict(r) for r in rows if r['round'] <= 7]
for r in noisy:
    if r['kind'] == 'spin' and r['mod'] == 'head':
        r['t_typical'] *= 1 + 0.2 * ((r['round'] * 7) % 5 - 2) / 2
cn = AB.compare(noisy, draws=400)['spin']['median']
check("ab: with noise the interval is wider and holds the ratio",
      cn[3] < cn[2] < cn[4] and cn[4] - cn[3] > 0.05, str(cn))
check("ab: no floor, no path", AB.compare([r for r in rows if r['kind'] != 'floor']) == {})
rc = []
for rnd in range(1, 5):
    rc += [ab_row(rnd, m, 'floor', 50, 500) for m in ('base', 'head')]
    rc += [ab_row(rnd, m, 'floor-rc', 40, 400) for m in ('base', 'head')]
    rc += [ab_row(rnd, 'base', 'conn-spin', 52, 520), ab_row(rnd, 'head', 'conn-spin', 48, 480)]
cr = AB.compare(rc, draws=100).get('conn-spin', {})
check("ab: a connection is held against the RC floor when the run has it (52 / 40 = 1.3, head 1.2)",
      cr.get('floor') == 'floor-rc' and abs(cr['median'][0] - 1.3) < 1e-9 and abs(cr['median'][1] - 1.2) < 1e-9
      and 'floor-rc' not in AB.compare(rc, draws=10), str(cr))
cu = AB.compare([r for r in rc if r['kind'] != 'floor-rc'], draws=10).get('conn-spin', {})
check("ab: without the RC floor, a connection falls back to the UD floor (52 / 50)",
      cu.get('floor') == 'floor' and abs(cu['median'][0] - 52 / 50) < 1e-9, str(cu))

# bench/hop_split.py's hops(): a made-up trace of two hops (times in us),
# the events of other hops and programs in between
spec = importlib.util.spec_from_file_location('hop_split', top / 'bench' / 'hop_split.py')
HS = importlib.util.module_from_spec(spec)
spec.loader.exec_module(HS)


def ev(t, what, comm='udppp-5'):
    return f"{comm:>16} [000] d.h1.  {t / 1e6:.6f}: {what}\n"


trace = ''.join([
    "# tracer: nop\n",
    ev(90, 'hs_cq: (ibt_rx_comp+0x0/0xe0 [ibtick])'),          # before any interrupt: not a hop
    ev(100, 'irq_handler_entry: irq=35 name=virtio4-input.0'),
    ev(102, 'irq_handler_entry: irq=36 name=virtio4-output.0'),
    ev(105, 'softirq_entry: vec=3 [action=NET_RX]'),
    ev(135, 'softirq_exit: vec=3 [action=NET_RX]'),
    ev(139, 'hs_cq: (ibt_rx_comp+0x0/0xe0 [ibtick])'),
    ev(149, 'hs_drain: (ibt_rx_comp+0x49/0xe0 [ibtick] <- ibt_rx_drain) ret=0x1'),
    ev(150, 'sched_switch: prev_comm=udppp prev_pid=5 prev_prio=120 prev_state=R ==> next_comm=rcu_preempt'),
    ev(163, 'sys_enter: NR 44 (7, 7ffc, 40, 0, 0, 0)'),
    ev(165, 'hs_send: (ibt_sendmsg+0x0/0x1c0 [ibtick])'),
    ev(280, 'net_dev_start_xmit: dev=eth0 queue_mapping=0 skbaddr=0000 len=162'),
    ev(281, 'net_dev_start_xmit: dev=eth0 queue_mapping=0 skbaddr=0001 len=162'),  # after the hop: ignored
    ev(400, 'irq_handler_entry: irq=35 name=virtio4-input.0'),
    ev(406, 'softirq_entry: vec=3 [action=NET_RX]'),
    ev(446, 'softirq_exit: vec=3 [action=NET_RX]'),
    ev(450, 'hs_cq: (ibt_rx_comp+0x0/0xe0 [ibtick])'),
    ev(460, 'hs_drain: (ibt_rx_poll+0x2a/0x110 [ibtick] <- ibt_rx_drain) ret=0x1'),
    ev(470, 'sys_enter: NR 44 (7, 7ffc, 40, 0, 0, 0)'),
    ev(473, 'hs_send: (ibt_sendmsg+0x0/0x1c0 [ibtick])'),
    ev(600, 'net_dev_start_xmit: dev=eth0 queue_mapping=0 skbaddr=0002 len=162'),
    ev(700, 'irq_handler_entry: irq=35 name=virtio4-input.0'),      # a hop the trace ends in
])
with tempfile.TemporaryDirectory() as td:
    tp = Path(td) / 'trace-x-1.txt'
    tp.write_text(trace)
    hs = HS.hops(tp)
seg = [{name: h[b] - h[a] for name, a, b in HS.SEGS} for h in hs]
want = [{'irq>net_rx': 5, 'net_rx': 30, '>cq_event': 4, '>ring': 10, '>send': 14, '>ibtick': 2, '>xmit': 115,
         'hop': 180},
        {'irq>net_rx': 6, 'net_rx': 40, '>cq_event': 4, '>ring': 10, '>send': 10, '>ibtick': 3, '>xmit': 127,
         'hop': 200}]
check("hop-split: two hops cut into segments that add up to the hop, the unfinished one left out",
      len(seg) == 2 and all(abs(s[k] - w[k]) < 1e-6 for s, w in zip(seg, want) for k in w)
      and all(abs(sum(s[k] for k in w if k != 'hop') - s['hop']) < 1e-6 for s, w in zip(seg, want)),
      str(seg))
check("hop-split: a context switch inside the hop is counted, none in the second",
      [h['switches'] for h in hs] == [1, 0], str([h['switches'] for h in hs]))

# bench/preload_control.py: made-up rounds where each row is a fixed
# multiple of spin-1g, which moves from round to round: every paired ratio
# is that multiple exactly, and a round missing a row is left out
spec = importlib.util.spec_from_file_location('preload_control', top / 'bench' / 'preload_control.py')
PC = importlib.util.module_from_spec(spec)
spec.loader.exec_module(PC)
mult = {'spin-1g': 1.0, 'inet-run-spin': 1.08, 'pad0': 1.0, 'pad128': 1.05, 'pk64': 1.2, 'fn64': 1.26}
with tempfile.TemporaryDirectory() as td:
    d = Path(td)
    (d / 'head.json').write_text(json.dumps({'head': 'f' * 40, 'rounds': 6, 'n': 100, 'loops': '0,128,p64,f64'}))
    lines = [json.dumps({'row': row, 'round': r, 't_typical': (200 + 37 * r) * m})
             for r in range(1, 7) for row, m in mult.items() if not (row == 'fn64' and r == 6)]
    (d / 'rounds.json').write_text('\n'.join(lines) + '\n')
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        PC.main(d)
    out = buf.getvalue()
check("preload-control: each row against spin-1g, the library and each other, paired by round",
      '| pk64 | 1.200 [1.200, 1.200] | 1.111 [1.111, 1.111] | 6 |' in out
      and '| inet-run-spin | 1.080 [1.080, 1.080] | — | 6 |' in out
      and '| fn64 | pk64 | 1.050 [1.050, 1.050] | 5 |' in out
      and '| pad128 | pad0 | 1.050 [1.050, 1.050] | 6 |' in out, out)
check("preload-control: a row missing from a round is left out of that round only",
      '| fn64 | 1.260 [1.260, 1.260] | 1.167 [1.167, 1.167] | 5 |' in out, out)

print(f"bench_summary: {passed} passed, {failed} failed, 0 skipped")
sys.exit(1 if failed else 0)
