"""demoplot.py - geo-demo's compare.png: runs of one scenario side by side.

compare_png(path, runs, title): one panel per run, each class's out rate
at the sender daemon against traffic time (rates.csv's daemon rows), the
theory dashed (rates.csv's per-interval theory rows, which follow the EF
step), C dotted, the time outside the measured window grey and the step
marked.  runs: [(run directory, its demoreport.report())].  matplotlib is
imported here only, so that the table needs none.
"""
import os

from schedlab.demoreport import CLASSES, LABEL, read_rates

COLORS = {"ef": "tab:red", "af": "tab:blue", "cs0": "tab:green"}


def _panel(ax, out, rep, legend):
    """One run's rates, theory, window and step on axes `ax`."""
    csv_path = os.path.join(out, "rates.csv")
    meas, th = read_rates(csv_path, "daemon"), read_rates(csv_path, "theory")
    for c in CLASSES:
        if meas[c]:
            ax.plot(*zip(*meas[c]), color=COLORS[c], linewidth=1.6, marker=".",
                    markersize=3, label="%s out" % LABEL[c])
        if th[c]:
            ax.step(*zip(*th[c]), where="pre", color="black", linestyle=(0, (4, 3)),
                    linewidth=1.0, label="theory" if c == "ef" else None)
    if th["link"]:
        ax.step(*zip(*th["link"]), where="pre", color="0.4", linestyle=":",
                linewidth=1.2, label="C")
    phases = rep["phases"]
    w0 = min(p["start_s"] for p in phases.values())
    w1 = max(p["end_s"] for p in phases.values())
    ax.axvspan(min(0.0, w0), w0, color="0.92", zorder=0)
    t_end = max([t for t, _ in meas["link"]] + [w1])
    if t_end > w1:
        ax.axvspan(w1, t_end, color="0.92", zorder=0)
    if rep["step"]:
        at = rep["step"]["at_s"]
        ax.axvline(at, color="0.3", linewidth=1, linestyle="-.")
        ax.annotate("EF %g \u2192 %g Mbit/s" % (rep["step"]["before_bps"] / 1e6,
                                                rep["step"]["after_bps"] / 1e6),
                    (at, 0), xytext=(4, 4), textcoords="offset points", fontsize=8)
    eq = rep["equations"]
    ax.set_title("%s: AF %s, CS0 %s" % (rep["sched"], eq["af"] or "no theory",
                                        eq["cs0"] or "no theory"), fontsize=10)
    ax.set_xlabel("t (s since the traffic started)")
    ax.grid(True, alpha=0.3)
    if legend:
        ax.legend(loc="upper right", fontsize=7, ncol=3)


def compare_png(path, runs, title):
    """Writes `path` (see the module docstring)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(runs), figsize=(6.2 * len(runs), 4.6), sharey=True,
                             squeeze=False)
    for i, (out, rep) in enumerate(runs):
        _panel(axes[0][i], out, rep, legend=i == len(runs) - 1)
    axes[0][0].set_ylabel("rate (Mbit/s)")
    top = max(ax.get_ylim()[1] for ax in axes[0])
    for ax in axes[0]:
        ax.set_ylim(0, top * 1.2)       # room for the legend
    fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
