#!/usr/bin/python3
"""geo.py - the PSS paper's GEO experiment in Mininet, one run.

Two Mininet hosts (controller=None, no switch) joined by a SchedtunLink
(schedlab/link.py): h1 (10.0.0.1, tunnel 10.10.0.1) sends through the
scheduler under test on the emulated bottleneck (C, 250 ms one way); h2
(10.0.0.2, tunnel 10.10.0.2) returns ACKs through a fifo at 1 Gbit/s with
the same one-way delay, so the RTT is 2 x delay.  Traffic h1 -> h2 through
the tunnel: EF one UDP flow (iperf3 CBR, or schedtun-efgen for any rate
profile), AF N cubic flows (DSCP AF11), CS0 N cubic flows.  This file is
the command line; the run is schedlab.georun's (topology), traffic's,
follow's and results' (mininet/README.md, "Code").

It holds the experiment lock (schedlab.lock) for the whole run and
refuses to start while another experiment, schedtun, iperf3 or Mininet
runs, unless --force; started by a holder of the lock that passed it down
(reproduce), it runs under that lock (docs/run-records.md, "Lock").

Run as root with /usr/bin/python3 (Mininet's interpreter); see
mininet/README.md for the options, the outputs and the theory.

Exit status: 0 done, 1 the run failed (or the machine is busy), 2 bad
arguments, 130 interrupted.
"""
import argparse
import os
import re
import shutil
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from schedlab import efstep, lock, outputs, provenance, theory  # noqa: E402
from schedlab.georun import GeoRun                              # noqa: E402
from schedlab.geospec import conf_sched_group, find_schedtun, sched_group_name  # noqa: E402
from schedlab.procs import sweep_leftovers                      # noqa: E402
from schedlab.results import print_summary                      # noqa: E402
from schedlab.runerr import RunError, UsageError, bad           # noqa: E402
from schedlab.tools import ROOT                                 # noqa: E402


def start_provenance(argv, schedtun, log):
    """schedlab.provenance's record of this run (the command, the code's
    commit and tree, dirty or not, the binary's sha256, kernel, CPU, load
    before), or {"error": why} when it cannot be read (no git, say): a run
    is not refused for it, but its summary says so."""
    try:
        return provenance.start([sys.executable, os.path.abspath(__file__)] + list(argv),
                                {}, schedtun, ROOT)
    except (OSError, RuntimeError, ValueError) as e:
        log("warning: no provenance: %s" % e)
        return {"error": str(e)}


def finish_provenance(prov, out):
    """Completes the record (load after, end time, the daemons'
    configuration texts) and adds it to OUT/summary.json."""
    if "error" not in prov:
        provenance.finish(prov)
        for name in ("a.conf", "b.conf"):
            try:
                with open(os.path.join(out, name)) as f:
                    prov["config_files"][name] = f.read()
            except OSError:
                pass
    path = os.path.join(out, "summary.json")
    summary = outputs.read_summary_json(path)
    summary["provenance"] = prov
    outputs.write_summary_json(path, summary)

PROG = "geo.py"
SCHEDS = ("fifo", "prio", "pss", "dwrr", "pdrr", "dq", "ticket")


class Interrupted(Exception):
    """SIGINT, SIGTERM or SIGHUP arrived."""


# ---------------------------------------------------------------- arguments

def parse_args(argv):
    """The command line -> argparse namespace with parsed specs; UsageError."""
    p = argparse.ArgumentParser(
        prog=PROG, description="The PSS paper's GEO experiment in Mininet "
        "(mininet/README.md).")
    p.add_argument("--sched", help="scheduler under test: " + " ".join(SCHEDS)
                   + " (required unless --conf names it)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--conf", help="take the sender's `scheduler = {...};` group "
                   "from this schedtun configuration file")
    g.add_argument("--sched-params", help="members of the scheduler group, e.g. "
                   "'pss = { bw = 0.408163; lm = 71020; lr = 0; };' (default: the "
                   "paper's parameters for --weights, see mininet/README.md)")
    p.add_argument("--capacity", default="20Mbit",
                   help="C: RATE or cosine:MEAN:AMPLITUDE:PERIOD (default 20Mbit)")
    p.add_argument("--ef", default="10Mbit",
                   help="EF rate at the IP level: RATE, cosine:AVG:AMPLITUDE:PERIOD "
                   "or step:R1:T:R2 (efgen only; default 10Mbit)")
    p.add_argument("--ef-exp", help="R_EF^exp for the PSS parameters and eq. 7 "
                   "(default: the EF average)")
    p.add_argument("--ef-tool", default="auto", choices=("auto", "iperf", "efgen"),
                   help="EF generator: efgen (schedtun-efgen), iperf (iperf3 -u, "
                   "constant only), auto = efgen when present (default)")
    p.add_argument("--delay", default="250ms", help="one-way delay (default 250ms)")
    p.add_argument("--af-flows", type=int, default=10, help="AF cubic flows (10)")
    p.add_argument("--cs0-flows", type=int, default=10, help="CS0 cubic flows (10)")
    p.add_argument("--duration", type=float, default=100.0,
                   help="traffic seconds (default 100)")
    p.add_argument("--warmup", type=float,
                   help="seconds left out of the means (default 10, or a third "
                   "of the duration below 30 s)")
    p.add_argument("--weights", default="9:2",
                   help="W_AF:W_CS0 for the theory (K_AF, eq. 2) and the default "
                   "PSS/DWRR parameters (default 9:2)")
    p.add_argument("--l-af", type=int, default=1400,
                   help="average AF packet, IP bytes (default 1400 = tunnel MTU)")
    p.add_argument("--l-cs0", type=int, default=1400, help="average CS0 packet (1400)")
    p.add_argument("--out", help="results directory (default "
                   "results-tmp/geo-<sched>-<timestamp>)")
    p.add_argument("--schedtun", help="schedtun binary (default ./build-rel/"
                   "schedtun, else schedtun on PATH); schedtun-efgen is looked "
                   "for beside it")
    p.add_argument("--no-plot", action="store_true", help="no rates.png")
    p.add_argument("--quiet", action="store_true", help="no live lines")
    p.add_argument("--cleanup", action="store_true",
                   help="only remove what killed earlier runs left, then exit")
    p.add_argument("--force", action="store_true",
                   help="run even while other schedtun, iperf3 or Mininet processes "
                   "run (never beside another experiment holding the lock)")
    try:
        a = p.parse_args(argv)
    except SystemExit as e:
        raise SystemExit(0 if e.code == 0 else 2)
    if a.cleanup:
        return a
    return check_args(a)


def check_args(a):
    """Validates and completes the parsed arguments (specs, defaults)."""
    if a.conf:
        if not os.path.isfile(a.conf):
            raise bad("--conf", a.conf, "no such file")
        a.sched_group = conf_sched_group(a.conf)
        name = sched_group_name(a.sched_group)
        if a.sched and a.sched != name:
            raise bad("--sched", a.sched, "the scheduler of --conf is '%s'" % name)
        a.sched = name
    else:
        a.sched_group = None
    if a.sched not in SCHEDS:
        raise bad("--sched", a.sched, "unknown scheduler (accepted: %s)" % " ".join(SCHEDS))
    for opt in ("capacity", "ef"):
        parse = (efstep.parse_step if opt == "ef" and efstep.is_step(a.ef)
                 else theory.parse_spec)
        try:
            setattr(a, opt + "_spec", parse(getattr(a, opt)))
        except ValueError as e:
            raise bad("--" + opt.replace("_", "-"), getattr(a, opt), str(e)) from None
    if a.ef_spec.mean_bps * (1 + a.ef_spec.amplitude) > 1e9:
        raise bad("--ef", a.ef, "above 1 Gbit/s")
    try:
        a.delay_s = theory.parse_duration(a.delay)
    except ValueError as e:
        raise bad("--delay", a.delay, str(e)) from None
    if not 0 <= a.delay_s <= 10:
        raise bad("--delay", a.delay, "0..10s")
    for opt in ("af_flows", "cs0_flows"):
        if not 1 <= getattr(a, opt) <= 64:
            raise bad("--" + opt.replace("_", "-"), getattr(a, opt), "1..64 flows")
    if not 5 <= a.duration <= 3600:
        raise bad("--duration", a.duration, "5..3600 seconds")
    if a.warmup is None:
        a.warmup = 10.0 if a.duration >= 30 else a.duration / 3.0
    if not 0 <= a.warmup < a.duration:
        raise bad("--warmup", a.warmup, "0 <= warmup < duration")
    if isinstance(a.ef_spec, efstep.StepSpec):   # EF's mean: the window's
        a.ef_spec.set_window(a.warmup, a.duration)
    try:
        a.ef_exp_bps = (a.ef_spec.mean_bps if a.ef_exp is None
                        else theory.parse_rate(a.ef_exp))
    except ValueError as e:
        raise bad("--ef-exp", a.ef_exp, str(e)) from None
    if not 0 <= a.ef_exp_bps < a.capacity_spec.mean_bps:
        raise bad("--ef-exp", a.ef_exp, "must be 0 <= R_EF^exp < C's mean (%g bit/s)"
                  % a.capacity_spec.mean_bps)
    m = re.fullmatch(r"(\d+):(\d+)", a.weights)
    if not m or not (2 <= int(m.group(1)) <= 10000 and 2 <= int(m.group(2)) <= 10000):
        raise bad("--weights", a.weights, "W_AF:W_CS0, each 2..10000 (eq. 4 needs W >= 2)")
    a.w_af, a.w_cs0 = int(m.group(1)), int(m.group(2))
    for opt in ("l_af", "l_cs0"):
        if not 64 <= getattr(a, opt) <= 65535:
            raise bad("--" + opt.replace("_", "-"), getattr(a, opt), "64..65535 bytes")
    a.schedtun_path = find_schedtun(a.schedtun)
    a.efgen_path = os.path.join(os.path.dirname(a.schedtun_path), "schedtun-efgen")
    have_efgen = os.access(a.efgen_path, os.X_OK)
    if a.ef_tool == "auto":
        a.ef_tool = "efgen" if have_efgen else "iperf"
    if a.ef_tool == "efgen" and not have_efgen:
        raise bad("--ef-tool", "efgen", "no %s (build it: cmake --build ... "
                  "--target schedtun-efgen)" % a.efgen_path)
    if a.ef_tool == "iperf" and not a.ef_spec.constant:
        raise bad("--ef", a.ef, "a time-varying EF needs schedtun-efgen, and there is "
                  "no %s (accepted without it: a constant RATE)" % a.efgen_path)
    return a


def sweep_all(log):
    """Kills what SIGKILLed runs left (their state files: geo.py's traffic
    and host shells, the SchedtunLinks' daemons); returns how many."""
    n = sweep_leftovers(log)
    try:
        from schedlab.link import cleanup_leftovers    # imports Mininet
    except ImportError:
        return n
    return n + cleanup_leftovers(log)


def take_lock(argv, force, log, prog=PROG):
    """schedlab.lock.take for this run of `prog`: the held (or inherited)
    lock, or None after logging why the machine is busy."""
    try:
        held, found = lock.take([prog] + list(argv), force=force)
    except lock.Busy as e:
        log("ERROR: %s" % e)
        return None
    if held.inherited:
        log("running under the experiment lock of pid %d" % held.holder_pid)
    for pid, name, cmd in found:
        log("warning: running beside %s pid %d (%s)" % (name, pid, cmd))
    return held


def main(argv, prog=PROG, parse=None, run=None, tools=("iperf3", "ping", "ss", "mnexec")):
    """Parses, takes the lock, runs, cleans up; returns the exit status.
    Shared with the other experiments' scripts (ticket.py): `parse(argv)`
    -> namespace with .force (.cleanup optional), UsageError when bad;
    `run(a, argv, log)` -> exit status, called under the lock."""
    parse, run = parse or parse_args, run or run_locked

    def log(msg):
        print("%s: %s" % (prog, msg), file=sys.stderr, flush=True)
    try:
        a = parse(argv)
    except UsageError as e:
        log(str(e))
        return 2
    if os.geteuid() != 0:
        log("needs root (Mininet, tun): run it as root with /usr/bin/python3")
        return 1
    if getattr(a, "cleanup", False):
        log("removed %d leftover processes" % sweep_all(log))
        return 0
    for tool in tools:
        if not shutil.which(tool):
            log("ERROR: '%s' not found: install the dependencies (scripts/deps.sh)" % tool)
            return 1
    sweep_all(log)          # before the idle check: a dead run's daemons are not "busy"
    held = take_lock(argv, a.force, log, prog)
    if held is None:
        return 1
    try:
        return run(a, argv, log)
    finally:
        held.release()


def run_locked(a, argv, log):
    """The run itself, under the lock: --out, signals, GeoRun, provenance,
    the table; cleans up whatever happens; returns the exit status."""
    a.out = os.path.abspath(a.out or os.path.join(
        ROOT, "results-tmp", "geo-%s-%s" % (a.sched, time.strftime("%Y%m%d-%H%M%S"))))
    os.makedirs(a.out, exist_ok=True)
    for fn in os.listdir(a.out):      # never mix two runs' files
        if fn.endswith((".jsonl", ".json", ".csv", ".png", ".log", ".conf", ".txt")):
            os.unlink(os.path.join(a.out, fn))

    def on_signal(signum, _frame):
        raise Interrupted(signal.Signals(signum).name)
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, on_signal)
    prov = start_provenance(argv, a.schedtun_path, log)
    run = GeoRun(a, log)
    status = 0
    try:
        summary = run.run()
        finish_provenance(prov, a.out)
        print_summary(summary, log)
        log("results in %s" % a.out)
    except Interrupted as e:
        log("interrupted (%s): cleaning up" % e)
        status = 130
    except RunError as e:
        log("ERROR: %s" % e)
        status = 1
    except Exception:                 # a bug or Mininet's own error: still clean up
        import traceback
        traceback.print_exc()
        log("ERROR: unexpected failure (traceback above)")
        status = 1
    finally:
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, signal.SIG_IGN)   # let the cleanup finish
        run.cleanup()
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
