#!/usr/bin/env python3
"""bench/hop-split.sh's summary: each host's part of a two-guest round
trip cut into segments, from the guests' traces.

usage: bench/hop_split.py OUT_DIR

With the traces (vmNODE/trace-KIND-ROUND.txt) it writes OUT_DIR/rounds.json
from them first; without (a committed result), it reads rounds.json.  Each
host's part of a round trip starts at the NIC's receive interrupt and ends
as the answer is handed to the NIC's driver; see bench/hop-split.sh for the
segments.  The first head.json "warm" hops of each trace (the warm-up's
round trips) are left out."""
import json
import random
import re
import statistics as st
import sys
from pathlib import Path

SEGS = [('irq>net_rx', 'irq', 'nrx'), ('net_rx', 'nrx', 'nrx_end'), ('>cq_event', 'nrx_end', 'cq'),
        ('>ring', 'cq', 'ring'), ('>send', 'ring', 'sys'), ('>ibtick', 'sys', 'send'),
        ('>xmit', 'send', 'xmit'), ('hop', 'irq', 'xmit')]
LINE = re.compile(r'^\s*(.+?)-(\d+)\s+\[\d+\]\s+\S+\s+([\d.]+): (\w+): (.*)$')


def hops(path):
    """Each hop's event times (us), in the order the trace has them."""
    out, cur = [], None
    with open(path, errors='replace') as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            _, _, t, ev, rest = m.groups()
            t = float(t) * 1e6
            if ev == 'irq_handler_entry' and '-input' in rest:
                cur = {'irq': t, 'switches': 0}
            elif cur is None:
                continue
            elif ev == 'sched_switch':
                cur['switches'] += 1
            elif ev == 'softirq_entry' and 'NET_RX' in rest and 'nrx' not in cur:
                cur['nrx'] = t
            elif ev == 'softirq_exit' and 'NET_RX' in rest and 'nrx' in cur and 'nrx_end' not in cur:
                cur['nrx_end'] = t
            elif ev == 'hs_cq' and 'nrx_end' in cur and 'cq' not in cur:
                cur['cq'] = t
            elif ev == 'hs_drain' and 'cq' in cur and 'ring' not in cur:
                cur['ring'] = t
            elif ev == 'sys_enter' and 'ring' in cur and 'sys' not in cur:
                cur['sys'] = t
            elif ev == 'hs_send' and 'sys' in cur and 'send' not in cur:
                cur['send'] = t
            elif ev == 'net_dev_start_xmit' and 'send' in cur:
                cur['xmit'] = t
                out.append(cur)
                cur = None
    return out


def from_traces(d, warm):
    rows = []
    for path in sorted(d.glob('vm*/trace-*.txt')):
        m = re.match(r'trace-(.+)-(\d+)\.txt$', path.name)
        kind, rnd, node = m.group(1), int(m.group(2)), int(path.parent.name[2:])
        hs = hops(path)[warm:]
        if not hs:
            continue
        row = {'node': node, 'kind': kind, 'round': rnd, 'hops': len(hs),
               'switched': sum(1 for h in hs if h['switches']) / len(hs)}
        for name, a, b in SEGS:
            row[name] = st.median(h[b] - h[a] for h in hs)
        lat = d / 'vm1' / f'lat-{kind}-{rnd}.json'
        if node == 1 and lat.exists():
            for line in lat.read_text().splitlines():
                if '"t_typical"' in line:
                    row['rt_median'] = json.loads(line)['t_typical']
        rows.append(row)
    return rows


def ci_median(xs, rng):
    """The median of @xs with a percentile bootstrap 95 % interval."""
    boots = sorted(st.median(rng.choice(xs) for _ in xs) for _ in range(2000))
    return st.median(xs), boots[50], boots[1949]


def main():
    d = Path(sys.argv[1])
    head = json.loads((d / 'head.json').read_text())
    if any(d.glob('vm*/trace-*.txt')):
        rows = from_traces(d, head.get('warm', 0))
        (d / 'rounds.json').write_text(''.join(json.dumps(r) + '\n' for r in rows))
    else:
        rows = [json.loads(line) for line in (d / 'rounds.json').read_text().splitlines()]
    kinds = head['kinds'].split(',')
    base = kinds[0]
    got = {(r['node'], r['kind'], r['round']): r for r in rows}
    rng = random.Random(1)
    print('# Where a two-guest round trip goes, hop by hop')
    print()
    print(f"Source `{head['head'][:12]}`; `bench/hop-split.sh -r {head['rounds']} -n {head['n']} -k {head['kinds']}`: "
          f"{head['rounds']} rounds of {head['n']} round trips (after {head.get('warm', 0)} warm-up ones, left out) "
          "of each path, the two guests of the pair bench (one vCPU each) tracing. Each host's part of a round trip, "
          "from the receive interrupt that brings the other host's tick to the answer handed to the NIC's driver, cut "
          "at events every path passes (the segments in `bench/hop-split.sh`); per round the median of each segment, "
          "then the median over the rounds. "
          "Microseconds of the emulator, with the tracer's own cost: compare the paths with each other only.")
    for node, who in ((1, 'node 1, the pinging host'), (0, 'node 0, the answering host')):
        print()
        print(f'## {who}')
        print()
        print('| segment | ' + ' | '.join(kinds) + ' | ' +
              ' | '.join(f'{k} − {base} (paired, 95 %)' for k in kinds[1:]) + ' |')
        print('|---|' + '---|' * (2 * len(kinds) - 1))
        for name in [s[0] for s in SEGS] + ['switched']:
            cells = []
            for k in kinds:
                v = [got[(node, k, r)][name] for r in range(1, head['rounds'] + 1) if (node, k, r) in got]
                cells.append(f'{st.median(v):.1f}' if v else '—')
            for k in kinds[1:]:
                diffs = [got[(node, k, r)][name] - got[(node, base, r)][name]
                         for r in range(1, head['rounds'] + 1) if (node, k, r) in got and (node, base, r) in got]
                if diffs:
                    m, lo, hi = ci_median(diffs, rng)
                    cells.append(f'{m:+.2f} [{lo:+.2f}, {hi:+.2f}]' if name == 'switched'
                                 else f'{m:+.1f} [{lo:+.1f}, {hi:+.1f}]')
                else:
                    cells.append('—')
            label = 'RTs with a context switch in the hop (fraction)' if name == 'switched' else f'`{name}`'
            print(f'| {label} | ' + ' | '.join(cells) + ' |')
    print()
    print('## Round trip (node 1, ibtick-perf\'s median, traced)')
    print()
    print("What the hops account for: node 0's hop, and node 1's without its `>send` (which ends the round trip "
          "and begins the next), against the round trip; the rest is the two transits between the guests and the "
          "ping's own read. Medians over the rounds.")
    print()
    print('| path | hops (µs) | round trip (µs) | hops / round trip |')
    print('|---|---|---|---|')
    for k in kinds:
        acc, rt = [], []
        for r in range(1, head['rounds'] + 1):
            a, b = got.get((0, k, r)), got.get((1, k, r))
            if a and b and 'rt_median' in b:
                acc.append(a['hop'] + b['hop'] - b['>send'])
                rt.append(b['rt_median'])
        if acc:
            print(f'| {k} | {st.median(acc):.1f} | {st.median(rt):.1f} | '
                  f'{st.median(x / y for x, y in zip(acc, rt)):.2f} |')
    print()
    for k in kinds[1:]:
        ratios = [got[(1, k, r)]['rt_median'] / got[(1, base, r)]['rt_median']
                  for r in range(1, head['rounds'] + 1)
                  if 'rt_median' in got.get((1, k, r), {}) and 'rt_median' in got.get((1, base, r), {})]
        if ratios:
            m, lo, hi = ci_median(ratios, rng)
            print(f'- {k} / {base}: {m:.3f} [{lo:.3f}, {hi:.3f}] (median of the rounds\' ratios, {len(ratios)} rounds)')


if __name__ == '__main__':
    main()
