"""reproduce.py - run the sweeps behind the PSS paper's figures (driver).

`scripts/reproduce.sh FIGURE|all [--quick] [--out DIR] [--schedtun PATH]`
calls this with /usr/bin/python3 as root.  Each figure (mininet/figures.py)
is a list of geo.py runs plus a plot and a Markdown table.  Contract:
- every run has a key naming its configuration; its results go to
  OUT/<key>/ and a run whose OUT/<key>/summary.json exists is skipped, so
  an interrupted sweep continues, and figures sharing a configuration
  (DWRR at one R_EF is the same run in Figs. 5 and 6) run it once;
  geo.py's output goes to OUT/<key>.log, the run's wall time to
  OUT/<key>/geo-driver.wall;
- the runs go one at a time (2 cores), each through mininet/geo.py, which
  owns the namespaces and cleans them up; a failed run is reported and the
  sweep goes on (its points are missing from the figure and the table);
- outputs: RESULTS/<fig>.png and RESULTS/<fig>.md (RESULTS =
  mininet/results, or OUT/results with --quick so a smoke check never
  overwrites the committed results).
"""
import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import figures  # noqa: E402

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


def run_all(runs, timing, work, schedtun, log):
    """Runs every run without a summary.json yet; returns {key: summary dir}."""
    todo = [r for r in runs
            if not os.path.exists(os.path.join(work, r.key, "summary.json"))]
    log("%d runs, %d already done in %s, %d to run (%d s of traffic each)"
        % (len(runs), len(runs) - len(todo), work, len(todo), timing["duration"]))
    per_run = timing["duration"] + 15.0        # first guess, then measured
    t_start = time.time()
    for i, r in enumerate(todo, 1):
        eta = (len(todo) - i + 1) * per_run
        log("run %d of %d: %s (ETA %d min %02d s)"
            % (i, len(todo), r.key, eta // 60, eta % 60))
        out = os.path.join(work, r.key)
        os.makedirs(out, exist_ok=True)
        t_run = time.time()
        # beside the run's directory: geo.py clears its own files in --out
        with open(out + ".log", "w") as f:
            rc = subprocess.call(geo_args(r, timing, out, schedtun),
                                 stdout=f, stderr=subprocess.STDOUT)
        with open(os.path.join(out, "geo-driver.wall"), "w") as f:
            f.write("%.1f\n" % (time.time() - t_run))
        if rc != 0:
            log("  run failed (exit %d): see %s.log" % (rc, out))
            if rc == 130:
                raise KeyboardInterrupt
        per_run = (time.time() - t_start) / i
    log("runs done in %.1f min" % ((time.time() - t_start) / 60.0))
    return {r.key: os.path.join(work, r.key) for r in runs}


def main(argv):
    names = list(figures.FIGURES)        # paper order: fig5 .. fig12, compare
    p = argparse.ArgumentParser(
        prog="reproduce.sh",
        description="Run the sweeps behind the PSS paper's figures in Mininet "
                    "(mininet/geo.py) and draw them with their theory.",
        epilog="figures: " + "; ".join(
            "%s %s%s" % (n, figures.FIGURES[n]["title"],
                         "" if figures.FIGURES[n]["ready"] else " (not yet)")
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
                   help="where the PNG/Markdown go (default mininet/results)")
    a = p.parse_args(argv)
    work = a.out or os.path.join("results-tmp", "repro-quick" if a.quick else "repro")
    results = a.results or (os.path.join(work, "results") if a.quick
                            else os.path.join(HERE, "results"))
    os.makedirs(results, exist_ok=True)

    def log(msg):
        print("reproduce: %s" % msg, flush=True)

    todo = [n for n in names if figures.FIGURES[n]["ready"]] \
        if a.figure == "all" else [a.figure]
    for n in todo:
        fig = figures.FIGURES[n]
        if not fig["ready"]:
            log("%s: not ready" % n)
            return 2
        log("%s: %s" % (n, fig["title"]))
        if fig.get("var"):
            timing = VAR_QUICK if a.quick else VAR_FULL
        else:
            timing = QUICK if a.quick else FULL
        runs = fig["runs"](a.schedtun)
        dirs = run_all(runs, timing, work, a.schedtun, log)
        paths = fig["draw"](runs, dirs, timing, results, n, schedtun=a.schedtun)
        log("%s: wrote %s" % (n, ", ".join(paths)))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        print("reproduce: interrupted (finished runs are kept; run again to resume)")
        sys.exit(130)
