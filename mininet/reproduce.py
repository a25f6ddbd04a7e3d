"""reproduce.py - run the sweeps behind the PSS paper's figures (driver).

`scripts/reproduce.sh FIGURE|all [--quick] [--out DIR] [--schedtun PATH]
[--repeat N] [--retry-limit K] [--records FILE] [--force]
[--update-committed | --results DIR] [--redraw [--check]]` calls this
with /usr/bin/python3 (as root, except --redraw).  Each figure
(figlist.py) is a list of points (figures.Run), each a geo.py
configuration.  Contract:
- it holds the experiment lock (schedlab.lock) for its whole life and
  refuses to start while another schedtun, iperf3 or Mininet runs, unless
  --force;
- each point gets its parameters (figprep.prepare: the calculator, the
  simulator), is keyed by them and the code (schedlab.cache: the git tree
  of what builds and runs it, dirty or not) and is run by
  schedlab.experiment.run_point until the records file (OUT/runs.jsonl,
  or mininet/results/runs.jsonl with --update-committed) holds N valid
  runs of it (--repeat, default 3).  A run that stalled or failed is
  recorded with its reasons, discarded and retried, up to K discarded
  runs (--retry-limit, default 2).  A point already recorded with the
  same key is not run again, so an interrupted sweep resumes, figures
  sharing a point run it once, and a changed duration, binary or code
  runs it anew;
- each repetition goes to OUT/<figure>-<key>-rep<r>/ (geo.py's output in
  the same name + .log), one at a time (2 cores), through mininet/geo.py,
  which owns the namespaces; its record keeps summary.json's numbers and
  figextract.py's (EF delay, loss, the per-second series of the over-time
  figures), not the directory;
- outputs, drawn from the records alone (figdata.py: each point's newest
  key, mean and 95 % interval over its valid runs): RESULTS/<fig>.png,
  RESULTS/<fig>.md and RESULTS/<fig>-runs.md (every point with its key
  and discarded runs, schedlab.tables).  RESULTS = OUT/results, or
  --results DIR; the tracked mininet/results only with
  --update-committed, so no run overwrites the committed results by
  default;
- --redraw runs nothing and takes no lock: it draws from the records
  (default mininet/results/runs.jsonl); with --check it writes nothing
  and compares each figure's Markdown with the committed one
  (mininet/results/, or --results DIR) byte for byte: exit 1 at the first
  difference, or when a figure has records but no committed table or a
  committed table but no records.
"""
import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import figdata  # noqa: E402
import figextract  # noqa: E402
import figlist  # noqa: E402
import figplan  # noqa: E402
import figprep  # noqa: E402
from schedlab import cache, experiment, lock, procs, records, tables  # noqa: E402

ROOT = os.path.dirname(HERE)

FULL = {"duration": 40, "warmup": 10}        # a 30-s window
QUICK = {"duration": 8, "warmup": 4}
# the varying link (Figs. 7-12): a window of two whole periods of C (15 s)
VAR_FULL = {"duration": 45, "warmup": 15}
VAR_QUICK = {"duration": 12, "warmup": 4}


def geo_args(run, timing, out_dir, schedtun):
    """The geo.py command line for one run (a figures.Run)."""
    cmd = ["/usr/bin/python3", os.path.join(HERE, "geo.py"),
           "--sched", run.sched, "--weights", "%d:%d" % run.weights,
           "--capacity", run.capacity_arg, "--ef", run.ef_arg,
           "--ef-exp", "%gMbit" % run.ef_exp,
           "--duration", str(timing["duration"]), "--warmup", str(timing["warmup"]),
           "--out", out_dir, "--quiet", "--no-plot"]
    if run.sched_params:
        cmd += ["--sched-params", run.sched_params]
    if schedtun:
        cmd += ["--schedtun", schedtun]
    return cmd


# The cache key's tool versions: what changes a result besides our code.
def tool_versions():
    """{"iperf3": its version line, "kernel": uname -r}."""
    try:
        out = subprocess.run(["iperf3", "--version"], capture_output=True, text=True,
                             timeout=10).stdout.splitlines()
        iperf = out[0].strip() if out else "unknown"
    except OSError:
        iperf = "missing"
    return {"iperf3": iperf, "kernel": os.uname().release}


def point_of(run, fig_name, timing, schedtun, tools):
    """The schedlab.experiment.Point of one prepared figures.Run.

    params: everything geo.py is given that changes a result (the cache
    key's inputs), the point's name (figdata finds it by it) and what the
    calculator and the simulator said (calc, sim: drawn without a
    binary); never_full: EF, where the theory says EF's queue never
    fills: a scheduler that serves EF first (all but fifo) and EF's peak
    below the link's lowest rate (a constant link: R_EF < C; the varying
    link of section 4.2: 1.6 EF_avg < 0.7 C_avg); extract:
    figextract.extract, with the series for the varying link's PSS runs
    (Figs. 8, 10)."""
    params = {"point": run.key, "calc": run.calc, "sim": run.sim,
              "sched": run.sched, "sched_group": run.sched_params or "geo.py default",
              "capacity": run.capacity_arg, "ef": run.ef_arg,
              "ef_exp": "%gMbit" % run.ef_exp, "weights": list(run.weights),
              "rule": run.rule, "variant": run.variant,
              "duration_s": timing["duration"], "warmup_s": timing["warmup"],
              "flows": [10, 10], "delay": "250ms", "seed": None, "tools": tools}
    if run.var:
        fits = 1.6 * run.ef < 0.7 * figlist.figures.C_MBIT
    else:
        fits = run.ef < figlist.figures.C_MBIT
    # fifo serves EF in arrival order with the rest: its queue fills with
    # theirs (every other scheduler here puts EF first: docs/baselines.md,
    # dwrr.md, pdrr.md, dq.md; ticket by a deadline d, docs/ticket.md)
    fits = fits and run.sched != "fifo"
    series = run.var and run.sched == "pss"
    return experiment.Point(fig_name, params,
                            lambda out: geo_args(run, timing, out, schedtun),
                            ("ef",) if fits else (), schedtun,
                            lambda out: figextract.extract(out, timing, series))


def geo_runner(argv, out):
    """Runs geo.py; its output to OUT.log, its wall time to
    OUT/geo-driver.wall; returns its exit status.  geo.py shares the
    experiment lock we hold (lock.child_env)."""
    t_run = time.time()
    # beside the run's directory: geo.py clears its own files in --out
    with open(out + ".log", "w") as f:
        rc = procs.call_run(argv, f, env=lock.child_env())
    with open(os.path.join(out, "geo-driver.wall"), "w") as f:
        f.write("%.1f\n" % (time.time() - t_run))
    if rc == 130:
        raise KeyboardInterrupt
    return rc


# The records table of a figure: its parameters, then the classes.
TABLE_COLUMNS = [("point", "point"), ("scheduler", "sched"), ("weights", "weights"),
                 ("EF", "ef"), ("R_EF^exp", "ef_exp"), ("rule", "rule"),
                 ("variant", "variant")]


def timing_of(name, quick):
    """The run timing of a figure: FULL/QUICK, or VAR_* on the varying link."""
    if figlist.FIGURES[name].get("var"):
        return VAR_QUICK if quick else VAR_FULL
    return QUICK if quick else FULL


def draw(name, recs, timing, results):
    """Draws figure `name` from the records into `results`; returns the
    paths written, or [] when none of its points has a record."""
    fig = figlist.FIGURES[name]
    runs = fig["runs"]()
    points = figdata.collect(recs, runs, timing)
    if not any(points.values()):
        return []
    paths = fig["draw"](runs, points, timing, results, name)
    chosen = [r for p in points.values() if p for r in p.recs]
    path = os.path.join(results, name + "-runs.md")
    with open(path, "w") as f:
        f.write(tables.render(chosen, TABLE_COLUMNS, title="%s: %s, every run"
                              % (name, fig["title"])))
    return paths + [path]


INDEX = "README.md"


def index_text(recs, quick):
    """RESULTS/README.md: per figure what was run and its largest errors,
    from the records alone (every figure, whichever were drawn)."""
    import figplot
    out = ["# Results: the PSS paper's figures, from the run records", "",
           "Generated by `scripts/reproduce.sh` from [runs.jsonl](runs.jsonl) (one JSON "
           "line per run: docs/run-records.md); do not edit: `scripts/reproduce.sh all "
           "--redraw --check` (ctest unit.results_redraw) fails when a table here does not "
           "follow from the records byte for byte. Values are means over each point's "
           "valid runs with 95 % Student-t intervals.", ""]
    rows = []
    for n in figlist.FIGURES:
        timing = timing_of(n, quick)
        points = figdata.collect(recs, figlist.FIGURES[n]["runs"](), timing)
        if not any(points.values()):
            continue
        worst = figplot.worst_lines(points.values())
        files = "[table](%s.md)%s, [runs](%s-runs.md)" % (
            n, "" if n == "compare" else ", [png](%s.png)" % n, n)
        rows.append("| %s | %s | %s | %s | %s |" % (
            n, figlist.FIGURES[n]["title"], files,
            figdata.footer(list(points.values()), timing).replace("|", "/"),
            "; ".join(worst) or "no theory"))
    if not rows:
        out.append("No runs recorded yet.")
    else:
        out += ["| figure | what | files | runs | largest \\|mean - theory\\| (95 % interval) |",
                "|---|---|---|---|---|"] + rows
    return "\n".join(out) + "\n"


def write_index(recs, quick, results, log):
    path = os.path.join(results, INDEX)
    with open(path, "w") as f:
        f.write(index_text(recs, quick))
    log("wrote %s" % path)


def check(names, recs, quick, committed, log):
    """--redraw --check: draws into a scratch directory and compares each
    Markdown file with the one in `committed`; returns the number of
    problems (each logged)."""
    import tempfile
    problems = 0
    index = os.path.join(committed, INDEX)
    if not os.path.exists(index):
        log("%s is not committed" % index)
        problems += 1
    else:
        diff = tables.first_difference(index, index_text(recs, quick))
        if diff:
            log(diff)
            problems += 1
        else:
            log("%s follows from the records" % INDEX)
    with tempfile.TemporaryDirectory() as tmp:
        for n in names:
            paths = draw(n, recs, timing_of(n, quick), tmp)
            mine = sorted(p for p in os.listdir(committed)
                          if p in (n + ".md", n + "-runs.md"))
            if not paths:
                if mine:
                    log("%s: committed %s but no records of its points: not derived from "
                        "runs" % (n, ", ".join(mine)))
                    problems += 1
                else:
                    log("%s: no records yet: nothing to check" % n)
                continue
            for p in paths:
                if not p.endswith(".md"):
                    continue
                base = os.path.basename(p)
                old = os.path.join(committed, base)
                if not os.path.exists(old):
                    log("%s: records present but %s is not committed" % (n, old))
                    problems += 1
                    continue
                with open(p, encoding="utf-8") as f:
                    diff = tables.first_difference(old, f.read())
                if diff:
                    log("%s: %s" % (n, diff))
                    problems += 1
                else:
                    log("%s: %s follows from the records" % (n, base))
    return problems


def main(argv):
    names = list(figlist.FIGURES)        # paper order: fig5 .. fig12, compare
    p = argparse.ArgumentParser(
        prog="reproduce.sh",
        description="Run the sweeps behind the PSS paper's figures in Mininet "
                    "(mininet/geo.py) and draw them with their theory.",
        epilog="figures: " + "; ".join(
            "%s %s%s" % (n, figlist.FIGURES[n]["title"],
                         "" if figlist.FIGURES[n]["ready"] else " (not yet)")
            for n in names))
    p.add_argument("figure", choices=names + ["all"])
    p.add_argument("--quick", action="store_true",
                   help="%d-s runs (%d s on the varying link), results in "
                        "OUT/results: a smoke check of the machinery only (TCP is "
                        "still in slow start over 500 ms)"
                        % (QUICK["duration"], VAR_QUICK["duration"]))
    p.add_argument("--out", default=None,
                   help="work directory of the runs (default results-tmp/repro, "
                        "results-tmp/repro-quick with --quick)")
    p.add_argument("--schedtun", default=None, help="schedtun binary (geo.py's default)")
    p.add_argument("--results", default=None,
                   help="where the PNG/Markdown go (default OUT/results)")
    p.add_argument("--update-committed", action="store_true",
                   help="write the PNG/Markdown into the tracked mininet/results/ "
                        "(never with --quick); without it a run never touches them")
    p.add_argument("--repeat", type=int, default=3, metavar="N",
                   help="valid runs wanted per point (default 3): mean and 95 %% "
                        "interval per point in RESULTS/<fig>-runs.md")
    p.add_argument("--retry-limit", type=int, default=2, metavar="K",
                   help="discarded (stalled or failed) runs of a point after which it "
                        "is not run again (default 2)")
    p.add_argument("--records", default=None, metavar="FILE",
                   help="the run records (JSON lines; default OUT/runs.jsonl, "
                        "mininet/results/runs.jsonl with --update-committed)")
    p.add_argument("--force", action="store_true",
                   help="run even while another schedtun, iperf3 or Mininet runs")
    p.add_argument("--plan", action="store_true",
                   help="run nothing: print per figure the points, the runs the records "
                        "still need and the estimated wall time")
    p.add_argument("--redraw", action="store_true",
                   help="run nothing: draw the figures from the records (default "
                        "mininet/results/runs.jsonl) into RESULTS")
    p.add_argument("--check", action="store_true",
                   help="with --redraw: write nothing, compare each figure's Markdown "
                        "with the committed one (mininet/results/, or --results DIR) "
                        "byte for byte; exit 1 on a difference")
    a = p.parse_args(argv)
    if a.repeat < 1 or a.retry_limit < 0:
        p.error("--repeat %d, --retry-limit %d (accepted: N >= 1, K >= 0)"
                % (a.repeat, a.retry_limit))
    if a.update_committed and (a.quick or a.results):
        p.error("--update-committed writes mininet/results/: not with --quick or --results")
    if a.check and not a.redraw:
        p.error("--check compares a redraw with the committed tables: give --redraw too")
    if a.plan and a.redraw:
        p.error("--plan and --redraw: one or the other")
    if a.check and a.update_committed:
        p.error("--check writes nothing: not with --update-committed")
    committed = os.path.join(HERE, "results")
    work = a.out or os.path.join("results-tmp", "repro-quick" if a.quick else "repro")
    if a.redraw and not a.records:
        store = os.path.join(committed, "runs.jsonl")
    else:
        store = a.records or (os.path.join(committed, "runs.jsonl") if a.update_committed
                              else os.path.join(work, "runs.jsonl"))
    results = committed if a.update_committed else (a.results or os.path.join(work, "results"))

    def log(msg):
        print("reproduce: %s" % msg, flush=True)

    todo = [n for n in names if figlist.FIGURES[n]["ready"]] \
        if a.figure == "all" else [a.figure]
    if a.redraw:
        try:
            recs = records.load(store)
        except records.RecordError as e:
            log(str(e))
            return 1
        log("%d records in %s" % (len(recs), store))
        if a.check:
            bad = check(todo, recs, a.quick, a.results or committed, log)
            if bad:
                log("%d problems: the committed tables do not follow from the records "
                    "(redraw with --update-committed after checking why)" % bad)
            return 1 if bad else 0
        os.makedirs(results, exist_ok=True)
        for n in todo:
            paths = draw(n, recs, timing_of(n, a.quick), results)
            log("%s: %s" % (n, "wrote " + ", ".join(paths) if paths
                            else "no records of its points: nothing drawn"))
        write_index(recs, a.quick, results, log)
        return 0
    code = cache.code_state(ROOT)
    if code["dirty"]:
        log("the code has uncommitted changes (%d files): the runs' key says so"
            % len(code["dirty_files"]))
    tools = tool_versions()
    # one binary for the calculator, the simulator, geo.py and the
    # provenance's sha256: --schedtun, or where find_tool finds it
    schedtun = os.path.abspath(figlist.figures.schedtun_bin(a.schedtun))
    log("schedtun: %s" % schedtun)
    items = figplan.plan(todo, figlist.FIGURES, lambda n: timing_of(n, a.quick),
                         lambda r, n, t: point_of(r, n, t, schedtun, tools),
                         lambda r: figprep.prepare(r, schedtun), store, a.repeat,
                         a.retry_limit, code)
    overhead = figplan.overhead_s(records.load(store))
    for ln in figplan.table(items, overhead, a.repeat):
        log(ln)
    if a.plan:
        return 0
    os.makedirs(results, exist_ok=True)
    os.makedirs(work, exist_ok=True)
    try:
        held, busy = lock.take(["reproduce.sh"] + list(argv), force=a.force)
    except lock.Busy as e:
        log("%s (--force to run anyway)" % e)
        return 2
    if busy:
        log("forced: running beside %d other processes of ours; the runs' load "
            "averages are recorded" % len(busy))
    procs.interruptible()       # kill PID stops it as cleanly as Ctrl-C
    progress = figplan.Progress(figplan.runs_left(items),
                                figplan.seconds_left(items, overhead))

    def runner(argv_, out):
        rc = geo_runner(argv_, out)
        progress.tick()
        log("  " + progress.text())
        return rc
    try:
        for n in todo:
            fig = figlist.FIGURES[n]
            log("%s: %s" % (n, fig["title"]))
            mine = [it for it in items if it.fig == n]
            for i, it in enumerate(mine, 1):
                log("point %d of %d: %s (%d s of traffic a run, %d wanted)"
                    % (i, len(mine), it.run.key, it.point.duration_s, a.repeat))
                experiment.run_point(it.point, store, work, a.repeat, a.retry_limit,
                                     runner, code, ROOT, lambda m: log("  " + m))
            paths = draw(n, records.load(store), timing_of(n, a.quick), results)
            log("%s: wrote %s" % (n, ", ".join(paths) or "nothing (no valid run)"))
        write_index(records.load(store), a.quick, results, log)
    finally:
        held.release()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        print("reproduce: interrupted (finished runs are kept; run again to resume)")
        sys.exit(130)
