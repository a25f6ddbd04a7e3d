"""schedlab/measure.py - what a run measured, from the tools' output files.

Pure functions of files or lists (no Mininet, no root):
  - stats_lines / stats_rates / stats_credit / ef_owd: schedtun's JSON
    stats lines (docs/stats-format.md) -> per-interval per-class rates,
    PSS's AF credit, EF's one-way delay at the receiver;
  - traffic_start: when EF started, from the sender's rates;
  - iperf_rates / iperf_error: iperf3 -J output;
  - efgen_lines: schedtun-efgen's JSON report lines;
  - in_window / window_mean / points_mean: means over the measurement
    window; best_lag: iperf3's clock against the daemon's.
Times: "traffic time", seconds since the traffic started; a stats line at
daemon time t covers (t - dt, t], shifted by the caller's offset.
"""
import json
import os

CLASSES = ("ef", "af", "cs0")


def stats_lines(path):
    """The complete JSON lines of a stats file, parsed, in order.

    A last line without its newline (the daemon writing it) is left out;
    a line that does not parse raises ValueError naming the line number.
    """
    out = []
    if not os.path.exists(path):
        return out
    with open(path, encoding="utf-8") as f:
        data = f.read()
    lines = data.split("\n")[:-1]   # the part after the last "\n" is partial
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except ValueError as e:
            raise ValueError("%s:%d: not JSON: %s" % (path, i, e)) from None
    return out


def stats_rates(lines, offset_s=0.0, first_dt=1.0):
    """Per-interval class rates from stats lines.

    Returns a list of dicts {"t0", "t1", "ef", "af", "cs0", "link"} in
    Mbit/s (out_bytes of each class, link.out_bytes), t0/t1 the interval
    in traffic time (daemon t - offset_s).  The first line's interval is
    first_dt long (the stats interval); later ones run from the previous
    line's t (the final, partial line at shutdown included).
    """
    rows = []
    prev = None
    for ln in lines:
        t = float(ln["t"])
        t0 = t - first_dt if prev is None else prev
        prev = t
        dt = t - t0
        if dt <= 0:
            continue
        row = {"t0": t0 - offset_s, "t1": t - offset_s}
        for c in CLASSES:
            row[c] = ln["classes"][c]["out_bytes"] * 8.0 / dt / 1e6
        row["link"] = ln["link"]["out_bytes"] * 8.0 / dt / 1e6
        rows.append(row)
    return rows


def traffic_start(rows, ef_bps):
    """When EF started, in the rows' time: the first interval carrying EF
    bytes, with the start placed EF's bytes before its end at rate ef_bps
    (a CBR flow starts that long before; clipped to the interval).  None
    when no interval carries EF."""
    for r in rows:
        if r["ef"] > 0:
            dt = r["t1"] - r["t0"]
            lead = r["ef"] * dt * 1e6 / ef_bps if ef_bps > 0 else dt
            return r["t1"] - min(max(lead, 0.0), dt)
    return None


def stats_credit(lines, offset_s=0.0, cls="af"):
    """[(t, credit_bytes, prio)] from the "sched" member of PSS stats lines.

    t in traffic time; lines without sched.<cls>.credit are skipped.
    """
    out = []
    for ln in lines:
        q = ln.get("sched", {}).get(cls)
        if isinstance(q, dict) and "credit" in q:
            out.append((float(ln["t"]) - offset_s, float(q["credit"]),
                        int(q.get("prio", -1))))
    return out


def iperf_rates(path, offset_s=0.0):
    """[(t_end, Mbit/s)] per interval of an iperf3 -J file (the sum over streams).

    The receiver's intervals (server_output_json, from --get-server-output)
    when the file has them, else the sender's.  t_end: the interval's end
    + offset_s.  A missing, empty or unparsable file, or one holding
    iperf3's {"error": ...}, gives [] (the caller reports it).
    """
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return []
    if not isinstance(doc, dict):
        return []
    srv = doc.get("server_output_json")
    src = srv if isinstance(srv, dict) and srv.get("intervals") else doc
    out = []
    for iv in src.get("intervals", []):
        s = iv.get("sum", {})
        if "end" in s and "bits_per_second" in s:
            out.append((float(s["end"]) + offset_s, s["bits_per_second"] / 1e6))
    return out


def iperf_error(path):
    """iperf3's own error message from a -J file, or None."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f).get("error")
    except (OSError, ValueError, AttributeError):
        return "no iperf3 JSON in %s" % path


def efgen_lines(path):
    """(interval lines, summary dict or None) of a schedtun-efgen report."""
    lines, summary = [], None
    for ln in stats_lines(path):
        if "summary" in ln:
            summary = ln["summary"]
        else:
            lines.append(ln)
    return lines, summary


def in_window(row, start, end, slack=0.01):
    """True when the interval [t0, t1] lies inside [start, end] (± slack s)."""
    return row["t0"] >= start - slack and row["t1"] <= end + slack


def window_mean(rows, key, start, end):
    """Time-weighted mean of rows[key] over the intervals inside [start, end].

    None when no interval lies inside or a value is None.
    """
    num = den = 0.0
    for r in rows:
        if in_window(r, start, end):
            if r.get(key) is None:
                return None
            dt = r["t1"] - r["t0"]
            num += r[key] * dt
            den += dt
    return num / den if den > 0 else None


def best_lag(points, rows, key, lags=range(-2, 11)):
    """The whole-second lag L for which (t + L, v) of points best matches
    rows[key] (smallest mean |difference| over the points with a row
    ending within 0.5 s); 0 when nothing overlaps.

    iperf3's clock starts once all of a class's streams are connected,
    later than the traffic for a class starved at first: shifting its
    points by L puts them on the daemon's time axis.
    """
    ends = [(r["t1"], r[key]) for r in rows]
    best, best_err = 0, None
    for lag in lags:
        diffs = []
        for t, v in points:
            near = [rv for rt, rv in ends if abs(rt - (t + lag)) < 0.5]
            if near:
                diffs.append(abs(near[0] - v))
        if len(diffs) >= max(3, len(points) // 2):
            err = sum(diffs) / len(diffs)
            if best_err is None or err < best_err - 1e-9:
                best, best_err = lag, err
    return best


def points_mean(points, start, end):
    """Mean of the values of (t_end, value) points with start < t_end <= end,
    assuming one-second intervals (iperf3's); None when there are none."""
    vals = [v for t, v in points if t - 1.0 >= start - 0.5 and t <= end + 0.5]
    return sum(vals) / len(vals) if vals else None


def ef_owd(lines_b, offset, w0, w1):
    """EF one-way delay at the receiver daemon over the window (ms):
    mean of the per-interval averages, max of the per-interval p99 and max."""
    avg, p99, mx = [], [], []
    prev = None
    for ln in lines_b:
        t = float(ln["t"]) - offset
        t0 = t - 1.0 if prev is None else prev
        prev = t
        rx = ln.get("rx", {}).get("ef", {})
        if t0 >= w0 - 0.01 and t <= w1 + 0.01 and rx.get("pkts", 0) > 0:
            o = rx["owd_ms"]
            avg.append(o["avg"])
            p99.append(o["p99"])
            mx.append(o["max"])
    if not avg:
        return {"avg": None, "p99_max": None, "max": None}
    return {"avg": sum(avg) / len(avg), "p99_max": max(p99), "max": max(mx)}
