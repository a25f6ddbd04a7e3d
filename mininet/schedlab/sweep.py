"""schedlab/sweep.py - one paper's sweep of Mininet runs: the driver they share.

`scripts/reproduce.sh ticket|dq ...` runs mininet/<paper>sweep.py, which
describes its experiment as a SweepSpec and calls main(argv, spec).  The
contract, the same as mininet/reproduce.py's for the PSS figures
(docs/run-records.md):
- points: spec.points(which), the claim-carrying "core" ones first; "all"
  adds the rest;
- each point (spec.point_of: a schedlab.experiment.Point) is keyed by its
  parameters and the code (schedlab.cache) and run by
  experiment.run_point, one run at a time under the experiment lock,
  until the records (OUT/<name>-runs.jsonl; mininet/results/<name>-runs.jsonl
  with --update-committed) hold N valid runs (--repeat); a failed or
  stalled run is recorded, discarded and retried, up to K (--retry-limit);
  a recorded key is not run again, so a sweep resumes across sittings;
- each run's directory OUT/<name>-KEY-repN keeps everything, its packet
  logs gzipped (they are 100s of MB a run);
- outputs come from the records alone (spec.draw: RESULTS/<name>.md,
  <name>-runs.md, <name>.png; spec.readme_text: the README's block between
  spec.readme_mark); --redraw draws, --redraw --check compares the
  committed Markdown and the README block byte for byte (exit 1).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Callable

from schedlab import cache, experiment, lock, procs, records, tables
from schedlab.repeats import Summary

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(HERE)
COMMITTED = os.path.join(HERE, "results")
README = os.path.join(ROOT, "README.md")


@dataclass
class SweepSpec:
    """What one paper's sweep supplies (module doc)."""
    name: str                       # records' "experiment", file names
    title: str
    full: dict                      # {"duration": s, "warmup": s}
    quick: dict
    overhead_s: float               # a run's wall time beyond its traffic
    points: Callable                # (which) -> [point with .key]
    point_of: Callable              # (pt, timing, schedtun, tools) -> experiment.Point
    draw: Callable                  # (recs, timing, pts, results) -> [paths]
    readme_text: Callable           # (recs, timing, pts) -> str
    readme_mark: tuple              # ("<!-- x -->", "<!-- /x -->")
    point_choices: tuple = ("core", "all")
    entry: str = ""                 # the sweep's file, repository-relative: the key's
    #                                 code is what it runs (cache.closure); "": all of
    #                                 cache.CODE_PATHS


def tool_versions():
    """The cache key's versions of what changes a result besides our code."""
    return {"kernel": os.uname().release, "python": sys.version.split()[0]}


def rep_of(out_dir):
    """The repetition number in run_dir's name (...-repN): the run's seed."""
    return int(out_dir.rsplit("rep", 1)[1])


def run_argv(script, own, timing, out, rep, schedtun):
    """A paper's one-run command: mininet/SCRIPT with its own arguments,
    then the ones every run script shares (schedlab.onerun.add_common):
    the timing, the repetition as the seed, OUT, quiet, the binary."""
    cmd = ["/usr/bin/python3", os.path.join(HERE, script)] + list(own) + [
        "--duration", "%g" % timing["duration"], "--warmup", "%g" % timing["warmup"],
        "--seed", str(rep), "--out", out, "--quiet"]
    if schedtun:
        cmd += ["--schedtun", schedtun]
    return cmd


def make_point(name, params, argv_of, schedtun, keys):
    """The experiment.Point of one sweep point: argv_of(out, rep) its run's
    command (the repetition, from the run directory's name, seeds the
    sources: each repetition is another sample); its record keeps the
    `keys` of the run's summary.json and its warnings."""
    def extract(out):
        with open(os.path.join(out, "summary.json")) as f:
            s = json.load(f)
        return dict({k: s[k] for k in keys}, warnings=s["warnings"])
    return experiment.Point(name, params, lambda out: argv_of(out, rep_of(out)), (),
                            schedtun, extract)


def newest(recs, name, pts, timing):
    """{point key: its records (valid or not) of the newest code key} for
    the timing; points without records are left out."""
    by = {}
    for r in recs:
        p = r["params"]
        if r["experiment"] != name or p.get("duration_s") != timing["duration"]:
            continue
        by.setdefault(p.get("point"), []).append(r)
    out = {}
    for pt in pts:
        rs = by.get(pt.key, [])
        if rs:
            out[pt.key] = [r for r in rs if r["key"] == rs[-1]["key"]]
    return out


def stat(vals, scale=1.0, fmt="%.1f"):
    """'mean ± half-width' of the 95 % interval, '(n=1)' for one value,
    '-' for none (None values are left out)."""
    vals = [v * scale for v in vals if v is not None]
    if not vals:
        return "-"
    s = Summary(vals)
    if s.half_width is None:
        return (fmt % s.mean) + " (n=1)"
    return (fmt + " ± " + fmt) % (s.mean, s.half_width)


def paired(rs_a, rs_b, fn):
    """Runs of two points paired by repetition (the same seed: the same
    sources' draws): (n pairs, in how many fn(a) > fn(b), the differences
    fn(a) - fn(b) in repetition order) over the valid runs present in both
    with a value."""
    a = {r["rep"]: fn(r) for r in rs_a if r["valid"]}
    b = {r["rep"]: fn(r) for r in rs_b if r["valid"]}
    reps = sorted(k for k in a if k in b and a[k] is not None and b[k] is not None)
    diffs = [a[k] - b[k] for k in reps]
    return len(reps), sum(1 for d in diffs if d > 0), diffs


def splice(text, mark, block):
    """text with the lines between mark's two comments replaced by block;
    ValueError without them."""
    i, j = text.find(mark[0]), text.find(mark[1])
    if i < 0 or j < i:
        raise ValueError("README.md has no %s ... %s block" % tuple(mark))
    return text[:i + len(mark[0])] + "\n" + block + "\n  " + text[j:]


def write_readme(spec, recs, timing, pts, log, readme=README):
    """Rewrites the README's block (a whole new file, renamed over it)."""
    with open(readme, encoding="utf-8") as f:
        text = splice(f.read(), spec.readme_mark, spec.readme_text(recs, timing, pts))
    with open(readme + ".tmp", "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(readme + ".tmp", readme)
    log("wrote README.md's %s block" % spec.name)


def check(spec, recs, timing, pts, committed, log, readme=README):
    """--redraw --check: the committed Markdown and README block against a
    redraw; returns the number of differences (each logged)."""
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for p in spec.draw(recs, timing, pts, tmp):
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
        if splice(text, spec.readme_mark, spec.readme_text(recs, timing, pts)) != text:
            log("README.md's %s block does not follow from the records" % spec.name)
            bad += 1
        else:
            log("README.md's %s block follows from the records" % spec.name)
    except ValueError as e:
        log(str(e))
        bad += 1
    return bad


def runner(argv, out):
    """One run under our lock (lock.child_env), its output in OUT.log."""
    with open(out + ".log", "w") as f:
        rc = procs.call_run(argv, f, env=lock.child_env())
    if rc == 130:
        raise KeyboardInterrupt
    return rc


def draw_files(results, name, table, got, runs_text, plot):
    """A sweep's files in results: NAME.md (the text table), and when
    there are records (got: newest()'s), NAME-runs.md (runs_text(got))
    and NAME.png (plot(got, path) -> path).  Returns the paths written."""
    paths = [os.path.join(results, name + ".md")]
    with open(paths[0], "w") as f:
        f.write(table)
    if got:
        paths.append(os.path.join(results, name + "-runs.md"))
        with open(paths[1], "w") as f:
            f.write(runs_text(got))
        paths.append(plot(got, os.path.join(results, name + ".png")))
    return paths


def compress(out):
    """Gzips the run's packet logs (the record keeps the numbers)."""
    for fn in ("a.plog.csv", "b.plog.csv"):
        p = os.path.join(out, fn)
        if os.path.exists(p):
            subprocess.call(["gzip", "-1", "-f", p])


def code_paths(spec):
    """The paths whose code keys the sweep's runs (SweepSpec.entry)."""
    if not spec.entry:
        return cache.CODE_PATHS
    return cache.BASE_PATHS + tuple(cache.closure(ROOT, [spec.entry]))


def parse(argv, spec):
    p = argparse.ArgumentParser(prog="reproduce.sh %s" % spec.name,
                                description=spec.title)
    p.add_argument("what", choices=[spec.name])
    p.add_argument("--points", choices=spec.point_choices, default=spec.point_choices[0],
                   help="which points (default %s, the claims' own)" % spec.point_choices[0])
    p.add_argument("--quick", action="store_true",
                   help="%g-s runs: a smoke check of the machinery only"
                   % spec.quick["duration"])
    p.add_argument("--out", help="work directory (default results-tmp/%s)" % spec.name)
    p.add_argument("--schedtun", help="schedtun binary (default build-rel/schedtun)")
    p.add_argument("--results", help="where the tables go (default OUT/results)")
    p.add_argument("--update-committed", action="store_true",
                   help="records and tables into the tracked mininet/results/, the "
                   "README's block")
    p.add_argument("--repeat", type=int, default=5, metavar="N",
                   help="valid runs wanted per point (default 5)")
    p.add_argument("--retry-limit", type=int, default=2, metavar="K",
                   help="discarded runs of a point after which it is not run again (2)")
    p.add_argument("--records", metavar="FILE", help="the run records (JSON lines)")
    p.add_argument("--force", action="store_true",
                   help="run beside another schedtun, iperf3 or Mininet")
    p.add_argument("--plan", action="store_true", help="run nothing: the runs still needed")
    p.add_argument("--redraw", action="store_true",
                   help="run nothing: draw from the records")
    p.add_argument("--check", action="store_true",
                   help="with --redraw: write nothing, compare with the committed files")
    a = p.parse_args(argv)
    if a.repeat < 1 or a.retry_limit < 0:
        p.error("--repeat %d, --retry-limit %d (accepted: N >= 1, K >= 0)"
                % (a.repeat, a.retry_limit))
    if a.update_committed and (a.quick or a.results):
        p.error("--update-committed writes mininet/results/: not with --quick or --results")
    if a.check and not a.redraw:
        p.error("--check compares a redraw with the committed tables: give --redraw too")
    return a


def main(argv, spec):
    """The sweep (module doc); returns the exit status."""
    a = parse(argv, spec)
    work = a.out or os.path.join(ROOT, "results-tmp",
                                 spec.name + ("-quick" if a.quick else ""))
    store_name = spec.name + "-runs.jsonl"
    if a.redraw and not a.records:
        store = os.path.join(COMMITTED, store_name)
    else:
        store = a.records or (os.path.join(COMMITTED, store_name) if a.update_committed
                              else os.path.join(work, store_name))
    results = COMMITTED if a.update_committed else (a.results or os.path.join(work, "results"))
    timing = spec.quick if a.quick else spec.full
    pts = spec.points(spec.point_choices[-1] if a.redraw else a.points)
    # The tables, figure and README block show every point that has
    # records, whichever points this campaign runs: drawing only a.points
    # would drop the others' rows until the next --redraw.
    shown = spec.points(spec.point_choices[-1])

    def log(msg):
        print("reproduce %s: %s" % (spec.name, msg), flush=True)

    recs = records.load(store) if os.path.exists(store) else []
    if a.redraw:
        log("%d records in %s" % (len(recs), store))
        if a.check:
            return 1 if check(spec, recs, timing, pts, a.results or COMMITTED, log) else 0
        os.makedirs(results, exist_ok=True)
        log("wrote " + ", ".join(spec.draw(recs, timing, pts, results)))
        if a.update_committed:
            write_readme(spec, recs, timing, pts, log)
        return 0
    code = cache.code_state(ROOT, paths=code_paths(spec))
    log("the runs' key covers %s" % ("CMakeLists.txt, src, include, reproduce.sh and the "
                                     "%d files under mininet/ that the runs execute"
                                     % (len(code_paths(spec)) - len(cache.BASE_PATHS))
                                     if spec.entry else "all of mininet/"))
    if code["dirty"]:
        log("the code has uncommitted changes (%d files): the runs' key says so"
            % len(code["dirty_files"]))
    tools = tool_versions()
    schedtun = os.path.abspath(a.schedtun or os.path.join(ROOT, "build-rel", "schedtun"))
    todo = []
    for pt in pts:
        point = spec.point_of(pt, timing, schedtun, tools)
        need = records.needs(recs, cache.run_key(point.params, code), a.repeat,
                             a.retry_limit)
        todo.append((pt, point, need["to_run"]))
    runs = sum(n for _, _, n in todo)
    log("%d points, %d runs to go, about %.0f min (%g s of traffic + ~%g s a run)"
        % (len(todo), runs, runs * (timing["duration"] + spec.overhead_s) / 60,
           timing["duration"], spec.overhead_s))
    for pt, _, n in todo:
        log("  %-28s %d to run" % (pt.key, n))
    if a.plan:
        return 0
    os.makedirs(work, exist_ok=True)
    os.makedirs(results, exist_ok=True)
    try:
        held, _ = lock.take(["reproduce.sh"] + list(argv), force=a.force)
    except lock.Busy as e:
        log("%s (--force to run anyway)" % e)
        return 2
    procs.interruptible()       # kill PID stops it as cleanly as Ctrl-C
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
            recs = records.load(store)
            log("wrote " + ", ".join(spec.draw(recs, timing, shown, results)))
            if a.update_committed:
                write_readme(spec, recs, timing, shown, log)
    finally:
        held.release()
    return 0


def run_main(spec):
    """`python3 <paper>sweep.py ...`: main() with ^C reported."""
    try:
        sys.exit(main(sys.argv[1:], spec))
    except KeyboardInterrupt:
        print("reproduce %s: interrupted (finished runs are kept; run again to resume)"
              % spec.name)
        sys.exit(130)
