"""figvarplot.py - draw the varying-link figures (mininet/figvar.py).

draw_var_sweep(runs, points, timing, results, name) -> [png, md]
    Figs. 7, 9, 11, 12: AF and CS0 against K_AF, one colour per EF_avg, two
    variants per point (with/without memory, with/without the dtime < 0
    branch, PSS/DWRR), means with their 95 % intervals; lines: eq. 7/8
    (PSS) and, where DWRR runs, eq. 1/6, both on C_avg and EF_avg; "+":
    the simulator's rates (from the record).
draw_series(runs, points, timing, results, name) -> [png, md]
    Figs. 8, 10: two runs side by side, per-class rate over time with C(t)
    and BW C_avg, the AF credit below: each point's first valid run (the
    series its record keeps, figextract.py).
points: figdata.collect()'s.  Theory per run is summary.json's (geo.py: the
equations on C_avg and the EF profile's mean, section 4.2).
"""
import os

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt           # noqa: E402
from matplotlib.lines import Line2D       # noqa: E402

import figdata as D                       # noqa: E402
import figures as F                       # noqa: E402
import figvar as V                        # noqa: E402
from schedlab import measure                # noqa: E402
from schedlab.plot import COLORS           # noqa: E402
import theory                             # noqa: E402
from figplot import (BALANCE_NOTE, COLOURS, EF_DX, balance_text, discarded_lines,  # noqa: E402
                     drawn_runs, errorbar, head_text, save_with_footer, worst_lines)

VARIANTS = {  # (sched, variant) -> (marker, filled, label)
    ("pss", None): ("o", True, "PSS, LR = T C_avg BW (memory), dtime<0 branch"),
    ("pss", "nomem"): ("s", False, "PSS without memory (LR = 0)"),
    ("pss", "noidle"): ("D", False, "PSS without the dtime<0 branch"),
    ("dwrr", None): ("x", True, "DWRR, quanta W L"),
}
LINK_TEXT = ("C(t) = 20 (1 + 0.3 cos(2 pi t / 15 s)) Mbit/s, EF(t) = EF_avg (1 + 0.6 cos("
             "2 pi t / 6.1 s)) (schedtun-efgen, 1228-B packets), 250 ms each way, AF/CS0 "
             "10+10 cubic, 1400-B packets")


def _label(r):
    return VARIANTS[(r.sched, r.variant)][2]


# K_AF offsets per variant: the first of a figure's two variants left
VARIANT_DX = {("pss", None): -0.007, ("pss", "nomem"): 0.007, ("pss", "noidle"): 0.007,
              ("dwrr", None): 0.007}


def draw_var_sweep(runs, points, timing, results, name):
    """Figs. 7, 9, 11, 12 (see the module docstring)."""
    has_dwrr = any(r.sched == "dwrr" for r in runs)
    fig, axes = plt.subplots(1, 2, figsize=(12, 6.6))
    ks = [0.45 + i * 0.005 for i in range(85)]
    for ax, c, label in ((axes[0], "af", "AF"), (axes[1], "cs0", "CS0")):
        for ef in F.R_EFS:
            # the paper's lines: C_avg and EF_avg (section 4.2)
            cm, e = F.C_MBIT, ef
            exp = V.EXP_FIXED if name == "fig12" else ef
            af = [theory.pss_af_bps(k, cm, exp, e, F.C_MBIT) for k in ks]
            ax.plot(ks, af if c == "af" else [theory.pss_cs0_bps(a, cm, e) for a in af],
                    "-", color=COLOURS[ef], lw=1)
            if has_dwrr:
                fn = theory.wrr_af_bps if c == "af" else theory.wrr_cs0_bps
                ax.plot(ks, [fn(k, cm, e) for k in ks], ":", color=COLOURS[ef], lw=1.2)
        for r in runs:
            mk, filled, _ = VARIANTS[(r.sched, r.variant)]
            p = points[r.key]
            x = r.k_af + VARIANT_DX[(r.sched, r.variant)] + EF_DX[r.ef]
            if p:
                errorbar(ax, x, p, c, mk, COLOURS[r.ef], filled)
                if p.run.sim:
                    ax.plot([x], [p.run.sim[c]], "+", color=COLOURS[r.ef], ms=9, mew=1.2)
        ax.set_xlabel("K_AF (eq. 2); points moved by at most 0.0095 so that none hides "
                      "another", fontsize=8)
        ax.set_ylabel("%s rate, Mbit/s (sender daemon, window mean)" % label)
        ax.set_title(label)
        ax.grid(alpha=0.3)
    shown = []
    for r in runs:
        if (r.sched, r.variant) not in shown:
            shown.append((r.sched, r.variant))
    handles = [Line2D([], [], color=COLOURS[e], lw=1, label="EF_avg = %g Mbit/s" % e)
               for e in F.R_EFS]
    handles += [Line2D([], [], ls="", marker=VARIANTS[v][0], color="k",
                       mfc="k" if VARIANTS[v][1] else "none", label=VARIANTS[v][2])
                for v in shown]
    handles += [Line2D([], [], ls="", marker="+", color="k", ms=9,
                       label="same, simulator (greedy AF/CS0, 300 s)"),
                Line2D([], [], color="k", lw=1, label="eq. 7 / 8 on C_avg and EF_avg (PSS)")]
    if has_dwrr:
        handles.append(Line2D([], [], color="k", ls=":", label="eq. 1 / 6 on C_avg and "
                              "EF_avg (DWRR)"))
    axes[0].legend(handles=handles, fontsize=7, loc="upper left")
    fig.suptitle("%s: %s\nmeans over the valid runs, bars: 95 %% interval"
                 % (name, F.TITLES[name]), fontsize=10)
    text = [LINK_TEXT, D.footer(list(points.values()), timing)]
    text += _params_lines(drawn_runs(runs, points))
    png = save_with_footer(fig, text, results, name)
    md = os.path.join(results, name + ".md")
    _var_table(md, runs, points, timing, name)
    return [png, md]


def _params_lines(runs):
    """The PSS parameter sets of a figure, one line per weights and R_EF^exp."""
    seen, bws = {}, {}
    for r in runs:
        if r.sched == "pss" and r.calc:
            seen.setdefault((r.weights, r.ef_exp), []).append(
                "%s LM %d LR %d" % ("no memory:" if r.variant == "nomem" else "memory:",
                                    r.calc["lm"], r.calc["lr"]))
            bws.setdefault((r.weights, r.ef_exp), float(r.calc["bw"]))
    out = []
    for (w, exp), sets in sorted(seen.items(), key=lambda x: (-x[0][0][0], x[0][1])):
        out.append("%d:%d (K_AF %.3f) exp %g: BW %.4f, %s" % (
            w[0], w[1], theory.k_af(w[0], F.L_PKT, w[1], F.L_PKT), exp, bws[(w, exp)],
            "; ".join(sorted(set(sets)))))
    return out


def _var_table(path, runs, points, timing, name):
    """The Markdown table of a varying-link sweep."""
    out = ["# %s: %s" % (name, F.TITLES[name]), "", head_text(name, points, timing),
           "%s. Rates in Mbit/s at the sender daemon (IP bytes), means over the window. "
           "Theory (schedlab/runtheory.py window_theory): PSS eq. 7/8, DWRR eq. 1/6, on C_avg and "
           "the EF profile's mean EF_avg (section 4.2's claim for PSS with memory: "
           "AF gets K_AF (C_avg - R_EF^exp) over a period); \"each s\": the same equations "
           "second by second, averaged (what AF gets with no memory of starved seconds; "
           "mean over the runs); \"sim\": schedtun-sim with the same parameters on the "
           "same link (greedy AF and CS0, %d s). %s"
           % (LINK_TEXT, V.SIM_DURATION_S - V.SIM_WARMUP_S, BALANCE_NOTE), "",
           "| EF_avg | R_EF^exp | scheduler | W | K_AF | parameters | n | AF | AF theory "
           "| AF error | AF each s | AF sim | AF p_low / cut | CS0 | CS0 theory | CS0 error "
           "| CS0 sim | EF | C |",
           "|--:|--:|---|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for r in runs:
        p = points[r.key]
        d = p.run if p else r
        row = ["%g" % r.ef, "%g" % r.ef_exp if r.sched == "pss" else "", _label(r),
               "%d:%d" % r.weights, "%.3f" % r.k_af,
               F.params_text(d) if d.calc or d.sched != "pss" else ""]
        if not p or p.n == 0:
            out.append("| " + " | ".join(row + ["0", "(no valid run)"] + [""] * 11) + " |")
            continue
        row.append(str(p.n))
        sim = d.sim or {}
        for c in ("af", "cs0"):
            row += [D.value_text(p.measured(c)), F.num(p.theory(c)), D.error_text(p.error(c))]
            if c == "af":
                inst = p.mean_of(("classes", "af", "theory_instant_mbps"))
                row.append(F.num(inst.mean if inst else None))
            row.append(F.num(sim.get(c)))
            if c == "af":
                row.append(balance_text(p))
        cap = p.mean_of(("link", "capacity_mbps"))
        row += [D.value_text(p.measured("ef")), F.num(cap.mean if cap else None)]
        out.append("| " + " | ".join(row) + " |")
    out += ["", "Largest |error| per variant (mean over the runs, 95 % interval):", ""]
    for v in VARIANTS:
        mine = [points[r.key] for r in runs if (r.sched, r.variant) == v]
        if mine:
            out += ["- " + ln for ln in worst_lines(mine, label=VARIANTS[v][2] + ", ")]
    out += ["", "Discarded runs (the sender stalled or the run failed; not in the means):",
            ""] + discarded_lines(runs, points)
    out += ["", "PSS parameters (the paper's rule, `schedtun params pss`, credit_init = LR):",
            ""]
    out += ["- " + ln for ln in _params_lines(drawn_runs(runs, points))]
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


# ---------------------------------------------------------------- over time

def draw_series(runs, points, timing, results, name):
    """Figs. 8 and 10 (see the module docstring)."""
    fig, axes = plt.subplots(2, len(runs), figsize=(7 * len(runs), 8), sharex=True,
                             squeeze=False, gridspec_kw={"height_ratios": [2, 1]})
    md = ["# %s: %s" % (name, F.TITLES[name]), "", head_text(name, points, timing),
          "%s. Per-second rates at the sender daemon of each point's first valid run; "
          "the window [%g, %g] s is shaded. Its numbers (window means, theory, error) "
          "are the matching rows of the sweep's table; here per point:"
          % (LINK_TEXT, timing["warmup"], timing["duration"]), ""]
    for i, r in enumerate(runs):
        ax, cx = axes[0][i], axes[1][i]
        p = points[r.key]
        d = p.run if p else r
        first = p.valid[0] if p and p.valid else None
        ser = (first["results"].get("extra") or {}).get("series") if first else None
        ser = ser or {"t": [], "credit_t": [], "credit_bytes": []}
        for c in measure.CLASSES:
            ax.plot(ser["t"], ser.get(c, []), color=COLORS[c], label=c.upper())
        ax.plot(ser["t"], ser.get("c", []), ":", color="k", label="C(t)")
        if d.calc:
            bw = float(d.calc["bw"])
            ax.axhline(bw * F.C_MBIT, color=COLORS["af"], ls="--", lw=1,
                       label="BW C_avg = %.2f" % (bw * F.C_MBIT))
        ax.axvspan(timing["warmup"], timing["duration"], color="0.92", zorder=0)
        ax.set_title("%s, rep %s of n = %d\n%s" % (
            _label(r), first["rep"] if first else "-", p.n if p else 0,
            F.params_text(d) if d.calc else ""), fontsize=9)
        ax.set_ylabel("Mbit/s")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, ncol=3, loc="upper right")
        cx.plot(ser["credit_t"], [b / 1e6 for b in ser["credit_bytes"]],
                color=COLORS["af"])
        if d.calc:
            cx.axhline(d.calc["lr"] / 1e6, color="k", ls=":", lw=1, label="LR")
            cx.axhline(d.calc["lm"] / 1e6, color="k", ls="--", lw=1, label="LM")
            cx.legend(fontsize=7)
        cx.set_ylabel("AF credit, MB (end of each second)")
        cx.set_xlabel("s since the traffic started")
        cx.grid(alpha=0.3)
        if p and p.n:
            md.append("- %s (`%s`, n = %d): AF %s (theory %s, error %s), CS0 %s (theory %s, "
                      "error %s), EF %s" % (
                          _label(r), r.key, p.n, D.value_text(p.measured("af")),
                          F.num(p.theory("af")), D.error_text(p.error("af")),
                          D.value_text(p.measured("cs0")), F.num(p.theory("cs0")),
                          D.error_text(p.error("cs0")), D.value_text(p.measured("ef"))))
        else:
            md.append("- %s (`%s`): no valid run" % (_label(r), r.key))
    fig.suptitle("%s: %s (K_AF %.2f, EF_avg %g Mbit/s)" % (
        name, F.TITLES[name], runs[0].k_af, runs[0].ef), fontsize=11)
    fig.text(0.01, 0.005, D.footer(list(points.values()), timing), fontsize=6.5,
             family="monospace", va="bottom")
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    png = os.path.join(results, name + ".png")
    fig.savefig(png, dpi=100, metadata={"Software": None})
    plt.close(fig)
    path = os.path.join(results, name + ".md")
    with open(path, "w") as f:
        f.write("\n".join(md) + "\n")
    return [png, path]
