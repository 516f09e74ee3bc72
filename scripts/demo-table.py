#!/usr/bin/env python3
"""Live table of the demo's market-data readers (runs in the bench guest).

usage: demo-table.py [--tty] STATUS_FILE...
       demo-table.py --pairs LAT_JSON


Each STATUS_FILE is rewritten by an `ibtick-md read -o` four times a
second (one JSON object).  The table is redrawn in place with --tty, else
printed every 5 s; it ends when every reader has written its final state
(or after 15 minutes).  Latency columns are over each reader's last 8192
messages while live, over all of them in the final state.

With --pairs, LAT_JSON is `ibtick-perf lat -j -k floor,...` output: one
table of the paths by class, spinning receivers against the spinning verbs
floor and spinning sockperf, sleeping ones against blocking sockperf (one
run each: bench/run.sh gives the intervals).
"""
import json
import sys
import time

DEADLINE = 900  # seconds: a reader that died never writes its final state

HEAD = (f" {'reader':8} {'ticks':>8} {'rate/s':>8} {'lost':>6} {'gaps':>5} "
        f"{'missed':>7} {'median':>8} {'p99':>8} {'p99.9':>8} {'max':>9}   (latency usec)")


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def lines(states, t0):
    out = [HEAD]
    books = None
    for path, s in states:
        if not s:
            out.append(f" {'...':8} waiting for {path.rsplit('/', 1)[-1]}")
            continue
        lat = s['lat_us']
        out.append(f" {s['kind']:8} {s['delivered']:8d} {s['rate']:8.0f} "
                   f"{s['lost_ring']:6d} {s['gaps']:5d} {s['gap_msgs']:7d} "
                   f"{lat['median']:8.1f} {lat['p99']:8.1f} {lat['p99.9']:8.1f} "
                   f"{lat['max']:9.1f}{'  done' if s['final'] else ''}")
        books = books or s['books']
    if books:
        row = "  ".join(f"{sym} {b['bid']}/{b['ask']}" for sym, b in books.items())
        out.append(f" book: {row}")
    out.append(f" {time.monotonic() - t0:5.1f} s")
    return out


TITLES = {
    'floor': 'ib_send_lat -c UD (floor)', 'mapped': 'ibtick mapped, spinning',
    'busy': 'ibtick recvmsg+SO_BUSY_POLL', 'kpoll': 'ibtick epoll+poll thread',
    'udp-spin': 'sockperf --nonblocked', 'recvmsg': 'ibtick recvmsg, blocking',
    'epoll': 'ibtick mapped + epoll', 'udp': 'sockperf, blocking',
}


def pairs(path):
    with open(path) as f:
        rows = [json.loads(x) for x in f if x.startswith('{"mode"')]
    by = {r['kind']: r for r in rows}
    fl = by.get('floor')
    print(f" {'path':30} {'class':6} {'median':>9} {'p99.9':>9} {'x floor':>8} {'x floor':>8} {'x sockperf':>10}")
    print(f" {'':30} {'':6} {'usec':>9} {'usec':>9} {'median':>8} {'p99.9':>8} {'median':>10}")
    for cls, ref in (('spin', 'udp-spin'), ('sleep', 'udp')):
        for r in rows:
            if r['class'] != cls:
                continue
            k = r['kind']
            fm = f"{r['t_typical'] / fl['t_typical']:.2f}" if fl else '-'
            fp = f"{r['percentile_99.9'] / fl['percentile_99.9']:.2f}" if fl else '-'
            sp = f"{r['t_typical'] / by[ref]['t_typical']:.2f}" if ref in by and k != ref else '-'
            print(f" {TITLES.get(k, k):30} {cls:6} {r['t_typical']:9.2f} {r['percentile_99.9']:9.2f} "
                  f"{fm:>8} {fp:>8} {sp:>10}")
    print(" spin: the receiver keeps a CPU busy waiting; sleep: it blocks until woken."
          " Under TCG only the ratios mean something.")


def main():
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == '--pairs':
        pairs(args[1])
        return
    tty = bool(args) and args[0] == '--tty'
    paths = args[1:] if tty else args
    if not paths:
        sys.exit(__doc__)
    t0 = time.monotonic()
    last_print, drawn = 0.0, 0
    while True:
        states = [(p, load(p)) for p in paths]
        done = all(s and s['final'] for _, s in states)
        now = time.monotonic()
        if tty or done or now - last_print >= 5:
            text = lines(states, t0)
            if tty and drawn:
                sys.stdout.write(f"\x1b[{drawn}F")
            sys.stdout.write("".join(f"\x1b[K{ln}\n" if tty else f"{ln}\n" for ln in text))
            sys.stdout.flush()
            drawn, last_print = len(text), now
        if done:
            return
        if now - t0 > DEADLINE:
            print(f" no final state from every reader after {DEADLINE} s: giving up the table")
            return
        time.sleep(0.5)


if __name__ == '__main__':
    main()
