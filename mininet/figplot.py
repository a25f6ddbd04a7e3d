"""figplot.py - draw a figure sweep (PNG + Markdown table) and the comparison.

draw_sweep(runs, dirs, timing, results, name) -> [png, md]
    Figs. 5/6: AF and CS0 rates against K_AF, one colour per R_EF, theory as
    lines (mininet/theory.py), measured points per scheduler and rule, and
    Algorithm 1 in the simulator (`schedtun params`) for each PSS point.
draw_compare(runs, dirs, timing, results, name) -> [md]
    One row per scheduler: per-class rates, EF one-way delay, loss.
Runs without a summary.json (failed or not run) are left out and counted.
Errors are (measured - theory) / theory, never adjusted.
"""
import os

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt           # noqa: E402
from matplotlib.lines import Line2D       # noqa: E402

import figures as F                       # noqa: E402
import geoio                              # noqa: E402
import theory                             # noqa: E402

COLOURS = {5.0: "tab:blue", 10.0: "tab:orange", 15.0: "tab:green"}
MARKERS = {("pss", "paper"): ("o", "PSS, paper rule (eqs. 3-5)"),
           ("pss", "calibrated"): ("s", "PSS, calibrated rule"),
           ("dwrr", None): ("x", "DWRR")}


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


def _timing_text(timing, runs, dirs, done):
    walls = [F.run_wall(dirs, r) for r in runs]
    wall = sum(w for w in walls if w)
    return ("%d runs of %d s (means over %d-%d s), %d with results; %.0f min of wall "
            "time for the runs (2-core VM, one at a time)"
            % (len(runs), timing["duration"], timing["warmup"], timing["duration"],
               done, wall / 60.0))


def _params_lines(runs, name):
    """One line per weights: K_AF, B and the PSS parameters at each R_EF^exp."""
    lines, seen = [], {}
    for r in runs:
        if r.sched == "pss":
            seen.setdefault((r.weights, r.rule), {})[r.ef_exp] = r.calc
    for (w, rule), by_exp in sorted(seen.items(), key=lambda x: (-x[0][0][0] / sum(x[0][0]), x[0][1])):
        b = theory.b_factor(w[0], F.L_PKT, w[1], F.L_PKT)
        sets = "; ".join("exp %g: BW %.4f LM %d LR %d" % (e, float(p["bw"]), p["lm"], p["lr"])
                         for e, p in sorted(by_exp.items()))
        lines.append("%d:%d (K_AF %.3f, B %.3f) %s: %s; DWRR quanta %d/%d B"
                     % (w[0], w[1], theory.k_af(w[0], F.L_PKT, w[1], F.L_PKT), b,
                        rule, sets, w[0] * F.L_PKT, w[1] * F.L_PKT))
    return lines


def draw_sweep(runs, dirs, timing, results, name, schedtun=None):
    """Figs. 5 and 6: the plot and the table (see the module docstring)."""
    sums = {r.key: F.load(dirs, r) for r in runs}
    done = sum(1 for s in sums.values() if s)
    fig, axes = plt.subplots(1, 2, figsize=(12, 6.6))
    for ax, c, label in ((axes[0], "af", "AF"), (axes[1], "cs0", "CS0")):
        for ef in F.R_EFS:
            _theory_lines(ax, name, ef, c)
        for r in runs:
            s = sums[r.key]
            mk = MARKERS[(r.sched, r.rule)][0]
            if r.weights == F.SMALL_W and r.rule == "paper":
                mk = "^"
            if s:
                ax.plot([r.k_af], [F.cls(s, c)], mk, color=COLOURS[r.ef], ms=7,
                        mfc="none" if r.rule == "calibrated" else COLOURS[r.ef])
            if r.sched == "pss":
                ax.plot([r.k_af], [r.calc["sim_" + c]], "_", color=COLOURS[r.ef], ms=14,
                        mew=1.2)
        ax.set_xlabel("K_AF (eq. 2)")
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
    fig.suptitle("%s: %s" % (name, F.FIGURES[name]["title"]), fontsize=11)
    text = ["C 20 Mbit/s, 250 ms each way, AF/CS0 10+10 cubic, EF schedtun-efgen CBR; "
            "AF/CS0 packets 1400 B; " + _timing_text(timing, runs, dirs, done)]
    text += _params_lines(runs, name)
    stalled = ["%s (%.0f ms)" % (r.key, stall_ms(dirs[r.key], timing["warmup"])) for r in runs
               if sums[r.key] and stall_ms(dirs[r.key], timing["warmup"]) > STALL_MS]
    if stalled:
        text.append("sender daemon late > %g ms (kept as measured, see the table): %s"
                    % (STALL_MS, ", ".join(stalled)))
    png = save_with_footer(fig, text, results, name)
    md = os.path.join(results, name + ".md")
    _sweep_table(md, runs, sums, timing, dirs, done, name)
    return [png, md]


def save_with_footer(fig, text, results, name):
    """Writes fig to results/<name>.png with the lines `text` (conditions,
    parameters) in small type under the axes; returns the path."""
    fig.text(0.01, 0.01, "\n".join(text), fontsize=6.5, family="monospace", va="bottom")
    fig.subplots_adjust(bottom=0.09 + 0.022 * len(text), top=0.9)
    png = os.path.join(results, name + ".png")
    fig.savefig(png, dpi=100)
    plt.close(fig)
    return png


def _sweep_table(path, runs, sums, timing, dirs, done, name):
    """The Markdown table of a sweep: configuration, measured, theory, error."""
    out = ["# %s: %s" % (name, F.FIGURES[name]["title"]), "",
           "Written by `scripts/reproduce.sh %s` (mininet/reproduce.py). " % name
           + _timing_text(timing, runs, dirs, done) + ". C = 20 Mbit/s, 250 ms "
           "each way, 10 AF + 10 CS0 cubic flows, EF one CBR flow (schedtun-efgen), "
           "AF/CS0 packets 1400 B. Rates in Mbit/s at the sender daemon (IP bytes); "
           "theory from mininet/theory.py (PSS: eqs. 7, 8; DWRR: eqs. 1, 6); "
           "error = (measured - theory) / theory. \"Alg. 1\" is `schedtun params`' "
           "simulation of Algorithm 1 with the same parameters (greedy AF and CS0, EF "
           "CBR in 1400-byte packets; efgen sends 1228-byte ones); \"BW·C\" = "
           "min(BW·C, C - R_EF), what Algorithm 1 gives to first order (docs/pss.md).", "",
           "| R_EF | R_EF^exp | scheduler | rule | W | K_AF | parameters | AF | AF theory "
           "| AF error | AF Alg. 1 | AF BW·C | CS0 | CS0 theory | CS0 error | CS0 Alg. 1 | EF |",
           "|--:|--:|---|---|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]
    worst = {"af": (0.0, None), "cs0": (0.0, None)}
    stalls = []
    for r in runs:
        s = sums[r.key]
        sim = r.calc or {}
        row = [num_(r.ef, "%g"), num_(r.ef_exp, "%g") if r.sched == "pss" else "",
               r.sched, r.rule or "", "%d:%d" % r.weights, "%.3f" % r.k_af,
               F.params_text(r)]
        if not s:
            out.append("| " + " | ".join(row + ["(no result)"] + [""] * 9) + " |")
            continue
        for c in ("af", "cs0"):
            e = F.cls(s, c, "rel_error")
            row += [F.num(F.cls(s, c)), F.num(F.cls(s, c, "theory_mbps")), F.pct(e),
                    F.num(sim.get("sim_" + c))]
            if c == "af":
                row.append(F.num(F.cls(s, "af", "algorithm1_bw_c_mbps")))
            if e is not None and abs(e) > abs(worst[c][0]):
                worst[c] = (e, r.key)
        row.append(F.num(F.cls(s, "ef")))
        late = stall_ms(dirs[r.key], timing["warmup"])
        if late > STALL_MS:
            row[2] += " (*)"
            stalls.append("%s: %.0f ms" % (r.key, late))
        out.append("| " + " | ".join(row) + " |")
    out += ["", "Largest relative error: AF %s (%s), CS0 %s (%s)."
            % (F.pct(worst["af"][0]), worst["af"][1], F.pct(worst["cs0"][0]), worst["cs0"][1]),
            "", "(*) the sender daemon's loop did not run in time: a packet left more than "
            "%g ms late after the warm-up (link.late_us), the lost link time is lost and EF "
            "arriving meanwhile can overflow its queue: %s. The result is kept as measured."
            % (STALL_MS, "; ".join(stalls) or "none in this sweep"),
            "", "Parameters per weights and R_EF^exp:", ""]
    out += ["- " + ln for ln in _params_lines(runs, name)]
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


STALL_MS = 100.0


def stall_ms(run_dir, warmup):
    """The sender daemon's largest link.late_us after `warmup` s of its own
    clock (traffic starts within a second of the daemon), in ms: how late its
    loop sent a packet (a stalled process); 0 when there are no stats."""
    lines = geoio.stats_lines(os.path.join(run_dir, "stats-a.jsonl"))
    return max([ln["link"]["late_us"]["max"] / 1000.0 for ln in lines
                if float(ln["t"]) >= warmup] or [0.0])


def num_(x, fmt):
    return F.num(x, fmt)


def _loss(run_dir):
    """Per class: sender drops / packets in (whole run), receiver rx lost."""
    a = geoio.stats_lines(os.path.join(run_dir, "stats-a.jsonl"))
    b = geoio.stats_lines(os.path.join(run_dir, "stats-b.jsonl"))
    res = {}
    for c in geoio.CLASSES:
        inn = sum(ln["classes"][c]["in_pkts"] for ln in a)
        drop = sum(ln["classes"][c]["drop_pkts"] for ln in a)
        got = sum(ln["rx"][c]["pkts"] for ln in b)
        lost = sum(ln["rx"][c]["lost"] for ln in b)
        res[c] = (drop / inn if inn else None, lost / (got + lost) if got + lost else None)
    return res


def efgen_window(run_dir, timing):
    """EF one-way delay at the efgen sink inside the window: (median of the
    per-second p50, largest per-second p99), ms.  The sink's clock starts
    before the traffic, so the window is counted from its first interval
    with packets: [first + warmup, first + duration]."""
    lines, _ = geoio.efgen_lines(os.path.join(run_dir, "efgen-sink.jsonl"))
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


def draw_compare(runs, dirs, timing, results, name, schedtun=None):
    """compare.md: one GEO run per scheduler (see the module docstring)."""
    out = ["# compare: the seven schedulers through the same GEO run", "",
           "Written by `scripts/reproduce.sh compare`. " + _timing_text(
               timing, runs, dirs, sum(1 for r in runs if F.load(dirs, r)))
           + ". C = 20 Mbit/s, 250 ms each way, EF 10 Mbit/s CBR (schedtun-efgen, "
           "1228-byte IP packets), 10 AF + 10 CS0 cubic flows, weights 81:19 where a "
           "scheduler takes weights (PSS: paper rule for R_EF^exp = 10 Mbit/s; DWRR "
           "quanta W*1400); prio, fifo, pdrr, dq, ticket with their own defaults. "
           "Rates: sender daemon, Mbit/s, theory in brackets where the paper has one. "
           "EF one-way delay inside the window: schedtun-efgen's sink (median of its "
           "per-second p50, largest per-second p99) and the receiver daemon (mean of "
           "its per-second averages, largest per-second p99). Drops: the sender daemon's drops / packets in, "
           "whole run (TCP's congestion losses for AF and CS0); rx lost: sequence "
           "gaps at the receiver daemon.", "",
           "| scheduler | parameters | EF | AF | CS0 | link | EF OWD p50 / p99 (efgen) "
           "| EF OWD avg / p99 (daemon) | drops EF / AF / CS0 | rx lost EF / AF / CS0 |",
           "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|"]
    stalls = []
    for r in runs:
        s = F.load(dirs, r)
        if not s:
            out.append("| %s | %s | (no result) | | | | | | | |" % (r.sched, F.params_text(r)))
            continue
        cells = []
        for c in geoio.CLASSES:
            th = F.cls(s, c, "theory_mbps")
            cells.append(F.num(F.cls(s, c)) + ("" if th is None else " [%.3f]" % th))
        o = s["ef_owd_ms"]
        eg = dict(zip(("p50", "p99"), efgen_window(dirs[r.key], timing)))
        loss = _loss(dirs[r.key])
        late = stall_ms(dirs[r.key], timing["warmup"])
        if late > STALL_MS:
            stalls.append("%s: %.0f ms" % (r.key, late))
        out.append("| %s | %s | %s | %s | %s / %s | %s / %s | %s | %s |" % (
            r.sched + (" (repeat %d)" % r.rep if r.rep > 1 else "")
            + (" (*)" if late > STALL_MS else ""), F.params_text(r) + (" (%s rule)" % r.rule if r.rule else ""),
            " | ".join(cells), F.num(s["link"]["measured_mbps"]),
            F.num(eg.get("p50"), "%.1f"), F.num(eg.get("p99"), "%.1f"),
            F.num(o.get("avg"), "%.1f"), F.num(o.get("p99_max"), "%.1f"),
            " / ".join(F.num(None if loss[c][0] is None else 100 * loss[c][0], "%.2f %%")
                       for c in geoio.CLASSES),
            " / ".join(F.num(None if loss[c][1] is None else 100 * loss[c][1], "%.2f %%")
                       for c in geoio.CLASSES)))
    out += ["", "(*) the sender daemon's loop did not run for more than %g ms after the "
            "warm-up (link.late_us): %s. Kept as measured; PSS was run twice for it." % (STALL_MS, "; ".join(stalls) or "none")]
    path = os.path.join(results, name + ".md")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    return [path]
