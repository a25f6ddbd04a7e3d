"""figplot.py - draw a figure sweep (PNG + Markdown table) and the comparison.

draw_sweep(runs, points, timing, results, name) -> [png, md]
    Figs. 5/6: AF and CS0 rates against K_AF, one colour per R_EF, theory as
    lines (mininet/theory.py), measured means with their 95 % intervals as
    error bars per scheduler and rule, and Algorithm 1 in the simulator
    (`schedtun params`, from the record) for each PSS point.
draw_compare(runs, points, timing, results, name) -> [md]
    One row per scheduler: per-class rates, EF one-way delay, loss.
points: figdata.collect()'s {run key: Point or None}; a point without
runs is shown as such.  Everything drawn comes from the records, so the
same records give the same tables byte for byte (reproduce --redraw).
Errors are measured - theory per run (figdata.error_text), never adjusted.
"""
import os

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt           # noqa: E402
from matplotlib.lines import Line2D       # noqa: E402

import figdata as D                       # noqa: E402
import figures as F                       # noqa: E402
import theory                             # noqa: E402

COLOURS = {5.0: "tab:blue", 10.0: "tab:orange", 15.0: "tab:green"}
MARKERS = {("pss", "paper"): ("o", "PSS, paper rule (eqs. 3-5)"),
           ("pss", "calibrated"): ("s", "PSS, calibrated rule"),
           ("dwrr", None): ("x", "DWRR")}
# K_AF offsets that keep coinciding points apart: per series, per R_EF
SERIES_DX = {("pss", "paper"): -0.008, ("pss", "calibrated"): 0.0, ("dwrr", None): 0.008}
EF_DX = {5.0: -0.0025, 10.0: 0.0, 15.0: 0.0025}
DX_NOTE = "points are moved by at most 0.0105 in K_AF so that none hides another"


def _theory_lines(ax, name, ef, cls):
    """Theory against K_AF at one R_EF: eq. 7/8 (PSS), eq. 1/6 (DWRR)."""
    ks = [0.45 + i * 0.005 for i in range(95)]
    c, e = F.C_MBIT, ef
    exp = ef if name == "fig5" else F.C_MBIT / 2
    pss_af = [theory.pss_af_bps(k, c, exp, e) for k in ks]
    pss = pss_af if cls == "af" else [theory.pss_cs0_bps(a, c, e) for a in pss_af]
    wrr = [(theory.wrr_af_bps if cls == "af" else theory.wrr_cs0_bps)(k, c, e) for k in ks]
    ax.plot(ks, pss, "-", color=COLOURS[ef], lw=1)
    if name != "fig5":                       # in Fig. 5 eq. 7 = eq. 1
        ax.plot(ks, wrr, ":", color=COLOURS[ef], lw=1.2)


def errorbar(ax, x, point, c, marker, colour, filled):
    """The point's mean of class c with its 95 % interval (none for n = 1)."""
    s = point.measured(c)
    if s is None:
        return
    ax.errorbar([x], [s.mean], yerr=None if s.half_width is None else [[s.half_width]],
                fmt=marker, color=colour, ms=6, capsize=2.5, elinewidth=1,
                mfc=colour if filled else "none")


def _params_lines(runs):
    """One line per weights: K_AF, B and the PSS parameters at each R_EF^exp."""
    lines, seen = [], {}
    for r in runs:
        if r.sched == "pss" and r.calc:
            seen.setdefault((r.weights, r.rule), {})[r.ef_exp] = r.calc
    for (w, rule), by_exp in sorted(seen.items(),
                                    key=lambda x: (-x[0][0][0] / sum(x[0][0]), x[0][1])):
        b = theory.b_factor(w[0], F.L_PKT, w[1], F.L_PKT)
        sets = "; ".join("exp %g: BW %.4f LM %d LR %d" % (e, float(p["bw"]), p["lm"], p["lr"])
                         for e, p in sorted(by_exp.items()))
        lines.append("%d:%d (K_AF %.3f, B %.3f) %s: %s; DWRR quanta %d/%d B"
                     % (w[0], w[1], theory.k_af(w[0], F.L_PKT, w[1], F.L_PKT), b,
                        rule, sets, w[0] * F.L_PKT, w[1] * F.L_PKT))
    return lines


def drawn_runs(runs, points):
    """The runs with their calculated parameters where a point has records."""
    return [points[r.key].run if points.get(r.key) else r for r in runs]


def draw_sweep(runs, points, timing, results, name):
    """Figs. 5 and 6: the plot and the table (see the module docstring)."""
    fig, axes = plt.subplots(1, 2, figsize=(12, 6.6))
    for ax, c, label in ((axes[0], "af", "AF"), (axes[1], "cs0", "CS0")):
        for ef in F.R_EFS:
            _theory_lines(ax, name, ef, c)
        for r in runs:
            p = points[r.key]
            mk = MARKERS[(r.sched, r.rule)][0]
            if r.weights == F.SMALL_W and r.rule == "paper":
                mk = "^"
            x = r.k_af + SERIES_DX[(r.sched, r.rule)] + EF_DX[r.ef]
            if p:
                errorbar(ax, x, p, c, mk, COLOURS[r.ef], r.rule != "calibrated")
                if r.sched == "pss" and p.run.calc:
                    ax.plot([x], [p.run.calc["sim_" + c]], "_", color=COLOURS[r.ef],
                            ms=12, mew=1.2)
        ax.set_xlabel("K_AF (eq. 2); " + DX_NOTE, fontsize=8)
        ax.set_ylabel("%s rate, Mbit/s (sender daemon, IP bytes)" % label)
        ax.set_title(label)
        ax.grid(alpha=0.3)
    handles = [Line2D([], [], color=COLOURS[e], lw=1, label="R_EF = %g Mbit/s" % e)
               for e in F.R_EFS]
    handles += [Line2D([], [], ls="", marker=m, color="k", label=lab)
                for (_, _), (m, lab) in MARKERS.items()]
    handles += [Line2D([], [], ls="", marker="^", color="k", label="PSS 9:2, paper rule"),
                Line2D([], [], ls="", marker="_", color="k", ms=12, mew=1.5,
                       label="Algorithm 1, simulator (schedtun params)"),
                Line2D([], [], color="k", lw=1, label="eq. 7 / eq. 8 (PSS)" if name != "fig5"
                       else "eq. 1 / eq. 6 (= eq. 7 / 8 at R_EF^exp = R_EF)")]
    if name != "fig5":
        handles.append(Line2D([], [], color="k", ls=":", label="eq. 1 / eq. 6 (DWRR)"))
    axes[0].legend(handles=handles, fontsize=7, loc="upper left")
    fig.suptitle("%s: %s\nmeans over the valid runs, bars: 95 %% interval" %
                 (name, F.TITLES[name]), fontsize=10)
    text = ["C 20 Mbit/s, 250 ms each way, AF/CS0 10+10 cubic, EF schedtun-efgen CBR; "
            "AF/CS0 packets 1400 B", D.footer(list(points.values()), timing)]
    text += _params_lines(drawn_runs(runs, points))
    png = save_with_footer(fig, text, results, name)
    md = os.path.join(results, name + ".md")
    _sweep_table(md, runs, points, timing, name)
    return [png, md]


def save_with_footer(fig, text, results, name):
    """Writes fig to results/<name>.png with the lines `text` (conditions,
    parameters) in small type under the axes; returns the path.  No
    timestamp in the file (metadata Software and Date left out)."""
    fig.text(0.01, 0.01, "\n".join(text), fontsize=6.5, family="monospace", va="bottom")
    fig.subplots_adjust(bottom=0.09 + 0.022 * len(text), top=0.88)
    png = os.path.join(results, name + ".png")
    fig.savefig(png, dpi=100, metadata={"Software": None})
    plt.close(fig)
    return png


def discarded_lines(runs, points):
    """One line per discarded run, with its reasons, or a line saying none."""
    out = []
    for r in runs:
        p = points.get(r.key)
        for rep, reasons in (p.discarded if p else []):
            out.append("- %s rep %d: %s" % (r.key, rep, "; ".join(reasons)))
    return out or ["- none"]


def worst_lines(points, classes=("af", "cs0"), label=""):
    """'Largest |error|' per class with its interval and point."""
    out = []
    for c in classes:
        for zero in (False, True):
            p, e = D.worst_error(points, c, zero)
            if p is not None:
                out.append("%s%s%s: %s (%s, n = %d)" % (
                    label, c.upper(), " where the theory is 0" if zero else "",
                    D.error_text(e), p.run.key, p.n))
    return out


def head_text(name, points, timing):
    """The opening paragraph shared by the tables."""
    return ("Drawn from the run records (mininet/results/runs.jsonl) by `scripts/"
            "reproduce.sh %s` (again, without running anything: `--redraw`). %s. Each "
            "value: the mean over the point's valid runs ± the half-width of its 95 %% "
            "Student-t interval (docs/run-records.md); error: measured - theory per run, "
            "relative to the theory (absolute where the theory is 0), with its interval."
            % (name, D.footer(list(points.values()), timing)))


def _sweep_table(path, runs, points, timing, name):
    """The Markdown table of a sweep: configuration, measured, theory, error."""
    out = ["# %s: %s" % (name, F.TITLES[name]), "", head_text(name, points, timing),
           "C = 20 Mbit/s, 250 ms each way, 10 AF + 10 CS0 cubic flows, EF one CBR flow "
           "(schedtun-efgen), AF/CS0 packets 1400 B. Rates in Mbit/s at the sender daemon "
           "(IP bytes); theory (PSS: eqs. 7, 8; DWRR: eqs. 1, 6). \"Alg. 1\" is "
           "`schedtun params`' simulation of Algorithm 1 with the same parameters (greedy "
           "AF and CS0, EF CBR in 1400-byte packets; efgen sends 1228-byte ones); "
           "\"BW·C\" = min(BW·C, C - R_EF), what Algorithm 1 gives to first order "
           "(docs/pss.md). " + BALANCE_NOTE, "",
           "| R_EF | R_EF^exp | scheduler | rule | W | K_AF | parameters | n | AF | AF theory "
           "| AF error | AF Alg. 1 | AF BW·C | AF p_low / cut | CS0 | CS0 theory | CS0 error "
           "| CS0 Alg. 1 | EF |",
           "|--:|--:|---|---|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for r in runs:
        p = points[r.key]
        d = p.run if p else r
        row = ["%g" % r.ef, "%g" % r.ef_exp if r.sched == "pss" else "", r.sched,
               r.rule or "", "%d:%d" % r.weights, "%.3f" % r.k_af,
               F.params_text(d) if d.calc or d.sched != "pss" else ""]
        if not p or p.n == 0:
            out.append("| " + " | ".join(row + ["0", "(no valid run)"] + [""] * 11) + " |")
            continue
        row.append(str(p.n))
        sim = d.calc or {}
        for c in ("af", "cs0"):
            row += [D.value_text(p.measured(c)), F.num(p.theory(c)), D.error_text(p.error(c)),
                    F.num(sim.get("sim_" + c))]
            if c == "af":
                bwc = p.values(("classes", "af", "algorithm1_bw_c_mbps"))
                row += [F.num(bwc[0] if bwc else None), balance_text(p)]
        row.append(D.value_text(p.measured("ef")))
        out.append("| " + " | ".join(row) + " |")
    out += ["", "Largest |error| (mean over the runs, 95 % interval):", ""]
    out += ["- " + ln for ln in worst_lines(points.values())]
    out += ["", "Discarded runs (the sender stalled or the run failed; not in the means):",
            ""] + discarded_lines(runs, points)
    out += ["", "Parameters per weights and R_EF^exp:", ""]
    out += ["- " + ln for ln in _params_lines(drawn_runs(runs, points))]
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def balance_text(p):
    """'p_low / cut' of a PSS point's AF in Mbit/s (means over the runs,
    figextract's pss_af), '' where the runs have no balance counters."""
    low = p.mean_of(("extra", "pss_af", "low"))
    cut = p.mean_of(("extra", "pss_af", "cut"))
    if low is None or cut is None:
        return ""
    return "%.3f / %.3f" % (low.mean, cut.mean)


BALANCE_NOTE = ("\"AF p_low / cut\" (PSS): the AF bytes the sender's scheduler started "
                "at p_low, i.e. behind an empty CS0 queue, and the AF credit the LM "
                "clamp removed, in Mbit/s over the stats intervals in the window: "
                "AF = BW·C + (cut - floor + the credit's change) / T, so a PSS AF above "
                "BW·C is what work conservation gave it beyond its share "
                "(docs/pss.md, \"What AF gets beyond BW·C\").")


def _pct(s):
    """A fraction's Summary as 'mean %' (the mean over the runs)."""
    return "" if s is None else "%.2f %%" % (100.0 * s.mean)


def draw_compare(runs, points, timing, results, name):
    """compare.md: the seven schedulers (see the module docstring)."""
    out = ["# compare: the seven schedulers through the same GEO run", "",
           head_text(name, points, timing),
           "C = 20 Mbit/s, 250 ms each way, EF 10 Mbit/s CBR (schedtun-efgen, "
           "1228-byte IP packets), 10 AF + 10 CS0 cubic flows, weights 81:19 where a "
           "scheduler takes weights (PSS: paper rule for R_EF^exp = 10 Mbit/s; DWRR "
           "quanta W*1400); prio, fifo, pdrr, dq, ticket with their own defaults. "
           "Rates: sender daemon, Mbit/s, theory in brackets where the paper has one. "
           "EF one-way delay inside the window: schedtun-efgen's sink (median of its "
           "per-second p50, largest per-second p99: means over the runs) and the receiver "
           "daemon (mean of its per-second averages, largest per-second p99: means over "
           "the runs). Drops: the sender daemon's drops / packets in, whole run (TCP's "
           "congestion losses for AF and CS0); rx lost: sequence gaps at the receiver "
           "daemon; both means over the runs.", "",
           "| scheduler | parameters | n | EF | AF | CS0 | link | EF OWD p50 / p99 (efgen) "
           "| EF OWD avg / p99 (daemon) | drops EF / AF / CS0 | rx lost EF / AF / CS0 |",
           "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for r in runs:
        p = points[r.key]
        d = p.run if p else r
        par = (F.params_text(d) if d.calc or d.sched != "pss" else "") + (
            " (%s rule)" % r.rule if r.rule else "")
        if not p or p.n == 0:
            out.append("| %s | %s | 0 | (no valid run) | | | | | | | |" % (r.sched, par))
            continue
        cells = []
        for c in D.CLASSES:
            th = p.theory(c)
            cells.append(D.value_text(p.measured(c)) + ("" if th is None else " [%.3f]" % th))

        def ms(path):
            s = p.mean_of(path)
            return "" if s is None else "%.1f" % s.mean
        out.append("| %s | %s | %d | %s | %s | %s / %s | %s / %s | %s | %s |" % (
            r.sched, par, p.n, " | ".join(cells),
            D.value_text(p.mean_of(("link", "measured_mbps"))),
            ms(("extra", "efgen_owd_ms", "p50")), ms(("extra", "efgen_owd_ms", "p99")),
            ms(("ef_owd_ms", "avg")), ms(("ef_owd_ms", "p99_max")),
            " / ".join(_pct(p.mean_of(("extra", "loss", c, "drop"))) for c in D.CLASSES),
            " / ".join(_pct(p.mean_of(("extra", "loss", c, "lost"))) for c in D.CLASSES)))
    out += ["", "Discarded runs (the sender stalled or the run failed; not in the means):",
            ""] + discarded_lines(runs, points)
    path = os.path.join(results, name + ".md")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    return [path]
