#!/usr/bin/env python3
"""Summary of a bench/preload-control.sh run.

usage: bench/preload_control.py OUT_DIR   (prints summary.md's text)

Reads OUT_DIR/head.json and OUT_DIR/rounds.json (each row's median round
trip per round) and prints each row against spin-1g (plain) and against
inet-run-spin (udppp under ibtick-run) of the same round: the median of the
rounds' ratios with a bootstrap 95 % interval (2000 draws of the rounds,
fixed seed), so the summary regenerates from the committed files.
"""
import json
import random
import statistics as st
import sys
from pathlib import Path

LIB = 'inet-run-spin'


def row_name(spec):
    """A -l entry's row: L loop turns, pN packed calls, fN spread calls."""
    if spec.startswith('f'):
        return 'fn' + spec[1:]
    if spec.startswith('p'):
        return 'pk' + spec[1:]
    return 'pad' + spec


def ratios(rt, name, base, rounds):
    return [rt[(name, r)] / rt[(base, r)] for r in range(1, rounds + 1)
            if (name, r) in rt and (base, r) in rt]


def interval(rs, rng):
    b = sorted(st.median(rng.choice(rs) for _ in rs) for _ in range(2000))
    return f'{st.median(rs):.3f} [{b[50]:.3f}, {b[1949]:.3f}]'


def main(d):
    head = json.loads((d / 'head.json').read_text())
    rows = [json.loads(l) for l in (d / 'rounds.json').read_text().splitlines() if l.strip()]
    rt = {(r['row'], r['round']): r['t_typical'] for r in rows}
    names = [LIB] + [row_name(s) for s in head['loops'].split(',')]
    rng = random.Random(1)
    print('# What any preload library costs a spinning reader between two guests: the control\n')
    print(f"Source `{head['head'][:12]}`; `bench/preload-control.sh -r {head['rounds']} -n {head['n']} "
          f"-l {head['loops']}`: ibtick's own `spin-1g` (recvmsg(MSG_DONTWAIT) + SO_BUSY_POLL, one group both "
          "ways) plain, with `bench/control/padrecv.c` preloaded (an interposed recvmsg() doing, then libc's: "
          "`padL` L turns of a trivial loop, 6 instructions a turn, all in one place; `pkN` N calls through a "
          "table of tiny functions packed on one page, 9 instructions a call; `fnN` the same calls to functions "
          "each on a page of its own), and udppp under `ibtick-run -b` (`inet-run-spin`), between the two "
          f"guests of the pair bench, {head['rounds']} rounds of {head['n']} round trips each, the order turned "
          "each round. Each row against `spin-1g` and against `inet-run-spin` in the same round: the median of "
          "the rounds' ratios of median round trips, with a bootstrap 95 % interval.\n")
    print(f'| row | against spin-1g | against {LIB} | rounds |')
    print('|---|---|---|---|')
    for name in names:
        rs = ratios(rt, name, 'spin-1g', head['rounds'])
        if not rs:
            print(f'| {name} | — | — | 0 |')
            continue
        rl = ratios(rt, name, LIB, head['rounds']) if name != LIB else []
        print(f"| {name} | {interval(rs, rng)} | {interval(rl, rng) if rl else '—'} | {len(rs)} |")
    # the padded rows against each other: the same calls spread against
    # packed, a loop against none
    pairs = [(n, 'pk' + n[2:]) for n in names if n.startswith('fn') and 'pk' + n[2:] in names]
    pairs += [(n, 'pad0') for n in names if n.startswith('pad') and n != 'pad0' and 'pad0' in names]
    if pairs:
        print('\n| row | against | median [95 %] | rounds |')
        print('|---|---|---|---|')
        for a, b in pairs:
            rs = ratios(rt, a, b, head['rounds'])
            if rs:
                print(f'| {a} | {b} | {interval(rs, rng)} | {len(rs)} |')


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit(__doc__.split('\n\n')[1])
    main(Path(sys.argv[1]))
