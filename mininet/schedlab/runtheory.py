"""schedlab/runtheory.py - the theory of one run, interval by interval and
over its measurement window.

theory_rows gives schedlab.theory.class_theory at each stats interval's
means of C(t) and R_EF(t); window_theory the per-class theory over the
window (the paper's values on a varying link, the window variant beside
them).  Pure functions: no Mininet, no root.
"""
from schedlab import theory
from schedlab.measure import CLASSES, window_mean


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
