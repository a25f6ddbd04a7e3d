"""demoreport.py - geo-demo's per-class table around the EF step.

From one mininet/geo.py run directory (its contract: rates.csv's daemon
rows, summary.json's config and traffic_start_after_launch_s) and the
seconds left out after the step (settle), report() computes each class's
mean out rate before and after the EF step (or over the window for a
constant EF) next to the theory for that phase (schedlab.theory's
class_theory at the phase's R_EF), and writes demo.json and demo.txt
beside geo.py's files.  compare_table() puts the reports of two runs of
the same scenario side by side (compare.txt).  No Mininet, no matplotlib.

Phases, in traffic time (0 = EF's first packet at the sender daemon):
before = [warmup, step], after = [step + settle, duration], where step =
efgen's step time T less traffic_start_after_launch_s (efgen's clock
starts at its launch, that long before time 0).  A phase holds the whole
stats intervals that lie inside it (10 ms of slack), the interval
containing the step in neither.
"""
import json
import os

from schedlab import efstep, outputs, theory

CLASSES = ("ef", "af", "cs0")
ROWS = CLASSES + ("link",)
LABEL = {"ef": "EF", "af": "AF", "cs0": "CS0", "link": "link"}
SLACK_S = 0.01
STATS_INTERVAL_S = 1.0      # geo.py's stats interval: the first row's length


class ReportError(Exception):
    """A run directory this module cannot read; the message says which file and why."""


def read_rates(path, source="daemon"):
    """rates.csv's rows of `source` (daemon, theory, ...) -> {class:
    [(t_end_s, mbps)]} sorted by t (classes ef, af, cs0, link), read by
    schedlab.outputs.  ReportError when the file cannot be read."""
    try:
        rows = outputs.read_rates_csv(path)
    except (OSError, ValueError) as e:
        raise ReportError(str(e)) from None
    out = {c: [] for c in ROWS}
    for t, c, v, src in rows:
        if src == source and c in out:
            out[c].append((t, v))
    for pts in out.values():
        pts.sort()
    return out


def phase_means(rates, start_s, end_s):
    """Time-weighted mean per class (and link) over the intervals lying in
    [start_s, end_s] (each interval from the previous row's end; the first
    STATS_INTERVAL_S long).  Returns {class: Mbit/s or None, "start_s",
    "end_s", "intervals", "duration_s"}."""
    res = {"start_s": start_s, "end_s": end_s}
    n = dur = 0
    for c in ROWS:
        num = den = 0.0
        k = 0
        prev = None
        for t1, v in rates[c]:
            t0 = t1 - STATS_INTERVAL_S if prev is None else prev
            prev = t1
            if t0 >= start_s - SLACK_S and t1 <= end_s + SLACK_S and t1 > t0:
                num += v * (t1 - t0)
                den += t1 - t0
                k += 1
        res[c] = num / den if den > 0 else None
        if c == "link":
            n, dur = k, den
    res["intervals"], res["duration_s"] = n, dur
    return res


def ef_phases(cfg, summary, settle_s):
    """{phase: (start_s, end_s, R_EF bit/s)} of a run: before/after around
    a step (config's --ef text step:R1:T:R2), else the whole window."""
    w0, w1 = float(cfg["warmup_s"]), float(cfg["duration_s"])
    if efstep.is_step(cfg["ef"]):
        step = efstep.parse_step(cfg["ef"])
        at = step.at_s - float(summary.get("traffic_start_after_launch_s") or 0.0)
        return {"before": (w0, at, step.before_bps),
                "after": (at + settle_s, w1, step.after_bps)}
    return {"window": (w0, w1, float(cfg["ef_mean_bps"]))}


def report(out, settle_s):
    """demo.json's content for geo.py run directory `out` (see the module
    docstring): {"sched", "step", "phases", "theory", "equations", "model"};
    theory[phase] is None for a scheduler the paper has no equation for.
    ReportError when summary.json or rates.csv cannot be read."""
    path = os.path.join(out, "summary.json")
    try:
        with open(path, encoding="utf-8") as f:
            summary = json.load(f)
        cfg = summary["config"]
        sched = cfg["sched"]
        model = {"k_af": float(cfg["k_af"]), "ef_exp_bps": float(cfg["ef_exp_bps"]),
                 "nominal_bps": float(cfg["capacity_mean_bps"])}
        spans = ef_phases(cfg, summary, settle_s)
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ReportError("%s: %s" % (path, e)) from None
    rates = read_rates(os.path.join(out, "rates.csv"))
    c_bps = model["nominal_bps"]
    phases, th = {}, {}
    for ph, (t0, t1, ef_bps) in spans.items():
        phases[ph] = phase_means(rates, t0, t1)
        phases[ph]["ef_bps"] = ef_bps
        t = theory.class_theory(sched, model, c_bps, ef_bps)
        th[ph] = None if t["af"] is None else dict(
            {c: t[c] / 1e6 for c in CLASSES}, link=c_bps / 1e6)
    step = None
    if "before" in spans:
        step = {"at_s": spans["before"][1], "settle_s": settle_s,
                "before_bps": spans["before"][2], "after_bps": spans["after"][2]}
    return {"sched": sched, "step": step, "phases": phases, "theory": th,
            "equations": theory.theory_equations(sched),
            "model": dict(model, capacity_bps=c_bps)}


def _f(v, spec):
    """v formatted to 2 decimals ("-0.00" printed as "0.00"), or '-' for None."""
    return "-" if v is None else format(round(v, 2) + 0.0, spec)


def _change(a, b):
    """a - b, or None when either is None."""
    return None if a is None or b is None else a - b


def format_table(rep):
    """The per-class table of one report: each phase measured and theory,
    and across a step the change of each (Mbit/s)."""
    phs = list(rep["phases"])
    lines = []
    if rep["step"]:
        b, a = rep["phases"]["before"], rep["phases"]["after"]
        lines.append("EF step %g -> %g Mbit/s at t = %.2f s: before = t %g..%.2f s (%d intervals), "
                     "after = t %.2f..%g s (%d), %g s after the step left out; sender daemon "
                     "out rates, Mbit/s:" % (
                         rep["step"]["before_bps"] / 1e6, rep["step"]["after_bps"] / 1e6,
                         rep["step"]["at_s"], b["start_s"], b["end_s"], b["intervals"],
                         a["start_s"], a["end_s"], a["intervals"], rep["step"]["settle_s"]))
    else:
        w = rep["phases"]["window"]
        lines.append("window t %g..%g s (%d intervals); sender daemon out rates, Mbit/s:"
                     % (w["start_s"], w["end_s"], w["intervals"]))
    hdr = "%-5s" % "class" + "".join(" %8s %7s" % (ph, "theory") for ph in phs)
    if rep["step"]:
        hdr += " %7s %7s" % ("change", "theory")
    lines.append(hdr)
    th = rep["theory"]
    for c in ROWS:
        row = "%-5s" % LABEL[c]
        for ph in phs:
            row += " %8s %7s" % (_f(rep["phases"][ph][c], ".2f"),
                                 _f((th[ph] or {}).get(c), ".2f"))
        if rep["step"]:
            row += " %7s %7s" % (
                _f(_change(rep["phases"]["after"][c], rep["phases"]["before"][c]), "+.2f"),
                _f(_change((th["after"] or {}).get(c), (th["before"] or {}).get(c)), "+.2f"))
        lines.append(row)
    eq = rep["equations"]
    if eq["af"] is None:
        lines.append("theory: none for %s (the paper has no equation for it)" % rep["sched"])
    else:
        m = rep["model"]
        lines.append("theory (%s): EF %s, AF %s, CS0 %s; K_AF = %.4g, C = %g, R_EF^exp = %g Mbit/s"
                     % (rep["sched"], eq["ef"], eq["af"], eq["cs0"], m["k_af"],
                        m["capacity_bps"] / 1e6, m["ef_exp_bps"] / 1e6))
    return "\n".join(lines)


def compare_table(reps):
    """Runs of the same scenario side by side: per scheduler and class each
    phase measured and theory, and across a step the change of each."""
    phs = list(reps[0]["phases"])
    hdr = "%-8s %-5s" % ("sched", "class") + "".join(" %8s %7s" % (ph, "theory") for ph in phs)
    if reps[0]["step"]:
        hdr += " %7s %7s" % ("change", "theory")
    lines = [hdr + "   (Mbit/s)"]
    for rep in reps:
        if list(rep["phases"]) != phs:
            raise ReportError("the runs differ in their phases (%s vs %s): not the same scenario"
                              % (phs, list(rep["phases"])))
        body = format_table(rep).split("\n")[2:2 + len(CLASSES)]
        lines += ["%-8s %s" % (rep["sched"], r) for r in body]
    return "\n".join(lines)


def write(out, rep, table):
    """demo.json (the report) and demo.txt (the table) in `out`."""
    with open(os.path.join(out, "demo.json"), "w", encoding="utf-8") as f:
        json.dump(rep, f, indent=2)
        f.write("\n")
    with open(os.path.join(out, "demo.txt"), "w", encoding="utf-8") as f:
        f.write(table + "\n")
