#!/usr/bin/env python3
"""bench/insn-count.sh's summary: instructions per round trip, kernel and
user, per path, and the kernel's by function against the first path."""
import bisect
import collections
import json
import re
import sys
from pathlib import Path

d = Path(sys.argv[1])
b = d / '.build'
head = json.loads((d / 'head.json').read_text())
n1, n2 = (int(x) for x in head['n'].split(','))
kinds = head['kinds'].split(',')

marks = {}
for line in (b / 'plugin.log').read_text().splitlines():
    m = re.match(r'INSNS idx=(\d+) ', line)
    if m:
        c = dict(re.findall(r'(c\d+_[ku])=(\d+)', line))
        marks[int(m.group(1))] = (sum(int(v) for k, v in c.items() if k.endswith('_k')),
                                  sum(int(v) for k, v in c.items() if k.endswith('_u')))
windows = [l.split() for l in (b / 'windows.txt').read_text().splitlines() if l.strip()]

syms = []
for line in (b / 'kallsyms.txt').read_text().splitlines():
    p = line.split()
    if len(p) >= 3 and p[1] in 'tTwW':
        syms.append((int(p[0], 16), p[2] + (' ' + p[3] if len(p) > 3 else '')))
syms.sort()
addrs = [a for a, _ in syms]


def name(va):
    i = bisect.bisect_right(addrs, va) - 1
    return syms[i][1] if i >= 0 else '?'


def blocks(idx):
    c = collections.Counter()
    f = b / 'tbs' / f'tbs-{idx:03d}.txt'
    if f.exists():
        for line in f.read_text().splitlines():
            va, n = line.split()
            c[name(int(va, 16))] += int(n)
    return c


win = {}
for i, (rep, kind, n) in enumerate(windows):
    s, e = marks.get(2 * i), marks.get(2 * i + 1)
    if s is None or e is None:
        continue
    win[(rep, kind, int(n))] = (e[0] - s[0], e[1] - s[1], blocks(2 * i + 1))

per = {}        # kind -> [(kernel, user) per rep]
funcs = collections.defaultdict(collections.Counter)
reps = sorted({r for r, _, _ in win})
for kind in kinds:
    per[kind] = []
    for rep in reps:
        a, z = win.get((rep, kind, n1)), win.get((rep, kind, n2))
        if not a or not z:
            continue
        per[kind].append(((z[0] - a[0]) / (n2 - n1), (z[1] - a[1]) / (n2 - n1)))
        for f in set(a[2]) | set(z[2]):
            funcs[kind][f] += (z[2][f] - a[2][f]) / (n2 - n1) / len(reps)

resent = 0
for line in (d / 'rows.json').read_text().splitlines():
    try:
        r = json.loads(line)
    except ValueError:
        continue
    resent += r.get('resent', 0) if isinstance(r, dict) else 0

print("# Instructions per round trip, counted by the emulator\n")
print(f"Source `{head['head'][:12]}`; `bench/insn-count.sh -n {n1},{n2} -k {head['kinds']}`: "
      f"QEMU's TCG plugin `bench/qemu/insncount.c` counted every instruction of the guest (both vCPUs, "
      f"both ends of the ping-pong, every process and the kernel), from just before to just after each "
      f"`ibtick-perf lat` run; the run of {n1} samples is taken from that of {n2} and the rest divided by "
      f"{n2 - n1}. Each path ran twice ({len(reps)} rows each below, which should agree). The guest halts "
      f"idle vCPUs, so waiting costs no instruction; blocking readers only. User space counts each program's "
      f"whole run, its handling of the samples after the timed loop included (udppp writes each one out and "
      f"ibtick-perf reads it back; ibtick-perf's own paths keep theirs in memory): compare the kernel's "
      f"columns, and the user column only between paths of one program. Work that goes with time rather than "
      f"with round trips (timers; the RNG, whose `blake2s_compress_generic` shows in every path) is counted too, in "
      f"proportion to how long the longer run lasted under the plugin.\n")
if resent:
    print(f"**{resent} pings were sent again** (a lost one): those runs count more than one round trip "
          "per sample.\n")
print("The plugin slows the guest several times over: its runs' times mean nothing and are not given.\n")
print("| path | kernel | user | total | each run (kernel / user) |")
print("|---|---|---|---|---|")
for kind in kinds:
    v = per[kind]
    if not v:
        print(f"| {kind} | — | — | — | |")
        continue
    k = sum(x[0] for x in v) / len(v)
    u = sum(x[1] for x in v) / len(v)
    runs = ", ".join(f"{x[0]:.0f} / {x[1]:.0f}" for x in v)
    print(f"| {kind} | {k:.0f} | {u:.0f} | {k + u:.0f} | {runs} |")
if len(kinds) > 1:
    base = kinds[0]
    with open(d / 'kernel.tsv', 'w') as t:
        t.write("function\t" + "\t".join(kinds) + "\n")
        allf = set().union(*(set(funcs[k]) for k in kinds))
        for f in sorted(allf, key=lambda f: -max(abs(funcs[k][f]) for k in kinds)):
            if max(abs(funcs[k][f]) for k in kinds) >= 1:
                t.write(f + "\t" + "\t".join(f"{funcs[k][f]:.0f}" for k in kinds) + "\n")
    for kind in kinds[1:]:
        diff = sorted(set(funcs[base]) | set(funcs[kind]),
                      key=lambda f: -abs(funcs[kind][f] - funcs[base][f]))
        print(f"\n## The kernel: {kind} against {base}, by function (per round trip)\n")
        print(f"The 25 functions whose count differs most; all are in `kernel.tsv`.\n")
        print(f"| function | {base} | {kind} | difference |")
        print("|---|---|---|---|")
        for f in diff[:25]:
            a, z = funcs[base][f], funcs[kind][f]
            print(f"| `{f}` | {a:.0f} | {z:.0f} | {z - a:+.0f} |")
