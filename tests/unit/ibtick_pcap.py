#!/usr/bin/env python3
"""Write small pcap files of UD SENDs for tests/unit/wireshark.sh.

    ibtick_pcap.py KIND FILE

KIND is one of
  roce     RoCEv2 (Ethernet/IPv4/UDP 4791/BTH/DETH/payload/ICRC): ibtick
           ticks of feed 7200, publisher 0x11223344, sequences 1..5, payload
           lengths 0, 1, 2, 3, 64 (the odd ones padded by PadCnt), and a
           header with hdr_len 40 (a later version's longer header)
  ib       the same ticks as native InfiniBand packets (LRH/GRH/BTH/DETH/
           payload/ICRC/VCRC) in ERF records of type INFINIBAND in a pcap
           of link type ERF, as ibdump writes them
  bad      RoCEv2: hdr_len 16, then len 200 in a 96-byte payload, then a
           20-byte payload (all with the magic and version 1)
  foreign  RoCEv2 and IB UD SENDs whose payload is not ibtick (wrong magic,
           version 2, zeros) and a UDP 4791 datagram that is an ibtick
           header without BTH/DETH
The times are fixed: send_ns of sequence s is 1700000000 s + s ms.
"""
import struct
import sys

MAGIC, VERSION, HDR = 0x4954, 1, 32
PORT, PUB = 7200, 0x11223344
BASE_NS = 1700000000 * 10**9


def tick(seq, length, hdr_len=HDR, port=PORT, claimed_len=None):
    """An ibtick header (hdr_len bytes) and LENGTH payload bytes."""
    h = struct.pack(">HBBHHIIQQ", MAGIC, VERSION, hdr_len, port,
                    length if claimed_len is None else claimed_len, PUB, 0,
                    seq, BASE_NS + seq * 10**6)
    h += bytes(max(0, hdr_len - HDR))
    return h + bytes((seq + i) & 0xff for i in range(length))


def bth_deth(payload, psn):
    """BTH (UD SEND only, to the multicast QP) and DETH; PadCnt pads the
    payload to 4 bytes, as the transport does."""
    pad = -len(payload) % 4
    bth = struct.pack(">BBHII", 0x64, pad << 4, 0xFFFF, 0xFFFFFF, psn)
    deth = struct.pack(">II", 0x80010000, 17)
    return bth + deth + payload + bytes(pad)


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack(">%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def roce(payload, psn, dport=4791):
    """Ethernet/IPv4/UDP to 239.2.0.1:DPORT around a BTH/DETH packet and a
    (dummy) ICRC."""
    udp_payload = bth_deth(payload, psn) + b"\x12\x34\x56\x78"
    return udp(udp_payload, dport)


def udp(udp_payload, dport):
    udp_h = struct.pack(">HHHH", 49152, dport, 8 + len(udp_payload), 0)
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp_h) + len(udp_payload),
                     len(udp_payload) & 0xFFFF, 0x4000, 64, 17, 0,
                     bytes([10, 0, 0, 2]), bytes([239, 2, 0, 1]))
    ip = ip[:10] + struct.pack(">H", csum(ip)) + ip[12:]
    eth = bytes.fromhex("01005e020001" "020000000002") + b"\x08\x00"
    return eth + ip + udp_h + udp_payload


def ib(payload, psn):
    """LRH (LNH 3: GRH follows) and GRH to a multicast GID around a
    BTH/DETH packet, then ICRC and VCRC."""
    body = bth_deth(payload, psn)
    grh = struct.pack(">IHBB16s16s", 6 << 28, len(body) + 4, 0x1B, 1,
                      bytes.fromhex("fe800000000000000000000000000002"),
                      bytes.fromhex("ff0e0000000000000000ffffef020001"))
    words = (8 + len(grh) + len(body) + 4) // 4
    lrh = struct.pack(">BBHHH", 0x00, 0x03, 0xC001, words, 0x0002)
    return lrh + grh + body + b"\x12\x34\x56\x78" + b"\xab\xcd"


def erf(packet, sec):
    """An ERF record header (type INFINIBAND, flags 4 as ibdump sets) and
    the packet."""
    return struct.pack("<Q", sec << 32) + struct.pack(
        ">BBHHH", 21, 4, 16 + len(packet), 0, len(packet)) + packet


def pcap(path, linktype, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, linktype))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 1700000000 + i, 0, len(fr), len(fr)))
            f.write(fr)


def good_ticks():
    lens = [0, 1, 2, 3, 64]
    t = [tick(s, n) for s, n in zip(range(1, 6), lens)]
    t.append(tick(6, 8, hdr_len=40))
    return t


def main():
    kind, path = sys.argv[1], sys.argv[2]
    if kind == "roce":
        pcap(path, 1, [roce(t, i) for i, t in enumerate(good_ticks())])
    elif kind == "ib":
        pcap(path, 197, [erf(ib(t, i), 1700000000 + i)
                         for i, t in enumerate(good_ticks())])
    elif kind == "bad":
        frames = [tick(1, 8, hdr_len=16),
                  tick(2, 64, claimed_len=200),
                  tick(3, 0)[:20]]
        pcap(path, 1, [roce(t, i) for i, t in enumerate(frames)])
    elif kind == "foreign":
        other = [struct.pack(">HBB", 0x4955, 1, 32) + bytes(60),
                 struct.pack(">HBB", MAGIC, 2, 32) + bytes(60),
                 bytes(64)]
        frames = [roce(t, i) for i, t in enumerate(other)]
        # UDP 4791 that starts with an ibtick header but has no BTH: the
        # InfiniBand dissector reads the magic as an opcode, and what it
        # offers to the payload heuristics does not start with the magic
        frames.append(udp(tick(1, 64), 4791))
        pcap(path, 1, frames)
        pcap(path + ".ib", 197, [erf(ib(t, i), 1700000000 + i)
                                 for i, t in enumerate(other)])
    else:
        sys.exit("unknown kind " + kind)


if __name__ == "__main__":
    main()
