#!/usr/bin/env python3
"""
bench/ring-ab.sh's summary: the preload library reading the mapped rings (R)
against reading through recvmsg (K, ibtick-run -K), from the raw samples.

usage: bench/ring_ab.py DIR ROUNDS
"""
import gzip
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import summary as S  # noqa: E402  (the bench's statistics)


def load(d, mode, r, p):
    f = d / 'raw' / mode / f'r{r}-{p}.txt.gz'
    return sorted(int(x) for x in gzip.open(f, 'rt').read().split()) if f.exists() else []


def main():
    d, nr = Path(sys.argv[1]), int(sys.argv[2])
    sets = {'b': ['spin-1g', 'inet-run-spin', 'run-spin', 'recvmsg-1g', 'inet-run', 'run'],
            'n': ['spin-1g', 'inet-run-spin', 'run-spin']}
    data = {}
    for s, ps in sets.items():
        for v in 'KR':
            for p in ps:
                rs = [load(d, v + s, r, p) for r in range(1, nr + 1)]
                if all(rs):
                    data[(v + s, p)] = rs
    rng = random.Random(1)
    st = {k: S.stats_of(rs) for k, rs in data.items()}

    def ratio(a, b):
        if a not in data or b not in data:
            return 'no samples | | |'
        pt, pc = S.paired_ratio(rng, data[a], data[b])
        c = S.bootstrap(rng, {'a': data[a], 'b': data[b]}, 'b')['a']
        return (f"{pt:.3f} [{pc[0]:.3f}, {pc[1]:.3f}] | "
                f"{st[a]['median'] / st[b]['median']:.3f} [{c['median'][0]:.3f}, {c['median'][1]:.3f}] | "
                f"{st[a]['p99.9'] / st[b]['p99.9']:.2f} [{c['p99.9'][0]:.2f}, {c['p99.9'][1]:.2f}]")

    print("# The preload library: the mapped rings (R) against recvmsg alone (K, ibtick-run -K)\n")
    print(f"{nr} rounds in one boot, {len(data[next(iter(data))][0]) if data else 0} samples per path and round; "
          "in each round both modes ran every path (K first in odd rounds), each ibtick-run path (udppp's loop, inet-run*, and sockperf's, run*) right next to ibtick's own of its kind (in the middle of its group), the order of the groups and of the two ibtick-run paths random. "
          "*Paired*: the median over the rounds of each round's ratio of the two paths' medians, with a bootstrap "
          "95 % interval (rounds, and samples within them, drawn again: bench/summary.py's paired_ratio): what a "
          "pair run back to back measures, where a change of the emulator's speed between rounds moves both "
          "paths and cancels. *Unpaired*: the ratio of the two medians of round medians, and of the pooled "
          "p99.9, with bench/summary.py's bootstrap: a speed that changes between rounds can put the two medians "
          "in different rounds, which widens it. *b*: the spinning readers busy-poll (SO_BUSY_POLL 200 us; "
          "ibtick-run -b 200); *n*: they do not (--busy-us 0), and take what the CQ event brings.\n")
    print("| ratio | paired median [95 %] | unpaired median [95 %] | p99.9 [95 %] |")
    print("|---|---|---|---|")
    rows = [
        ("R / K: inet-run-spin, busy", ('Rb', 'inet-run-spin'), ('Kb', 'inet-run-spin')),
        ("R / K: inet-run (blocking)", ('Rb', 'inet-run'), ('Kb', 'inet-run')),
        ("R / K: inet-run-spin, no busy polling", ('Rn', 'inet-run-spin'), ('Kn', 'inet-run-spin')),
        ("R / K: run-spin (sockperf), busy", ('Rb', 'run-spin'), ('Kb', 'run-spin')),
        ("control, R / K: spin-1g (native: no library)", ('Rb', 'spin-1g'), ('Kb', 'spin-1g')),
        ("control, R / K: recvmsg-1g", ('Rb', 'recvmsg-1g'), ('Kb', 'recvmsg-1g')),
    ]
    for v, name in (('K', 'recvmsg alone'), ('R', 'the rings')):
        rows += [
            (f"{name}: inet-run-spin / spin-1g, busy", (v + 'b', 'inet-run-spin'), (v + 'b', 'spin-1g')),
            (f"{name}: inet-run / recvmsg-1g", (v + 'b', 'inet-run'), (v + 'b', 'recvmsg-1g')),
            (f"{name}: inet-run-spin / spin-1g, no busy polling", (v + 'n', 'inet-run-spin'),
             (v + 'n', 'spin-1g')),
            (f"{name}, sockperf: run-spin / spin-1g, busy", (v + 'b', 'run-spin'), (v + 'b', 'spin-1g')),
            (f"{name}, sockperf: run / recvmsg-1g", (v + 'b', 'run'), (v + 'b', 'recvmsg-1g')),
            (f"{name}, sockperf: run-spin / spin-1g, no busy polling", (v + 'n', 'run-spin'),
             (v + 'n', 'spin-1g')),
        ]
    for what, a, b in rows:
        print(f"| {what} | {ratio(a, b)} |")
    print("\nmedians (µs): " + ", ".join(f"{v}:{p} {st[(v, p)]['median'] / 1e3:.1f}" for v, p in sorted(st)))

    def rmed(rs):
        return sorted(r[len(r) // 2] / 1e3 for r in rs)

    # how far the emulator's speed moved over the run: each path's rounds
    print("\nround medians (µs), lowest-highest: " +
          ", ".join(f"{v}:{p} {rmed(data[(v, p)])[0]:.1f}-{rmed(data[(v, p)])[-1]:.1f}"
                    for v, p in sorted(data)))


if __name__ == '__main__':
    main()
