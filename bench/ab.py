#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summary of bench/ab.sh: OUT_DIR/ab.json -> markdown on stdout.

Per path and module: the median over rounds of (path / floor) with both
taken in the same round with the same module loaded (a connection's
floor is ib_send_lat -c RC, "floor-rc", when the run has it; every other
path's, ib_send_lat -c UD), for the median and
the p99.9 of each run; then head / base of those, with a 95 % bootstrap
interval over rounds (rounds drawn with replacement, the same draw for
both modules: a round's two runs are neighbours in time).  Then the
counted run's per-round-trip counts of both modules side by side.
"""
import json
import random
import sys
from pathlib import Path

DRAWS = 4000
# connections are held against the RC floor, when it was run
RC_KINDS = ('conn', 'conn-spin', 'conn-map')
FLOORS = ('floor', 'floor-rc')


def yardstick(kind, kinds):
    """The floor @kind is held against, among the @kinds measured."""
    return 'floor-rc' if kind in RC_KINDS and 'floor-rc' in kinds else 'floor'


def median(xs):
    s = sorted(xs)
    n = len(s)
    return (s[n // 2] + s[(n - 1) // 2]) / 2 if n else float('nan')


def compare(rows, draws=DRAWS, seed=1):
    """{kind: {'rounds': n, 'floor': yardstick, 'median': (base, head, head/base, lo, hi),
    'p99.9': (...)}} from ab.json's rows: each timed row against the floor
    of its own round and module (yardstick()); a round lacking either
    module's row (or its floor) is left out for that path."""
    timed = [r for r in rows if 'round' in r and 'kind' in r]
    kinds = {r['kind'] for r in timed}
    floor = {(r['round'], r['mod'], r['kind']): r for r in timed if r['kind'] in FLOORS}
    ratios = {}  # kind -> round -> mod -> (median ratio, p99.9 ratio)
    for r in timed:
        f = floor.get((r['round'], r['mod'], yardstick(r['kind'], kinds)))
        if r['kind'] in FLOORS or not f:
            continue
        ratios.setdefault(r['kind'], {}).setdefault(r['round'], {})[r['mod']] = (
            r['t_typical'] / f['t_typical'], r['percentile_99.9'] / f['percentile_99.9'])
    rng = random.Random(seed)
    out = {}
    for kind in sorted(ratios):
        rounds = [v for v in ratios[kind].values() if 'base' in v and 'head' in v]
        if not rounds:
            continue
        out[kind] = {'rounds': len(rounds), 'floor': yardstick(kind, kinds)}
        for i, stat in enumerate(('median', 'p99.9')):
            b = median([v['base'][i] for v in rounds])
            h = median([v['head'][i] for v in rounds])
            drawn = []
            for _ in range(draws):
                pick = [rounds[rng.randrange(len(rounds))] for _ in rounds]
                drawn.append(median([v['head'][i] for v in pick]) /
                             median([v['base'][i] for v in pick]))
            drawn.sort()
            lo, hi = drawn[int(0.025 * draws)], drawn[int(0.975 * draws) - 1]
            out[kind][stat] = (b, h, h / b, lo, hi)
    return out


def main():
    d = Path(sys.argv[1])
    head = json.loads((d / 'ab-head.json').read_text())
    rows = [json.loads(line) for line in open(d / 'ab.json') if '"kind"' in line]
    if 'boots' in head:  # bench/boot-ab.sh: one module, two ways to boot
        print(f"# A/B: guests booted with {head['base']} (base) against {head['head']} (head)\n")
        print(f"{head['boots']} pairs of boots, base first, each {head['rounds']} rounds x {head['n']} samples of "
              "each path, 64 B ping-pong; each time is a ratio to the verbs floor measured in the same boot and "
              "round; a base boot's round is paired with the head boot's round of the same number. "
              "Intervals: 95 % bootstrap over rounds.\n")
    else:
        print(f"# A/B: module at {head['base'][:12]} (base) against {head['head'][:12]} (head)\n")
        print(f"{head['rounds']} rounds x {head['n']} samples of each path, 64 B ping-pong, one guest boot, "
              "the modules loaded in turn (base first in odd rounds); each time is a ratio to the verbs floor "
              "measured in the same round with the same module loaded. Intervals: 95 % bootstrap over rounds.\n")
    print("| path | base × floor median | head × floor median | head / base [95 %] "
          "| base × floor p99.9 | head × floor p99.9 | head / base [95 %] |")
    print("|---|---|---|---|---|---|---|")
    for kind, c in compare(rows).items():
        cells = []
        for stat in ('median', 'p99.9'):
            b, h, r, lo, hi = c[stat]
            cells += [f"{b:.2f}", f"{h:.2f}", f"{r:.2f} [{lo:.2f}, {hi:.2f}]"]
        vs = '' if c['floor'] == 'floor' else f", × {c['floor']}"
        print(f"| {kind} ({c['rounds']} rounds{vs}) | " + " | ".join(cells) + " |")
    counted = {(r['mod'], r['kind']): r.get('per_rt', {}) for r in rows if r.get('counted')}
    if not counted:  # bench/boot-ab.sh counts nothing
        return
    keys = ('syscalls_a', 'syscalls_b', 'cq_events', 'cq_arms', 'qp_deliveries_a', 'qp_deliveries_b', 'allocs',
            'IRQ_POLL', 'TASKLET', 'HRTIMER')
    print("\nPer round trip, counted run (1000 round trips, tracing on: not timed; IRQ_POLL, TASKLET and "
          "HRTIMER are softirqs, all CPUs):\n")
    print("| path | " + " | ".join(f"{k} base / head" for k in keys) + " |")
    print("|---|" + "---|" * len(keys))
    for kind in sorted({k for _, k in counted}):
        b, h = ({**x, **x.get('softirqs', {})} for x in (counted.get(('base', kind), {}),
                                                          counted.get(('head', kind), {})))

        def cell(k):
            return "/".join(f"{x[k]:.2f}" if isinstance(x.get(k), (int, float)) else "—" for x in (b, h))
        print(f"| {kind} | " + " | ".join(cell(k) for k in keys) + " |")


if __name__ == '__main__':
    main()
