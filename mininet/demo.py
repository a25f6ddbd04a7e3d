#!/usr/bin/python3
"""demo.py - scripts/geo-demo.sh's engine: one demo run through geo.py, or a comparison.

  demo.py run [--sched S] [--duration S] [--warmup S] [--settle S] [--weights A:C]
              [--rule calibrated|paper] [--sched-params T] [--ef SPEC] [--ef-exp R]
              [--rate R] [--delay D] [--flows N] [--out DIR] [--schedtun PATH] [--no-plot]
              [--force]
      the demo's scenario (schedlab.demo.plan) run by mininet/geo.py (as a
      child, same interpreter, its own process group: a signal reaches it
      once, forwarded from here), then demo.txt and demo.json in DIR: the
      daemons' per-class counters over the window (schedlab.demostats)
      and the rates before/after the EF step with the theory
      (schedlab.demoreport), the tables printed.
  demo.py compare DIR SCHED1 SCHED2 [--no-plot] [--title T]
      DIR/SCHED1 and DIR/SCHED2 (two `run`s of one scenario) side by side:
      DIR/compare.txt (printed) and DIR/compare.png.

Exit status: geo.py's (0 done, 1 failed, 2 bad arguments, 130
interrupted); 2 for a bad demo option; 1 when the report cannot be made.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from schedlab import demo, demoreport, demostats, measure  # noqa: E402
from schedlab.tools import ToolError, find_tool  # noqa: E402

ROOT = os.path.dirname(HERE)


def say(msg):
    """A progress line, as geo-demo always printed them."""
    print("%s: %s" % (demo.PROG, msg), flush=True)


def run_child(argv):
    """Runs argv in its own process group and waits; the first SIGINT,
    SIGTERM or SIGHUP that reaches us is passed on to it (it cleans up and
    exits), later ones are ignored.  Returns its exit status."""
    child = subprocess.Popen(argv, process_group=0)
    sent = []

    def forward(signum, _frame):
        if not sent:
            sent.append(signum)
            child.send_signal(signum)
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, forward)
    rc = child.wait()
    return 130 if rc < 0 or (sent and rc != 0) else rc


def cmd_run(a):
    """`run`: plan, geo.py, report; the exit status."""
    try:
        schedtun = find_tool(a.schedtun)
    except ToolError as e:
        print("%s: %s" % (demo.PROG, e), file=sys.stderr)
        return 1
    opts = {k: getattr(a, k) for k in demo.DEFAULTS}
    opts["out"] = os.path.abspath(a.out or os.path.join(
        ROOT, "results-tmp", "geo-demo-" + time.strftime("%Y%m%d-%H%M%S")))
    try:
        p = demo.plan(opts, schedtun)
    except ValueError as e:
        print(e, file=sys.stderr)
        return 2
    except RuntimeError as e:
        print(e, file=sys.stderr)
        return 1
    if p.params_cmd:
        say("PSS parameters (%s rule): schedtun %s" % (p.rule, " ".join(p.params_cmd[1:])))
        say("  -> %s" % p.sched_params)
    if p.step_at_s is not None:
        say("EF %s -> %s at t = %g s, the middle of the measured window %g..%g s; "
            "'after' from %g s after the step" % (p.ef_texts[0], p.ef_texts[1], p.step_at_s,
                                                  p.warmup_s, p.duration_s, p.settle_s))
    geo = [sys.executable, os.path.join(HERE, "geo.py")] + p.geo_argv() + ["--schedtun", schedtun]
    say("running: %s" % " ".join(geo))
    rc = run_child(geo)
    if rc != 0:
        say("geo.py exited with status %d: no demo table" % rc)
        return rc
    try:
        rep = demoreport.report(p.out, p.settle_s)
    except demoreport.ReportError as e:
        say("ERROR: %s" % e)
        return 1
    rep["command"] = geo
    rep["params_cmd"] = p.params_cmd
    table = demoreport.format_table(rep)
    try:
        with open(os.path.join(p.out, "summary.json"), encoding="utf-8") as f:
            rep["window"] = demostats.window_classes(
                measure.stats_lines(os.path.join(p.out, "stats-a.jsonl")),
                measure.stats_lines(os.path.join(p.out, "stats-b.jsonl")), json.load(f))
        table = demostats.format_window(rep["window"]) + "\n\n" + table
    except (OSError, ValueError, KeyError, TypeError) as e:
        say("warning: no per-class counters from the daemons' stats: %s" % e)
    demoreport.write(p.out, rep, table)
    print()
    print(table, flush=True)
    say("results in %s (geo.py's files, demo.txt, demo.json)" % p.out)
    return 0


def cmd_compare(a):
    """`compare`: compare.txt and compare.png from two runs; the exit status."""
    runs = []
    for s in a.scheds:
        path = os.path.join(a.dir, s, "demo.json")
        try:
            with open(path, encoding="utf-8") as f:
                runs.append((os.path.join(a.dir, s), json.load(f)))
        except (OSError, ValueError) as e:
            say("ERROR: %s: %s: no comparison" % (path, e))
            return 1
    try:
        table = demoreport.compare_table([r for _, r in runs])
    except demoreport.ReportError as e:
        say("ERROR: %s" % e)
        return 1
    text = "geo-demo --compare: %s, the same scenario\n%s\n%s\n" % (
        " vs ".join(a.scheds), demoreport.format_table(runs[0][1]).split("\n")[0], table)
    with open(os.path.join(a.dir, "compare.txt"), "w", encoding="utf-8") as f:
        f.write(text)
    print(text, end="")
    if not a.no_plot:
        from schedlab import demoplot
        png = os.path.join(a.dir, "compare.png")
        demoplot.compare_png(png, runs, a.title or title(runs, a.scheds))
        say("plot: %s" % png)
    return 0


def title(runs, scheds):
    """compare.png's title: the scenario, from the first run's summary.json."""
    try:
        with open(os.path.join(runs[0][0], "summary.json"), encoding="utf-8") as f:
            cfg = json.load(f)["config"]
        step = runs[0][1]["step"]
        ef = ("EF %g \u2192 %g Mbit/s at t = %.1f s" % (
            step["before_bps"] / 1e6, step["after_bps"] / 1e6, step["at_s"]) if step
            else "EF %g Mbit/s" % (cfg["ef_mean_bps"] / 1e6))
        return ("schedtun on a GEO link (%s, %g ms one way), %s, AF and CS0 %dx cubic: %s"
                % (cfg["capacity"], cfg["delay_one_way_s"] * 1e3, ef, cfg["af_flows"],
                   " vs ".join(scheds)))
    except (OSError, ValueError, KeyError, TypeError):
        return "geo-demo: " + " vs ".join(scheds)


def parse_args(argv):
    """The command line -> argparse namespace (exit 2 on a bad one)."""
    p = argparse.ArgumentParser(prog="demo.py", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="one demo run through geo.py")
    for opt in ("sched", "duration", "warmup", "settle", "weights", "rule", "sched-params",
                "ef", "ef-exp", "rate", "delay", "flows", "out", "schedtun"):
        r.add_argument("--" + opt)
    r.add_argument("--no-plot", action="store_true")
    r.add_argument("--force", action="store_true")
    c = sub.add_parser("compare", help="two runs side by side")
    c.add_argument("dir")
    c.add_argument("scheds", nargs=2)
    c.add_argument("--no-plot", action="store_true")
    c.add_argument("--title")
    return p.parse_args(argv)


def main(argv):
    """Dispatches; returns the exit status."""
    a = parse_args(argv)
    return cmd_run(a) if a.cmd == "run" else cmd_compare(a)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
