"""reproduce.py - run the sweeps behind the PSS paper's figures (driver).

`scripts/reproduce.sh FIGURE|all [--quick] [--out DIR] [--schedtun PATH]
[--repeat N] [--retry-limit K] [--records FILE] [--force]` calls this with
/usr/bin/python3 as root.  Each figure (figlist.py) is a list of geo.py
runs plus a plot and a Markdown table.  Contract:
- it holds the experiment lock (schedlab.lock) for its whole life and
  refuses to start while another schedtun, iperf3 or Mininet runs, unless
  --force;
- each run (a figures.Run) is a point, keyed by its parameters and the
  code (schedlab.cache: the git tree of what builds and runs it, dirty or
  not); schedlab.experiment.run_point runs it until the records file
  (OUT/runs.jsonl, or mininet/results/runs.jsonl with --update-committed)
  holds N valid runs of it (--repeat, default 3).  A run that stalled or
  failed is recorded with its reasons, discarded and retried, up to K
  discarded runs (--retry-limit, default 2).  A point already recorded with
  the same key is not run again, so an interrupted sweep resumes, figures
  sharing a point run it once, and a changed duration, binary or code
  runs it anew;
- each repetition goes to OUT/<figure>-<key>-rep<r>/ (geo.py's output in
  the same name + .log, its wall time in geo-driver.wall), one at a time
  (2 cores), through mininet/geo.py, which owns the namespaces;
- outputs: RESULTS/<fig>.png and RESULTS/<fig>.md drawn from each point's
  first valid run, and RESULTS/<fig>-runs.md, every point's mean and 95 %
  interval over its valid runs from the records (schedlab.tables)
  (RESULTS = OUT/results, or --results DIR; the tracked mininet/results
  only with --update-committed, so no run overwrites the committed results
  by default).
"""
import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import figlist  # noqa: E402
from schedlab import cache, experiment, lock, records, tables  # noqa: E402

ROOT = os.path.dirname(HERE)

FULL = {"duration": 30, "warmup": 10}
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
    """The schedlab.experiment.Point of one figures.Run.

    params: everything geo.py is given that changes a result (the cache
    key's inputs); never_full: EF, where the theory says EF's queue never
    fills: its peak below the link's lowest rate (a constant link: R_EF <
    C; the varying link of section 4.2: 1.6 EF_avg < 0.7 C_avg)."""
    params = {"sched": run.sched, "sched_group": run.sched_params or "geo.py default",
              "capacity": run.capacity_arg, "ef": run.ef_arg,
              "ef_exp": "%gMbit" % run.ef_exp, "weights": list(run.weights),
              "rule": run.rule, "variant": run.variant,
              "duration_s": timing["duration"], "warmup_s": timing["warmup"],
              "flows": [10, 10], "delay": "250ms", "seed": None, "tools": tools}
    if run.var:
        fits = 1.6 * run.ef < 0.7 * figlist.figures.C_MBIT
    else:
        fits = run.ef < figlist.figures.C_MBIT
    return experiment.Point(fig_name, params,
                            lambda out: geo_args(run, timing, out, schedtun),
                            ("ef",) if fits else (), schedtun)


def geo_runner(argv, out):
    """Runs geo.py; its output to OUT.log, its wall time to
    OUT/geo-driver.wall (figplot's footer); returns its exit status."""
    t_run = time.time()
    # beside the run's directory: geo.py clears its own files in --out
    with open(out + ".log", "w") as f:
        rc = subprocess.call(argv, stdout=f, stderr=subprocess.STDOUT)
    with open(os.path.join(out, "geo-driver.wall"), "w") as f:
        f.write("%.1f\n" % (time.time() - t_run))
    if rc == 130:
        raise KeyboardInterrupt
    return rc


def run_all(runs, fig_name, timing, work, store, schedtun, opts, log):
    """Runs each of runs until the records file `store` holds opts.repeat
    valid runs of it (schedlab.experiment.run_point; stalled runs are
    recorded, discarded and retried up to opts.retry_limit).  Returns
    {run key: the directory of its first valid repetition} for the
    drawings, and the figure's record keys."""
    code = cache.code_state(ROOT)
    if code["dirty"]:
        log("the code has uncommitted changes (%d files): the runs' key says so"
            % len(code["dirty_files"]))
    tools = tool_versions()
    dirs, keys = {}, []
    t_start = time.time()
    for i, r in enumerate(runs, 1):
        point = point_of(r, fig_name, timing, schedtun, tools)
        log("point %d of %d: %s (%d s of traffic a run, %d wanted)"
            % (i, len(runs), r.key, timing["duration"], opts.repeat))
        need = experiment.run_point(point, store, work, opts.repeat, opts.retry_limit,
                                    geo_runner, code, ROOT, lambda m: log("  " + m))
        keys.append(need["key"])
        valid = [x for x in records.select(records.load(store), key=need["key"])
                 if x["valid"]]
        if valid:
            dirs[r.key] = experiment.run_dir(work, point, need["key"], valid[0]["rep"])
        else:
            dirs[r.key] = os.path.join(work, "none-" + r.key)      # drawn as missing
    log("runs done in %.1f min" % ((time.time() - t_start) / 60.0))
    return dirs, keys


# The records table of a figure: its parameters, then the classes.
TABLE_COLUMNS = [("scheduler", "sched"), ("weights", "weights"), ("EF", "ef"),
                 ("R_EF^exp", "ef_exp"), ("rule", "rule"), ("variant", "variant")]


def write_runs_table(store, keys, results, fig_name, title):
    """RESULTS/<fig>-runs.md: mean +- 95 % interval of every point of the
    figure from the records (schedlab.tables), discarded runs named."""
    recs = [x for x in records.load(store) if x["key"] in set(keys)]
    path = os.path.join(results, fig_name + "-runs.md")
    with open(path, "w") as f:
        f.write(tables.render(recs, TABLE_COLUMNS, title="%s: %s" % (fig_name, title)))
    return path


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
    a = p.parse_args(argv)
    if a.repeat < 1 or a.retry_limit < 0:
        p.error("--repeat %d, --retry-limit %d (accepted: N >= 1, K >= 0)"
                % (a.repeat, a.retry_limit))
    if a.update_committed and (a.quick or a.results):
        p.error("--update-committed writes mininet/results/: not with --quick or --results")
    work = a.out or os.path.join("results-tmp", "repro-quick" if a.quick else "repro")
    results = os.path.join(HERE, "results") if a.update_committed else (
        a.results or os.path.join(work, "results"))
    os.makedirs(results, exist_ok=True)

    def log(msg):
        print("reproduce: %s" % msg, flush=True)

    todo = [n for n in names if figlist.FIGURES[n]["ready"]] \
        if a.figure == "all" else [a.figure]
    store = a.records or (os.path.join(HERE, "results", "runs.jsonl") if a.update_committed
                          else os.path.join(work, "runs.jsonl"))
    os.makedirs(work, exist_ok=True)
    try:
        held, busy = lock.take(["reproduce.sh"] + list(argv), force=a.force)
    except lock.Busy as e:
        log("%s (--force to run anyway)" % e)
        return 2
    if busy:
        log("forced: running beside %d other processes of ours; the runs' load "
            "averages are recorded" % len(busy))
    try:
        for n in todo:
            fig = figlist.FIGURES[n]
            log("%s: %s" % (n, fig["title"]))
            if fig.get("var"):
                timing = VAR_QUICK if a.quick else VAR_FULL
            else:
                timing = QUICK if a.quick else FULL
            runs = fig["runs"](a.schedtun)
            dirs, keys = run_all(runs, n, timing, work, store, a.schedtun, a, log)
            paths = fig["draw"](runs, dirs, timing, results, n, schedtun=a.schedtun)
            paths.append(write_runs_table(store, keys, results, n, fig["title"]))
            log("%s: wrote %s" % (n, ", ".join(paths)))
    finally:
        held.release()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        print("reproduce: interrupted (finished runs are kept; run again to resume)")
        sys.exit(130)
