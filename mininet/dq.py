#!/usr/bin/python3
"""dq.py - the Dual Queue paper's Table 1 experiment 1 in Mininet, one run.

  dq.py --sched dq|dq-paper|dq-full-only|fifo|drrexp --think S
        [--duration S] [--warmup S] [--seed N] [--sources N]
        [--out DIR] [--schedtun PATH] [--force] [--quiet]

50 sources, each behind its own 500 kbit/s access link, send web-like
TCP bursts (Pareto, mean 30 kB, exponential think time) through a 2 Mbit/s
schedtun link with 500,000 bytes of buffer and a 500 ms return path
(schedlab/dqrun.py has the topology; docs/dq-mininet.md the differences
from the paper).  Schedulers: dq (the paper's parameters: α for 50 ms,
T_abate 0, θ 5, t_expire 5 s, β push-out), dq-paper (our forced
redirection off: the paper's mechanism alone), dq-full-only (the busy
test off: only a full α redirects), fifo and drrexp (plain DRR with
5-s old-packet discard).  Writes OUT/summary.json: the degraded
source-periods (2 s, a packet over 120 ms in the scheduler or dropped),
eq. 2's mean session bit rate, the effective throughput and a Fig. 4 map
of sources 1-10 over the window [warm-up, duration).
scripts/reproduce.sh dq runs the sweep.

Holds the experiment lock like geo.py; run as root with /usr/bin/python3.
Exit status: 0 done, 1 the run failed (or the machine is busy), 2 bad
arguments, 130 interrupted.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import geo                                              # noqa: E402
from schedlab import onerun                             # noqa: E402
from schedlab.dqrun import SCHEDS, DqRun, DqSpec        # noqa: E402
from schedlab.runerr import bad                         # noqa: E402

PROG = "dq.py"


def parse_args(argv):
    """The command line -> a checked namespace; UsageError."""
    p = argparse.ArgumentParser(prog=PROG, description="The Dual Queue paper's "
                                "experiment 1 in Mininet, one run (docs/dq-mininet.md).")
    p.add_argument("--sched", default="dq", help="one of: " + ", ".join(SCHEDS) + " (dq)")
    p.add_argument("--think", type=float, default=3.0,
                   help="mean think time between bursts, s (the load; 3)")
    p.add_argument("--sources", type=int, default=50, help="sources (50)")
    onerun.add_common(p, "dq", "the sources' draws")
    a = onerun.parse_common(p, argv)
    if a.sched not in SCHEDS:
        raise bad("--sched", a.sched, "unknown (accepted: %s)" % ", ".join(SCHEDS))
    if not a.think > 0:
        raise bad("--think", a.think, "not positive (accepted: seconds > 0)")
    if a.duration - a.warmup < 2:
        raise bad("--duration", a.duration, "leaves no 2-s period after the warm-up")
    if not 1 <= a.sources <= 200:
        raise bad("--sources", a.sources, "out of range (accepted: 1..200)")
    return a


def run_locked(a, argv, log):
    """The run under the lock; returns the exit status."""
    def make(out):
        return DqRun(DqSpec(a.sched, a.think, a.duration, a.warmup, out, a.schedtun_path,
                            seed=a.seed, sources=a.sources),
                     (lambda m: None) if a.quiet else log)

    def report(summary):
        m = summary["dq"]
        g, e = m["degraded"], m["eq2"]
        log("degraded %s of %d source-periods; eq. 2 %s kbit/s over %d bursts; effective "
            "%.3f Mbit/s" % ("-" if g["fraction"] is None else "%.1f %%" % (100 * g["fraction"]),
                             g["active"], "-" if e["session_rate_bps"] is None else
                             "%.1f" % (e["session_rate_bps"] / 1e3), e["bursts"],
                             m["effective_bps"] / 1e6))
    return onerun.locked_run(onerun.out_dir(a.out, "dq"), argv, a.schedtun_path, make,
                             report, log)


def main(argv):
    return geo.main(argv, PROG, parse_args, run_locked, tools=("ss", "mnexec", "tc"))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
