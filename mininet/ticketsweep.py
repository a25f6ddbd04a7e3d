"""ticketsweep.py - the TICKET paper's §3 sweep: runs, records, tables, figure.

`scripts/reproduce.sh ticket [--points core|all] [--quick] [--repeat N]
[--retry-limit K] [--out DIR] [--records FILE] [--update-committed |
--results DIR] [--schedtun PATH] [--force] [--plan] [--redraw [--check]]`
calls this with /usr/bin/python3.  Contract, as mininet/reproduce.py's for
the PSS figures (docs/run-records.md):
- the points: three overloads (the background's think time; the paper's
  0.7, 2.4 and 5.1 % link loss) x d x {ticket, naive}; --points core
  (default) d = 2 and 40 ms, the points that carry the paper's claims;
  all adds 10 and 100 ms.  Core points run first;
- each point is keyed by its parameters and the code (schedlab.cache) and
  run by schedlab.experiment.run_point (mininet/ticket.py, one at a time)
  until the records (OUT/ticket-runs.jsonl; mininet/results/ticket-runs.jsonl
  with --update-committed) hold N valid runs (--repeat, default 5); a run
  that failed or stalled is recorded, discarded and retried, up to K; a
  recorded key is not run again, so a sweep resumes;
- a run's record keeps ticket.py's numbers (summary.json "ticket"); its
  directory OUT/ticket-KEY-repN keeps the packet logs, compressed;
- outputs from the records alone: RESULTS/ticket.md (per overload and
  point, mean and 95 % Student-t interval over the valid runs, beside the
  paper's reported values), RESULTS/ticket.png, RESULTS/ticket-runs.md;
  --redraw draws, --redraw --check compares byte for byte.
"""
import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from schedlab import cache, experiment, lock, records, tables  # noqa: E402
from schedlab.repeats import Summary  # noqa: E402

ROOT = os.path.dirname(HERE)
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

    def __init__(self, load, think_s, d_ms, variant, core):
        self.load, self.think_s, self.d_ms, self.variant = load, think_s, d_ms, variant
        self.core = core

    @property
    def key(self):
        return "%s-d%g-%s" % (self.load, self.d_ms, self.variant)


def points(which):
    """The points, core first (overload order within)."""
    out = []
    for core, ds in ((True, D_CORE), (False, D_MORE)):
        if not core and which == "core":
            break
        for load, think, _ in LOADS:
            for d in ds:
                for v in VARIANTS:
                    out.append(Pt(load, think, d, v, core))
    return out


def tool_versions():
    return {"kernel": os.uname().release, "python": sys.version.split()[0]}


def params_of(pt, timing, tools):
    """The cache key's inputs of a point (cache.REQUIRED_PARAMS and ours)."""
    return {"point": pt.key, "sched": "ticket", "sched_group": "variant %s d %gms n_eb 256"
            % (pt.variant, pt.d_ms), "variant": pt.variant, "d_ms": pt.d_ms,
            "load": pt.load, "think_s": pt.think_s, "users": USERS,
            "capacity": "30Mbit", "ef": "27 TFRC x 267kbit", "flows": [27, USERS],
            "delay": "%gms" % DELAY_MS, "duration_s": timing["duration"],
            "warmup_s": timing["warmup"], "seed": None, "tools": tools}


def argv_of(pt, timing, schedtun, out, rep):
    cmd = ["/usr/bin/python3", os.path.join(HERE, "ticket.py"), "--variant", pt.variant,
           "--d", "%g" % pt.d_ms, "--users", str(USERS), "--think", "%g" % pt.think_s,
           "--duration", "%g" % timing["duration"], "--warmup", "%g" % timing["warmup"],
           "--delay", "%g" % DELAY_MS, "--seed", str(rep), "--out", out, "--quiet"]
    if schedtun:
        cmd += ["--schedtun", schedtun]
    return cmd


def extract(out):
    """The record's own numbers: ticket.py's measurement and warnings."""
    import json
    with open(os.path.join(out, "summary.json")) as f:
        s = json.load(f)
    return {"ticket": s["ticket"], "access_mbps": s["access_mbps"],
            "warnings": s["warnings"]}


def point_of(pt, timing, schedtun, tools):
    # the repetition number seeds the sources, so each repetition is a
    # different sample; run_dir's name carries it (repN)
    return experiment.Point(
        NAME, params_of(pt, timing, tools),
        lambda out: argv_of(pt, timing, schedtun, out, int(out.rsplit("rep", 1)[1])),
        (), schedtun, extract)


def runner(argv, out):
    """ticket.py under our lock; its output in OUT.log; packet logs gzipped."""
    with open(out + ".log", "w") as f:
        rc = subprocess.call(argv, stdout=f, stderr=subprocess.STDOUT,
                             env=lock.child_env())
    if rc == 130:
        raise KeyboardInterrupt
    return rc


def compress(out):
    for fn in ("a.plog.csv", "b.plog.csv"):
        p = os.path.join(out, fn)
        if os.path.exists(p):
            subprocess.call(["gzip", "-1", "-f", p])


# ------------------------------------------------------------ from the records

def _newest(recs, pts, timing):
    """{point key: its valid records of the newest code key} for the timing."""
    by = {}
    for r in recs:
        p = r["params"]
        if r["experiment"] != NAME or p.get("duration_s") != timing["duration"]:
            continue
        by.setdefault(p["point"], []).append(r)
    out = {}
    for pt in pts:
        rs = by.get(pt.key, [])
        if not rs:
            continue
        last_key = rs[-1]["key"]
        out[pt.key] = [r for r in rs if r["key"] == last_key]
    return out


def _stat(vals, scale=1.0, fmt="%.1f"):
    vals = [v * scale for v in vals if v is not None]
    if not vals:
        return "-"
    s = Summary(vals)
    if s.half_width is None:
        return (fmt % s.mean) + " (n=1)"
    return (fmt + " ± " + fmt) % (s.mean, s.half_width)


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
    ("link loss %", lambda r: link_loss(r), 100.0, "%.2f"),
    ("excess kbit/s a flow", lambda r: _cls(r, "af", "per_flow_kbps"), 1.0, "%.0f"),
    ("conforming kbit/s a flow", lambda r: _cls(r, "ef", "per_flow_kbps"), 1.0, "%.0f"),
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


README = os.path.join(ROOT, "README.md")
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
            lines.append("  - %s overload (link loss %s %%; the paper's %.1f %%), d = 2 ms: %s."
                         % (load, _stat([link_loss(r) for r in rs], 100, "%.2f"),
                            paper_loss, "; ".join(parts)))
    if not lines:
        lines = ["  - no runs recorded yet."]
    return "\n".join(["  TICKET §3 in Mininet (`scripts/reproduce.sh ticket`, 95 %% intervals "
                      "over runs of %g s, window %g-%g s; "
                      "[table](mininet/results/ticket.md)):" % (timing["duration"],
                                                                timing["warmup"],
                                                                timing["duration"])]
                     + lines)


def splice(text, block):
    """text with the lines between MARK replaced by block; ValueError
    without the markers."""
    i, j = text.find(MARK[0]), text.find(MARK[1])
    if i < 0 or j < i:
        raise ValueError("README.md has no %s ... %s block" % MARK)
    return text[:i + len(MARK[0])] + "\n" + block + "\n  " + text[j:]


def draw(recs, timing, pts, results):
    """Writes ticket.md, ticket-runs.md and ticket.png; returns the paths."""
    got = _newest(recs, pts, timing)
    paths = []
    p = os.path.join(results, "ticket.md")
    with open(p, "w") as f:
        f.write(table_text(recs, timing, pts))
    paths.append(p)
    if got:
        p = os.path.join(results, "ticket-runs.md")
        with open(p, "w") as f:
            f.write(runs_text(got, pts))
        paths.append(p)
        paths.append(plot(got, pts, os.path.join(results, "ticket.png")))
    return paths


def plot(got, pts, path):
    """Per overload: excess rate a flow, and excess vs background loss, against d."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(2, len(LOADS), figsize=(4.2 * len(LOADS), 6.4), squeeze=False)
    for j, (load, _, paper_loss) in enumerate(LOADS):
        for v, style in (("ticket", "o-"), ("naive", "s--")):
            row = sorted((pt for pt in pts if pt.load == load and pt.variant == v
                          and pt.key in got), key=lambda p: p.d_ms)
            for i, (series, fns) in enumerate((
                    ("excess", [lambda r: _cls(r, "af", "per_flow_kbps")]),
                    ("loss", [lambda r: 100 * (_cls(r, "af", "loss") or 0),
                              lambda r: 100 * (_cls(r, "cs0", "loss") or 0)]))):
                for k, fn in enumerate(fns):
                    xs, ys, es = [], [], []
                    for pt in row:
                        vals = [fn(r) for r in got[pt.key] if r["valid"]]
                        if not vals:
                            continue
                        s = Summary(vals)
                        xs.append(pt.d_ms)
                        ys.append(s.mean)
                        es.append(s.half_width or 0.0)
                    if xs:
                        lab = v if series == "excess" else "%s %s" % (
                            v, ("excess", "background")[k])
                        axes[i][j].errorbar(xs, ys, yerr=es, fmt=style if k == 0 else
                                            style.replace("o", "^").replace("s", "v"),
                                            capsize=3, label=lab)
        axes[0][j].set_title("%s (paper: %.1f %% loss)" % (load, paper_loss))
        axes[0][j].set_ylabel("excess kbit/s a flow")
        axes[1][j].set_ylabel("loss %")
        for i in (0, 1):
            axes[i][j].set_xscale("log")
            axes[i][j].set_xlabel("d (ms)")
            axes[i][j].grid(alpha=0.3)
            if axes[i][j].get_legend_handles_labels()[0]:
                axes[i][j].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def write_readme(recs, timing, pts, log):
    with open(README, encoding="utf-8") as f:
        text = splice(f.read(), readme_text(recs, timing, pts))
    with open(README + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(README + ".tmp", README)
    log("wrote README.md's TICKET block")


def check(recs, timing, pts, committed, log, readme=README):
    """--redraw --check: the committed Markdown against a redraw; problems."""
    import tempfile
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for p in draw(recs, timing, pts, tmp):
            if not p.endswith(".md"):
                continue
            old = os.path.join(committed, os.path.basename(p))
            if not os.path.exists(old):
                log("%s is not committed" % old)
                bad += 1
                continue
            with open(p, encoding="utf-8") as f:
                diff = tables.first_difference(old, f.read())
            if diff:
                log(diff)
                bad += 1
            else:
                log("%s follows from the records" % os.path.basename(p))
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    try:
        if splice(text, readme_text(recs, timing, pts)) != text:
            log("README.md's TICKET block does not follow from the records")
            bad += 1
        else:
            log("README.md's TICKET block follows from the records")
    except ValueError as e:
        log(str(e))
        bad += 1
    return bad


def main(argv):
    p = argparse.ArgumentParser(prog="reproduce.sh ticket", description="The TICKET "
                                "paper's §3 sweep in Mininet (docs/ticket-mininet.md).")
    p.add_argument("what", choices=["ticket"])
    p.add_argument("--points", choices=("core", "all"), default="core",
                   help="core: d = 2 and 40 ms (default); all: also 10 and 100 ms")
    p.add_argument("--quick", action="store_true",
                   help="%g-s runs: a smoke check of the machinery only" % QUICK["duration"])
    p.add_argument("--out", help="work directory (default results-tmp/ticket)")
    p.add_argument("--schedtun", help="schedtun binary")
    p.add_argument("--results", help="where the tables go (default OUT/results)")
    p.add_argument("--update-committed", action="store_true",
                   help="records and tables into the tracked mininet/results/")
    p.add_argument("--repeat", type=int, default=5, metavar="N")
    p.add_argument("--retry-limit", type=int, default=2, metavar="K")
    p.add_argument("--records", metavar="FILE")
    p.add_argument("--force", action="store_true")
    p.add_argument("--plan", action="store_true", help="run nothing: the runs still needed")
    p.add_argument("--redraw", action="store_true", help="run nothing: draw from the records")
    p.add_argument("--check", action="store_true", help="with --redraw: compare, write nothing")
    a = p.parse_args(argv)
    if a.repeat < 1 or a.retry_limit < 0:
        p.error("--repeat %d, --retry-limit %d (accepted: N >= 1, K >= 0)"
                % (a.repeat, a.retry_limit))
    if a.update_committed and (a.quick or a.results):
        p.error("--update-committed writes mininet/results/: not with --quick or --results")
    if a.check and not a.redraw:
        p.error("--check compares a redraw with the committed tables: give --redraw too")
    committed = os.path.join(HERE, "results")
    work = a.out or os.path.join(ROOT, "results-tmp", "ticket-quick" if a.quick else "ticket")
    if a.redraw and not a.records:
        store = os.path.join(committed, "ticket-runs.jsonl")
    else:
        store = a.records or (os.path.join(committed, "ticket-runs.jsonl")
                              if a.update_committed else os.path.join(work, "ticket-runs.jsonl"))
    results = committed if a.update_committed else (a.results or os.path.join(work, "results"))
    timing = QUICK if a.quick else FULL
    pts = points("all" if a.redraw else a.points)

    def log(msg):
        print("reproduce ticket: %s" % msg, flush=True)

    recs = records.load(store) if os.path.exists(store) else []
    if a.redraw:
        log("%d records in %s" % (len(recs), store))
        if a.check:
            bad = check(recs, timing, pts, a.results or committed, log)
            return 1 if bad else 0
        os.makedirs(results, exist_ok=True)
        log("wrote " + ", ".join(draw(recs, timing, pts, results)))
        if a.update_committed:
            write_readme(recs, timing, pts, log)
        return 0
    code = cache.code_state(ROOT)
    if code["dirty"]:
        log("the code has uncommitted changes (%d files): the runs' key says so"
            % len(code["dirty_files"]))
    tools = tool_versions()
    schedtun = os.path.abspath(a.schedtun or os.path.join(ROOT, "build-rel", "schedtun"))
    todo = []
    for pt in pts:
        point = point_of(pt, timing, schedtun, tools)
        need = records.needs(recs, cache.run_key(point.params, code), a.repeat,
                             a.retry_limit)
        todo.append((pt, point, need["to_run"]))
    runs = sum(n for _, _, n in todo)
    each_s = timing["duration"] + 40
    log("%d points, %d runs to go, about %.0f min (%g s of traffic + ~40 s a run)"
        % (len(todo), runs, runs * each_s / 60, timing["duration"]))
    for pt, _, n in todo:
        log("  %-24s %d to run" % (pt.key, n))
    if a.plan:
        return 0
    os.makedirs(work, exist_ok=True)
    os.makedirs(results, exist_ok=True)
    try:
        held, busy = lock.take(["reproduce.sh", "ticket"] + list(argv[1:]), force=a.force)
    except lock.Busy as e:
        log("%s (--force to run anyway)" % e)
        return 2
    done, t_start = [0], time.monotonic()

    def run_one(argv_, out):
        rc = runner(argv_, out)
        compress(out)
        done[0] += 1
        el = time.monotonic() - t_start
        log("  %d of %d runs, %.0f min so far, about %.0f min left"
            % (done[0], runs, el / 60, el / done[0] * (runs - done[0]) / 60))
        return rc
    try:
        for i, (pt, point, _) in enumerate(todo, 1):
            log("point %d of %d: %s" % (i, len(todo), pt.key))
            experiment.run_point(point, store, work, a.repeat, a.retry_limit, run_one,
                                 code, ROOT, lambda m: log("  " + m))
            log("wrote " + ", ".join(draw(records.load(store), timing, pts, results)))
            if a.update_committed:
                write_readme(records.load(store), timing, pts, log)
    finally:
        held.release()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        print("reproduce ticket: interrupted (finished runs are kept; run again to resume)")
        sys.exit(130)
