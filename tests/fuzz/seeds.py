#!/usr/bin/env python3
"""seeds.py - writes the starting corpora of the fuzz targets into
tests/fuzz/corpus/<target>/seed-*: hand-built packets and datagrams in each
target's input layout (see the head comment of tests/fuzz/fuzz_<target>.c),
the unit tests' configuration files and traces, and the example
configurations.  Run once; scripts/fuzz.sh merges what the fuzzers find
on top.  Deterministic: the same files every time."""
import glob
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def ipv4(dscp, payload=b"\x13\x88\x00\x09\x00\x10\x00\x00" + b"x" * 8,
         proto=17, frag=0, opts=b""):
    ihl = 5 + len(opts) // 4
    total = ihl * 4 + len(payload)
    h = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, dscp << 2, total, 1, frag,
                    64, proto, 0, bytes([10, 10, 0, 1]),
                    bytes([10, 10, 0, 2])) + opts
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + payload


def ipv6(dscp, ext=b"", nh=17, payload=b"\x13\x88\x00\x09\x00\x10\x00\x00"):
    body = ext + payload
    src = bytes.fromhex("20010db8000000000000000000000001")
    dst = bytes.fromhex("20010db8000000000000000000000002")
    return struct.pack("!IHBB", (6 << 28) | (dscp << 22), len(body), nh,
                       64) + src + dst + body


# IPv6 extension headers: hop-by-hop (PadN), then a fragment header.
HBH = bytes([44, 0, 1, 4, 0, 0, 0, 0])          # next: fragment
FRAG = bytes([17, 0, 0, 8, 0, 0, 0, 1])          # next: UDP, offset 1
FRAG0 = bytes([17, 0, 0, 1, 0, 0, 0, 2])         # first fragment, M=1

PACKETS = [
    ipv4(46), ipv4(10), ipv4(0), ipv4(34, proto=6),
    ipv4(46, frag=0x2001), ipv4(0, frag=0x0010),          # MF; offset only
    ipv4(18, opts=b"\x01\x01\x01\x00"),
    ipv6(46), ipv6(10, ext=HBH + FRAG, nh=0), ipv6(0, ext=FRAG0, nh=44),
    ipv6(26, nh=59, payload=b""),
]


def tunhdr(cls, inner, seq=1, magic=0x5354, ver=1, length=None):
    n = len(inner) if length is None else length
    return struct.pack("!HBBHHIQ", magic, ver, cls, n, 0, seq,
                       1_000_000_000) + inner


def write(target, name, data):
    d = os.path.join(HERE, "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data)


def udp():
    for i, p in enumerate(PACKETS):
        cls = 0 if i in (0, 4, 7) else 1 if i in (1, 6, 8) else 2
        write("udp", "ok%02d" % i, bytes([0x01]) + tunhdr(cls, p))
    p = PACKETS[0]
    write("udp", "pin", bytes([0x08 | 0x10]) + tunhdr(0, p))  # pin, then other port
    write("udp", "v6src", bytes([0x04 | 0x08]) + tunhdr(1, PACKETS[7]))
    write("udp", "short", bytes([0x01]) + tunhdr(0, p)[:12])
    write("udp", "magic", bytes([0x01]) + tunhdr(0, p, magic=0x1234))
    write("udp", "version", bytes([0x01]) + tunhdr(0, p, ver=2))
    write("udp", "class", bytes([0x01]) + tunhdr(3, p))
    write("udp", "lenmis", bytes([0x01]) + tunhdr(0, p, length=len(p) + 1))
    write("udp", "oversize", bytes([0x41]) + tunhdr(2, ipv4(0, payload=b"y" * 700)))
    write("udp", "peer", bytes([0x03]) + tunhdr(0, p))
    bad = bytearray(p)
    bad[10] ^= 1
    write("udp", "csum", bytes([0x01]) + tunhdr(0, bytes(bad)))
    write("udp", "inner6len", bytes([0x01]) + tunhdr(0, PACKETS[7][:-1] + b""))
    # with a key (byte 0 bit 7; byte 1: bit 0 the daemon encrypts, bit 1
    # sealed by the peer, bit 2 the peer encrypts, bit 3 flip bit byte2 of
    # byte byte3): authentic, encrypted, a mode mismatch, altered, replayed,
    # version 1 and unsealed version 2 at a keyed daemon, and pinned
    def keyed(ctl, kctl, hdr, flip_bit=0, flip_at=0):
        return bytes([0x80 | ctl, kctl, flip_bit, flip_at]) + hdr
    write("udp", "key-mac", keyed(0x01, 0x02, tunhdr(0, p)))
    write("udp", "key-enc", keyed(0x01, 0x07, tunhdr(1, PACKETS[7])))
    write("udp", "key-mode", keyed(0x01, 0x03, tunhdr(0, p)))
    write("udp", "key-flip", keyed(0x01, 0x0f, tunhdr(0, p), 3, 50))
    write("udp", "key-replay", keyed(0x09, 0x02, tunhdr(2, p)))
    write("udp", "key-v1", keyed(0x01, 0x00, tunhdr(0, p)))
    write("udp", "key-v2raw", keyed(0x01, 0x00, tunhdr(0, p, ver=2) + bytes(40)))
    write("udp", "key-pin", keyed(0x08 | 0x10, 0x02, tunhdr(0, p)))


def tun():
    def rec(dt, pkt):
        return bytes([dt]) + struct.pack("!H", len(pkt)) + pkt
    mix = b"".join(rec(i % 4, p) for i, p in enumerate(PACKETS))
    write("tun", "mix", bytes([0x10]) + mix)
    write("tun", "mix-limit1", bytes([0x01]) + mix * 3)
    burst = b"".join(rec(0, ipv4(d, payload=b"z" * 120)) for d in (0, 10, 46) * 8)
    write("tun", "burst-1mbit", bytes([0x02]) + burst + rec(1, ipv4(46)))
    write("tun", "burst-10g", bytes([0x33]) + burst)
    write("tun", "garbage", bytes([0x00]) + rec(1, b"\x45\x00\x00") + rec(2, b"\x60" + b"\x00" * 10))


def conf():
    files = (glob.glob(os.path.join(ROOT, "tests/unit/data/conf/*.conf")) +
             glob.glob(os.path.join(ROOT, "tests/unit/data/check/*.conf")) +
             glob.glob(os.path.join(ROOT, "tests/unit/data/dwrr/*.conf")) +
             glob.glob(os.path.join(ROOT, "tests/unit/data/pss/*.conf")) +
             glob.glob(os.path.join(ROOT, "conf/*.conf")))
    for f in sorted(files):
        name = os.path.relpath(f, ROOT).replace("/", "_")
        with open(f, "rb") as fh:
            write("conf", name, fh.read())
    # The traces next to the fuzzed file (fuzz_conf.c writes them).
    write("conf", "trace-next", b'link = { profile = { kind = "trace"; file = "trace.csv"; }; };\n'
          b'scheduler = { name = "pss"; pss = { bw = 0.3; }; };\n')
    write("conf", "mahi-next", b'link = { profile = { kind = "mahimahi"; file = "mm.trace"; }; };\n'
          b'scheduler = { name = "ticket"; };\n')


def trace():
    for f in sorted(glob.glob(os.path.join(ROOT, "tests/unit/data/link/*")) +
                    glob.glob(os.path.join(ROOT, "tests/unit/data/conf/traces/*")) +
                    glob.glob(os.path.join(ROOT, "conf/traces/*"))):
        mode = 1 if f.endswith((".mahi", ".mm", ".trace", ".txt")) else 0
        with open(f, "rb") as fh:
            write("trace", os.path.basename(f), bytes([mode]) + fh.read())
    for i, s in enumerate([b"20Mbit", b"1.5gbit", b"100kbps", b"0", b"9223372036854775808",
                           b"1e3", b"0.0000001mbit", b"unlimited"]):
        write("trace", "rate%d" % i, bytes([2]) + s)
        write("trace", "rateu%d" % i, bytes([3]) + s)
    for i, s in enumerate([b"250ms", b"1.5s", b"10us", b"0", b"3ns", b"2 sec", b"-1"]):
        write("trace", "dur%d" % i, bytes([4]) + s)


def tso():
    """Reads of an offloading tun (fuzz_tso.c): byte 0 picks the segment
    capacity (1: 1280, 2: 1400), then a little-endian virtio_net_hdr
    (flags, gso_type, hdr_len, gso_size, csum_start, csum_offset) and the
    IP packet, whose L4 checksum holds the pseudo-header sum only, as the
    kernel leaves it (here: 0, which the splitter recomputes anyway)."""
    def vnet(flags, gso, hdr_len, gso_size, cs_start, cs_off):
        return struct.pack("<BBHHHH", flags, gso, hdr_len, gso_size,
                           cs_start, cs_off)
    tcp = struct.pack("!HHIIBBHHH", 40000, 5201, 1000, 1, 5 << 4, 0x18,
                      65535, 0, 0)
    pay = bytes(range(256)) * 16                     # 4096 bytes
    v4 = ipv4(10, payload=tcp + pay, proto=6)
    write("tso", "tcp4", bytes([2]) + vnet(1, 1, 40, 1360, 20, 16) + v4)
    v6 = ipv6(10, nh=6, payload=tcp + pay)
    write("tso", "tcp6", bytes([1]) + vnet(1, 4, 60, 1220, 40, 16) + v6)
    udph = struct.pack("!HHHH", 5000, 5001, 8 + 3000, 0)
    u4 = ipv4(46, payload=udph + pay[:3000], proto=17)
    write("tso", "udp4", bytes([2]) + vnet(1, 5, 28, 1000, 20, 6) + u4)
    plain = ipv4(0, payload=tcp + pay[:100], proto=6)
    write("tso", "csum", bytes([2]) + vnet(1, 0, 0, 0, 20, 16) + plain)
    write("tso", "none", bytes([2]) + vnet(0, 0, 0, 0, 0, 0) + PACKETS[0])
    write("tso", "short", bytes([0]) + vnet(1, 1, 40, 1360, 20, 16)[:7])


def udpgro():
    """One UDP_GRO receive (fuzz_udpgro.c): gso_size as a signed 16-bit
    big-endian value, a flags byte (1: MSG_TRUNC, 2: hold the packets
    until the split ends), then the buffer: runs of tunnel datagrams as
    a sender's UDP_SEGMENT message makes them."""
    def gro(gso, flags, dgrams):
        return struct.pack("!hB", gso, flags) + b"".join(dgrams)
    d = [tunhdr(2, ipv4(0, payload=b"x" * 72), seq=i) for i in range(5)]   # 120 bytes each
    write("udpgro", "equal", gro(120, 0, d))
    write("udpgro", "short-last", gro(120, 0, d[:4] + [d[4][:50]]))
    write("udpgro", "trunc", gro(120, 1, d[:3] + [d[3][:7]]))
    write("udpgro", "no-cmsg", gro(0, 0, d[:1]))
    write("udpgro", "negative", gro(-5, 0, d[:2]))
    write("udpgro", "gso-equals-len", gro(120, 0, d[:1]))
    big = tunhdr(1, ipv4(10, payload=b"y" * 1500))      # above a pool packet
    write("udpgro", "oversize", gro(len(big), 0, [big, big[:100]]))
    write("udpgro", "pool-empty", gro(1, 2, [b"z" * 80]))
    write("udpgro", "empty", gro(64, 0, []))


def efgen():
    """schedtun-efgen's inputs (fuzz_efgen.c): byte 0 mod 3 picks sink
    datagrams [len8][payload] (0), a --rate SPEC (1) or a csv profile
    file (2)."""
    def payload(seq, ts, n=64):
        return struct.pack("!QQ", seq, ts) + bytes(n - 16)
    rx = 1 << 62
    def dg(*ps):
        return bytes([0]) + b"".join(bytes([len(p)]) + p for p in ps)
    write("efgen", "sink-inorder", dg(*(payload(i, rx - 250_000_000 - i) for i in range(6))))
    write("efgen", "sink-gap-reorder-dup", dg(payload(0, rx - 10**6), payload(3, rx - 2 * 10**6),
                                             payload(1, rx - 3 * 10**6), payload(3, rx - 10**6),
                                             payload(2, rx + 10**6)))    # from the future: owd 0
    write("efgen", "sink-short", dg(b"\x00" * 15, payload(0, rx, 16)))
    write("efgen", "sink-first-late", dg(payload(40000, rx - 5), payload(7, rx - 9)))
    for i, spec in enumerate([b"5Mbit", b"500kbit", b"1200000", b"cosine:10Mbit:0.6:6.1s",
                              b"cosine:1Mbit:0:6100ms", b"step:0:2s:1Mbit", b"step:1Mbit:0:2Mbit",
                              b"STEP:1mbit:1.5:0", b"cosine:1Mbit:1.5:1s", b"0", b"step:1:2",
                              b"9007199254740993", b"cosine:5Mbit:0.3:0"]):
        write("efgen", "spec%02d" % i, bytes([1]) + spec)
    write("efgen", "csv-header", bytes([2]) + b"t_s,rate\n0,1Mbit\n1.5,0\n3,2Mbit # up\n")
    write("efgen", "csv-plain", bytes([2]) + b"# EF profile\n\n0, 500kbit\n10,0\n")
    write("efgen", "csv-bad-order", bytes([2]) + b"0,1Mbit\n2,1Mbit\n1,1Mbit\n")
    write("efgen", "csv-first-not-0", bytes([2]) + b"1,1Mbit\n")
    write("efgen", "csv-empty", bytes([2]))


def simspec():
    """schedtun-sim's source SPECs (fuzz_simspec.c): byte 0 mod 3 picks
    --ef, --af or --cs0; the rest is the SPEC (docs/simulator.md)."""
    specs = [b"none", b"greedy", b"4*greedy:1400:8", b"cbr:5Mbit", b"cbr:5Mbit:1400",
             b"cbr:5Mbit:1400:0.6:6.1s", b"cbr:5Mbit::0.5:", b"cbr:5Mbit:1400:0.6",
             b"onoff:2Mbit:500ms:1s", b"3*onoff:2Mbit:500ms:1s:200",
             b"pareto:1.5:100000:10", b"pareto:1.2:1000000:50:unlimited:1400:1.5:10000000",
             b"50*pareto:1.5:100000:10:2Mbit", b"tfrc:1Mbit:100ms", b"tfrc:1Mbit:100ms:1200:none:300ms",
             b"10*tfrc:5Mbit:50ms:1400:1Mbit", b"web:1.2:50000:2s:10Mbit", b"web:1.2:50000:2s:10Mbit:576",
             b"2*none", b"cbr:5x", b"greedy:27", b"cbr:1Mbit:1400:1:1s", b"0*cbr:1Mbit",
             b"pareto:1:1000:1"]
    for i, spec in enumerate(specs):
        write("simspec", "spec%02d" % i, bytes([i % 3]) + spec)


GENERATORS = {"udp": udp, "tun": tun, "conf": conf, "trace": trace, "tso": tso,
              "udpgro": udpgro, "efgen": efgen, "simspec": simspec}

if __name__ == "__main__":
    # seeds.py [TARGET...]: only those targets' seeds are rewritten (all
    # of the above by default); merged inputs, regress-* and the seeds of
    # targets written by hand (tungro) stay.
    import sys
    names = sys.argv[1:] or list(GENERATORS)
    for t in names:
        if t not in GENERATORS:
            sys.exit("seeds.py: unknown target '%s' (accepted: %s)" % (t, ", ".join(GENERATORS)))
    for t in names:
        for old in glob.glob(os.path.join(HERE, "corpus", t, "seed-*")):
            os.remove(old)
        GENERATORS[t]()
