"""geoio.py - reading the daemons' and traffic tools' outputs, writing results.

Everything here is a pure function of files or lists (no Mininet, no root),
so tests/unit/test_theory.py can check it:
  - stats_lines / stats_rates / stats_credit: the schedtun JSON stats lines
    (docs/stats-format.md) -> per-interval per-class rates, PSS credit;
  - iperf_rates: iperf3 -J output -> per-interval rates;
  - efgen_lines: schedtun-efgen JSON report lines;
  - theory_rows: per-interval theory from theory.class_theory;
  - window_mean: a mean over the measurement window;
  - write_rates_csv / read_rates_csv / write_credit_csv / write_summary_json;
  - plot: rates.png (matplotlib, Agg backend, imported only there).
Times: "traffic time", seconds since the traffic started; a stats line at
daemon time t covers (t - dt, t], shifted by the caller's offset.
"""
import csv
import json
import math
import os

import theory

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


def theory_rows(sched, model, capacity, ef, rate_rows, c_offset_s=0.0,
                ef_offset_s=0.0):
    """Per-interval theory (Mbit/s) for the intervals of rate_rows.

    capacity, ef: theory.RateSpec, C at profile time t + c_offset_s (its
    origin is the sender daemon's start), R_EF at t + ef_offset_s (its
    origin is the EF generator's start; 0 before it).  Each interval gets
    class_theory() at the interval means of C and R_EF; returns dicts
    {"t0", "t1", "ef", "af", "cs0", "c"} (None where no theory).
    """
    out = []
    for r in rate_rows:
        c = capacity.mean_over(r["t0"] + c_offset_s, r["t1"] + c_offset_s)
        e0, e1 = r["t0"] + ef_offset_s, r["t1"] + ef_offset_s
        e = ef.mean_over(max(e0, 0.0), e1) * (e1 - max(e0, 0.0)) / (e1 - e0) \
            if e1 > 0 and e1 > e0 else 0.0
        th = theory.class_theory(sched, model, c, e)
        row = {"t0": r["t0"], "t1": r["t1"], "c": c / 1e6}
        for k in CLASSES:
            row[k] = None if th[k] is None else th[k] / 1e6
        out.append(row)
    return out


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


def window_theory(sched, model, th_rows, start, end, variable, c_avg_bps=None,
                  ef_avg_bps=None):
    """Per-class theory over the window [start, end] from theory_rows().

    Returns {class: (theory_mbps, instant_mbps, equation, window_mbps)}.
    instant_mbps is the window mean of the per-interval values: each second
    on its own, the rate a scheduler without memory could get.  On a
    constant link theory_mbps and window_mbps are that same mean.  On a
    varying link (variable True) AF and CS0 take the paper's values (section
    4.2): the equations at the capacity's mean C_avg (c_avg_bps) and the
    EF profile's mean (ef_avg_bps), the claim for PSS with LR memory (eq. 7
    on C_avg) and eq. 1/6 for DWRR; window_mbps is the same equations at the
    window's own means of C and of the EF carried (min(R_EF, C) each
    interval), which differ from C_avg and EF_avg when the window does not
    hold whole periods, kept beside it and labelled.  Without c_avg_bps or
    ef_avg_bps theory_mbps is the window variant.  EF stays the
    per-interval mean.
    """
    eqs = theory.theory_equations(sched)
    inst = {c: window_mean(th_rows, c, start, end) for c in CLASSES}
    out = {c: (inst[c], inst[c], eqs[c], inst[c]) for c in CLASSES}
    c_mean = window_mean(th_rows, "c", start, end)
    if not variable or c_mean is None or inst["ef"] is None:
        return out
    win = theory.class_theory(sched, model, c_mean * 1e6, inst["ef"] * 1e6)
    paper = None
    if c_avg_bps is not None and ef_avg_bps is not None:
        paper = theory.class_theory(sched, model, c_avg_bps, min(ef_avg_bps, c_avg_bps))
    for c in ("af", "cs0"):
        if win[c] is None:
            continue
        if paper is not None:
            out[c] = (paper[c] / 1e6, inst[c], "%s on C_avg and the EF profile's mean"
                      % eqs[c], win[c] / 1e6)
        else:
            out[c] = (win[c] / 1e6, inst[c], "%s on the window means of C and R_EF"
                      % eqs[c], win[c] / 1e6)
    return out


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


def write_rates_csv(path, rows):
    """Writes `t,class,mbps,source` rows (t: interval end, traffic time).

    rows: iterable of (t, class, mbps, source); sorted by source, class, t.
    Non-finite or None rates are left out.
    """
    good = [r for r in rows if r[2] is not None and math.isfinite(r[2])]
    good.sort(key=lambda r: (r[3], r[1], r[0]))
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["t", "class", "mbps", "source"])
        for t, c, mbps, src in good:
            w.writerow(["%.3f" % t, c, "%.6f" % mbps, src])


def read_rates_csv(path):
    """rates.csv -> [(t, class, mbps, source)]; ValueError on a bad header/row."""
    out = []
    with open(path, newline="", encoding="utf-8") as f:
        r = csv.reader(f)
        header = next(r, None)
        if header != ["t", "class", "mbps", "source"]:
            raise ValueError("%s: header %r, not t,class,mbps,source" % (path, header))
        for n, row in enumerate(r, 2):
            if len(row) != 4:
                raise ValueError("%s:%d: %d fields, not 4" % (path, n, len(row)))
            out.append((float(row[0]), row[1], float(row[2]), row[3]))
    return out


def write_credit_csv(path, points):
    """Writes `t,credit_bytes,prio` from [(t, credit, prio)] (traffic time)."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["t", "credit_bytes", "prio"])
        for t, credit, prio in points:
            w.writerow(["%.3f" % t, "%.1f" % credit, prio])


def read_summary_json(path):
    """summary.json as written by write_summary_json (a dict)."""
    with open(path) as f:
        return json.load(f)


def write_summary_json(path, summary):
    """Writes summary (a dict) as indented JSON; NaN/inf become null."""
    def clean(v):
        if isinstance(v, float) and not math.isfinite(v):
            return None
        if isinstance(v, dict):
            return {k: clean(x) for k, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [clean(x) for x in v]
        return v
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(clean(summary), f, indent=2, allow_nan=False)
        f.write("\n")
    os.replace(tmp, path)


COLORS = {"ef": "tab:red", "af": "tab:blue", "cs0": "tab:green"}


def plot(path, rate_rows, theory_rows_, credit, title, window):
    """rates.png: per-class daemon rate over traffic time, theory dashed,
    the measurement window shaded; a credit panel below when credit is
    non-empty (PSS).  matplotlib with the Agg backend."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = 2 if credit else 1
    fig, axes = plt.subplots(panels, 1, figsize=(10, 4.5 * panels), sharex=True,
                             squeeze=False)
    ax = axes[0][0]
    for c in CLASSES:
        ax.plot([r["t1"] for r in rate_rows], [r[c] for r in rate_rows],
                color=COLORS[c], label=c.upper())
        pts = [(r["t1"], r[c]) for r in theory_rows_ if r[c] is not None]
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "--",
                    color=COLORS[c], alpha=0.8, label=c.upper() + " theory")
    ax.plot([r["t1"] for r in theory_rows_], [r["c"] for r in theory_rows_],
            ":", color="black", label="C")
    ax.axvspan(window[0], window[1], color="0.9", zorder=0)
    ax.set_ylabel("Mbit/s (sender daemon, out)")
    ax.set_title(title, fontsize=9)
    ax.legend(ncol=4, fontsize=8, loc="upper right")
    ax.grid(alpha=0.3)
    if credit:
        cx = axes[1][0]
        cx.plot([p[0] for p in credit], [p[1] for p in credit], color="tab:blue")
        cx.set_ylabel("AF credit (bytes, end of interval)")
        cx.grid(alpha=0.3)
    axes[-1][0].set_xlabel("s since the traffic started")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
