#!/usr/bin/env python3
"""soak.py - the python side of scripts/soak.sh (stdlib only).

  soak.py params SCHEDTUN NAME
      a scheduler.NAME group body with a non-default value for every
      numeric, duration and boolean key `SCHEDTUN --help-sched-json NAME` lists
      (its own key table: names, ranges and defaults are never guessed);
      keys of nested per-class groups and rates are left at their defaults.
      Printed as libconfig text ("" when the scheduler has no keys).
  soak.py garbage DST_IP DST_PORT SRC_IP SRC_PORT N SEED [--valid]
      sends N malformed datagrams from SRC_IP:SRC_PORT (bind: the address
      must be local, the port free): random bytes, truncated headers, wrong
      magic, version, class or length, a non-IP or an oversize inner
      packet; with --valid also well-formed ones (for a sender that is not
      the peer: rx_unknown_peer).  Prints "sent N".
  soak.py totals FILE
      one line of key=value totals over a stats file: in/out/drop per class,
      the drops the soak provokes, the sum of every rx_* drop.

Every datagram from `garbage` fails one of the receiver's checks
(docs/tunnel-protocol.md, "Receive checks"): random ones never start with the magic.
"""
import json
import random
import re
import socket
import struct
import sys
import time

MAGIC = 0x5354
HDR = "!HBBHHIQ"            # magic, version, class, length, flags, seq, tx_ns


# ---------------------------------------------------------------- params
def non_default(rng, default):
    """A value in rng (min, max) other than default, or None."""
    lo, hi = rng
    for v in (default * 2, default // 2, 1000, lo, hi):
        if lo <= v <= hi and v != default:
            return v
    return None


DUR = re.compile(r"^(\d+(?:\.\d+)?)(ns|us|ms|s)$")
INT = re.compile(r"^\d+$")


def gen_value(key):
    """A libconfig value other than the default for one key of
    `--help-sched-json` (its type, default, min and max), or None when the
    key is left at its default (rates, strings, groups, keys whose default
    is worked out at start, such as "the MTU")."""
    typ, default = key["type"], key.get("default")
    if default is None:
        return None
    if typ == "bool":
        return "false" if default == "true" else "true"
    if typ in ("uint", "bytes") and INT.match(default):
        v = non_default((key["min"], key["max"]), int(default))
        return None if v is None else str(v)
    if typ == "number" and re.match(r"^\d*\.\d+$", default) and key.get("max") == 1:
        return "0.3" if float(default) != 0.3 else "0.4"
    if typ == "duration" and DUR.match(default):
        num, unit = DUR.match(default).groups()
        return '"%g%s"' % (float(num) * 2, unit)
    return None


def cmd_params(binary, name):
    import subprocess
    out = subprocess.run([binary, "--help-sched-json", name], check=True,
                         capture_output=True, text=True).stdout
    keys = json.loads(out)["keys"]
    prefix = "scheduler.%s." % name
    tree = {}
    for k in keys:
        path = k["key"][len(prefix):] if k["key"].startswith(prefix) else None
        if not path or "<" in path:
            continue
        v = gen_value(k)
        if v is None:
            continue
        node = tree
        parts = path.split(".")
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        node[parts[-1]] = v

    def emit(node):
        return " ".join("%s = %s;" % (k, "{ %s }" % emit(v) if isinstance(v, dict) else v)
                        for k, v in node.items())

    # Cross-key rules (dwrr: quantum or weights; pss: lr below lm...) are
    # the scheduler's: ask `--check` and leave out each key it names.
    for _ in range(len(keys) + 1):
        bad = check_errors(binary, name, emit(tree))
        if not bad:
            break
        node = tree
        parts = bad.split(".")
        for p in parts[:-1]:
            node = node.get(p, {})
        if parts[-1] not in node:
            raise SystemExit("soak.py params: --check rejects %s: %s" % (name, bad))
        del node[parts[-1]]
    print(emit(tree))
    return 0


def check_errors(binary, name, body):
    """The first key `binary --check` names as wrong in a 10 Mbit/s file
    with scheduler.NAME = { BODY } (None: valid)."""
    import subprocess
    import tempfile
    text = ('link = { rate = "10Mbit"; };\n'
            'scheduler = { name = "%s"; %s = { %s }; };\n' % (name, name, body))
    with tempfile.NamedTemporaryFile("w", suffix=".conf") as f:
        f.write(text)
        f.flush()
        r = subprocess.run([binary, "--check", "-f", f.name],
                           capture_output=True, text=True)
    if r.returncode == 0:
        return None
    m = re.search(r"scheduler\.%s\.([\w.]+)" % re.escape(name), r.stdout + r.stderr)
    if not m:
        raise SystemExit("soak.py params: --check: %s" % (r.stdout + r.stderr))
    return m.group(1)


# ---------------------------------------------------------------- garbage
def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff


def ipv4_udp(payload_len):
    """A well-formed IPv4/UDP packet 10.10.0.2 -> 10.10.0.1."""
    udp = struct.pack("!HHHH", 40000, 9, 8 + payload_len, 0) + bytes(payload_len)
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0, 64, 17, 0,
                    socket.inet_aton("10.10.0.2"), socket.inet_aton("10.10.0.1"))
    return h[:10] + struct.pack("!H", csum(h)) + h[12:] + udp


def hdr(length, magic=MAGIC, ver=1, cls=2, seq=0):
    return struct.pack(HDR, magic, ver, cls, length, 0, seq, time.time_ns())


def garbage_one(r, valid):
    inner = ipv4_udp(r.randrange(0, 1000))
    kinds = ["random", "short", "magic", "version", "class", "length",
             "notip", "oversize"] + (["valid"] * 2 if valid else [])
    k = r.choice(kinds)
    if k == "random":
        b = bytearray(r.randbytes(r.randrange(0, 1473)))
        if len(b) >= 2 and b[0] == MAGIC >> 8 and b[1] == MAGIC & 0xff:
            b[0] ^= 0xff
        return bytes(b)
    if k == "short":
        return (hdr(len(inner)) + inner)[:r.randrange(0, 20)]
    if k == "magic":
        return hdr(len(inner), magic=r.randrange(0, MAGIC)) + inner
    if k == "version":
        return hdr(len(inner), ver=r.randrange(2, 256)) + inner
    if k == "class":
        return hdr(len(inner), cls=r.randrange(3, 256)) + inner
    if k == "length":
        return hdr(len(inner) + r.randrange(1, 100)) + inner
    if k == "notip":
        notip = bytes(r.randrange(1, 200))
        return hdr(len(notip)) + notip
    if k == "oversize":
        big = ipv4_udp(1450 - 28)
        return hdr(len(big)) + big
    return hdr(len(inner), seq=r.randrange(0, 1 << 32)) + inner


def cmd_garbage(dst, dport, src, sport, n, seed, valid):
    r = random.Random(seed)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.setsockopt(socket.IPPROTO_IP, 10, 0)     # IP_MTU_DISCOVER = DONT
    s.bind((src, sport))
    sent = 0
    for _ in range(n):
        try:
            s.sendto(garbage_one(r, valid), (dst, dport))
            sent += 1
        except OSError:
            pass                # ECONNREFUSED from an earlier one: not sent
        time.sleep(0.001)
    print("sent %d" % sent)
    return 0


# ---------------------------------------------------------------- totals
def cmd_totals(path):
    tot = {"%s_%s" % (c, k): 0 for c in ("ef", "af", "cs0")
           for k in ("in_pkts", "out_pkts", "drop_pkts")}
    tot.update({k: 0 for k in ("pool_empty", "send_error", "tun_write_error",
                               "rx_all", "tx_blocked", "stats_write_error",
                               "lines", "t")})
    with open(path, encoding="utf-8") as f:
        for text in f:
            if not text.endswith("\n") or not text.strip():
                continue
            o = json.loads(text)
            for c, v in o["classes"].items():
                for k in ("in_pkts", "out_pkts", "drop_pkts"):
                    tot["%s_%s" % (c, k)] = tot.get("%s_%s" % (c, k), 0) + v[k]
            for k, v in o["drops"].items():
                key = "rx_all" if k.startswith("rx_") else k
                tot[key] = tot.get(key, 0) + v
            for k, v in o.get("io", {}).items():
                tot[k] = tot.get(k, 0) + v
            tot["lines"] = tot.get("lines", 0) + 1
            tot["t"] = o["t"]
    print(" ".join("%s=%s" % kv for kv in sorted(tot.items())))
    return 0


def main(argv):
    if len(argv) >= 3 and argv[0] == "params":
        return cmd_params(argv[1], argv[2])
    if len(argv) >= 7 and argv[0] == "garbage":
        return cmd_garbage(argv[1], int(argv[2]), argv[3], int(argv[4]),
                           int(argv[5]), int(argv[6]), "--valid" in argv[7:])
    if len(argv) == 2 and argv[0] == "totals":
        return cmd_totals(argv[1])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
