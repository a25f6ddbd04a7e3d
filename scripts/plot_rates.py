#!/usr/bin/python3
"""plot_rates.py - per-class rates from schedtun stats (JSON lines).

Run with /usr/bin/python3 (matplotlib comes from Debian's python3-matplotlib).

  plot_rates.py STATS.jsonl OUT.png [--title T] [--skip S]
        plot per-class egress rate (Mbit/s) against t, with the link rate
        C(t); a second panel shows the per-class queueing delay.
  plot_rates.py plot STATS.jsonl OUT.png [...]          (same as above)
  plot_rates.py summary SENDER.jsonl [RECEIVER.jsonl] [--skip S] [--json F]
        per-class table of the sender's egress (mean out rate, share of the
        link, drops, queueing delay) and, from the receiver's file, what
        arrived (rx loss, one-way delay).
  plot_rates.py follow STATS.jsonl [--deadline S] [--pid PID]... [--watch PID]...
        print one line per stats interval as the daemon writes them
        (t, per-class out Mbit/s, queue lengths, drops) until the deadline
        passes or every --pid has exited; exit status 3 if a --watch pid
        (a daemon) exits first.
  plot_rates.py iperf CLASS=FILE...
        table of iperf3 client --json outputs (goodput, loss/retransmits).
  plot_rates.py compare SUMMARY_A.json SUMMARY_B.json OUT.png|- [--title T]
        two runs of the same scenario (summary --json files written with
        --step-at and --theory) side by side: per-class rates against the
        time since the traffic started, theory as dashed lines, the EF step
        marked; prints a before/after table of both.

summary and plot take an optional scenario: --t0 T (daemon time at which
the traffic started; the window is then [T + skip, T + traffic-duration]),
--step-at S (an EF step S s after T0: the summary adds per-class means
before the step and after it, leaving out --settle s after it) and
--theory SCHED with --k-af, --capacity, --ef-exp, --ef-before, --ef-after
(the rates the PSS paper's equations give: pss eqs. 7/8, dwrr eqs. 1/6,
prio strict priority with AF backlogged).

The stats format is docs/stats-format.md: one object per interval, counters
are deltas over the interval, `t` is the end of the interval (s since start).
"""
import argparse
import json
import math
import os
import re
import sys
import time

CLASSES = ("ef", "af", "cs0")
LABELS = {"ef": "EF", "af": "AF", "cs0": "CS0"}
COLORS = {"ef": "tab:red", "af": "tab:blue", "cs0": "tab:green"}


# ---------------------------------------------------------------- reading

def parse_lines(lines, source="stats"):
    """JSON objects from stats lines; a torn last line (daemon still
    writing) and blank lines are skipped, other bad lines are reported."""
    recs = []
    lines = list(lines)
    for i, line in enumerate(lines):
        line = line.strip()
        if not line:
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            if i != len(lines) - 1:
                print(f"{source}:{i + 1}: not JSON, skipped", file=sys.stderr)
            continue
        if isinstance(obj, dict) and "t" in obj:
            recs.append(obj)
    return recs


def read_stats(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return parse_lines(f.read().split("\n"), path)


def intervals(recs):
    """(t_end, dt, rec) per record; dt from the previous t (the first one
    from daemon start, t = 0).  Records with dt <= 0 are dropped."""
    out = []
    prev = 0.0
    for r in recs:
        t = float(r["t"])
        dt = t - prev
        if dt > 1e-6:
            out.append((t, dt, r))
        prev = t
    return out


def g(d, *keys, default=0.0):
    """Nested get with a default: g(rec, 'classes', 'ef', 'out_bytes')."""
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            return default
        d = d[k]
    return d if d is not None else default


def mbit(nbytes, dt):
    return nbytes * 8.0 / dt / 1e6 if dt > 0 else 0.0


_UNITS = {"": 1.0, "bit": 1.0, "k": 1e3, "kbit": 1e3, "m": 1e6, "mbit": 1e6,
          "g": 1e9, "gbit": 1e9, "bps": 8.0, "kbps": 8e3, "mbps": 8e6, "gbps": 8e9}


def rate_mbit(text):
    """'20Mbit', '2.5Mbit', '500kbit', '4M' (iperf3), '4000000' -> Mbit/s.
    As in tc, 'bps' is bytes per second."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([A-Za-z]*)\s*", str(text))
    if not m or m.group(2).lower() not in _UNITS:
        raise ValueError(f"'{text}' is not a rate (e.g. 20Mbit, 500kbit, 4M, 4000000)")
    return float(m.group(1)) * _UNITS[m.group(2).lower()] / 1e6


# ---------------------------------------------------------------- theory

THEORY_NOTE = {
    "pss": "PSS eqs. 7/8: AF = min(K_AF (C - R_EF^exp), C - R_EF), CS0 = the rest",
    "dwrr": "DWRR eqs. 1/6: AF = K_AF (C - R_EF), CS0 = (1 - K_AF)(C - R_EF)",
    "prio": "strict priority, AF backlogged: AF = C - R_EF, CS0 = 0",
}


PANEL_TITLE = {
    "pss": "AF = K_AF (C \u2212 R_EF^exp), CS0 the rest (eqs. 7, 8)",
    "dwrr": "AF = K_AF (C \u2212 R_EF), CS0 = (1 \u2212 K_AF)(C \u2212 R_EF) (eqs. 1, 6)",
    "prio": "AF = C \u2212 R_EF, CS0 = 0 (strict priority)",
}


def theory_rates(sched, k_af, c, ef_exp, ef):
    """Per-class rates (Mbit/s) the PSS paper's equations give with AF and
    CS0 backlogged and EF at `ef`; None for a scheduler without them."""
    ef = min(ef, c)
    if sched == "pss":
        af = min(k_af * (c - ef_exp), c - ef)
        return {"ef": ef, "af": af, "cs0": max(c - ef - af, 0.0)}
    if sched == "dwrr":
        return {"ef": ef, "af": k_af * (c - ef), "cs0": (1.0 - k_af) * (c - ef)}
    if sched == "prio":
        return {"ef": ef, "af": c - ef, "cs0": 0.0}
    return None


# ---------------------------------------------------------------- summary

def traffic_start(recs, frac=0.01):
    """Start (daemon time) of the first interval in which the traffic read
    from the tun exceeds `frac` of the link rate (100 kbit/s when the link is
    unlimited): when the application traffic began, to the interval."""
    for t, dt, r in intervals(recs):
        rate = float(g(r, "link", "rate_bps")) or 1e7
        inb = sum(float(g(r, "classes", c, "in_bytes")) for c in CLASSES)
        if inb * 8.0 / dt > frac * rate:
            return t - dt
    return None


def resolve_window(recs, skip, until, traffic_duration, t0=None):
    """(from, to) in daemon time.  With traffic_duration, the window is
    measured from the traffic's start, t0 (daemon time) when given, else
    found in the stats: skip s after it until traffic_duration s after it."""
    if traffic_duration is None:
        return skip, until
    if t0 is None:
        t0 = traffic_start(recs)
    if t0 is None:
        return skip, until
    return t0 + skip, t0 + traffic_duration


def in_window(ivs, start, end):
    """Intervals lying inside [start, end] (daemon time, s), 1 ms slack."""
    return [(t, dt, r) for t, dt, r in ivs
            if t - dt >= start - 1e-3 and (end is None or t <= end + 1e-3)]


def summarize(sender_recs, receiver_recs=None, skip=0.0, until=None, rx_shift=0.0):
    """Per-class numbers over the intervals inside [skip, until] (daemon
    time; until None = to the end).  The receiver's intervals are taken in
    the same window moved by rx_shift seconds (sender start - receiver start
    in wall time), with half an interval of slack.

    Delay percentiles cannot be merged exactly from per-interval p99s: the
    table gives the packet-weighted mean of the interval p99s and, as
    p99max, the largest interval p99."""
    ivs = in_window(intervals(sender_recs), skip, until)
    res = {"skip": skip, "until": until, "intervals": len(ivs), "classes": {}}
    dur = sum(dt for _, dt, _ in ivs)
    cap_bits = 0.0
    unlimited = False
    for _, dt, r in ivs:
        rate = float(g(r, "link", "rate_bps"))
        if rate <= 0:
            unlimited = True
        cap_bits += rate * dt
    res["duration_s"] = dur
    res["link_mean_mbit"] = cap_bits / dur / 1e6 if dur > 0 and not unlimited else None
    link_out = sum(float(g(r, "link", "out_bytes")) for _, _, r in ivs)
    res["link_out_mbit"] = mbit(link_out, dur)
    res["late_p99_us_mean"] = wmean([(g(r, "link", "late_us", "p99"), g(r, "link", "out_pkts"))
                                     for _, _, r in ivs])
    res["late_p99_us_max"] = max([float(g(r, "link", "late_us", "p99")) for _, _, r in ivs],
                                 default=0.0)

    rx_ivs = []
    if receiver_recs:
        rx_ivs = in_window(intervals(receiver_recs), skip + rx_shift - 0.5,
                           None if until is None else until + rx_shift + 0.5)

    for c in CLASSES:
        d = {}
        out_b = sum(float(g(r, "classes", c, "out_bytes")) for _, _, r in ivs)
        out_p = sum(float(g(r, "classes", c, "out_pkts")) for _, _, r in ivs)
        in_p = sum(float(g(r, "classes", c, "in_pkts")) for _, _, r in ivs)
        d["in_pkts"] = int(in_p)
        d["out_pkts"] = int(out_p)
        d["out_mbit"] = mbit(out_b, dur)
        d["share"] = (out_b * 8.0 / cap_bits) if cap_bits > 0 and not unlimited else None
        d["share_of_out"] = out_b / link_out if link_out > 0 else None
        d["drop_pkts"] = int(sum(float(g(r, "classes", c, "drop_pkts")) for _, _, r in ivs))
        d["drop_pct"] = 100.0 * d["drop_pkts"] / in_p if in_p > 0 else 0.0
        d["qlen_max"] = int(max([g(r, "classes", c, "qlen_pkts") for _, _, r in ivs], default=0))
        pk = [(g(r, "classes", c, "delay_ms", "avg"), g(r, "classes", c, "out_pkts")) for _, _, r in ivs]
        d["delay_avg_ms"] = wmean(pk)
        d["delay_p99_ms"] = wmean([(g(r, "classes", c, "delay_ms", "p99"), w) for (_, w), (_, _, r)
                                   in zip(pk, ivs)])
        d["delay_p99max_ms"] = max([float(g(r, "classes", c, "delay_ms", "p99"))
                                    for _, _, r in ivs if g(r, "classes", c, "out_pkts") > 0],
                                   default=None)
        if rx_ivs:
            pk = sum(float(g(r, "rx", c, "pkts")) for _, _, r in rx_ivs)
            lost = sum(float(g(r, "rx", c, "lost")) for _, _, r in rx_ivs)
            d["rx_pkts"] = int(pk)
            d["rx_lost"] = int(lost)
            d["rx_loss_pct"] = 100.0 * lost / (pk + lost) if pk + lost > 0 else 0.0
            rdur = sum(dt for _, dt, _ in rx_ivs)
            d["rx_mbit"] = mbit(sum(float(g(r, "rx", c, "bytes")) for _, _, r in rx_ivs), rdur)
            ow = [(g(r, "rx", c, "owd_ms", "avg"), g(r, "rx", c, "pkts")) for _, _, r in rx_ivs]
            d["owd_avg_ms"] = wmean(ow)
            d["owd_p99_ms"] = wmean([(g(r, "rx", c, "owd_ms", "p99"), w) for (_, w), (_, _, r)
                                     in zip(ow, rx_ivs)])
        res["classes"][c] = d
    return res


def phase_rates(recs, start, end):
    """Mean out rate (Mbit/s) per class and of the link over the sender's
    intervals inside [start, end] (daemon time)."""
    ivs = in_window(intervals(recs), start, end)
    dur = sum(dt for _, dt, _ in ivs)
    d = {c: mbit(sum(float(g(r, "classes", c, "out_bytes")) for _, _, r in ivs), dur)
         for c in CLASSES}
    d["link"] = mbit(sum(float(g(r, "link", "out_bytes")) for _, _, r in ivs), dur)
    d["from"], d["to"], d["duration_s"], d["intervals"] = start, end, dur, len(ivs)
    return d


def scenario(recs, a, frm, until):
    """The --t0/--step-at/--theory part of summary.json: the window, the
    before/after phases around the EF step and the theory for each."""
    sc = {"t0": a.t0, "from": frm, "until": until, "step_at": a.step_at,
          "settle": a.settle, "sched": a.theory, "stats": os.path.abspath(a.sender if a.cmd == "summary" else a.stats),
          "label": a.label or a.theory}
    if a.step_at is not None and a.t0 is not None:
        step = a.t0 + a.step_at
        sc["phases"] = {"before": phase_rates(recs, frm, step),
                        "after": phase_rates(recs, step + a.settle, until)}
        efs = {"before": a.ef_before, "after": a.ef_after}
    else:
        sc["phases"] = {"window": phase_rates(recs, frm, until)}
        efs = {"window": a.ef_before}
    sc["theory"] = None
    if a.theory and a.k_af is not None and a.capacity and a.ef_exp is not None:
        th = {}
        for ph, ef in efs.items():
            if ef is None:
                continue
            t = theory_rates(a.theory, a.k_af, rate_mbit(a.capacity), rate_mbit(a.ef_exp),
                             rate_mbit(ef))
            if t is not None:
                t["link"] = rate_mbit(a.capacity)
                th[ph] = t
        if th:
            sc["theory"] = th
            sc["theory_note"] = THEORY_NOTE[a.theory]
            sc["k_af"], sc["capacity_mbit"] = a.k_af, rate_mbit(a.capacity)
            sc["ef_exp_mbit"] = rate_mbit(a.ef_exp)
    return sc


def format_scenario(sc):
    """Per class: measured before/after the step (or over the window), with
    the theory next to each."""
    th = sc.get("theory") or {}
    phs = list(sc["phases"])
    lines = []
    if "before" in sc["phases"]:
        b, a = sc["phases"]["before"], sc["phases"]["after"]
        lines.append(f"EF step at t0 + {sc['step_at']:g} s: before = {b['duration_s']:.0f} s "
                     f"before it, after = {a['duration_s']:.0f} s from {sc['settle']:g} s "
                     f"after it (Mbit/s, sender egress):")
    else:
        lines.append("per class over the window (Mbit/s, sender egress):")
    hdr = f"{'class':<5}" + "".join(f" {ph + ' meas':>12} {'theory':>7}" for ph in phs)
    lines.append(hdr)
    for c in CLASSES + ("link",):
        row = f"{LABELS.get(c, c):<5}"
        for ph in phs:
            t = th.get(ph, {}).get(c)
            row += f" {sc['phases'][ph][c]:>12.2f} {fmt(t, '7.2f'):>7}"
        lines.append(row)
    if th:
        known = {"pss": f"K_AF = {sc['k_af']:g}, C = {sc['capacity_mbit']:g}, R_EF^exp = "
                        f"{sc['ef_exp_mbit']:g} Mbit/s",
                 "dwrr": f"K_AF = {sc['k_af']:g}, C = {sc['capacity_mbit']:g} Mbit/s"}
        lines.append(f"theory: {sc['theory_note']}"
                     + (f"; {known[sc['sched']]}" if sc["sched"] in known else ""))
    return "\n".join(lines)


def wmean(pairs):
    """Weighted mean of (value, weight) pairs; None without weight."""
    num = den = 0.0
    for v, w in pairs:
        w = float(w)
        if w > 0:
            num += float(v) * w
            den += w
    return num / den if den > 0 else None


def fmt(v, spec, none="-"):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return none
    return format(v, spec)


def format_summary(res, title=None):
    lines = []
    if title:
        lines.append(title)
    link = res["link_mean_mbit"]
    win = f"t {res['skip']:g}..{res['until']:g} s" if res["until"] is not None \
        else f"t >= {res['skip']:g} s"
    lines.append(f"window: {res['duration_s']:.1f} s ({res['intervals']} intervals, "
                 f"{win} of daemon time); link "
                 f"{fmt(link, '.2f', 'unlimited')} Mbit/s mean, carried "
                 f"{res['link_out_mbit']:.2f} Mbit/s; late p99 "
                 f"{fmt(res['late_p99_us_mean'], '.1f')} us (max interval "
                 f"{fmt(res['late_p99_us_max'], '.1f')} us)")
    has_rx = any("rx_pkts" in d for d in res["classes"].values())
    hdr = (f"{'class':<5} {'out Mbit/s':>10} {'share':>6} {'drops':>7} {'drop%':>6} "
           f"{'qmax':>5} {'qdelay avg':>10} {'p99':>8} {'p99max':>8}")
    if has_rx:
        hdr += f" {'rx Mbit/s':>9} {'rx lost':>7} {'loss%':>6} {'owd avg':>8} {'owd p99':>8}"
    lines.append(hdr)
    lines.append("-" * len(hdr))
    tot = {"out": 0.0, "drops": 0}
    for c in CLASSES:
        d = res["classes"][c]
        tot["out"] += d["out_mbit"]
        tot["drops"] += d["drop_pkts"]
        share = d["share"] if d["share"] is not None else d["share_of_out"]
        row = (f"{LABELS[c]:<5} {d['out_mbit']:>10.2f} {fmt(share and share * 100, '5.1f'):>5}% "
               f"{d['drop_pkts']:>7d} {d['drop_pct']:>6.2f} {d['qlen_max']:>5d} "
               f"{fmt(d['delay_avg_ms'], '8.1f'):>8}ms {fmt(d['delay_p99_ms'], '6.1f'):>6}ms "
               f"{fmt(d['delay_p99max_ms'], '6.1f'):>6}ms")
        if has_rx:
            row += (f" {fmt(d.get('rx_mbit'), '9.2f'):>9} {d.get('rx_lost', 0):>7d} "
                    f"{fmt(d.get('rx_loss_pct'), '6.2f'):>6} {fmt(d.get('owd_avg_ms'), '6.1f'):>6}ms "
                    f"{fmt(d.get('owd_p99_ms'), '6.1f'):>6}ms")
        lines.append(row)
    lines.append("-" * len(hdr))
    share_t = tot["out"] / link * 100 if link else None
    lines.append(f"{'all':<5} {tot['out']:>10.2f} {fmt(share_t, '5.1f'):>5}% {tot['drops']:>7d}")
    lines.append("share = class out bits / link capacity over the window (of carried "
                 "bits when the link is unlimited); qdelay = time in the scheduler; "
                 "p99 = packet-weighted mean of per-interval p99s, p99max = worst interval; "
                 "rx/owd = the receiving daemon's view.")
    return "\n".join(lines)


# ---------------------------------------------------------------- iperf3

def iperf_result(path):
    """What the iperf3 client's --json output says the receiver got."""
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    if "error" in d and "end" not in d:
        return {"error": d["error"]}
    end = d.get("end", {})
    rcv = end.get("sum_received") or end.get("sum") or {}
    snd = end.get("sum_sent") or end.get("sum") or {}
    res = {"proto": d.get("start", {}).get("test_start", {}).get("protocol", "?"),
           "streams": d.get("start", {}).get("test_start", {}).get("num_streams", 0),
           "goodput_mbit": float(rcv.get("bits_per_second", 0.0)) / 1e6,
           "sent_mbit": float(snd.get("bits_per_second", 0.0)) / 1e6,
           "seconds": float(rcv.get("seconds", 0.0))}
    if res["proto"] == "UDP":
        # The receiver's duration stretches while the end-of-test exchange
        # waits on the control connection (CS0, maybe starved): rate the
        # delivered bytes over the sender's duration instead.
        if float(snd.get("seconds", 0.0)) > 0:
            res["goodput_mbit"] = float(rcv.get("bytes", 0)) * 8.0 / float(snd["seconds"]) / 1e6
        res["lost_pct"] = float(rcv.get("lost_percent", 0.0))
        res["jitter_ms"] = float(rcv.get("jitter_ms", 0.0))
    else:
        res["retransmits"] = int(snd.get("retransmits", 0))
    if "error" in d:
        res["error"] = d["error"]
    return res


def format_iperf(results):
    lines = [f"{'class':<5} {'iperf3':>6} {'flows':>5} {'goodput Mbit/s':>14} {'sent Mbit/s':>11} "
             f"{'retrans / loss%':>15}"]
    for c in CLASSES:
        if c not in results:
            continue
        r = results[c]
        if "goodput_mbit" not in r:
            lines.append(f"{LABELS[c]:<5} error: {r.get('error')}")
            continue
        extra = (f"{r['lost_pct']:.2f}% jit {r['jitter_ms']:.2f}ms" if r["proto"] == "UDP"
                 else f"{r['retransmits']} retr")
        lines.append(f"{LABELS[c]:<5} {r['proto']:>6} {r['streams']:>5} {r['goodput_mbit']:>14.2f} "
                     f"{r['sent_mbit']:>11.2f} {extra:>15}"
                     + (f"  ({r['error']})" if "error" in r else ""))
    return "\n".join(lines)


# ---------------------------------------------------------------- plot

def draw_rates(ax, recs, sc=None, legend=True):
    """Per-class egress rate, total and C(t) on `ax`.  With a scenario
    (sc: t0, from, until, step_at, theory), t is counted from t0, the
    theory is drawn dashed over its phase and the EF step marked.  Returns
    the x values (for the shading and limits)."""
    ivs = intervals(recs)
    x0 = (sc or {}).get("t0") or 0.0
    t = [x[0] - x0 for x in ivs]
    link = [float(g(r, "link", "rate_bps")) / 1e6 for _, _, r in ivs]
    total = [mbit(float(g(r, "link", "out_bytes")), dt) for _, dt, r in ivs]
    if any(v > 0 for v in link):
        # C(t) is a value at the end of each interval: draw it as a step.
        ax.step(t, link, where="post", color="black", linestyle=":", linewidth=1.2,
                label="link rate C(t)")
    ax.plot(t, total, color="0.55", linewidth=1, label="total out")
    for c in CLASSES:
        ax.plot(t, [mbit(float(g(r, "classes", c, "out_bytes")), dt) for _, dt, r in ivs],
                color=COLORS[c], linewidth=1.8, marker=".", markersize=3,
                label=f"{LABELS[c]} out")
    if sc:
        th = sc.get("theory") or {}
        frm, until = sc["from"] - x0, (sc["until"] if sc["until"] is not None else ivs[-1][0]) - x0
        step = sc.get("step_at")
        spans = ({"before": (frm, step), "after": (step, until)} if step is not None
                 else {"window": (frm, until)})
        first = True
        for ph, (a, b) in spans.items():
            for c in CLASSES:
                v = th.get(ph, {}).get(c)
                if v is not None:
                    # black dashes on top of the class's own line
                    ax.plot([a, b], [v, v], color="black", linestyle=(0, (4, 3)), linewidth=1.1,
                            zorder=5, label="theory" if first else None)
                    first = False
        if step is not None:
            ax.axvline(step, color="0.3", linewidth=1, linestyle="-.")
            b, a = (sc.get("theory") or {}).get("before"), (sc.get("theory") or {}).get("after")
            txt = (f"EF step {b['ef']:g} \u2192 {a['ef']:g} Mbit/s" if a and b else "EF step")
            if not (a and b) and "before" in sc.get("phases", {}):
                ph = sc["phases"]
                txt = f"EF step {ph['before']['ef']:.3g} \u2192 {ph['after']['ef']:.3g} Mbit/s"
            ax.annotate(txt, (step, 0), xytext=(4, 4), textcoords="offset points",
                        fontsize=8, color="0.3")
    top = max(link + total + [0.1])
    ax.set_ylim(0, top * 1.35)           # room for the legend above the curves
    ax.grid(True, alpha=0.3)
    ax.set_ylabel("rate (Mbit/s)")
    if legend:
        ax.legend(loc="upper right", fontsize=7, ncol=3)
    return t


def shade(a, t, skip, until):
    """Grey what lies outside the measurement window (warm-up, tail)."""
    if not t:
        return
    if skip > t[0]:
        a.axvspan(min(t[0], 0), skip, color="0.92", zorder=0)
    if until is not None and until < t[-1]:
        a.axvspan(until, t[-1], color="0.92", zorder=0)


def plot(recs, out_png, title=None, skip=0.0, until=None, sc=None):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ivs = intervals(recs)
    if not ivs:
        raise SystemExit(f"plot_rates: no stats intervals to plot")
    fig, (ax, ax2) = plt.subplots(2, 1, figsize=(10, 7), sharex=True,
                                  gridspec_kw={"height_ratios": [3, 1.3]})
    t = draw_rates(ax, recs, sc)
    x0 = (sc or {}).get("t0") or 0.0
    for c in CLASSES:
        # only intervals that sent something of the class have a delay:
        # the others are gaps in the line (NaN), not zeros
        dly = [max(float(g(r, "classes", c, "delay_ms", "avg")), 1e-3)
               if g(r, "classes", c, "out_pkts") > 0 else float("nan") for _, _, r in ivs]
        ax2.plot(t, dly, color=COLORS[c], linewidth=1.2, marker=".", markersize=3,
                 label=f"{LABELS[c]}")
    for a in (ax, ax2):
        shade(a, t, skip - x0 if skip > 0 else 0.0, None if until is None else until - x0)
    ax.set_title(title or os.path.basename(out_png))
    ax2.set_ylabel("queueing delay\navg (ms, log)")
    ax2.set_xlabel("t (s since the traffic started)" if sc and sc.get("t0") is not None
                   else "t (s since daemon start)")
    ax2.set_yscale("log")
    ax2.grid(True, alpha=0.3)
    ax2.legend(loc="upper right", fontsize=8, ncol=3)
    fig.tight_layout()
    fig.savefig(out_png, dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------- compare

def compare_table(scs):
    """Before/after (or window) means and theory of each run, and AF's and
    CS0's change across the step."""
    lines = []
    phs = list(scs[0]["phases"])
    hdr = f"{'sched':<8} {'class':<5}" + "".join(f" {ph:>8} {'theory':>7}" for ph in phs)
    if len(phs) == 2:
        hdr += f" {'change':>7} {'theory':>7}"
    lines.append(hdr + "   (Mbit/s)")
    for sc in scs:
        th = sc.get("theory") or {}
        for c in CLASSES:
            row = f"{sc['label']:<8} {LABELS[c]:<5}"
            for ph in phs:
                row += f" {sc['phases'][ph][c]:>8.2f} {fmt(th.get(ph, {}).get(c), '7.2f'):>7}"
            if len(phs) == 2:
                d = sc["phases"]["after"][c] - sc["phases"]["before"][c]
                tb, ta = th.get("before", {}).get(c), th.get("after", {}).get(c)
                row += f" {d:>+7.2f} {fmt(None if tb is None or ta is None else ta - tb, '+7.2f'):>7}"
            lines.append(row)
    return "\n".join(lines)


def compare(summaries, out_png, title=None):
    """Side-by-side plot (out_png; "-": none, no matplotlib) and the table."""
    scs = []
    for path in summaries:
        with open(path, encoding="utf-8") as f:
            sc = json.load(f).get("scenario")
        if not sc:
            raise SystemExit(f"plot_rates: {path}: no scenario (run summary with --t0 and --json)")
        scs.append(sc)
    if out_png == "-":
        return compare_table(scs)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(scs), figsize=(6.2 * len(scs), 4.6), sharey=True)
    axes = list(axes) if len(scs) > 1 else [axes]
    top = 0.0
    for ax, sc in zip(axes, scs):
        recs = read_stats(sc["stats"])
        if not intervals(recs):
            raise SystemExit(f"plot_rates: {sc['stats']}: no stats intervals")
        t = draw_rates(ax, recs, sc, legend=ax is axes[-1])
        shade(ax, t, sc["from"] - sc["t0"],
              None if sc["until"] is None else sc["until"] - sc["t0"])
        ax.set_xlim(min(t[0], 0), t[-1])
        top = max(top, ax.get_ylim()[1])
        ax.set_xlabel("t (s since the traffic started)")
        ax.set_title(sc["label"] + ": " + PANEL_TITLE.get(sc.get("sched") or "", "(no theory line)"),
                     fontsize=10)
    for ax in axes:
        ax.set_ylim(0, top)
    if title:
        fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(out_png, dpi=100)
    plt.close(fig)
    return compare_table(scs)


# ---------------------------------------------------------------- follow

def live_line(t, dt, r):
    parts = [f"t={t:7.1f}s"]
    for c in CLASSES:
        parts.append(f"{LABELS[c]} {mbit(float(g(r, 'classes', c, 'out_bytes')), dt):6.2f}")
    rate = float(g(r, "link", "rate_bps"))
    parts.append(f"| tot {mbit(float(g(r, 'link', 'out_bytes')), dt):6.2f}/"
                 f"{(rate / 1e6 if rate > 0 else float('inf')):.2f} Mbit/s")
    parts.append("| q " + "/".join(str(int(g(r, "classes", c, "qlen_pkts"))) for c in CLASSES))
    parts.append("| drop " + "/".join(str(int(g(r, "classes", c, "drop_pkts"))) for c in CLASSES))
    return "  ".join(parts)


class Tee:
    """Writes to several text streams (the terminal and a log file)."""
    def __init__(self, *streams):
        self.streams = streams

    def write(self, text):
        for st in self.streams:
            st.write(text)

    def flush(self):
        for st in self.streams:
            st.flush()


def pid_running(pid):
    """True while the process exists and is not a zombie (an exited child
    stays in /proc until its parent reaps it)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def follow(path, deadline_s, pids=(), watch=(), out=sys.stdout, marks=()):
    """Prints each new complete line of `path`; waits for the file to
    appear; stops after deadline_s seconds, or once every pid in `pids`
    has exited (after printing what the file holds by then).  `marks`,
    (t, text) in daemon time, are printed as a line before the first
    interval that ends after t.  Returns 3 if a pid in `watch` (the
    daemons) exited first, else 0."""
    marks = sorted(marks)
    dead = []
    end = time.monotonic() + deadline_s
    pos = 0
    buf = ""
    prev_t = None
    print("live (sender egress, per interval): class out Mbit/s | total out / link Mbit/s"
          " | queue pkts EF/AF/CS0 | drops EF/AF/CS0", file=out, flush=True)
    last = False
    while time.monotonic() < end and not last:
        last = bool(pids) and not any(pid_running(p) for p in pids)
        dead = [p for p in watch if not pid_running(p)]
        if dead:
            last = True
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                f.seek(pos)
                chunk = f.read()
                pos = f.tell()
        except FileNotFoundError:
            chunk = ""
        if chunk:
            buf += chunk
            *complete, buf = buf.split("\n")
            for r in parse_lines(complete, path):
                t = float(r["t"])
                dt = t - prev_t if prev_t is not None else t
                prev_t = t
                while marks and t > marks[0][0]:
                    print(f"---- t={marks[0][0]:7.1f}s  {marks[0][1]}", file=out, flush=True)
                    marks.pop(0)
                if dt > 1e-6:
                    print(live_line(t, dt, r), file=out, flush=True)
        if not last:
            time.sleep(0.2)
    if dead:
        print(f"follow: process {', '.join(map(str, dead))} (watched) exited during the run",
              file=sys.stderr, flush=True)
        return 3
    return 0


# ---------------------------------------------------------------- main

def scenario_args(p):
    p.add_argument("--t0", type=float, help="daemon time at which the traffic started "
                   "(default with --traffic-duration: found in the stats)")
    p.add_argument("--step-at", type=float, metavar="S",
                   help="EF steps S s after t0: means before it and after it")
    p.add_argument("--settle", type=float, default=2.0,
                   help="seconds after the step left out of 'after' (default 2)")
    p.add_argument("--theory", choices=sorted(THEORY_NOTE), help="scheduler whose equations to show")
    p.add_argument("--label", help="the run's name in tables and plots (default: --theory)")
    p.add_argument("--k-af", type=float, help="K_AF, AF's weight share (eq. 2)")
    p.add_argument("--capacity", help="link capacity C, e.g. 20Mbit")
    p.add_argument("--ef-exp", help="R_EF^exp, the EF rate PSS was sized for")
    p.add_argument("--ef-before", help="EF rate before the step (or the constant EF rate)")
    p.add_argument("--ef-after", help="EF rate after the step")


def main(argv):
    if argv and argv[0] not in ("plot", "summary", "follow", "iperf", "compare", "-h", "--help"):
        argv = ["plot"] + argv
    ap = argparse.ArgumentParser(prog="plot_rates.py",
                                 description="per-class rates from schedtun stats JSONL")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("plot", help="STATS.jsonl OUT.png: rate over time per class")
    p.add_argument("stats")
    p.add_argument("out_png")
    p.add_argument("--title")
    p.add_argument("--skip", "--from", dest="skip", type=float, default=0.0,
                   help="shade the first S seconds (warm-up)")
    p.add_argument("--until", "--to", dest="until", type=float,
                   help="shade what comes after S seconds")
    p.add_argument("--traffic-duration", type=float, metavar="D",
                   help="window from the traffic's start in the stats: [start+skip, start+D]")
    scenario_args(p)
    s = sub.add_parser("summary", help="per-class summary table")
    s.add_argument("sender")
    s.add_argument("receiver", nargs="?")
    s.add_argument("--skip", "--from", dest="skip", type=float, default=0.0,
                   help="leave out intervals that start before S seconds (warm-up)")
    s.add_argument("--until", "--to", dest="until", type=float,
                   help="leave out intervals that end after S seconds")
    s.add_argument("--traffic-duration", type=float, metavar="D",
                   help="window from the traffic's start in the stats: [start+skip, start+D]")
    s.add_argument("--rx-shift", type=float, default=0.0,
                   help="receiver window = sender window + S s (sender start - receiver start)")
    s.add_argument("--iperf", action="append", default=[], metavar="CLASS=FILE",
                   help="iperf3 client --json output of that class's traffic (repeatable)")
    s.add_argument("--title")
    s.add_argument("--json", help="also write the numbers as JSON to this file")
    scenario_args(s)
    f = sub.add_parser("follow", help="live per-interval lines while the daemon runs")
    f.add_argument("stats")
    f.add_argument("--deadline", type=float, default=3600.0, help="stop after S seconds")
    f.add_argument("--pid", type=int, action="append", default=[],
                   help="stop once this process has exited (repeatable: once all have)")
    f.add_argument("--watch", type=int, action="append", default=[],
                   help="stop, with exit status 3, if this process exits (repeatable)")
    f.add_argument("--log", metavar="FILE", help="also write the lines to FILE")
    f.add_argument("--mark", action="append", default=[], metavar="T:TEXT",
                   help="print TEXT as a line when the stats pass daemon time T (repeatable)")
    cp = sub.add_parser("compare", help="two runs side by side (summary --json files)")
    cp.add_argument("summaries", nargs=2, metavar="SUMMARY.json")
    cp.add_argument("out_png")
    cp.add_argument("--title")
    i = sub.add_parser("iperf", help="table of iperf3 client --json outputs")
    i.add_argument("files", nargs="+", metavar="CLASS=FILE")
    a = ap.parse_args(argv)

    if a.cmd == "plot":
        recs = read_stats(a.stats)
        frm, until = resolve_window(recs, a.skip, a.until, a.traffic_duration, a.t0)
        sc = scenario(recs, a, frm, until) if a.t0 is not None else None
        plot(recs, a.out_png, a.title, frm, until, sc)
        print(f"plot: {a.out_png}")
    elif a.cmd == "summary":
        snd = read_stats(a.sender)
        rcv = read_stats(a.receiver) if a.receiver else None
        if not intervals(snd):
            raise SystemExit(f"plot_rates: {a.sender}: no stats intervals")
        frm, until = resolve_window(snd, a.skip, a.until, a.traffic_duration, a.t0)
        res = summarize(snd, rcv, frm, until, a.rx_shift)
        print(format_summary(res, a.title))
        if a.t0 is not None:
            res["scenario"] = scenario(snd, a, frm, until)
            print()
            print(format_scenario(res["scenario"]))
        if a.iperf:
            res["iperf"] = {}
            for spec in a.iperf:
                c, _, path = spec.partition("=")
                if c not in CLASSES or not path:
                    raise SystemExit(f"plot_rates: --iperf {spec}: want ef|af|cs0=FILE")
                try:
                    res["iperf"][c] = iperf_result(path)
                except (OSError, ValueError) as e:
                    res["iperf"][c] = {"error": str(e)}
            print()
            print("iperf3 (whole run, the application's view):")
            print(format_iperf(res["iperf"]))
        if a.json:
            with open(a.json, "w", encoding="utf-8") as fh:
                json.dump(res, fh, indent=1)
    elif a.cmd == "iperf":
        res = {}
        for spec in a.files:
            c, _, path = spec.partition("=")
            if c not in CLASSES or not path:
                raise SystemExit(f"plot_rates: {spec}: want ef|af|cs0=FILE")
            try:
                res[c] = iperf_result(path)
            except (OSError, ValueError) as e:
                res[c] = {"error": str(e)}
        print(format_iperf(res))
    elif a.cmd == "compare":
        print(compare(a.summaries, a.out_png, a.title))
    else:
        marks = []
        for m in a.mark:
            t, _, text = m.partition(":")
            marks.append((float(t), text))
        log = open(a.log, "w", encoding="utf-8") if a.log else None
        try:
            return follow(a.stats, a.deadline, a.pid, a.watch,
                          out=Tee(sys.stdout, log) if log else sys.stdout, marks=marks)
        except KeyboardInterrupt:
            return 130
        finally:
            if log:
                log.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
