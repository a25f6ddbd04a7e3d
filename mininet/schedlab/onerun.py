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

from schedlab.runerr import RunError
from schedlab.tools import ROOT

SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
RUN_FILES = (".jsonl", ".json", ".csv", ".gz", ".log", ".conf", ".txt")


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
