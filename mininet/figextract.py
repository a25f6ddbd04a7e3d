"""figextract.py - what a figure keeps of a run besides summary.json.

A run's directory (geo.py's --out) is not kept; its record is
(schedlab.records).  extract(run_dir, timing, series) returns the extra
numbers the figures draw, stored in the record's results["extra"]:

  "efgen_owd_ms": {"p50", "p99"}  EF one-way delay at schedtun-efgen's
                 sink inside the window (median of the per-second p50s,
                 largest per-second p99), null fields without a sink report
  "loss": {class: {"drop", "lost"}}  the sender daemon's drops / packets
                 in, and the receiver's sequence gaps / (received + gaps),
                 whole run, fractions (null where nothing was counted)
  "pss_af":      (PSS runs) the AF credit's balance over the sender's
                 stats intervals inside the window (docs/pss.md, "What AF
                 gets beyond BW·C"), Mbit/s: "sent", "low" (sent at p_low,
                 behind an empty CS0 queue), "cut" (removed at LM),
                 "floor" (kept by a floor), "dcredit" (the credit's
                 change), over "window_s" (traffic time: the whole stats
                 intervals inside the window, those summary.json's means
                 use, so "sent" is its AF rate); null without
                 the counters (a daemon older than them, another scheduler)
  "series":      (series=True: the over-time figures) per second of
                 traffic time, rounded to 1e-4: "t" (s), "ef", "af", "cs0"
                 (the sender daemon's Mbit/s), "c" (C(t), Mbit/s), and the
                 AF credit at the end of each second: "credit_t" (s),
                 "credit_bytes"

Rounding fixes the record's text, so a redraw of the same records gives
the same bytes.  Missing files give nulls, never an exception: a run that
left no efgen report is still a run.
"""
import csv
import json
import os

from schedlab import measure
from schedlab.outputs import read_rates_csv

ROUND = 4


def _r(x):
    return None if x is None else round(float(x), ROUND)


def efgen_window(run_dir, timing):
    """(p50, p99) ms of the sink's EF one-way delay inside the window.  The
    sink's clock starts before the traffic, so the window is counted from
    its first interval with packets: (first + warmup, first + duration]."""
    try:
        lines, _ = measure.efgen_lines(os.path.join(run_dir, "efgen-sink.jsonl"))
    except ValueError:
        return None, None
    got = [ln for ln in lines if ln.get("rcvd_pkts", 0) > 0 and "owd_ms" in ln]
    if not got:
        return None, None
    t0 = float(got[0]["t"])
    win = [ln for ln in got
           if t0 + timing["warmup"] < float(ln["t"]) <= t0 + timing["duration"]]
    if not win:
        return None, None
    p50 = sorted(ln["owd_ms"]["p50"] for ln in win)
    return p50[len(p50) // 2], max(ln["owd_ms"]["p99"] for ln in win)


def loss(run_dir):
    """{class: {"drop", "lost"}} over the whole run (module docstring)."""
    a = measure.stats_lines(os.path.join(run_dir, "stats-a.jsonl"))
    b = measure.stats_lines(os.path.join(run_dir, "stats-b.jsonl"))
    res = {}
    for c in measure.CLASSES:
        inn = sum(ln["classes"][c]["in_pkts"] for ln in a)
        drop = sum(ln["classes"][c]["drop_pkts"] for ln in a)
        got = sum(ln["rx"][c]["pkts"] for ln in b)
        lost = sum(ln["rx"][c]["lost"] for ln in b)
        res[c] = {"drop": _r(drop / inn) if inn else None,
                  "lost": _r(lost / (got + lost)) if got + lost else None}
    return res


def series(run_dir):
    """The per-second rates and the AF credit (module docstring)."""
    rates = {}
    path = os.path.join(run_dir, "rates.csv")
    if os.path.exists(path):
        for t, c, v, src in read_rates_csv(path):
            if src == "daemon" and c in measure.CLASSES:
                rates.setdefault(c, {})[round(t, 3)] = v
            elif (c, src) == ("link", "theory"):
                rates.setdefault("c", {})[round(t, 3)] = v
    ts = sorted(rates.get("af", {}))
    out = {"t": [_r(t) for t in ts]}
    for c in measure.CLASSES + ("c",):
        out[c] = [_r(rates.get(c, {}).get(t)) for t in ts]
    out["credit_t"], out["credit_bytes"] = [], []
    path = os.path.join(run_dir, "credit.csv")
    if os.path.exists(path):
        with open(path, newline="") as f:
            for row in csv.reader(f):       # t,credit_bytes,prio after a header
                try:
                    t, cr = float(row[0]), float(row[1])
                except (ValueError, IndexError):
                    continue
                out["credit_t"].append(_r(t))
                out["credit_bytes"].append(_r(cr))
    return out


BALANCE = ("sent", "low", "cut", "floor")


def pss_af(run_dir):
    """The AF credit's balance over the window (module docstring), or None."""
    try:
        with open(os.path.join(run_dir, "summary.json")) as f:
            summary = json.load(f)
        off = float(summary["sender_offset_s"])
        w0, w1 = summary["window_s"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    lines = [ln for ln in measure.stats_lines(os.path.join(run_dir, "stats-a.jsonl"))
             if "sent_bytes" in ln.get("sched", {}).get("af", {})]
    # the intervals summary.json's means use: whole ones inside the window
    # (measure.in_window), so that sent is its AF rate
    rows = measure.stats_rates(lines, off)
    inside = [k for k, row in enumerate(rows) if k > 0 and measure.in_window(row, w0, w1)]
    if not inside:
        return None
    before, last = lines[inside[0] - 1], lines[inside[-1]]
    t0, t1 = before["t"], last["t"]
    inside = [lines[k] for k in inside]

    def mbps(nbytes):
        return _r(nbytes * 8.0 / (t1 - t0) / 1e6)
    out = {k: mbps(sum(ln["sched"]["af"][k + "_bytes"] for ln in inside)) for k in BALANCE}
    out["dcredit"] = mbps(last["sched"]["af"]["credit"] - before["sched"]["af"]["credit"])
    out["window_s"] = [_r(t0 - off), _r(t1 - off)]
    return out


def extract(run_dir, timing, with_series=False):
    """The record's results["extra"] of the run in run_dir."""
    p50, p99 = efgen_window(run_dir, timing)
    out = {"efgen_owd_ms": {"p50": _r(p50), "p99": _r(p99)}, "loss": loss(run_dir),
           "pss_af": pss_af(run_dir)}
    if with_series:
        out["series"] = series(run_dir)
    return out
