"""demostats.py - geo-demo's per-class counters over the window, from the daemons' stats.

window_classes(lines_a, lines_b, summary) takes the parsed lines of a
geo.py run's stats-a.jsonl (the sender A) and stats-b.jsonl (the
receiver B; docs/stats-format.md: counters are deltas over the interval,
`t` its end in seconds since the daemon started, `wall` the same moment
in Unix time; schedlab.measure.stats_lines reads them) and returns per class, over geo.py's window (summary.json's
window_s in traffic time, sender_offset_s = A's t at traffic time 0):
  A: out_mbps, drop_pkts, drop_pct (of in_pkts), qdelay_avg_ms
     (weighted by packets sent), qdelay_p99_max_ms (worst interval);
  B: rx_mbps, rx_lost, rx_loss_pct, owd_avg_ms (weighted by packets);
B's window is A's moved onto B's clock (each file's origin = wall - t)
and by the one-way delay, with half an interval of slack each side.
format_window() prints them as a table.  No Mininet.
"""
CLASSES = ("ef", "af", "cs0")
SLACK_S = 0.01


def _get(o, *keys):
    """A nested number, 0 when absent."""
    for k in keys:
        o = o.get(k) if isinstance(o, dict) else None
    return o if isinstance(o, (int, float)) else 0


def _window(lines, start, end, slack):
    """(dt, line) of the intervals lying in [start, end] (daemon time)."""
    out, prev = [], 0.0
    for ln in lines:
        t = float(ln["t"])
        if t > prev and prev >= start - slack and t <= end + slack:
            out.append((t - prev, ln))
        prev = t
    return out


def _wmean(pairs):
    """Mean of (value, weight) pairs by weight; None without weight."""
    den = sum(w for _, w in pairs)
    return sum(v * w for v, w in pairs) / den if den > 0 else None


def _origin(lines):
    """A daemon's start in Unix time (wall - t of its first line with both)."""
    for ln in lines:
        if "wall" in ln:
            return float(ln["wall"]) - float(ln["t"])
    return None


def window_classes(a_lines, b_lines, summary):
    """{class: {...}} over the window (see the module docstring); B's
    numbers None when B's lines have no wall clock."""
    off = float(summary["sender_offset_s"])
    w0, w1 = (float(x) for x in summary["window_s"])
    ivs_a = _window(a_lines, off + w0, off + w1, SLACK_S)
    dur_a = sum(dt for dt, _ in ivs_a)
    oa, ob = _origin(a_lines), _origin(b_lines)
    ivs_b = []
    if oa is not None and ob is not None:
        shift = oa - ob + float(summary["config"]["delay_one_way_s"])
        ivs_b = _window(b_lines, off + w0 + shift, off + w1 + shift, 0.5)
    dur_b = sum(dt for dt, _ in ivs_b)
    res = {}
    for c in CLASSES:
        cls = [(ln["classes"].get(c, {}), dt) for dt, ln in ivs_a if "classes" in ln]
        in_p = sum(_get(k, "in_pkts") for k, _ in cls)
        drops = sum(_get(k, "drop_pkts") for k, _ in cls)
        d = {"out_mbps": (8e-6 * sum(_get(k, "out_bytes") for k, _ in cls) / dur_a
                          if dur_a > 0 else None),
             "drop_pkts": int(drops), "drop_pct": 100.0 * drops / in_p if in_p else 0.0,
             "qdelay_avg_ms": _wmean([(_get(k, "delay_ms", "avg"), _get(k, "out_pkts"))
                                      for k, _ in cls]),
             "qdelay_p99_max_ms": max((_get(k, "delay_ms", "p99") for k, _ in cls
                                       if _get(k, "out_pkts") > 0), default=None)}
        rx = [ln.get("rx", {}).get(c, {}) for _, ln in ivs_b]
        pk, lost = sum(_get(r, "pkts") for r in rx), sum(_get(r, "lost") for r in rx)
        d.update({"rx_mbps": 8e-6 * sum(_get(r, "bytes") for r in rx) / dur_b if dur_b > 0
                  else None,
                  "rx_lost": int(lost) if ivs_b else None,
                  "rx_loss_pct": 100.0 * lost / (pk + lost) if pk + lost > 0 else None,
                  "owd_avg_ms": _wmean([(_get(r, "owd_ms", "avg"), _get(r, "pkts"))
                                        for r in rx])})
        res[c] = d
    return {"window_s": [w0, w1], "intervals_a": len(ivs_a), "intervals_b": len(ivs_b),
            "classes": res}


def format_window(w):
    """window_classes()'s numbers as a table."""
    def f(v, spec, unit=""):
        return "-" if v is None else format(v, spec) + unit
    lines = ["per class over the window t %g..%g s (sender A: %d intervals, receiver B: %d):"
             % (w["window_s"][0], w["window_s"][1], w["intervals_a"], w["intervals_b"]),
             "%-5s %10s %7s %6s %11s %9s %10s %7s %6s %9s" % (
                 "class", "out Mbit/s", "drops", "drop%", "qdelay avg", "p99 max",
                 "rx Mbit/s", "rx lost", "loss%", "owd avg")]
    for c in CLASSES:
        d = w["classes"][c]
        lines.append("%-5s %10s %7d %6s %11s %9s %10s %7s %6s %9s" % (
            c.upper(), f(d["out_mbps"], ".2f"), d["drop_pkts"], f(d["drop_pct"], ".2f"),
            f(d["qdelay_avg_ms"], ".1f", " ms"), f(d["qdelay_p99_max_ms"], ".1f", " ms"),
            f(d["rx_mbps"], ".2f"), f(d["rx_lost"], "d"), f(d["rx_loss_pct"], ".2f"),
            f(d["owd_avg_ms"], ".1f", " ms")))
    lines.append("qdelay: time in A's scheduler (packet-weighted mean; p99 max = the worst "
                 "interval's p99); rx, loss, owd: what B received")
    return "\n".join(lines)
