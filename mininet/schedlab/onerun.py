"""schedlab/onerun.py - the part of a paper's one-run script (ticket.py,
dq.py) between the lock and the exit status.

locked_run(out, prefix, argv, schedtun, make_run, report, log) makes OUT
(default results-tmp/PREFIX-<time>) and clears an earlier run's files
from it, turns SIGINT, SIGTERM and SIGHUP into a clean stop, records the
provenance (geo.py's: command, code, binary, machine, load) into
OUT/summary.json, runs make_run(out).run() and report(summary) and always
calls the run's cleanup().  Returns 0, 1 (RunError or a bug, named) or
130 (a signal).
"""
import os
import signal
import time
import traceback

from schedlab.geospec import find_schedtun
from schedlab.runerr import RunError, bad
from schedlab.tools import ROOT

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
RUN_FILES = (".jsonl", ".json", ".csv", ".gz", ".log", ".conf", ".txt")


def add_common(p, prefix, seed_help):
    """The options every paper's run script has: --duration, --warmup,
    --seed, --out, --schedtun, --force, --quiet."""
    p.add_argument("--duration", type=float, default=80.0, help="traffic seconds (80)")
    p.add_argument("--warmup", type=float, default=20.0,
                   help="seconds left out of the numbers (20)")
    p.add_argument("--seed", type=int, default=1, help=seed_help + " (1)")
    p.add_argument("--out", help="results directory (default results-tmp/%s-<time>)" % prefix)
    p.add_argument("--schedtun", help="schedtun binary (default build-rel/schedtun)")
    p.add_argument("--force", action="store_true",
                   help="run beside other schedtun, iperf3 or Mininet processes")
    p.add_argument("--quiet", action="store_true", help="no progress lines")


def parse_common(p, argv):
    """p.parse_args (exit 2 on a usage error), the common options checked
    (UsageError naming the option, the value and what is accepted), the
    binary found (a.schedtun_path)."""
    try:
        a = p.parse_args(argv)
    except SystemExit as e:
        raise SystemExit(0 if e.code == 0 else 2)
    if not 0 <= a.warmup < a.duration:
        raise bad("--warmup", a.warmup, "not inside the run (accepted: 0 <= warm-up < "
                  "--duration %g)" % a.duration)
    if a.seed < 0:
        raise bad("--seed", a.seed, "negative (accepted: 0 or more)")
    a.schedtun_path = find_schedtun(a.schedtun)
    return a


class Interrupted(Exception):
    """SIGINT, SIGTERM or SIGHUP arrived."""


def out_dir(out, prefix):
    """OUT made absolute and created, an earlier run's files removed."""
    out = os.path.abspath(out or os.path.join(
        ROOT, "results-tmp", "%s-%s" % (prefix, time.strftime("%Y%m%d-%H%M%S"))))
    os.makedirs(out, exist_ok=True)
    for fn in os.listdir(out):            # never mix two runs' files
        if fn.endswith(RUN_FILES):
            os.unlink(os.path.join(out, fn))
    return out


def locked_run(out, argv, schedtun, make_run, report, log):
    """The run (module doc); out: an out_dir()."""
    from geo import finish_provenance, start_provenance   # mininet/geo.py

    def on_signal(signum, _frame):
        # Only the first signal interrupts: a second one (Ctrl-C twice, or
        # the sweep's SIGINT after the terminal's) must not cut the
        # cleanup short and leave a daemon running.
        for s in SIGNALS:
            signal.signal(s, signal.SIG_IGN)
        raise Interrupted(signal.Signals(signum).name)
    for s in SIGNALS:
        signal.signal(s, on_signal)
    prov = start_provenance(argv, schedtun, log)
    run = None
    status = 0
    try:
        run = make_run(out)
        summary = run.run()
        finish_provenance(prov, out)
        report(summary)
        for w in summary.get("warnings", []):
            log("warning: " + w)
        log("results in %s" % out)
    except Interrupted as e:
        log("interrupted (%s): cleaning up" % e)
        status = 130
    except RunError as e:
        log("ERROR: %s" % e)
        status = 1
    except Exception:                     # a bug or Mininet's own: still clean up
        traceback.print_exc()
        log("ERROR: unexpected failure (traceback above)")
        status = 1
    finally:
        for s in SIGNALS:
            signal.signal(s, signal.SIG_IGN)   # let the cleanup finish
        if run is not None:
            run.cleanup()
    return status
