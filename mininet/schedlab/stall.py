"""stall.py - the invalid-run rule: did the sender stall?

A run measures the scheduler only while the sender daemon keeps its
clock.  When the machine pauses it (another process, a page-in), packets
leave late, queues that the theory says never fill overflow, and the
run's means say nothing about the scheduler.  Such a run is invalid:

- a departure more than `late_limit_ms` (100 ms) late: the stats line's
  link.late_us.max of an interval (previous t, t] (docs/stats-format.md)
  that reaches past the warm-up;
- a queue overflow in a class the caller says the theory never fills
  (EF under strict priority, ...): that class's drop_pkts in such an
  interval, counted only when the overflow counters drops.class_limit,
  sched_limit or pushout are not 0 in it (drop_pkts also counts delay
  drops such as `expired`, which are not overflows).

An interval counts when it overlaps the window (warm-up, end]: a late
departure somewhere inside an interval that straddles the end of the
warm-up cannot be placed, and is counted (a doubtful run is discarded,
not kept).  Times are traffic times: the daemon's t minus `offset_s`.
"""
LATE_LIMIT_MS = 100.0
OVERFLOW_COUNTERS = ("class_limit", "sched_limit", "pushout")


def _intervals(lines, offset_s, first_dt_s):
    """(t0, t1, line) per stats line, in traffic time; the first line's
    interval is first_dt_s long (the stats interval)."""
    prev = None
    for i, ln in enumerate(lines, 1):
        try:
            t = float(ln["t"])
        except (KeyError, TypeError, ValueError):
            raise ValueError("stall: stats line %d: no numeric 't' (accepted: a "
                             "stats line, docs/stats-format.md)" % i) from None
        t0 = t - first_dt_s if prev is None else prev
        prev = t
        yield t0 - offset_s, t - offset_s, ln


def _fmt(x):
    return "%.1f" % x


def stall_reasons(lines, warmup_s, end_s=None, never_full=(), offset_s=0.0,
                  late_limit_ms=LATE_LIMIT_MS, first_dt_s=1.0):
    """Why the run is invalid, as sentences with the numbers; [] when valid.

    lines: the sender's parsed stats lines, in order.  warmup_s, end_s:
    the window in traffic time (end_s None: to the last line).
    never_full: the classes whose queue the theory says never fills.
    """
    reasons = []
    seen = 0
    for t0, t1, ln in _intervals(lines, offset_s, first_dt_s):
        if t1 <= warmup_s or (end_s is not None and t0 >= end_s):
            continue
        seen += 1
        try:
            late_ms = float(ln["link"]["late_us"]["max"]) / 1000.0
        except (KeyError, TypeError, ValueError):
            raise ValueError("stall: stats line at t=%s s: no link.late_us.max (accepted: "
                             "a sender stats line, docs/stats-format.md)"
                             % _fmt(t1 + offset_s)) from None
        if late_ms > late_limit_ms:
            reasons.append("sender departure %s ms late at t=%s s (limit %g ms)"
                           % (_fmt(late_ms), _fmt(t1), late_limit_ms))
        drops = ln.get("drops", {})
        overflow = {k: drops.get(k, 0) for k in OVERFLOW_COUNTERS if drops.get(k, 0)}
        for c in never_full:
            try:
                n = ln["classes"][c]["drop_pkts"]
            except KeyError:
                raise ValueError("stall: stats line at t=%s s has no class '%s' "
                                 "(accepted: the classes of the stats lines)"
                                 % (_fmt(t1 + offset_s), c)) from None
            if n and overflow:
                reasons.append(
                    "class %s dropped %d packets in (%s, %s] s with the queue-overflow "
                    "counters at %s; the theory says its queue is never full"
                    % (c, n, _fmt(t0), _fmt(t1),
                       ", ".join("%s %d" % kv for kv in sorted(overflow.items()))))
    if seen == 0:
        reasons.append("no sender stats interval after the warm-up (t > %g s)" % warmup_s)
    return reasons
