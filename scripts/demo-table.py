#!/usr/bin/env python3
"""Live table of the demo's market-data readers (runs in the bench guest).

usage: demo-table.py [--tty] STATUS_FILE...

Each STATUS_FILE is rewritten by an `ibtick-md read -o` four times a
second (one JSON object).  The table is redrawn in place with --tty, else
printed every 5 s; it ends when every reader has written its final state
(or after 15 minutes).  Latency columns are over each reader's last 8192
messages while live, over all of them in the final state.
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


def main():
    args = sys.argv[1:]
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
