#!/usr/bin/env python3
"""stats.py - read a schedtun statistics file (JSON lines, docs/stats-format.md).

Usage:
  stats.py sum FILE          totals per class (in/out/drop), the last qlen, and
                             the conservation check in == out + drop + qlen per
                             class (packets and bytes); exit 1 if violated
  stats.py rates FILE        per interval: each class's out rate in bit/s, the
                             total, link.rate_bps, queue length and drops
  stats.py field PATH FILE   a dotted field (e.g. drops.rx_bad_magic) over the
                             lines: summed when numeric (--mode sum|last|first|
                             max|min|each), each value on its own line otherwise
  stats.py check-rate FILE (--rate RATE | --cosine MEAN AMP PERIOD) --tol FRAC
                             compare the out rate of every saturated interval
                             with C(t)'s mean over that interval; exit 1 if one
                             is off by more than FRAC of the (mean) rate

FILE may be '-' for stdin.  A last line without its newline (a daemon still
writing) is ignored with a warning; any other malformed line is an error
(exit 2).  Counters are deltas per interval; 't' is the end of the interval,
in seconds since the daemon started, so an interval is (previous t, t].
"""
import argparse
import json
import math
import re
import sys

CLASSES = ("ef", "af", "cs0")
COUNTERS = ("in_pkts", "in_bytes", "out_pkts", "out_bytes",
            "drop_pkts", "drop_bytes")


class StatsError(Exception):
    pass


def load(path):
    """Returns the list of parsed lines (dicts)."""
    f = sys.stdin if path == "-" else open(path, encoding="utf-8")
    try:
        data = f.read()
    finally:
        if f is not sys.stdin:
            f.close()
    lines = data.split("\n")
    partial = lines.pop()          # text after the last newline ('' if none)
    out = []
    for no, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            obj = json.loads(text)
        except ValueError as e:
            raise StatsError("%s:%d: not JSON: %s" % (path, no, e))
        if not isinstance(obj, dict) or "t" not in obj:
            raise StatsError("%s:%d: not a stats object (no 't')" % (path, no))
        out.append(obj)
    if partial.strip():
        print("stats.py: %s: ignoring an unterminated last line" % path,
              file=sys.stderr)
    return out


def get(obj, path, default=None):
    cur = obj
    for part in path.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return default
        cur = cur[part]
    return cur


def need(obj, path, lineno):
    v = get(obj, path)
    if v is None:
        raise StatsError("line %d: missing key %s" % (lineno, path))
    return v


def parse_rate(s):
    """'20Mbit' / '5mbit' / '1e6' / 2000000 -> bit/s (SI multipliers)."""
    if isinstance(s, (int, float)):
        return float(s)
    m = re.fullmatch(r"\s*([0-9.eE+-]+)\s*([a-zA-Z]*)\s*", s)
    if not m:
        raise argparse.ArgumentTypeError("'%s' is not a rate" % s)
    mult = {"": 1, "bit": 1, "kbit": 1e3, "mbit": 1e6, "gbit": 1e9}
    unit = m.group(2).lower()
    if unit not in mult:
        raise argparse.ArgumentTypeError(
            "'%s': unknown unit (accepted: bit, kbit, Mbit, Gbit)" % s)
    return float(m.group(1)) * mult[unit]


def intervals(lines):
    """Yields (index, t_start, t_end, line)."""
    prev_t = 0.0
    for i, ln in enumerate(lines):
        t = float(ln["t"])
        yield i, prev_t, t, ln
        prev_t = t


def class_sum(ln, key, lineno):
    return sum(need(ln, "classes.%s.%s" % (c, key), lineno) for c in CLASSES)


# ---------------------------------------------------------------- sum
def cmd_sum(args):
    lines = load(args.file)
    if not lines:
        print("stats.py sum: %s: no stats lines" % args.file, file=sys.stderr)
        return 1
    tot = {c: {k: 0 for k in COUNTERS} for c in CLASSES}
    for no, ln in enumerate(lines, 1):
        for c in CLASSES:
            for k in COUNTERS:
                tot[c][k] += need(ln, "classes.%s.%s" % (c, k), no)
    last = lines[-1]
    bad = []
    print("lines=%d t_last=%.3f" % (len(lines), float(last["t"])))
    print("%-4s %10s %12s %10s %12s %10s %12s %9s %11s" % (
        "cls", "in_pkts", "in_bytes", "out_pkts", "out_bytes", "drop_pkts",
        "drop_bytes", "qlen_pkts", "qlen_bytes"))
    for c in CLASSES:
        q_p = need(last, "classes.%s.qlen_pkts" % c, len(lines))
        q_b = need(last, "classes.%s.qlen_bytes" % c, len(lines))
        t = tot[c]
        print("%-4s %10d %12d %10d %12d %10d %12d %9d %11d" % (
            c, t["in_pkts"], t["in_bytes"], t["out_pkts"], t["out_bytes"],
            t["drop_pkts"], t["drop_bytes"], q_p, q_b))
        for unit, q in (("pkts", q_p), ("bytes", q_b)):
            lhs = t["in_" + unit]
            rhs = t["out_" + unit] + t["drop_" + unit] + q
            if lhs != rhs:
                bad.append("class %s: in_%s %d != out %d + drop %d + qlen %d "
                           "(= %d, diff %+d)" % (
                               c, unit, lhs, t["out_" + unit],
                               t["drop_" + unit], q, rhs, lhs - rhs))
    link_out = sum(get(ln, "link.out_bytes", 0) for ln in lines)
    print("link.out_bytes=%d sum(class out_bytes)=%d" % (
        link_out, sum(tot[c]["out_bytes"] for c in CLASSES)))
    if bad:
        for b in bad:
            print("conservation violated: " + b, file=sys.stderr)
        return 1
    print("conservation ok: in == out + drop + qlen for every class")
    return 0


# ---------------------------------------------------------------- rates
def cmd_rates(args):
    lines = load(args.file)
    if args.json:
        for i, t0, t1, ln in intervals(lines):
            dt = t1 - t0
            row = {"t0": t0, "t1": t1}
            for c in CLASSES:
                row[c] = (need(ln, "classes.%s.out_bytes" % c, i + 1) * 8 / dt
                          if dt > 0 else None)
            row["total"] = (class_sum(ln, "out_bytes", i + 1) * 8 / dt
                            if dt > 0 else None)
            row["rate_bps"] = get(ln, "link.rate_bps")
            print(json.dumps(row))
        return 0
    print("%8s %7s %12s %12s %12s %12s %12s %7s %7s" % (
        "t", "dt", "ef_bps", "af_bps", "cs0_bps", "total_bps", "rate_bps",
        "qlen", "drops"))
    for i, t0, t1, ln in intervals(lines):
        dt = t1 - t0
        rates = []
        for c in CLASSES:
            b = need(ln, "classes.%s.out_bytes" % c, i + 1)
            rates.append(b * 8 / dt if dt > 0 else float("nan"))
        total = sum(rates)
        print("%8.3f %7.3f %12.0f %12.0f %12.0f %12.0f %12s %7d %7d" % (
            t1, dt, rates[0], rates[1], rates[2], total,
            get(ln, "link.rate_bps", "-"),
            class_sum(ln, "qlen_pkts", i + 1),
            class_sum(ln, "drop_pkts", i + 1)))
    return 0


# ---------------------------------------------------------------- field
def cmd_field(args):
    lines = load(args.file)
    vals = [get(ln, args.path) for ln in lines]
    present = [v for v in vals if v is not None]
    if not present:
        print("stats.py field: %s: no line has %s" % (args.file, args.path),
              file=sys.stderr)
        return 1
    numeric = all(isinstance(v, (int, float)) and not isinstance(v, bool)
                  for v in present)
    mode = args.mode or ("sum" if numeric else "each")
    if mode == "each":
        for v in vals:
            print(json.dumps(v) if not isinstance(v, str) else v)
        return 0
    if mode == "first":
        v = present[0]
    elif mode == "last":
        v = present[-1]
    else:
        if not numeric:
            print("stats.py field: %s is not numeric (use --mode each)" %
                  args.path, file=sys.stderr)
            return 1
        v = {"sum": sum, "max": max, "min": min}[mode](present)
    print(json.dumps(v) if not isinstance(v, str) else v)
    return 0


# ---------------------------------------------------------------- check-rate
def mean_rate(args, t0, t1):
    """Mean of C(t) over [t0, t1] in bit/s (closed form)."""
    if args.rate is not None:
        return args.rate
    m, a, p = args.cosine
    # C(t) = m (1 + a cos(2 pi t / P));  S(t) = m t + m a P / (2 pi) sin(2 pi t / P)
    def s(t):
        return m * t + m * a * p / (2 * math.pi) * math.sin(2 * math.pi * t / p)
    return (s(t1) - s(t0)) / (t1 - t0)


def cmd_check_rate(args):
    lines = load(args.file)
    if args.rate is None and args.cosine is None:
        print("check-rate: give --rate or --cosine", file=sys.stderr)
        return 2
    if args.cosine is not None:
        args.cosine = [parse_rate(args.cosine[0]), float(args.cosine[1]),
                       float(args.cosine[2])]
        nominal = args.cosine[0]
    else:
        nominal = args.rate
    dts = sorted(t1 - t0 for _, t0, t1, _ in intervals(lines))
    if not dts:
        print("check-rate: %s: no stats lines" % args.file, file=sys.stderr)
        return 1
    median_dt = dts[len(dts) // 2]
    prev_q = 0
    steady = []
    for i, t0, t1, ln in intervals(lines):
        q = class_sum(ln, "qlen_pkts", i + 1)
        drops = class_sum(ln, "drop_pkts", i + 1)
        dt = t1 - t0
        # Saturated: packets queued at both ends of the interval (the link
        # had work all along) and, unless disabled, the queue overflowed in
        # it.  Also skip the first line and short (partial, final) intervals.
        if (i > 0 and prev_q > 0 and q > 0 and
                (drops > 0 or not args.require_drops) and
                dt >= 0.75 * median_dt):
            steady.append((t0, t1, class_sum(ln, "out_bytes", i + 1) * 8 / dt))
        prev_q = q
    worst = 0.0
    bad = 0
    for t0, t1, got in steady:
        exp = mean_rate(args, t0, t1)
        err = (got - exp) / nominal
        worst = max(worst, abs(err))
        flag = "ok" if abs(err) <= args.tol else "OUT OF TOLERANCE"
        if abs(err) > args.tol:
            bad += 1
        print("interval %.3f-%.3f out_bps=%.0f expected_bps=%.0f "
              "err=%+.3f%% %s" % (t0, t1, got, exp, 100 * err, flag))
    print("steady_intervals=%d max_err=%.3f%% tol=%.3f%% (of %.0f bit/s)" % (
        len(steady), 100 * worst, 100 * args.tol, nominal))
    if len(steady) < args.min_intervals:
        print("check-rate: only %d saturated intervals, need %d" % (
            len(steady), args.min_intervals), file=sys.stderr)
        return 1
    if bad:
        print("check-rate: %d interval(s) out of tolerance" % bad,
              file=sys.stderr)
        return 1
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="stats.py", description="schedtun statistics (JSON lines) tool",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("sum", help="totals and the conservation check")
    p.add_argument("file")
    p.set_defaults(fn=cmd_sum)
    p = sub.add_parser("rates", help="per-interval per-class out rates")
    p.add_argument("file")
    p.add_argument("--json", action="store_true", help="one JSON object a line")
    p.set_defaults(fn=cmd_rates)
    p = sub.add_parser("field", help="a dotted field over all lines")
    p.add_argument("path")
    p.add_argument("file")
    p.add_argument("--mode", choices=("sum", "last", "first", "max", "min",
                                      "each"))
    p.set_defaults(fn=cmd_field)
    p = sub.add_parser("check-rate", help="out rate vs C(t) when saturated")
    p.add_argument("file")
    p.add_argument("--rate", type=parse_rate, help="constant C, e.g. 20Mbit")
    p.add_argument("--cosine", nargs=3, metavar=("MEAN", "AMP", "PERIOD_S"),
                   help="C(t) = MEAN (1 + AMP cos(2 pi t / PERIOD_S))")
    p.add_argument("--tol", type=float, required=True,
                   help="tolerance as a fraction of the (mean) rate")
    p.add_argument("--min-intervals", type=int, default=3)
    p.add_argument("--no-require-drops", dest="require_drops",
                   action="store_false",
                   help="count saturated intervals without queue drops too")
    p.set_defaults(fn=cmd_check_rate)
    args = ap.parse_args(argv)
    try:
        return args.fn(args)
    except (StatsError, OSError) as e:
        print("stats.py: %s" % e, file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
