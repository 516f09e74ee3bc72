#!/usr/bin/env python3
"""Summarise a bench/run.sh result directory as Markdown (stdout).

usage: bench/summary.py DIR
"""
import json
import re
import sys
from pathlib import Path


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
    w("Every row was measured in the same guest boot on the same Soft-RoCE pair (rxe1 → rxe0 over a veth pair). "
      "Under QEMU TCG absolute times are inflated many times and even the floor drifts between its two runs; "
      "the **ratios to the floor** are the result.\n")

    cmp_rows = [x for x in lines(d / 'compare.json') if 'compare' in x]
    goals = []
    if cmp_rows:
        w("## Ping-pong, 64 B, half round trip (µs)\n")
        w("| path | samples | t_min | t_typical | t_avg | 99% | 99.9% | 99.99% | t_max | × floor median | × floor p99.9 |")
        w("|---|---|---|---|---|---|---|---|---|---|---|")
        for r in cmp_rows:
            w(f"| {r['compare']} | {r['n_iterations']:.0f} | {f2(r['t_min'])} | {f2(r['t_typical'])} | {f2(r['t_avg'])} | "
              f"{f2(r['percentile_99'])} | {f2(r['percentile_99.9'])} | {f2(r['percentile_99.99'])} | {f2(r['t_max'])} | "
              f"{ratio(r['median_ratio'])} | {ratio(r['p99.9_ratio'])} |")
        w("")
        by = {r['compare']: r for r in cmp_rows}
        m = by.get('ibtick mapped')
        rv = by.get('ibtick recvmsg')
        sp = by.get('sockperf UDP multicast')
        if m:
            goals.append(("mapped ring median ≤ 1.10 × floor", m['median_ratio'], met(m['median_ratio'], 1.10)))
            goals.append(("mapped ring p99.9 ≤ 1.5 × floor", m['p99.9_ratio'], met(m['p99.9_ratio'], 1.5)))
        if rv:
            goals.append(("recvmsg median ≤ 1.5 × floor", rv['median_ratio'], met(rv['median_ratio'], 1.5)))
        if m and sp and sp['ok'] and m['ok']:
            goals.append(("mapped median below sockperf's", m['t_typical'] / sp['t_typical'], m['t_typical'] < sp['t_typical']))
            goals.append(("mapped p99.9 below sockperf's", m['percentile_99.9'] / sp['percentile_99.9'],
                          m['percentile_99.9'] < sp['percentile_99.9']))

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
        if bw:
            w(f"`ib_send_bw -c UD -s 64` on the same pair: {bw:.0f} messages/s; ibtick's best publish rate {top:.0f}/s "
              f"= {top / bw:.2f} × that.\n")
            goals.append(("publish rate ≥ 0.9 × ib_send_bw -c UD", top / bw, top >= 0.9 * bw))
            half = [r for r in rate if r['offered'] and r['offered'] <= bw / 2]
            if half:
                worst = max(half, key=lambda r: r['offered'])
                goals.append((f"zero loss at ≤ half that rate (offered {worst['offered']}/s)",
                              worst['loss_pct'], worst['loss_pct'] == 0))

    for kind in ('mapped', 'epoll'):
        fo = lines(d / f'fanout-{kind}.json')[1:]
        if not fo:
            continue
        w(f"## Fan-out, {kind} readers, 5000 probes at 2000/s\n")
        w("| readers | kernel ns/tick | × 1 reader | median µs | 99.9% µs | delivered | lost |")
        w("|---|---|---|---|---|---|---|")
        for r in fo:
            w(f"| {r['readers']} | {r['kernel_ns_per_tick']:.0f} | {ratio(r['ratio'])} | {f2(r['t_typical'])} | "
              f"{f2(r['percentile_99.9'])} | {r['delivered']} | {r['lost']} |")
        w("")
        last = fo[-1]
        goals.append((f"fan-out kernel cost, {last['readers']} {kind} readers ≤ 1.2 × 1", last['ratio'], met(last['ratio'], 1.2)))

    if goals:
        w("## Targets\n")
        w("Each target is checked against what this run measured; under TCG that says how the paths compare here, "
          "not what they would do on hardware.\n")
        w("| target | measured | met |")
        w("|---|---|---|")
        for g, v, ok in goals:
            w(f"| {g} | {ratio(v)} | {'yes' if ok else '**no**'} |")
        w("")
    w("## Environment\n")
    w("```")
    w(json.dumps(env, indent=1))
    w("```")
    print("\n".join(out))


if __name__ == '__main__':
    main()
