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

def means(kind):
    """(kernel, user) per round trip or tick, the mean of the runs; None without a run."""
    v = per[kind]
    return (sum(x[0] for x in v) / len(v), sum(x[1] for x in v) / len(v)) if v else None


DRAIN = re.compile(r'^(ibt_(rx_\S*|ring_(begin|commit)|pubtrack_observe|comp_direct_ok|poll_(trylock|unlock|'
                   r'event_wanted|rearm_timer|keep_timer))|rxe_(poll_cq|post_recv|req_notify_cq)) ')


def fanout_summary():
    """fan-K-R kinds alone: the drain's functions against the rest, per tick, by readers."""
    fan = collections.defaultdict(list)     # kind -> fanout rows of its N2 runs
    f = d / 'fanout.json'
    at = None       # the run the rows that follow came from (its window)
    for line in (f.read_text().splitlines() if f.exists() else []):
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if 'window' in r:
            at = r['window'].split()
        elif at and int(at[2]) == n2 and r.get('mode') == 'fanout':
            fan[at[1]].append(r)
    bad = [(k, r) for k in kinds for r in fan[k]
           if r.get('lost') or r.get('delivered') != r.get('readers', 0) * n2]
    print("# Fan-out: instructions per tick by readers, counted by the emulator\n")
    print(f"Source `{head['head'][:12]}`; `bench/insn-count.sh -n {n1},{n2} -r {head.get('rate')} "
          f"-k {head['kinds']}`: `ibtick-perf fanout`, one publisher on rxe1 and R sleeping readers of one "
          f"feed on rxe0, as in `bench/run.sh`'s fan-out, at {head.get('rate')} ticks/s. QEMU's TCG plugin "
          f"`bench/qemu/insncount.c` counted every instruction of the guest around each run; the run of {n1} "
          f"ticks is taken from that of {n2} and the rest divided by {n2 - n1}. Each count ran twice "
          f"({len(reps)} runs each); the guest halts idle vCPUs.\n")
    print("**drain**: the instructions of the receive CQ's drain, by function name: ibtick's `ibt_rx_*` "
          "(the completions, the ring writes, the reposts), `ibt_ring_begin`/`ibt_ring_commit`, the publisher "
          "tracking, the CQ event's handler and ownership, and rdma_rxe's `poll_cq`, `post_recv` and "
          "`req_notify_cq`: what the shared ring pays once per tick however many read. **rest**: every other "
          "kernel instruction per tick: the publisher's send and rxe's receive (the same for any number of "
          "readers), the wake-ups, and each reader's own system calls and scheduling (which grow with the "
          "readers); **per added reader**: its growth over the first row's, per reader more. **fill ns**: `ibtick-perf fanout`'s own fill time per tick (the drain without the "
          "wake-ups, from `IBTICK_STATISTICS`) in the same runs: the plugin slows the guest several times, "
          "so only its growth with the readers means anything, and **ns / drain insn** puts it on the drain's "
          "instructions: what an instruction of the same work costs the emulator.\n")
    if bad:
        print("**Not every tick was delivered to every reader** in: " +
              ", ".join(f"{k} ({r.get('delivered')} delivered, {r.get('lost')} lost)" for k, r in bad) +
              ": those counts are not per tick alone.\n")
    groups = collections.defaultdict(list)     # reader kind -> its fan- kinds
    for kind in kinds:
        groups[kind.split('-')[1]].append(kind)
    for rk, ks in groups.items():
        fan_group(rk, ks, fan)


def fan_group(rk, ks, fan):
    """One reader kind's table, its drain by function and what grows."""
    print(f"\n## {rk} readers\n")
    base = None
    print("| readers | kernel / tick | drain / tick | × 1 reader | rest / tick | rest per added reader | "
          "fill ns (plugin) | × 1 reader | ns / drain insn | each run: drain |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for kind in ks:
        m = means(kind)
        if not m:
            print(f"| {kind} | — | — | — | — | — | — | — | — | |")
            continue
        readers = int(kind.rsplit('-', 1)[1])
        k = m[0]
        dr = sum(c for fn, c in funcs[kind].items() if DRAIN.match(fn + ' '))
        runs = ", ".join(f"{x:.0f}" for x in drain_runs[kind])
        fills = [r['fill_ns_per_tick'] for r in fan[kind] if 'fill_ns_per_tick' in r]
        fill = sum(fills) / len(fills) if fills else None
        rest = k - dr
        if base is None:
            base = (dr, fill, rest, readers)
        added = f"{(rest - base[2]) / (readers - base[3]):.0f}" if readers > base[3] else "—"
        fx = f"{fill / base[1]:.2f}" if fill and base[1] else "—"
        npi = f"{fill / dr:.2f}" if fill and dr else "—"
        fs = f"{fill:.0f}" if fill is not None else "—"
        print(f"| {readers} | {k:.0f} | {dr:.0f} | {dr / base[0]:.2f} | {rest:.0f} | "
              f"{added} | {fs} | {fx} | {npi} | {runs} |")
    last = ks[-1]
    names = sorted((fn for fn in set().union(*(set(funcs[k]) for k in ks)) if DRAIN.match(fn + ' ')),
                   key=lambda fn: -funcs[ks[0]][fn])
    print(f"\n### {rk}: the drain's functions, per tick, by readers\n")
    print("| function | " + " | ".join(k.rsplit('-', 1)[1] for k in ks) + " |")
    print("|---|" + "---|" * len(ks))
    for fn in names:
        if max(abs(funcs[k][fn]) for k in ks) >= 1:
            print(f"| `{fn}` | " + " | ".join(f"{funcs[k][fn]:.0f}" for k in ks) + " |")
    grow = sorted(set(funcs[ks[0]]) | set(funcs[last]),
                  key=lambda fn: -(funcs[last][fn] - funcs[ks[0]][fn]))
    print(f"\n### {rk}: what grows with the readers, {last} against {ks[0]}, per tick\n")
    print("The 20 kernel functions whose count grows most; all are in `kernel.tsv`.\n")
    print(f"| function | {ks[0]} | {last} | difference |")
    print("|---|---|---|---|")
    for fn in grow[:20]:
        a, z = funcs[ks[0]][fn], funcs[last][fn]
        print(f"| `{fn}` | {a:.0f} | {z:.0f} | {z - a:+.0f} |")




drain_runs = collections.defaultdict(list)
for kind in kinds:
    for rep in reps:
        a, z = win.get((rep, kind, n1)), win.get((rep, kind, n2))
        if a and z:
            drain_runs[kind].append(sum(z[2][fn] - a[2][fn] for fn in set(a[2]) | set(z[2])
                                        if DRAIN.match(fn + ' ')) / (n2 - n1))


def write_tsv():
    with open(d / 'kernel.tsv', 'w') as t:
        t.write("function\t" + "\t".join(kinds) + "\n")
        allf = set().union(*(set(funcs[k]) for k in kinds))
        for f in sorted(allf, key=lambda f: -max(abs(funcs[k][f]) for k in kinds)):
            if max(abs(funcs[k][f]) for k in kinds) >= 1:
                t.write(f + "\t" + "\t".join(f"{funcs[k][f]:.0f}" for k in kinds) + "\n")


if all(k.startswith('fan-') for k in kinds):
    write_tsv()
    fanout_summary()
    sys.exit(0)

resent = 0
for line in (d / 'rows.json').read_text().splitlines():
    try:
        r = json.loads(line)
    except ValueError:
        continue
    resent += r.get('resent', 0) if isinstance(r, dict) else 0

print("# Instructions per round trip, counted by the emulator\n")
if head.get('pair'):
    print(f"Source `{head['head'][:12]}`; `bench/insn-count.sh -p -n {n1},{n2} -k {head['kinds']}`: "
          f"between the two guests of the pair bench (one vCPU each), QEMU's TCG plugin "
          f"`bench/qemu/insncount.c` counted every instruction of the pinging guest (node 1: its kernel and "
          f"every process) from just before to just after each `ibtick-perf lat` run; the answering guest is "
          f"not counted. The run of {n1} samples is taken from that of {n2} and the rest divided by {n2 - n1}. "
          f"Each path ran twice ({len(reps)} rows each below, which should agree). A spinning reader's count "
          f"includes its spins, as many as the round trip lasted under the plugin: compare such paths on the "
          f"kernel's receive and transmit path below, which the spin does not repeat.\n")
else:
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
    m = means(kind)
    if not m:
        print(f"| {kind} | — | — | — | |")
        continue
    k, u = m
    runs = ", ".join(f"{x[0]:.0f} / {x[1]:.0f}" for x in per[kind])
    print(f"| {kind} | {k:.0f} | {u:.0f} | {k + u:.0f} | {runs} |")
if len(kinds) > 1:
    base = kinds[0]
    write_tsv()
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

# the kernel's per-packet path: the NIC, IP, UDP and rxe, receive and
# transmit; not the CQ polls and arming a spinning reader repeats
NETPATH = re.compile(r'^(virtnet|virtqueue|vring|napi|__napi|netif|__netif|gro_|dev_gro|napi_gro|ip_|__ip_|'
                     r'ipv4_|inet_|udp|__udp|rxe_|skb_|__skb|__alloc_skb|kfree_skb|consume_skb|dst_|fib_|'
                     r'rt_|__mkroute|__dev_|dev_|neigh|eth_|validate_xmit|sch_|__qdisc|pfifo|'
                     r'net_rx_action|__netdev)')
SPIN = re.compile(r'^rxe_(poll_cq|req_notify_cq)$')
if head.get('pair') and len(kinds) > 1:
    base = kinds[0]
    names = [f for f in set().union(*(set(funcs[k]) for k in kinds))
             if NETPATH.match(f.split()[0]) and not SPIN.match(f.split()[0])]
    print("\n## The kernel's receive and transmit path, by function (per round trip)\n")
    print("The functions of the NIC's driver, the network core, IP, UDP and rxe (its CQ polls and arming, "
          "which a spinning reader repeats, left out): the work of the packets themselves. Their sum, then "
          "the 25 with the most instructions.\n")
    print("| function | " + " | ".join(kinds) + " | " +
          " | ".join(f"{k} − {base}" for k in kinds[1:]) + " |")
    print("|---|" + "---|" * (2 * len(kinds) - 1))
    tot = {k: sum(funcs[k][f] for f in names) for k in kinds}
    print("| **sum** | " + " | ".join(f"{tot[k]:.0f}" for k in kinds) + " | " +
          " | ".join(f"{tot[k] - tot[base]:+.0f}" for k in kinds[1:]) + " |")
    for f in sorted(names, key=lambda f: -max(funcs[k][f] for k in kinds))[:25]:
        print(f"| `{f}` | " + " | ".join(f"{funcs[k][f]:.0f}" for k in kinds) + " | " +
              " | ".join(f"{funcs[k][f] - funcs[base][f]:+.0f}" for k in kinds[1:]) + " |")
