"""schedlab/plot.py - rates.png, a run's rates over time.

matplotlib (Agg backend) is imported only when a plot is drawn, so that
this module loads anywhere.
"""
from schedlab.measure import CLASSES

COLORS = {"ef": "tab:red", "af": "tab:blue", "cs0": "tab:green"}


def rates_png(path, rate_rows, theory_rows_, credit, title, window):
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
