"""ticketsweep.py - the TICKET paper's §3 sweep (scripts/reproduce.sh ticket).

The points: three overloads (the background's think time; the paper's
0.7, 2.4 and 5.1 % link loss) x d x {ticket, naive}; core: d = 2 and
40 ms, the points that carry the paper's claims; all adds 10 and 100 ms.
Each run is mininet/ticket.py with the repetition as its seed; its record
keeps ticket.py's numbers (summary.json "ticket").  The driver (records,
resume, lock, --plan, --redraw [--check]) is schedlab.sweep's; this file
holds the points and what is drawn from the records: RESULTS/ticket.md
(per overload and point, mean and 95 % Student-t interval over the
valid runs, beside the paper's reported values, and the steady-state
check), ticket-runs.md, ticket.png and the README's block.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from schedlab import sweep  # noqa: E402
from schedlab.repeats import Summary  # noqa: E402
from schedlab.sweep import stat as _stat  # noqa: E402

NAME = "ticket"
USERS = 270
# the background's mean think time (s) per overload: calibrated so that the
# link's loss is near the paper's (docs/ticket-mininet.md, "Overloads")
LOADS = (("modest", 6.0, 0.7), ("moderate", 3.0, 2.4), ("severe", 2.0, 5.1))
D_CORE = (2.0, 40.0)
D_MORE = (10.0, 100.0)
VARIANTS = ("ticket", "naive")
FULL = {"duration": 80.0, "warmup": 20.0}
QUICK = {"duration": 20.0, "warmup": 8.0}
DELAY_MS = 50.0
# what the paper reports per overload (§3.2-3.4), quoted in the table
PAPER = {
    "modest": "excess up to 390 kbit/s a flow at d > 40 ms, 360 at d = 2 ms; excess "
              "loss 2.2 % at d = 2 ms, near background's above; maximum delay = d up "
              "to 50 ms",
    "moderate": "excess ~110 kbit/s a flow for every d > 2 ms; loss high below d = "
                "35 ms; excess loss close to background's",
    "severe": "excess ~40 kbit/s a flow for every d > 2 ms; background loss above "
              "excess's below d = 40 ms (intervals overlap)",
}


class Pt:
    """One sweep point: overload, d, variant."""

    def __init__(self, load, think_s, d_ms, variant):
        self.load, self.think_s, self.d_ms, self.variant = load, think_s, d_ms, variant

    @property
    def key(self):
        return "%s-d%g-%s" % (self.load, self.d_ms, self.variant)


def points(which):
    """The points: "core", "more" (the others) or "all" (core first),
    overload order within."""
    out = []
    for core, ds in ((True, D_CORE), (False, D_MORE)):
        if (which == "core" and not core) or (which == "more" and core):
            continue
        for load, think, _ in LOADS:
            for d in ds:
                for v in VARIANTS:
                    out.append(Pt(load, think, d, v))
    return out


def params_of(pt, timing, tools):
    """The cache key's inputs of a point (cache.REQUIRED_PARAMS and ours)."""
    return {"point": pt.key, "sched": "ticket", "sched_group": "variant %s d %gms n_eb 256"
            % (pt.variant, pt.d_ms), "variant": pt.variant, "d_ms": pt.d_ms,
            "load": pt.load, "think_s": pt.think_s, "users": USERS,
            "capacity": "30Mbit", "ef": "27 TFRC x 267kbit", "flows": [27, USERS],
            "delay": "%gms" % DELAY_MS, "duration_s": timing["duration"],
            "warmup_s": timing["warmup"], "seed": None, "tools": tools}


def argv_of(pt, timing, schedtun, out, rep):
    return sweep.run_argv("ticket.py", ["--variant", pt.variant, "--d", "%g" % pt.d_ms,
                                        "--users", str(USERS), "--think", "%g" % pt.think_s,
                                        "--delay", "%g" % DELAY_MS], timing, out, rep, schedtun)


def point_of(pt, timing, schedtun, tools):
    return sweep.make_point(NAME, params_of(pt, timing, tools),
                            lambda out, rep: argv_of(pt, timing, schedtun, out, rep),
                            schedtun, ("ticket", "access_mbps"))


# ------------------------------------------------------------ from the records

def _newest(recs, pts, timing):
    return sweep.newest(recs, NAME, pts, timing)


def _cls(r, c, k):
    return r["results"]["extra"]["ticket"]["classes"][c][k]


def link_loss(r):
    """Every class's drops over what left the scheduler (the paper's link loss)."""
    cl = r["results"]["extra"]["ticket"]["classes"]
    drops = sum(v["drop_pkts"] for v in cl.values())
    left = drops + sum(v["dep_pkts"] for v in cl.values())
    return drops / left if left else None


def ratio(r):
    a, b = _cls(r, "af", "loss"), _cls(r, "cs0", "loss")
    return a / b if a is not None and b else None


COLUMNS = (
    ("link loss %", link_loss, 100.0, "%.2f"),
    ("excess kbit/s a flow", lambda r: _cls(r, "af", "per_flow_kbps"), 1.0, "%.0f"),
    ("conforming kbit/s a flow", lambda r: _cls(r, "ef", "per_flow_kbps"), 1.0, "%.0f"),
    ("conforming loss %", lambda r: _cls(r, "ef", "loss"), 100.0, "%.2f"),
    ("excess loss %", lambda r: _cls(r, "af", "loss"), 100.0, "%.2f"),
    ("background loss %", lambda r: _cls(r, "cs0", "loss"), 100.0, "%.2f"),
    ("excess / background loss", ratio, 1.0, "%.2f"),
    ("conforming queueing mean / max ms", None, None, None),
    ("excess queueing mean / max ms", None, None, None),
    ("background queueing mean / max ms", None, None, None),
    ("excess one-way delay max ms", lambda r: _cls(r, "af", "owd_max_ms"), 1.0, "%.1f"),
)


def _meanmax(rs, c):
    return "%s / %s" % (_stat([_cls(r, c, "sojourn_mean_ms") for r in rs], fmt="%.2f"),
                        _stat([_cls(r, c, "sojourn_max_ms") for r in rs], fmt="%.2f"))


def table_text(recs, timing, pts):
    """RESULTS/ticket.md from the records."""
    got = _newest(recs, pts, timing)
    out = ["# TICKET (Karlsson), §3 in Mininet: the In-Time PHB on real traffic", "",
           "Generated by `scripts/reproduce.sh ticket` from [ticket-runs.jsonl]"
           "(ticket-runs.jsonl) (one JSON line per run); do not edit: `scripts/"
           "reproduce.sh ticket --redraw --check` fails when this file does not follow "
           "from the records. Each cell: mean ± half-width of the 95 %% Student-t "
           "interval over the point's valid runs (n per row). Window: %g-%g s of each "
           "run (the first %g s left out). Setup and differences from the paper: "
           "[docs/ticket-mininet.md](../../docs/ticket-mininet.md)."
           % (timing["warmup"], timing["duration"], timing["warmup"]), ""]
    if not got:
        return "\n".join(out + ["No runs recorded yet.", ""])
    for load, think, paper_loss in LOADS:
        rows = [pt for pt in pts if pt.load == load and pt.key in got]
        if not rows:
            continue
        out += ["## %s overload (web users' think time %g s; the paper: %.1f %% link loss)"
                % (load.capitalize(), think, paper_loss), "",
                "The paper: " + PAPER[load] + ".", ""]
        head = ["d ms", "scheduler", "n (discarded)"] + [c[0] for c in COLUMNS]
        out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for pt in sorted(rows, key=lambda p: (p.d_ms, p.variant)):
            rs_all = got[pt.key]
            rs = [r for r in rs_all if r["valid"]]
            cells = ["%g" % pt.d_ms, pt.variant, "%d (%d)" % (len(rs), len(rs_all) - len(rs))]
            for title, fn, scale, fmt in COLUMNS:
                if fn is None:
                    c = {"conforming": "ef", "excess": "af", "background": "cs0"}[
                        title.split()[0]]
                    cells.append(_meanmax(rs, c) if rs else "-")
                else:
                    cells.append(_stat([fn(r) for r in rs], scale, fmt) if rs else "-")
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
    out.append(steady_text(got, pts, timing))
    return "\n".join(out)


def _phase_means(r, key, timing):
    """(warm-up, first half, second half of the window) means of a run's
    10-s series `key`, or None when the run has no series."""
    sr = r["results"]["extra"]["ticket"].get("series")
    if not sr:
        return None
    w, d = timing["warmup"], timing["duration"]
    mid = (w + d) / 2
    out = []
    for lo, hi in ((0, w), (w, mid), (mid, d)):
        vals = [v for i, v in enumerate(sr[key])
                if v is not None and lo <= i * sr["bin_s"] < hi]
        out.append(sum(vals) / len(vals) if vals else None)
    return out


def steady_text(got, pts, timing):
    """The steady-state section: per point, excess rate a flow and link loss
    in the warm-up and in each half of the window (10-s bins, mean over runs)."""
    w, d = timing["warmup"], timing["duration"]
    mid = (w + d) / 2
    span = "%g-%g s / %g-%g s / %g-%g s" % (0, w, w, mid, mid, d)
    out = ["## Steady state", "",
           "Per point, the mean over its valid runs of the 10-s bins in the warm-up "
           "and in each half of the window (%s). The window is steady when its two "
           "halves agree within the intervals above; the warm-up shows what the "
           "first %g s would have added." % (span, w), "",
           "| point | excess kbit/s a flow (%s) | link loss %% (%s) |" % (span, span),
           "|---|---|---|"]
    for pt in pts:
        rs = [r for r in got.get(pt.key, []) if r["valid"]]
        cols = []
        for key, scale, fmt in (("af_kbps_per_flow", 1.0, "%.0f"), ("link_loss", 100.0,
                                                                      "%.2f")):
            ph = [p for p in (_phase_means(r, key, timing) for r in rs) if p]
            if not ph:
                cols.append("-")
                continue
            means = []
            for i in range(3):
                vals = [p[i] for p in ph if p[i] is not None]
                means.append(fmt % (scale * sum(vals) / len(vals)) if vals else "-")
            cols.append(" / ".join(means))
        if rs:
            out.append("| %s | %s | %s |" % (pt.key, cols[0], cols[1]))
    return "\n".join(out + [""])


def runs_text(got, pts):
    """RESULTS/ticket-runs.md: every run of the newest key of each point."""
    out = ["# TICKET §3 in Mininet: every run", "",
           "One row per run record (mininet/results/ticket-runs.jsonl), valid or "
           "discarded, newest code key of each point; seed = the repetition.", "",
           "| point | key | rep | valid | link loss % | excess kbit/s a flow | excess loss % "
           "| background loss % | late / out of order / ef_missed | commit | reasons |",
           "|---|---|--:|---|--:|--:|--:|--:|---|---|---|"]
    for pt in pts:
        for r in got.get(pt.key, []):
            tk = r["results"].get("extra", {}).get("ticket")
            if tk:
                c = tk["classes"]
                cnt = tk.get("ticket_counters", {})
                nums = ["%.2f" % (100 * link_loss(r)), "%.0f" % c["af"]["per_flow_kbps"],
                        "-" if c["af"]["loss"] is None else "%.2f" % (100 * c["af"]["loss"]),
                        "-" if c["cs0"]["loss"] is None else "%.2f" % (100 * c["cs0"]["loss"]),
                        "%s / %s / %s" % (cnt.get("late", "-"), cnt.get("out_of_order", "-"),
                                          cnt.get("ef_missed", "-"))]
            else:
                nums = ["-"] * 5
            out.append("| %s | %s | %d | %s | %s | %s | %s |" % (
                pt.key, r["key"][:12], r["rep"], "yes" if r["valid"] else "no",
                " | ".join(nums), "%s%s" % (str(r["provenance"].get("code", {}).get("commit", "-"))[:10],
                                            " dirty" if r["provenance"].get("code", {}).get("dirty") else ""),
                "; ".join(r["reasons"]).replace("|", "/") or "-"))
    return "\n".join(out + [""])


MARK = ("<!-- ticket-mininet-readme -->", "<!-- /ticket-mininet-readme -->")


def readme_text(recs, timing, pts):
    """The README's lines: per overload, at d = 2 ms, excess against
    background loss under each scheduler, and the excess rate a flow."""
    got = _newest(recs, pts, timing)
    lines = []
    for load, _, paper_loss in LOADS:
        parts = []
        for v in VARIANTS:
            rs = [r for r in got.get("%s-d2-%s" % (load, v), []) if r["valid"]]
            if not rs:
                continue
            parts.append("%s: excess loss %s %% against background %s %%, excess %s "
                         "kbit/s a flow (n = %d)" % (
                             v, _stat([_cls(r, "af", "loss") for r in rs], 100, "%.2f"),
                             _stat([_cls(r, "cs0", "loss") for r in rs], 100, "%.2f"),
                             _stat([_cls(r, "af", "per_flow_kbps") for r in rs], fmt="%.0f"),
                             len(rs)))
        if parts:
            rs = [r for k, v in got.items() if k.startswith(load + "-") for r in v
                  if r["valid"]]
            lines.append("  - %s overload (link loss %s %% over its %d runs; the paper's "
                         "%.1f %%), d = 2 ms: %s." % (
                             load, _stat([link_loss(r) for r in rs], 100, "%.2f"), len(rs),
                             paper_loss, "; ".join(parts)))
    if not lines:
        lines = ["  - no runs recorded yet."]
    return "\n".join(["  TICKET §3 in Mininet (`scripts/reproduce.sh ticket`, 95 %% intervals "
                      "over runs of %g s, window %g-%g s; "
                      "[table](mininet/results/ticket.md)):" % (timing["duration"],
                                                                timing["warmup"],
                                                                timing["duration"])]
                     + lines)


def draw(recs, timing, pts, results):
    """Writes ticket.md, ticket-runs.md and ticket.png; returns the paths."""
    return sweep.draw_files(results, NAME, table_text(recs, timing, pts),
                            sweep.newest(recs, NAME, pts, timing),
                            lambda got: runs_text(got, pts),
                            lambda got, path: plot(got, pts, path))


PLOT_ROWS = (
    ("excess kbit/s a flow", (("", lambda r: _cls(r, "af", "per_flow_kbps")),)),
    ("loss %", ((" excess", lambda r: 100 * (_cls(r, "af", "loss") or 0)),
                (" background", lambda r: 100 * (_cls(r, "cs0", "loss") or 0)))),
    ("max queueing ms (line: d)", ((" conforming", lambda r: _cls(r, "ef", "sojourn_max_ms")),
                                   (" excess", lambda r: _cls(r, "af", "sojourn_max_ms")))),
)


def plot(got, pts, path):
    """Per overload, against d: the excess rate a flow, excess and background
    loss, and the conforming and excess maximum queueing delay beside d."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(len(PLOT_ROWS), len(LOADS), figsize=(4.2 * len(LOADS), 9.2),
                             squeeze=False)
    markers = ("o", "^")
    for j, (load, _, paper_loss) in enumerate(LOADS):
        ds = sorted({pt.d_ms for pt in pts if pt.load == load and pt.key in got})
        for v, line in (("ticket", "-"), ("naive", "--")):
            row = sorted((pt for pt in pts if pt.load == load and pt.variant == v
                          and pt.key in got), key=lambda p: p.d_ms)
            for i, (_, series) in enumerate(PLOT_ROWS):
                for k, (lab, fn) in enumerate(series):
                    xs, ys, es = [], [], []
                    for pt in row:
                        vals = [x for x in (fn(r) for r in got[pt.key] if r["valid"])
                                if x is not None]
                        if vals:
                            s = Summary(vals)
                            xs.append(pt.d_ms)
                            ys.append(s.mean)
                            es.append(s.half_width or 0.0)
                    if xs:
                        axes[i][j].errorbar(xs, ys, yerr=es, marker=markers[k], linestyle=line,
                                            capsize=3, label=v + lab)
        if ds:
            axes[2][j].plot(ds, ds, color="0.5", linewidth=0.8)
        axes[0][j].set_title("%s (paper: %.1f %% loss)" % (load, paper_loss))
        for i, (ylabel, _) in enumerate(PLOT_ROWS):
            ax = axes[i][j]
            ax.set_ylabel(ylabel)
            ax.set_xscale("log")
            ax.set_xlabel("d (ms)")
            ax.grid(alpha=0.3)
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


SPEC = sweep.SweepSpec(
    name=NAME, title="The TICKET paper's §3 sweep in Mininet (docs/ticket-mininet.md).",
    full=FULL, quick=QUICK, overhead_s=10.0, points=points, point_of=point_of, draw=draw,
    readme_text=readme_text, readme_mark=MARK, entry="mininet/ticketsweep.py",
    point_choices=("core", "more", "all"))


if __name__ == "__main__":
    sweep.run_main(SPEC)
