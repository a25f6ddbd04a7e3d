"""pdrrsweep.py - the PDRR paper's Fig. 3 (left) and §5 sweep (scripts/reproduce.sh pdrr).

The points are the paper's four runs (schedlab.pdrrrun.CASES): fig3-pdrr
and fig3-drr (load 0.9: PDRR against plain DRR), s5-admission and s5-none
(11 Mbit/s offered, buffer 1000, AFL 500, with and without admission
control); all are "core".  Each run is mininet/pdrr.py with the
repetition as its seed, 300 s long (the paper's AFL saturates at about
210 s), measured over 60-300 s; its record keeps pdrr.py's numbers
(summary.json "pdrr").  The driver (records, resume, lock, --plan,
--redraw [--check]) is schedlab.sweep's; this file holds the points and
what is drawn from the records: RESULTS/pdrr.md (per case, mean and 95 %
Student-t interval over the valid runs, beside the paper's values),
pdrr-runs.md, pdrr.png (Fig. 3 left, Fig. 4) and the README's block.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from schedlab import sweep  # noqa: E402
from schedlab.pdrrlog import GRID_MS  # noqa: E402
from schedlab.pdrrrun import CASES, PdrrSpec  # noqa: E402
from schedlab.repeats import Summary  # noqa: E402
from schedlab.sweep import stat  # noqa: E402

NAME = "pdrr"
FULL = {"duration": 300.0, "warmup": 60.0}
QUICK = {"duration": 30.0, "warmup": 10.0}
TITLE = {"fig3-pdrr": "Fig. 3, PDRR", "fig3-drr": "Fig. 3, DRR",
         "s5-admission": "§5, admission", "s5-none": "§5, no admission"}
FIG3 = ("fig3-pdrr", "fig3-drr")
S5 = ("s5-admission", "s5-none")
CCDF_COLS_MS = (0, 0.5, 1, 2, 5, 10, 20, 50, 100)
PAPER_FIG3 = ("Fig. 3 (left), load 0.9: the UDP packets' delay under PDRR far below DRR's "
              "(a plot, no numbers); an M/M/1 queue at the priority load and the PQ's mean "
              "packet \"predicts quite well\" PDRR's (the dotted line)")
PAPER_S5 = ("§5, 11 Mbit/s offered: with admission, the fair rate stays close to the 100 "
            "kbit/s threshold, priority load about 0.25, the link nearly full, blocking "
            "about 10 %, UDP delay 0.69 ms mean, TCP 129 kbit/s mean; without, the fair rate "
            "first reaches 100 kbit/s at 60 s and keeps falling, the AFL saturates (500) at "
            "about 210 s, PQ never empties, UDP delay above 400 ms, TCP throughput tends "
            "to zero")


def tcp_end(timing):
    """The last arrival time of the transfers measured (PdrrSpec's rule)."""
    return PdrrSpec("fig3-pdrr", timing["duration"], timing["warmup"], "", "").tcp_window_end_s()


class Pt:
    """One sweep point: a case of schedlab.pdrrrun.CASES."""

    def __init__(self, case):
        self.case = case

    @property
    def key(self):
        return self.case


def points(which):
    """The points: "core" and "all" are the same four."""
    if which not in ("core", "all"):
        raise ValueError("points '%s': unknown (accepted: core, all)" % which)
    return [Pt(c) for c in CASES]


def params_of(pt, timing, tools):
    """The cache key's inputs (cache.REQUIRED_PARAMS and ours)."""
    prio, offered, buf, afl, adm = CASES[pt.case]
    return {"point": pt.key, "sched": "pdrr", "sched_group": "schedlab.pdrrrun.CASES",
            "case": pt.case, "priority": prio, "offered_mbps": offered, "buffer": buf,
            "max_flows": afl, "admission": adm, "capacity": "10Mbit", "ef": "none",
            "flows": ["tcp open loop 80 %", "udp on-off 20 %"], "delay": "20ms each way",
            "duration_s": timing["duration"], "warmup_s": timing["warmup"], "seed": None,
            "tools": tools}


def argv_of(pt, timing, schedtun, out, rep):
    return sweep.run_argv("pdrr.py", ["--case", pt.case], timing, out, rep, schedtun)


def point_of(pt, timing, schedtun, tools):
    return sweep.make_point(NAME, params_of(pt, timing, tools),
                            lambda out, rep: argv_of(pt, timing, schedtun, out, rep),
                            schedtun, ("pdrr",))


# ------------------------------------------------------------ from the records

def _m(r):
    return r["results"]["extra"]["pdrr"]


def _get(*path, scale=1.0):
    """A getter of a record's number at path under "pdrr" (None stays None)."""
    def f(r):
        v = _m(r)
        for k in path:
            v = v[k]
        return None if v is None else v * scale
    return f


def _pct(*path):
    return _get(*path, scale=100.0)


udp_mean = _get("sender", "udp", "wait_mean_ms")
cobham = _get("theory", "cobham_mean_ms")
mm1_mean = _get("theory", "mm1_mean_ms")
udp_p99 = _get("sender", "udp", "wait_p99_ms")
udp_max = _get("sender", "udp", "wait_max_ms")
tcp_kbps = _get("tcp", "throughput_mean_bps", scale=1e-3)
fair_kbps = _get("stats", "fair_mean_bps", scale=1e-3)
fair_min_kbps = _get("stats", "fair_min_bps", scale=1e-3)
offered = _get("sender", "link", "offered_bps", scale=1e-6)


def udp_lost_pct(r):
    """The UDP packets (class af: only the on-off flows are marked so)
    dropped in the window, by admission or push-out, over those sent plus
    those dropped.  The waits count only the packets that got through."""
    lost = sum(_m(r)["sender"]["drops"].get("af", {}).values())
    sent = _m(r)["sender"]["udp"]["pkts"]
    return 100.0 * lost / (sent + lost) if sent + lost else None

FIG3_COLS = (("UDP wait mean ms", udp_mean, "%.3f"),
             ("Cobham M/G/1 mean ms", cobham, "%.3f"),
             ("M/M/1 mean ms", mm1_mean, "%.3f"),
             ("UDP wait p99 ms", udp_p99, "%.3f"),
             ("UDP wait max ms", udp_max, "%.1f"),
             ("UDP via PQ %", _pct("sender", "udp", "pq_share"), "%.1f"),
             ("PQ load", _get("stats", "pq_load"), "%.3f"),
             ("offered Mbit/s", offered, "%.2f"),
             ("link %", _pct("sender", "link", "utilisation"), "%.1f"),
             ("TCP kbit/s", tcp_kbps, "%.0f"))
S5_COLS = (("fair rate kbit/s mean", fair_kbps, "%.0f"),
           ("fair rate min", fair_min_kbps, "%.0f"),
           ("AFL mean", _get("stats", "afl_mean"), "%.0f"),
           ("AFL max", _get("stats", "afl_max"), "%.0f"),
           ("PQ load", _get("stats", "pq_load"), "%.3f"),
           ("UDP wait mean ms", udp_mean, "%.2f"),
           ("UDP wait p99 ms", udp_p99, "%.1f"),
           ("UDP lost %", udp_lost_pct, "%.1f"),
           ("TCP kbit/s, completed", tcp_kbps, "%.0f"),
           ("TCP kbit/s, all", _get("tcp", "throughput_all_mean_bps", scale=1e-3), "%.0f"),
           ("TCP completed %", _pct("tcp", "completed_share"), "%.1f"),
           ("TCP blocked %", _pct("tcp", "blocking"), "%.1f"),
           ("blocked at set-up %", _pct("tcp", "blocking_setup"), "%.1f"),
           ("UDP flows refused %", lambda r: None if not _m(r)["udp_flows"]["flows"] else
            100.0 * _m(r)["udp_flows"]["refused_flows"] / _m(r)["udp_flows"]["flows"], "%.1f"),
           ("offered Mbit/s", offered, "%.2f"),
           ("link %", _pct("sender", "link", "utilisation"), "%.1f"),
           ("push-outs", _get("stats", "pushout"), "%.0f"))


def _valid(got, case):
    return [r for r in got.get(case, []) if r["valid"]]


def _first(rs, *path):
    """'t1, t2, ... s' of the runs' event times at path (never: '-')."""
    vals = []
    for r in rs:
        v = _m(r)
        for k in path:
            v = v[k]
        vals.append("-" if v is None else "%.0f" % v)
    return ", ".join(vals) if vals else "-"


def _rows(got, cases, cols):
    head = ["case", "n (discarded)"] + [c[0] for c in cols]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for case in cases:
        if case not in got:
            continue
        rs = _valid(got, case)
        cells = [TITLE[case], "%d (%d)" % (len(rs), len(got[case]) - len(rs))]
        cells += [stat([fn(r) for r in rs], fmt=fmt) if rs else "-" for _, fn, fmt in cols]
        out.append("| " + " | ".join(cells) + " |")
    return out


def _ccdf_mean(rs, key="sender"):
    """Per grid point: Summary of P(W > t) over the runs (None left out)."""
    out = []
    for i in range(len(GRID_MS)):
        if key == "sender":
            vals = [_m(r)["sender"]["udp"]["ccdf"][i] for r in rs]
        else:
            vals = [(_m(r)["theory"]["mm1_ccdf"] or [None] * len(GRID_MS))[i] for r in rs]
        vals = [v for v in vals if v is not None]
        out.append(Summary(vals) if vals else None)
    return out


def table_text(recs, timing, pts):
    got = sweep.newest(recs, NAME, pts, timing)
    out = ["# PDRR (Kortebi, Oueslati, Roberts 2005), Fig. 3 (left) and §5 in Mininet", "",
           "Generated by `scripts/reproduce.sh pdrr` from [pdrr-runs.jsonl](pdrr-runs.jsonl) "
           "(one JSON line per run); do not edit: `scripts/reproduce.sh pdrr --redraw "
           "--check` fails when this file does not follow from the records. Each cell: "
           "mean ± half-width of the 95 %% Student-t interval over the case's valid runs. "
           "Window: %g-%g s of each run (TCP: the transfers that arrived in %g-%g s, "
           "so that each had %g s or more to finish). A UDP packet's wait is its time in the "
           "scheduler (enqueue to the start of its transmission). TCP throughput: "
           "\"completed\" over the transfers that completed (the paper's), \"all\" over every "
           "transfer sent, a cut one at the bytes the sink got. Setup and differences from "
           "the paper: [docs/pdrr-mininet.md](../../docs/pdrr-mininet.md)."
           % (timing["warmup"], timing["duration"], timing["warmup"], tcp_end(timing),
              timing["duration"] - tcp_end(timing)), ""]
    if not got:
        return "\n".join(out + ["No runs recorded yet.", ""])
    out += ["## Fig. 3 (left): UDP delay at load 0.9", "", "The paper: " + PAPER_FIG3 + ".",
            ""] + _rows(got, FIG3, FIG3_COLS)
    out += ["", "P(wait > t), mean over the runs (M/M/1: the paper's line at each run's "
            "priority load and PQ mean packet):", ""]
    head = ["case"] + ["%g ms" % t for t in CCDF_COLS_MS]
    out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for case in FIG3:
        rs = _valid(got, case)
        if not rs:
            continue
        for label, key in ((TITLE[case], "sender"), (TITLE[case] + ", M/M/1", "mm1")):
            if key == "mm1" and case != "fig3-pdrr":
                continue
            cc = _ccdf_mean(rs, key)
            cells = [label] + ["-" if cc[GRID_MS.index(t)] is None else
                               "%.4f" % cc[GRID_MS.index(t)].mean for t in CCDF_COLS_MS]
            out.append("| " + " | ".join(cells) + " |")
    out += ["", "## §5: overload, 11 Mbit/s offered, buffer 1000, AFL 500", "",
            "The paper: " + PAPER_S5 + ".", ""] + _rows(got, S5, S5_COLS)
    out += ["", "| case | fair rate first under 100 kbit/s, s (each run) | AFL first at 500, "
            "s (each run) |", "|---|---|---|"]
    for case in S5:
        rs = _valid(got, case)
        if rs:
            out.append("| %s | %s | %s |" % (TITLE[case],
                                             _first(rs, "stats", "fair_under_admit_s"),
                                             _first(rs, "stats", "afl_saturated_s")))
    out += _paired_text(got)
    out += ["", "Drops in the window by class and reason (sum over the valid runs):", "",
            "| case | drops |", "|---|---|"]
    for case in FIG3 + S5:
        tot = {}
        for r in _valid(got, case):
            for cls, by in _m(r)["sender"]["drops"].items():
                for k, v in by.items():
                    tot[cls + " " + k] = tot.get(cls + " " + k, 0) + v
        if case in got:
            out.append("| %s | %s |" % (TITLE[case], ", ".join(
                "%s %d" % kv for kv in sorted(tot.items())) or "none"))
    return "\n".join(out + [""])


PAIRS = (("fig3-drr", "fig3-pdrr", "UDP wait mean ms", udp_mean, "%.3f"),
         ("fig3-drr", "fig3-pdrr", "UDP wait p99 ms", udp_p99, "%.3f"),
         ("s5-admission", "s5-none", "TCP kbit/s", tcp_kbps, "%.0f"),
         ("s5-none", "s5-admission", "UDP wait mean ms", udp_mean, "%.2f"),
         ("s5-none", "s5-admission", "UDP lost %", udp_lost_pct, "%.1f"))


def _paired_text(got):
    """Each claim's two cases run by run on the same seed (the same
    transfers and streams offered to both)."""
    rows = []
    for a, b, what, fn, fmt in PAIRS:
        if a in got and b in got:
            n, up, d = sweep.paired(got[a], got[b], fn)
            if n:
                rows.append("| %s − %s | %s | %s | %d of %d |" % (
                    TITLE[a], TITLE[b], what, stat(d, fmt=fmt), up, n))
    if not rows:
        return []
    return ["", "Paired by seed (repetition r of both cases: the same arrivals and sizes; "
            "the difference's mean ± 95 % half-width):", "",
            "| pair | what | difference | first higher |", "|---|---|---|---|"] + rows


def runs_text(got, pts):
    out = ["# PDRR in Mininet: every run", "",
           "One row per run record (mininet/results/pdrr-runs.jsonl), valid or discarded, "
           "newest code key of each case; seed = the repetition.", "",
           "| case | key | rep | valid | UDP wait mean ms | TCP kbit/s | blocking % | "
           "AFL max | fair kbit/s | commit | reasons |",
           "|---|---|--:|---|--:|--:|--:|--:|--:|---|---|"]
    for pt in pts:
        for r in got.get(pt.key, []):
            ok = "pdrr" in r["results"].get("extra", {})

            def f(fn, fmt):
                v = fn(r) if ok else None
                return "-" if v is None else fmt % v
            code = r["provenance"].get("code", {})
            out.append("| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s%s | %s |" % (
                pt.key, r["key"][:12], r["rep"], "yes" if r["valid"] else "no",
                f(udp_mean, "%.3f"), f(tcp_kbps, "%.0f"), f(_pct("tcp", "blocking"), "%.1f"),
                f(_get("stats", "afl_max"), "%.0f"), f(fair_kbps, "%.0f"),
                str(code.get("commit", "-"))[:10], " dirty" if code.get("dirty") else "",
                "; ".join(r["reasons"]).replace("|", "/") or "-"))
    return "\n".join(out + [""])


def _series(rs, col):
    """{t_s: [values over the runs]} of one series column."""
    by = {}
    for r in rs:
        st = _m(r)["stats"]
        i = st["series_cols"].index(col)
        for row in st["series"]:
            by.setdefault(row[0], []).append(row[i])
    return by


def plot(got, path):
    """Fig. 3 left (UDP wait CCDF, PDRR and DRR, the M/M/1 line) and
    Fig. 4 (AFL length, priority load; the fair rate) over time for §5."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(2, 2, figsize=(12, 8))
    ax = axes[0][0]
    for case in FIG3:
        rs = _valid(got, case)
        if not rs:
            continue
        cc = _ccdf_mean(rs)
        xs = [t for t, s in zip(GRID_MS, cc) if s is not None and s.mean > 0]
        ys = [s.mean for s in cc if s is not None and s.mean > 0]
        es = [s.half_width or 0.0 for s in cc if s is not None and s.mean > 0]
        ax.errorbar(xs, ys, yerr=es, capsize=2, marker="o", ms=3, label=TITLE[case])
        if case == "fig3-pdrr":
            mm = _ccdf_mean(rs, "mm1")
            xs = [t for t, s in zip(GRID_MS, mm) if s is not None and s.mean > 1e-6]
            ax.plot(xs, [s.mean for s in mm if s is not None and s.mean > 1e-6], "k:",
                    label="M/M/1 at PDRR's priority load")
    ax.set_yscale("log")
    ax.set_xscale("symlog", linthresh=0.1)
    ax.set_xlim(left=0)              # waits are >= 0: no negative decades
    ax.set_xlabel("UDP packet wait t (ms)")
    ax.set_ylabel("P(wait > t)")
    ax.set_title("Fig. 3 (left): load 0.9", fontsize=9)
    for (axx, col, yl, scale) in ((axes[0][1], "afl_mean", "AFL length (flows)", 1.0),
                                  (axes[1][0], "pq_load", "priority load", 1.0),
                                  (axes[1][1], "fair_bps", "fair rate (kbit/s)", 1e-3)):
        for case in S5:
            rs = _valid(got, case)
            if not rs:
                continue
            by = _series(rs, col)
            ts = sorted(by)
            mean = [sum(by[t]) / len(by[t]) * scale for t in ts]
            axx.plot(ts, mean, label=TITLE[case] + " (mean of %d)" % len(rs))
            axx.fill_between(ts, [min(by[t]) * scale for t in ts],
                             [max(by[t]) * scale for t in ts], alpha=0.2)
        axx.set_xlabel("s from the traffic's start")
        axx.set_ylabel(yl)
        axx.set_title("§5, 11 Mbit/s offered (band: min-max over runs)", fontsize=9)
    axes[0][1].axhline(500, color="k", ls=":", lw=0.8)
    axes[1][1].axhline(100, color="k", ls=":", lw=0.8)
    axes[1][1].set_yscale("log")
    for axx in (axes[0][0], axes[0][1], axes[1][0], axes[1][1]):
        axx.grid(alpha=0.3)
        if axx.get_legend_handles_labels()[0]:
            axx.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def draw(recs, timing, pts, results):
    """Writes pdrr.md, pdrr-runs.md and pdrr.png; returns the paths."""
    return sweep.draw_files(results, NAME, table_text(recs, timing, pts),
                            sweep.newest(recs, NAME, pts, timing),
                            lambda got: runs_text(got, pts), plot)


MARK = ("<!-- pdrr-mininet-readme -->", "<!-- /pdrr-mininet-readme -->")


def readme_text(recs, timing, pts):
    got = sweep.newest(recs, NAME, pts, timing)
    lines = []
    fig3 = ["%s %s ms (p99 %s)" % (TITLE[c].split(", ")[1], stat([udp_mean(r) for r in rs],
                                                                   fmt="%.3f"),
                                   stat([udp_p99(r) for r in rs], fmt="%.2f"))
            for c in FIG3 for rs in [_valid(got, c)] if rs]
    if fig3:
        lines.append("  - Fig. 3, load 0.9, UDP wait mean: " + "; ".join(fig3) + ".")
    for c in S5:
        rs = _valid(got, c)
        if rs:
            lines.append("  - %s: fair rate %s kbit/s, AFL max %s, UDP wait %s ms and "
                         "%s %% lost, TCP %s kbit/s (completed transfers; all transfers "
                         "%s), blocking %s %%." % (
                             TITLE[c], stat([fair_kbps(r) for r in rs], fmt="%.0f"),
                             stat([_get("stats", "afl_max")(r) for r in rs], fmt="%.0f"),
                             stat([udp_mean(r) for r in rs], fmt="%.2f"),
                             stat([udp_lost_pct(r) for r in rs], fmt="%.1f"),
                             stat([tcp_kbps(r) for r in rs], fmt="%.0f"),
                             stat([_get("tcp", "throughput_all_mean_bps", scale=1e-3)(r)
                                   for r in rs], fmt="%.0f"),
                             stat([_pct("tcp", "blocking")(r) for r in rs], fmt="%.1f")))
    if not lines:
        lines = ["  - no runs recorded yet."]
    return "\n".join(["  PDRR Fig. 3 and §5 in Mininet (`scripts/reproduce.sh pdrr`, 95 %% "
                      "intervals over runs of %g s, window %g-%g s; "
                      "[table](mininet/results/pdrr.md)):" % (timing["duration"],
                                                              timing["warmup"],
                                                              timing["duration"])] + lines)


SPEC = sweep.SweepSpec(
    name=NAME, title="The PDRR paper's Fig. 3 (left) and section 5 in Mininet "
    "(docs/pdrr-mininet.md).",
    full=FULL, quick=QUICK, overhead_s=80.0, points=points, point_of=point_of, draw=draw,
    readme_text=readme_text, readme_mark=MARK, entry="mininet/pdrrsweep.py",
    point_choices=("core", "all"))

if __name__ == "__main__":
    sweep.run_main(SPEC)
