"""figvarplot.py - draw the varying-link figures (mininet/figvar.py).

draw_var_sweep(runs, dirs, timing, results, name) -> [png, md]
    Figs. 7, 9, 11, 12: AF and CS0 against K_AF, one colour per EF_avg, two
    variants per point (with/without memory, with/without the dtime < 0
    branch, PSS/DWRR); lines: eq. 7/8 (PSS) and, where DWRR runs, eq. 1/6,
    both on C_avg and EF_avg; "+": the simulator's rates.
draw_series(runs, dirs, timing, results, name) -> [png, md]
    Figs. 8, 10: two runs side by side, per-class rate over time with C(t)
    and BW C_avg, the AF credit below.
Theory per run is summary.json's (geo.py: the equations on C_avg and the
EF profile's mean, section 4.2); error = (measured - theory) / theory.
"""
import csv
import os

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt           # noqa: E402
from matplotlib.lines import Line2D       # noqa: E402

import figures as F                       # noqa: E402
import figvar as V                        # noqa: E402
import geoio                              # noqa: E402
import theory                             # noqa: E402
from figplot import COLOURS, stall_ms, STALL_MS, _timing_text, save_with_footer  # noqa: E402

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


def draw_var_sweep(runs, dirs, timing, results, name, schedtun=None):
    """Figs. 7, 9, 11, 12 (see the module docstring)."""
    sums = {r.key: F.load(dirs, r) for r in runs}
    sims = {r.key: V.sim_rates(schedtun, r) for r in runs}
    done = sum(1 for s in sums.values() if s)
    has_dwrr = any(r.sched == "dwrr" for r in runs)
    fig, axes = plt.subplots(1, 2, figsize=(12, 6.6))
    ks = [0.45 + i * 0.005 for i in range(85)]
    for ax, c, label in ((axes[0], "af", "AF"), (axes[1], "cs0", "CS0")):
        for ef in F.R_EFS:
            # the paper's lines: C_avg and EF_avg (section 4.2), whatever
            # the window caught (summary.json's theory_window_mbps)
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
            s = sums[r.key]
            if s:
                ax.plot([r.k_af], [F.cls(s, c)], mk, color=COLOURS[r.ef], ms=7,
                        mfc=COLOURS[r.ef] if filled else "none")
            if sims[r.key]:
                ax.plot([r.k_af + (0.006 if r.variant or r.sched == "dwrr" else -0.006)],
                        [sims[r.key][c]], "+", color=COLOURS[r.ef], ms=9, mew=1.2)
        ax.set_xlabel("K_AF (eq. 2)")
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
                       label="same, simulator (greedy AF/CS0, 300 s; left: first variant)"),
                Line2D([], [], color="k", lw=1, label="eq. 7 / 8 on C_avg and EF_avg (PSS)")]
    if has_dwrr:
        handles.append(Line2D([], [], color="k", ls=":", label="eq. 1 / 6 (DWRR)"))
    axes[0].legend(handles=handles, fontsize=7, loc="upper left")
    fig.suptitle("%s: %s" % (name, F.TITLES[name]), fontsize=11)
    text = [LINK_TEXT, _timing_text(timing, runs, dirs, done)]
    text += _params_lines(runs)
    png = save_with_footer(fig, text, results, name)
    md = os.path.join(results, name + ".md")
    _var_table(md, runs, sums, sims, timing, dirs, done, name)
    return [png, md]


def _params_lines(runs):
    """The PSS parameter sets of a figure, one line per weights and R_EF^exp."""
    seen = {}
    for r in runs:
        if r.sched == "pss":
            seen.setdefault((r.weights, r.ef_exp), []).append(
                "%s LM %d LR %d" % ("no memory:" if r.variant == "nomem" else "memory:",
                                    r.calc["lm"], r.calc["lr"]))
    out = []
    for (w, exp), sets in sorted(seen.items(), key=lambda x: (-x[0][0][0], x[0][1])):
        bw = float(next(r.calc["bw"] for r in runs if r.sched == "pss"
                        and r.weights == w and r.ef_exp == exp))
        out.append("%d:%d (K_AF %.3f) exp %g: BW %.4f, %s" % (
            w[0], w[1], theory.k_af(w[0], F.L_PKT, w[1], F.L_PKT), exp, bw,
            "; ".join(sorted(set(sets)))))
    return out


def _var_table(path, runs, sums, sims, timing, dirs, done, name):
    """The Markdown table of a varying-link sweep."""
    out = ["# %s: %s" % (name, F.TITLES[name]), "",
           "Written by `scripts/reproduce.sh %s` (mininet/reproduce.py). %s. %s. "
           "Rates in Mbit/s at the sender daemon (IP bytes), means over the window. "
           "Theory (mininet/geoio.window_theory): PSS eq. 7/8, DWRR eq. 1/6, on C_avg and "
           "the EF profile's mean EF_avg (section 4.2's claim for PSS with memory: "
           "AF gets K_AF (C_avg - R_EF^exp) over a period); \"each s\": the same equations "
           "second by second, averaged (what AF gets with no memory of starved seconds); "
           "\"sim\": schedtun-sim with the same parameters on the same link (greedy AF "
           "and CS0, %d s). Error = (measured - theory) / theory."
           % (name, LINK_TEXT, _timing_text(timing, runs, dirs, done),
              V.SIM_DURATION_S - V.SIM_WARMUP_S), "",
           "| EF_avg | R_EF^exp | scheduler | W | K_AF | parameters | AF | AF theory | AF error "
           "| AF each s | AF sim | CS0 | CS0 theory | CS0 error | CS0 sim | EF | C |",
           "|--:|--:|---|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]
    worst = {}
    stalls = []
    for r in runs:
        s, sim = sums[r.key], sims[r.key] or {}
        row = ["%g" % r.ef, "%g" % r.ef_exp if r.sched == "pss" else "",
               _label(r), "%d:%d" % r.weights, "%.3f" % r.k_af, F.params_text(r)]
        if not s:
            out.append("| " + " | ".join(row + ["(no result)"] + [""] * 10) + " |")
            continue
        for c in ("af", "cs0"):
            e = F.cls(s, c, "rel_error")
            row += [F.num(F.cls(s, c)), F.num(F.cls(s, c, "theory_mbps")), F.pct(e)]
            if c == "af":
                row.append(F.num(F.cls(s, c, "theory_instant_mbps")))
            row.append(F.num(sim.get(c)))
            v = (r.sched, r.variant)
            if e is not None and abs(e) > abs(worst.get((v, c), (0.0, None))[0]):
                worst[(v, c)] = (e, r.key)
        row += [F.num(F.cls(s, "ef")), F.num(s["link"]["capacity_mbps"])]
        late = stall_ms(dirs[r.key], timing["warmup"])
        if late > STALL_MS:
            row[2] += " (*)"
            stalls.append("%s: %.0f ms" % (r.key, late))
        out.append("| " + " | ".join(row) + " |")
    out += ["", "Largest relative error per variant:", ""]
    for v in VARIANTS:
        if (v, "af") in worst or (v, "cs0") in worst:
            a, b = worst.get((v, "af"), (None, "")), worst.get((v, "cs0"), (None, ""))
            out.append("- %s: AF %s (%s), CS0 %s (%s)" % (VARIANTS[v][2], F.pct(a[0]), a[1],
                                                          F.pct(b[0]), b[1]))
    out += ["", "(*) the sender daemon's loop ran more than %g ms late after the warm-up "
            "(link.late_us): %s. Kept as measured." % (STALL_MS, "; ".join(stalls) or "none"),
            "", "PSS parameters (the paper's rule, `schedtun params pss`, credit_init = LR):", ""]
    out += ["- " + ln for ln in _params_lines(runs)]
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


# ---------------------------------------------------------------- over time

def _read_rates(run_dir):
    """rates.csv -> {(class, source): [(t, mbps)]} ({} when missing)."""
    path = os.path.join(run_dir, "rates.csv")
    res = {}
    if os.path.exists(path):
        for t, c, v, src in geoio.read_rates_csv(path):
            res.setdefault((c, src), []).append((t, v))
    return res


def _read_credit(run_dir):
    path = os.path.join(run_dir, "credit.csv")
    pts = []
    if os.path.exists(path):
        with open(path) as f:
            for row in csv.reader(f):     # t,credit_bytes,prio after a header
                try:
                    pts.append((float(row[0]), float(row[1])))
                except (ValueError, IndexError):
                    continue
    return pts


def draw_series(runs, dirs, timing, results, name, schedtun=None):
    """Figs. 8 and 10 (see the module docstring)."""
    fig, axes = plt.subplots(2, len(runs), figsize=(7 * len(runs), 8), sharex=True,
                             squeeze=False, gridspec_kw={"height_ratios": [2, 1]})
    md = ["# %s: %s" % (name, F.TITLES[name]), "",
          "Written by `scripts/reproduce.sh %s`. %s. Per-second rates at the sender "
          "daemon; the window [%g, %g] s is shaded. Its numbers (window means, theory, "
          "error) are the matching rows of the sweep's table; here per run:"
          % (name, LINK_TEXT, timing["warmup"], timing["duration"]), ""]
    for i, r in enumerate(runs):
        ax, cx = axes[0][i], axes[1][i]
        d = _read_rates(dirs[r.key])
        for c in geoio.CLASSES:
            pts = d.get((c, "daemon"), [])
            ax.plot([p[0] for p in pts], [p[1] for p in pts], color=geoio.COLORS[c],
                    label=c.upper())
        cap = d.get(("link", "theory"), [])
        ax.plot([p[0] for p in cap], [p[1] for p in cap], ":", color="k", label="C(t)")
        bw = float(r.calc["bw"])
        ax.axhline(bw * F.C_MBIT, color=geoio.COLORS["af"], ls="--", lw=1,
                   label="BW C_avg = %.2f" % (bw * F.C_MBIT))
        ax.axvspan(timing["warmup"], timing["duration"], color="0.92", zorder=0)
        ax.set_title("%s\n%s" % (_label(r), F.params_text(r)), fontsize=9)
        ax.set_ylabel("Mbit/s")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, ncol=3, loc="upper right")
        cr = _read_credit(dirs[r.key])
        cx.plot([p[0] for p in cr], [p[1] / 1e6 for p in cr], color=geoio.COLORS["af"])
        cx.axhline(r.calc["lr"] / 1e6, color="k", ls=":", lw=1, label="LR")
        cx.axhline(r.calc["lm"] / 1e6, color="k", ls="--", lw=1, label="LM")
        cx.set_ylabel("AF credit, MB (end of each second)")
        cx.set_xlabel("s since the traffic started")
        cx.grid(alpha=0.3)
        cx.legend(fontsize=7)
        s = F.load(dirs, r)
        if s:
            md.append("- %s (`%s`): AF %s (theory %s, %s), CS0 %s (theory %s, %s), EF %s"
                      % (_label(r), r.key, F.num(F.cls(s, "af")), F.num(F.cls(s, "af", "theory_mbps")),
                         F.pct(F.cls(s, "af", "rel_error")), F.num(F.cls(s, "cs0")),
                         F.num(F.cls(s, "cs0", "theory_mbps")), F.pct(F.cls(s, "cs0", "rel_error")),
                         F.num(F.cls(s, "ef"))))
        else:
            md.append("- %s (`%s`): no result" % (_label(r), r.key))
    fig.suptitle("%s: %s (K_AF %.2f, EF_avg %g Mbit/s)" % (
        name, F.TITLES[name], runs[0].k_af, runs[0].ef), fontsize=11)
    fig.tight_layout()
    png = os.path.join(results, name + ".png")
    fig.savefig(png, dpi=100)
    plt.close(fig)
    path = os.path.join(results, name + ".md")
    with open(path, "w") as f:
        f.write("\n".join(md) + "\n")
    return [png, path]
