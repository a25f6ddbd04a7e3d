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
  stats.py check-rx-rate RXFILE --sender TXFILE --delay S
                             (--rate RATE | --cosine MEAN AMP PERIOD) --tol FRAC
                             the RECEIVER's rate: sum(rx.*.bytes)*8/dt of each
                             of RXFILE's intervals that falls, moved onto the
                             sender's clock, inside a busy stretch of TXFILE
                             (its saturated intervals after the first of
                             each stretch), against C(t)'s mean over it; exit 1 if
                             one is off by more than FRAC (--lateness: plus
                             what the sender's and the receiver's reported
                             lateness moves across the interval's
                             boundaries, and the capacity the sender's
                             pacer forgave for stalls beyond its 50-ms
                             catch-up)
  stats.py link-check TXFILE RXFILE [--rcvbuf-errors N] [--per-buffer K]
                             what the receiver got against what the sender
                             put on the link: rx pkts + lost = out pkts -
                             inflight at the end; every lost datagram
                             explained by a send_error or by the receiver's
                             socket drops; exit 1 otherwise
  stats.py steady TXFILE [--rx RXFILE --delay S] [--backlog af,cs0] [--any]
                             the mix tests' steady intervals (the classes
                             queued at both ends, not short, without the
                             first and last): their table, then one line
                             "RESULT {json}": the sender's per-class out
                             rates and, with --rx, the receiver's rx rates
                             over its intervals inside those stretches
  stats.py owd CLASS FILE    per line the rx one-way delay of CLASS, and the
                             run's packet-weighted avg, largest p99 and max
  stats.py origin FILE       the CLOCK_REALTIME of FILE's t = 0: the median
                             of wall - t over its lines (older files: the
                             file's mtime minus its last line's t)

FILE may be '-' for stdin.  A last line without its newline (a daemon still
writing) is ignored with a warning; any other malformed line is an error
(exit 2).  Counters are deltas per interval; 't' is the end of the interval,
in seconds since the daemon started, so an interval is (previous t, t].
"""
import argparse
import json
import math
import os
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
    """A rate as the daemon reads it -> bit/s (float); a number passes as is.

    Texts go through mininet/schedlab/units.py, the copy of src/util/units.c:
    tc's units ("20Mbit", "1e6", "20mbps" = 160 Mbit/s), no "20M".
    argparse.ArgumentTypeError with its message "'S' is not a rate
    (accepted: ...)".
    """
    if isinstance(s, (int, float)):
        return float(s)
    # Imported here, not at the top: the other subcommands run without
    # mininet/ beside scripts/.
    mininet = os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), "mininet")
    if mininet not in sys.path:
        sys.path.insert(0, mininet)
    from schedlab import units
    try:
        return float(units.parse_rate_bps(s))
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


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
def mean_c(rate, cosine, t0, t1):
    """Mean of C(t) over [t0, t1] in bit/s (closed form): rate when it is
    not None, else cosine = (m, a, P), C(t) = m (1 + a cos(2 pi t / P))."""
    if rate is not None:
        return rate
    m, a, p = cosine
    # S(t) = m t + m a P / (2 pi) sin(2 pi t / P), the service curve
    def s(t):
        return m * t + m * a * p / (2 * math.pi) * math.sin(2 * math.pi * t / p)
    return (s(t1) - s(t0)) / (t1 - t0)


def mean_rate(args, t0, t1):
    return mean_c(args.rate, args.cosine, t0, t1)


def median_dt(lines):
    dts = sorted(t1 - t0 for _, t0, t1, _ in intervals(lines))
    return dts[len(dts) // 2] if dts else 0.0


def saturated(lines, require_drops=True):
    """The saturated intervals of a sender's lines, as (index, t0, t1, line):
    packets queued at both ends of the interval (the link had work all
    along) and, when require_drops, queue drops inside it.  The first line
    and short intervals (< 0.75 x the median: the partial line written at
    SIGTERM) are never saturated."""
    mdt = median_dt(lines)
    out = []
    prev_q = 0
    for i, t0, t1, ln in intervals(lines):
        q = class_sum(ln, "qlen_pkts", i + 1)
        drops = class_sum(ln, "drop_pkts", i + 1)
        if (i > 0 and prev_q > 0 and q > 0 and
                (drops > 0 or not require_drops) and t1 - t0 >= 0.75 * mdt):
            out.append((i, t0, t1, ln))
        prev_q = q
    return out


def spans(ivals):
    """Merges (t0, t1) pairs that touch (t1 of one = t0 of the next) into
    maximal [start, end] stretches."""
    out = []
    for t0, t1 in sorted(ivals):
        if out and abs(t0 - out[-1][1]) < 1e-9:
            out[-1][1] = t1
        else:
            out.append([t0, t1])
    return [tuple(x) for x in out]


def busy_spans(tx_lines, require_drops=True):
    """The stretches in which the sender's link was busy: its saturated
    intervals merged (spans), each without its first interval.  Packets
    queued at both ends of an interval do not keep the link busy inside
    it: right after the queue was empty (TCP's ramp, a stretch's start)
    it can drain and refill between the two ends; one saturated interval
    before is the evidence that it had not been empty.  (A 1-s interval
    at the start of a loaded run's stretch carried 15.76 of 20 Mbit/s at
    the receiver with packets queued at both its ends: issue 19.)"""
    sat = saturated(tx_lines, require_drops)
    out = []
    for s0, s1 in spans((t0, t1) for _, t0, t1, _ in sat):
        first_end = min(t1 for _, t0, t1, _ in sat if abs(t0 - s0) < 1e-9)
        if first_end < s1 - 1e-9:
            out.append((first_end, s1))
    return out


def origin(path, lines=None):
    """CLOCK_REALTIME (s) of the daemon's t = 0 for stats file PATH.  Each
    line carries `wall`, the realtime at which its t was read (the clock
    of the tunnel's owd stamps): the origin is the median of wall - t over
    the lines, exact to the 1-ms print of t and robust to a line whose
    clock was read oddly.  Files written before `wall` existed fall back
    to the file's mtime (when its last line was written, at that line's
    t), which is off by the write's latency after t was read."""
    if lines is None:
        lines = load(path)
    if not lines:
        raise StatsError("%s: no stats lines" % path)
    d = sorted(float(ln["wall"]) - float(ln["t"]) for ln in lines if "wall" in ln)
    if d:
        return d[len(d) // 2]
    return os.stat(path).st_mtime_ns / 1e9 - float(lines[-1]["t"])


def rx_sum(ln, key, classes=CLASSES):
    return sum(get(ln, "rx.%s.%s" % (c, key), 0) for c in classes)


def rx_rate_rows(rx_lines, tx_lines, shift, rate=None, cosine=None,
                 classes=CLASSES, require_drops=True):
    """The receiver's rate in the sender's saturated stretches.  shift:
    seconds to subtract from the receiver's t to get the sender's t of the
    same bytes (= sender's origin - receiver's origin + one-way delay).
    Returns rows (rx_t0, rx_t1, tx_t0, tx_t1, got_bps, expected_bps) for
    every receiver interval whose span, moved by -shift, lies inside one
    of the sender's busy stretches (busy_spans: saturated intervals after
    the first of each stretch, so the link had work for all of it) and is
    not short (< 0.75 x the median interval)."""
    sat = busy_spans(tx_lines, require_drops)
    mdt = median_dt(rx_lines)
    rows = []
    for i, t0, t1, ln in intervals(rx_lines):
        if i == 0 or t1 - t0 < 0.75 * mdt:
            continue
        a0, a1 = t0 - shift, t1 - shift
        if not any(s0 - 1e-9 <= a0 and a1 <= s1 + 1e-9 for s0, s1 in sat):
            continue
        got = rx_sum(ln, "bytes", classes) * 8 / (t1 - t0)
        rows.append((t0, t1, a0, a1, got, mean_c(rate, cosine, a0, a1)))
    return rows


def runs(rows):
    """Splits rows (r0, r1, ...) into runs of consecutive intervals (each
    starting where the previous one ended)."""
    out = []
    for r in rows:
        if out and abs(r[0] - out[-1][-1][1]) < 1e-9:
            out[-1].append(r)
        else:
            out.append([r])
    return out


def sender_lateness(tx_lines, a0, a1):
    """The largest link.late_us.max (us) of the sender's lines whose
    interval overlaps [a0, a1] (sender time): how late the sender's delay
    line released packets around then, by its own account."""
    return max((get(ln, "link.late_us.max", 0.0)
                for _, s0, s1, ln in intervals(tx_lines)
                if s1 > a0 - 1e-9 and s0 < a1 + 1e-9), default=0.0)


def lateness_allowance(late_us, peak_bps, dt, nominal):
    """Packets released up to late_us late cross an interval boundary: at
    most peak_bps x late bits move between neighbouring intervals, i.e.
    peak x late / dt of the interval's rate, as a fraction of nominal."""
    return peak_bps * late_us / 1e6 / dt / nominal


# The pacer replays missed send slots up to this far in the past and
# forgives the rest (include/link/pacer.h PACER_CATCHUP_MAX_NS).
PACER_CATCHUP_US = 50000.0


def forgiven_allowance(late_us, peak_bps, dt, nominal):
    """A loop stalled for late_us could not send; the pacer makes up the
    last PACER_CATCHUP_US of it and forgives the rest, so at most
    peak x (late - catch-up) bits are never sent: a real loss of link
    capacity to the machine, which the sender reports as its lateness.
    As a fraction of nominal over dt."""
    return lateness_allowance(max(0.0, late_us - PACER_CATCHUP_US), peak_bps,
                              dt, nominal)


def stall_allowance(tx_lines, a0, a1, peak_bps, dt, nominal):
    """forgiven_allowance summed over each of the sender's lines that
    overlaps [a0, a1] (sender time), each counted once: a line's
    late_us.max stands for the largest stall inside it."""
    return sum(forgiven_allowance(get(ln, "link.late_us.max", 0.0), peak_bps,
                                  dt, nominal)
               for _, s0, s1, ln in intervals(tx_lines)
               if s1 > a0 - 1e-9 and s0 < a1 + 1e-9)


def receiver_lateness(rx_lines, r0, r1):
    """The receiver's own link.late_us.max over its lines overlapping
    [r0, r1] (receiver time): its loop, late by as much for its own
    departures, reads the underlay as late, moving bytes across its
    interval boundaries."""
    return sender_lateness(rx_lines, r0, r1)


def cmd_check_rx_rate(args):
    rx, tx = load(args.file), load(args.sender)
    if (args.rate is None) == (args.cosine is None):
        print("check-rx-rate: give one of --rate or --cosine", file=sys.stderr)
        return 2
    cos = None
    if args.cosine is not None:
        cos = [parse_rate(args.cosine[0]), float(args.cosine[1]),
               float(args.cosine[2])]
    nominal = args.rate if cos is None else cos[0]
    if args.shift is not None:
        shift = args.shift
    else:
        shift = origin(args.sender, tx) - origin(args.file, rx) + args.delay
    rows = rx_rate_rows(rx, tx, shift, args.rate, cos,
                        require_drops=args.require_drops)
    peak = nominal if cos is None else cos[0] * (1 + abs(cos[1]))
    print("receiver clock = sender clock + %.4f s (origins from the lines' "
          "wall - t, + delay %.4f s)" % (shift, args.delay))
    worst, bad, got_b, exp_b, dur = 0.0, 0, 0.0, 0.0, 0.0
    for r0, r1, a0, a1, got, exp in rows:
        err = (got - exp) / nominal
        worst = max(worst, abs(err))
        tol = args.tol
        if args.lateness:
            late = sender_lateness(tx, a0, a1) + receiver_lateness(rx, r0, r1)
            tol += lateness_allowance(late, peak, r1 - r0, nominal)
            tol += stall_allowance(tx, a0, a1, peak, r1 - r0, nominal)
        ok = abs(err) <= tol
        bad += not ok
        got_b += got * (r1 - r0)
        exp_b += exp * (r1 - r0)
        dur += r1 - r0
        print("rx interval %.3f-%.3f (sender %.3f-%.3f) rx_bps=%.0f "
              "expected_bps=%.0f err=%+.3f%% tol=%.3f%% %s" % (
                  r0, r1, a0, a1, got, exp, 100 * err, 100 * tol,
                  "ok" if ok else "OUT OF TOLERANCE"))
    if dur > 0:
        print("rx window %.3f s: rx %.0f bit/s, expected %.0f bit/s "
              "(%+.3f%%)" % (dur, got_b / dur, exp_b / dur,
                             100 * (got_b - exp_b) / exp_b))
    # Each stretch of consecutive receiver intervals as one window: the
    # per-interval errors that come from its edges (a packet straddling a
    # boundary, t's rounding, lateness) cancel inside it, so its base
    # tolerance is tol x (median interval / window) and its lateness part
    # only that of its two ends.
    wbad = []
    for run in runs(rows):
        if len(run) < 2:
            continue
        w0, w1 = run[0][0], run[-1][1]
        width = w1 - w0
        got_w = sum(r[4] * (r[1] - r[0]) for r in run) / width
        exp_w = sum(r[5] * (r[1] - r[0]) for r in run) / width
        err = (got_w - exp_w) / nominal
        tol = args.tol * median_dt(rx) / width
        if args.lateness:
            tol += sum(lateness_allowance(sender_lateness(tx, r[2], r[3]) +
                                          receiver_lateness(rx, r[0], r[1]),
                                          peak, width, nominal)
                       for r in (run[0], run[-1]))
            tol += stall_allowance(tx, run[0][2], run[-1][3], peak, width,
                                   nominal)
        ok = abs(err) <= tol
        print("rx stretch %.3f-%.3f (%d intervals): rx %.0f bit/s, expected "
              "%.0f, err=%+.3f%% tol=%.3f%% %s" % (
                  w0, w1, len(run), got_w, exp_w, 100 * err, 100 * tol,
                  "ok" if ok else "OUT OF TOLERANCE"))
        if not ok:
            wbad.append("the receiver's %.3f s from %.3f carried %.0f bit/s, "
                        "expected %.0f (error %+.3f%%, allowed %.3f%%)" % (
                            width, w0, got_w, exp_w, 100 * err, 100 * tol))
    print("rx_intervals=%d max_err=%.3f%% tol=%.3f%% (of %.0f bit/s)" % (
        len(rows), 100 * worst, 100 * args.tol, nominal))
    if len(rows) < args.min_intervals:
        print("check-rx-rate: only %d receiver intervals inside the sender's "
              "saturated stretches, need %d" % (len(rows), args.min_intervals),
              file=sys.stderr)
        return 1
    for m in wbad:
        print("check-rx-rate: " + m, file=sys.stderr)
    if bad:
        print("check-rx-rate: %d receiver interval(s) out of tolerance: "
              "max error %.3f%% of %.0f bit/s, allowed %.3f%%%s" % (
                  bad, 100 * worst, nominal, 100 * args.tol,
                  " + the sender's lateness" if args.lateness else ""),
              file=sys.stderr)
    return 1 if bad or wbad else 0


# ---------------------------------------------------------------- steady
def steady_intervals(lines, backlog=("af", "cs0"), any_class=False):
    """The steady rule of the mix tests (test_pss_dwrr.sh,
    test_mix_pdrr_dq_ticket.sh): a sender's intervals (index, t0, t1, line)
    with packets queued at both ends, in every class of BACKLOG (any_class:
    in their sum), not short (< 0.75 x the median interval: the partial
    line written at SIGTERM), and without the first (a credit starting at
    0, TCP's ramp) and the last (the senders stopping) of them.  The first
    line never qualifies (no line before it)."""
    mdt = median_dt(lines)
    out = []
    prev = None
    for i, t0, t1, ln in intervals(lines):
        q = [need(ln, "classes.%s.qlen_pkts" % c, i + 1) for c in backlog]
        held = (sum(q) > 0) if any_class else all(x > 0 for x in q)
        if i > 0 and prev and held and t1 - t0 >= 0.75 * mdt:
            out.append((i, t0, t1, ln))
        prev = held
    return out[1:-1]


def longest_starvation(lines, cls):
    """The longest run (s) of consecutive intervals in which class CLS had
    packets queued at both ends and sent none."""
    run = best = 0.0
    prev_q = 0
    for i, t0, t1, ln in intervals(lines):
        q = need(ln, "classes.%s.qlen_pkts" % cls, i + 1)
        if i > 0 and prev_q > 0 and q > 0 and \
                need(ln, "classes.%s.out_pkts" % cls, i + 1) == 0:
            run += t1 - t0
            best = max(best, run)
        else:
            run = 0.0
        prev_q = q
    return best


def steady_rates(tx, rx=None, shift=0.0, backlog=("af", "cs0"),
                 any_class=False):
    """Per-class rates over the sender's steady intervals: the sender's
    out_bytes (tx_*), and, with the receiver's lines RX, its rx bytes over
    its intervals that lie (moved by -shift onto the sender's clock) inside
    a stretch of steady sender intervals (rx_*).  bit/s; n and rx_n count
    the intervals, rx_s their seconds."""
    st = steady_intervals(tx, backlog, any_class)
    r = {"n": len(st), "tx_s": sum(t1 - t0 for _, t0, t1, _ in st)}
    d = r["tx_s"] or 1.0
    for c in CLASSES:
        r["tx_" + c] = sum(need(ln, "classes.%s.out_bytes" % c, i + 1)
                           for i, _, _, ln in st) * 8 / d
        r["tx_%s_pkts" % c] = sum(need(ln, "classes.%s.out_pkts" % c, i + 1)
                                  for i, _, _, ln in st)
    r["tx_total"] = sum(r["tx_" + c] for c in CLASSES)
    r["ef_drops"] = sum(need(ln, "classes.ef.drop_pkts", i + 1)
                        for i, ln in enumerate(tx))
    r["min_qlen"] = {c: min([need(ln, "classes.%s.qlen_pkts" % c, i + 1)
                             for i, _, _, ln in st] or [0]) for c in CLASSES}
    r["starve"] = {c: longest_starvation(tx, c) for c in ("af", "cs0")}
    if rx is not None:
        sat = spans((t0, t1) for _, t0, t1, _ in st)
        mdt = median_dt(rx)
        rows = [ln for i, t0, t1, ln in intervals(rx)
                if i > 0 and t1 - t0 >= 0.75 * mdt and
                any(s0 - 1e-9 <= t0 - shift and t1 - shift <= s1 + 1e-9
                    for s0, s1 in sat)]
        r["rx_n"] = len(rows)
        r["rx_s"] = sum(t1 - t0 for i, t0, t1, ln in intervals(rx)
                        if any(ln is x for x in rows))
        d = r["rx_s"] or 1.0
        for c in CLASSES:
            r["rx_" + c] = sum(get(ln, "rx.%s.bytes" % c, 0)
                               for ln in rows) * 8 / d
        r["rx_total"] = sum(r["rx_" + c] for c in CLASSES)
    return r


def cmd_steady(args):
    tx = load(args.file)
    rx = shift = None
    if args.rx:
        rx = load(args.rx)
        shift = (args.shift if args.shift is not None else
                 origin(args.file, tx) - origin(args.rx, rx) + args.delay)
    backlog = tuple(args.backlog.split(","))
    for i, t0, t1, ln in steady_intervals(tx, backlog, args.any):
        r = [need(ln, "classes.%s.out_bytes" % c, i + 1) * 8 / (t1 - t0) / 1e6
             for c in CLASSES]
        print("  t=%7.3f  ef %6.3f  af %6.3f  cs0 %6.3f  total %6.3f Mbit/s"
              "  qlen af %4d cs0 %4d" % (
                  t1, r[0], r[1], r[2], sum(r),
                  need(ln, "classes.af.qlen_pkts", i + 1),
                  need(ln, "classes.cs0.qlen_pkts", i + 1)))
    r = steady_rates(tx, rx, shift or 0.0, backlog, args.any)
    if rx is not None:
        print("  receiver clock = sender clock + %.4f s; %d receiver "
              "intervals (%.2f s) inside the steady stretches" % (
                  shift, r["rx_n"], r["rx_s"]))
    print("RESULT " + json.dumps(r, sort_keys=True))
    return 0


# ---------------------------------------------------------------- link-check
def link_account(tx_lines, rx_lines, rcvbuf_errors=0, per_buffer=1):
    """What the receiver got against what the sender put on the link.
    Returns (facts, problems).  The sender numbers its datagrams per class
    when it sends them (after the delay line), so each datagram it sent is
    either received (rx pkts) or a gap the receiver counts (rx lost), except
    a loss after the last datagram received, which no gap shows (stop the
    receiver last, after the sender's delay line drained).  Rules:
      rx pkts + rx lost = out pkts - inflight at the end (the sender's
        delay line at its last line: dequeued, never sent);
      rx lost <= send_error + per_buffer x rcvbuf_errors: every gap is a
        datagram the sender's sendto refused or the receiver's socket
        dropped (rcvbuf_errors, from /proc/net/snmp; with UDP GRO one
        error is one buffer of up to per_buffer datagrams);
      with nothing lost and nothing in flight, rx bytes = out bytes."""
    f = {
        "out_pkts": sum(class_sum(ln, "out_pkts", i + 1)
                        for i, ln in enumerate(tx_lines)),
        "out_bytes": sum(class_sum(ln, "out_bytes", i + 1)
                         for i, ln in enumerate(tx_lines)),
        "inflight": get(tx_lines[-1], "link.inflight_pkts", 0) if tx_lines else 0,
        "send_error": sum(get(ln, "drops.send_error", 0) for ln in tx_lines),
        "rx_pkts": sum(rx_sum(ln, "pkts") for ln in rx_lines),
        "rx_bytes": sum(rx_sum(ln, "bytes") for ln in rx_lines),
        "rx_lost": sum(rx_sum(ln, "lost") for ln in rx_lines),
        "rcvbuf_errors": rcvbuf_errors,
    }
    p = []
    sent = f["out_pkts"] - f["inflight"]
    if f["rx_pkts"] + f["rx_lost"] != sent:
        p.append("receiver got %d datagrams and counted %d lost (= %d), the "
                 "sender put %d on the link of which %d still in its delay "
                 "line at the end (= %d sent, diff %+d)" % (
                     f["rx_pkts"], f["rx_lost"], f["rx_pkts"] + f["rx_lost"],
                     f["out_pkts"], f["inflight"], sent,
                     f["rx_pkts"] + f["rx_lost"] - sent))
    explained = f["send_error"] + per_buffer * rcvbuf_errors
    if f["rx_lost"] > explained:
        p.append("receiver counted %d lost, only %d explained (sender "
                 "send_error %d + %d x receiver RcvbufErrors %d)" % (
                     f["rx_lost"], explained, f["send_error"], per_buffer,
                     rcvbuf_errors))
    if (f["rx_pkts"] + f["rx_lost"] == sent and f["rx_lost"] == 0 and
            f["inflight"] == 0 and f["send_error"] == 0 and
            f["rx_bytes"] != f["out_bytes"]):
        p.append("nothing lost, yet the receiver got %d bytes and the sender "
                 "put %d on the link" % (f["rx_bytes"], f["out_bytes"]))
    return f, p


def cmd_link_check(args):
    tx, rx = load(args.sender), load(args.file)
    f, problems = link_account(tx, rx, args.rcvbuf_errors, args.per_buffer)
    print("sender: out_pkts=%(out_pkts)d out_bytes=%(out_bytes)d "
          "inflight_at_end=%(inflight)d send_error=%(send_error)d; receiver: "
          "rx_pkts=%(rx_pkts)d rx_bytes=%(rx_bytes)d rx_lost=%(rx_lost)d "
          "rcvbuf_errors=%(rcvbuf_errors)d" % f)
    for m in problems:
        print("link-check: " + m, file=sys.stderr)
    return 1 if problems else 0


# ---------------------------------------------------------------- owd
def owd_summary(lines, cls):
    """rx one-way delay of class cls over the lines that received some:
    (pkts, packet-weighted avg ms, largest p99 ms, largest max ms,
    per-line list of (t, pkts, avg, p99, max)).  Lines without packets of
    the class (their owd is 0) are left out."""
    per = []
    for ln in lines:
        r = get(ln, "rx.%s" % cls)
        if r is None:
            raise StatsError("t=%s: no rx.%s" % (ln.get("t"), cls))
        if r["pkts"] > 0:
            o = r["owd_ms"]
            per.append((float(ln["t"]), r["pkts"], o["avg"], o["p99"],
                        o.get("max", o["p99"])))
    n = sum(x[1] for x in per)
    avg = sum(x[1] * x[2] for x in per) / n if n else None
    p99 = max((x[3] for x in per), default=None)
    mx = max((x[4] for x in per), default=None)
    return n, avg, p99, mx, per


def cmd_owd(args):
    n, avg, p99, mx, per = owd_summary(load(args.file), args.cls)
    for t, k, a, q, m in per:
        print("t=%.3f pkts=%d avg=%.3f p99=%.3f max=%.3f" % (t, k, a, q, m))
    if not n:
        print("stats.py owd: %s: no rx.%s packets" % (args.file, args.cls),
              file=sys.stderr)
        return 1
    print("pkts=%d avg_ms=%.3f p99_ms=%.3f max_ms=%.3f" % (n, avg, p99, mx))
    return 0


def cmd_origin(args):
    print("%.6f" % origin(args.file))
    return 0


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
    if not lines:
        print("check-rate: %s: no stats lines" % args.file, file=sys.stderr)
        return 1
    steady = [(t0, t1, class_sum(ln, "out_bytes", i + 1) * 8 / (t1 - t0))
              for i, t0, t1, ln in saturated(lines, args.require_drops)]
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
    p = sub.add_parser("check-rx-rate",
                       help="receiver's rate vs C(t) while the sender saturates")
    p.add_argument("file", help="the receiver's stats")
    p.add_argument("--sender", required=True, help="the sender's stats")
    p.add_argument("--delay", type=float, default=0.0,
                   help="the link's one-way delay, seconds")
    p.add_argument("--shift", type=float,
                   help="receiver t - sender t of the same bytes, seconds "
                        "(default: from the lines' wall - t, + --delay)")
    p.add_argument("--rate", type=parse_rate, help="constant C, e.g. 20Mbit")
    p.add_argument("--cosine", nargs=3, metavar=("MEAN", "AMP", "PERIOD_S"))
    p.add_argument("--tol", type=float, required=True)
    p.add_argument("--min-intervals", type=int, default=3)
    p.add_argument("--no-require-drops", dest="require_drops",
                   action="store_false")
    p.add_argument("--lateness", action="store_true",
                   help="widen each interval's tolerance by the bytes the "
                        "sender's and the receiver's reported delay-line "
                        "lateness (late_us.max of the overlapping lines) can "
                        "move across its boundaries at the peak rate, plus "
                        "the capacity the sender's pacer forgave for stalls "
                        "beyond its 50-ms catch-up")
    p.set_defaults(fn=cmd_check_rx_rate)
    p = sub.add_parser("steady", help="per-class rates over the steady "
                       "intervals (the mix tests' rule), sender and receiver")
    p.add_argument("file", help="the sender's stats")
    p.add_argument("--rx", help="the receiver's stats")
    p.add_argument("--delay", type=float, default=0.0)
    p.add_argument("--shift", type=float)
    p.add_argument("--backlog", default="af,cs0",
                   help="classes queued at both ends (default af,cs0)")
    p.add_argument("--any", action="store_true",
                   help="their sum queued, not each of them")
    p.set_defaults(fn=cmd_steady)
    p = sub.add_parser("link-check", help="receiver's rx against sender's out")
    p.add_argument("sender", help="the sender's stats")
    p.add_argument("file", help="the receiver's stats")
    p.add_argument("--rcvbuf-errors", type=int, default=0)
    p.add_argument("--per-buffer", type=int, default=1)
    p.set_defaults(fn=cmd_link_check)
    p = sub.add_parser("owd", help="rx one-way delay of a class")
    p.add_argument("cls", choices=CLASSES)
    p.add_argument("file")
    p.set_defaults(fn=cmd_owd)
    p = sub.add_parser("origin", help="realtime of the file's t = 0")
    p.add_argument("file")
    p.set_defaults(fn=cmd_origin)
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
