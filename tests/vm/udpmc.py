#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A plain UDP multicast sender and receiver for the relay topic: AF_INET
sockets only, nothing of ibtick.

  udpmc.py send GROUP PORT IFNAME COUNT [SIZE [RATE]]
      COUNT datagrams of SIZE bytes (default 100) at RATE a second
      (default 1000; 0: as fast as send returns), each carrying its
      sequence number (0..COUNT-1) and a pattern derived from it.
      Prints {"sent": N, "errors": N}.
  udpmc.py recv GROUP PORT IFNAME COUNT [QUIET]
      Joins GROUP on IFNAME alone (IP_MULTICAST_ALL off) and reads until
      COUNT datagrams arrived or nothing came for QUIET seconds (default
      5; 30 before the first), checking each payload.  Says "bound" on stderr once joined.
      Prints {"received", "unique", "dups", "bad", "missing",
      "rx_dropped"}: rx_dropped is the socket's own drop count
      (SO_RXQ_OVFL, then SO_MEMINFO at the end).
"""
import json
import socket
import struct
import sys
import time

SO_RCVBUFFORCE = 33
SO_RXQ_OVFL = 40
SO_MEMINFO = 55
SK_MEMINFO_DROPS = 8
IP_MULTICAST_ALL = 49


def payload(seq, size):
    head = struct.pack(">Q", seq)
    body = bytes((seq * 31 + i) & 0xFF for i in range(max(size - 8, 0)))
    return head + body


def mreqn(group, ifname):
    return struct.pack("4s4si", socket.inet_aton(group), socket.inet_aton("0.0.0.0"),
                       socket.if_nametoindex(ifname))


def send(group, port, ifname, count, size=100, rate=1000):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, mreqn(group, ifname))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 0)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_TTL, 1)
    s.connect((group, port))
    sent = errors = 0
    t0 = time.monotonic()
    for seq in range(count):
        if rate:
            due = t0 + seq / rate
            now = time.monotonic()
            if due > now:
                time.sleep(due - now)
        try:
            s.send(payload(seq, size))
            sent += 1
        except OSError:
            errors += 1
    print(json.dumps({"sent": sent, "errors": errors}))


def recv(group, port, ifname, count, quiet=5.0):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.setsockopt(socket.SOL_SOCKET, SO_RXQ_OVFL, 1)
    # This checker is slow Python on a shared TCG vCPU: a 4 MB buffer rides
    # out its stalls, so what it counts as dropped is the chain's, not its own
    # (root in the guest; a plain user keeps the default and may drop).
    try:
        s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 4 << 20)
    except PermissionError:
        pass
    s.setsockopt(socket.IPPROTO_IP, IP_MULTICAST_ALL, 0)
    s.bind((group, port))
    s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, mreqn(group, ifname))
    s.settimeout(max(quiet, 30.0))  # the first datagram may take a while
    print("bound", file=sys.stderr, flush=True)
    seen = bytearray(count)
    received = unique = dups = bad = dropped = 0
    while received < count:
        try:
            data, anc, _, _ = s.recvmsg(65536, socket.CMSG_SPACE(4))
        except socket.timeout:
            break
        received += 1
        s.settimeout(quiet)
        for level, typ, val in anc:
            if level == socket.SOL_SOCKET and typ == SO_RXQ_OVFL:
                dropped = max(dropped, struct.unpack("I", val[:4])[0])
        if len(data) < 8:
            bad += 1
            continue
        seq = struct.unpack(">Q", data[:8])[0]
        if seq >= count or data != payload(seq, len(data)):
            bad += 1
            continue
        if seen[seq]:
            dups += 1
        else:
            seen[seq] = 1
            unique += 1
    mi = s.getsockopt(socket.SOL_SOCKET, SO_MEMINFO, 4 * 9)
    dropped = max(dropped, struct.unpack("9I", mi)[SK_MEMINFO_DROPS])
    print(json.dumps({"received": received, "unique": unique, "dups": dups, "bad": bad,
                      "missing": count - unique, "rx_dropped": dropped}))


def main():
    a = sys.argv[1:]
    if len(a) >= 5 and a[0] == "send":
        send(a[1], int(a[2]), a[3], int(a[4]), *[int(x) for x in a[5:7]])
    elif len(a) >= 5 and a[0] == "recv":
        recv(a[1], int(a[2]), a[3], int(a[4]), *[float(x) for x in a[5:6]])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
