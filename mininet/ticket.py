#!/usr/bin/python3
"""ticket.py - the TICKET paper's §3 experiment in Mininet, one run.

  ticket.py --variant ticket|naive --d MS --users N --think S
            [--duration S] [--warmup S] [--seed N] [--delay MS]
            [--out DIR] [--schedtun PATH] [--force]

27 TFRC flows policed per flow at 267 kbit/s into conforming (EF) and
excess (AF) by the sender daemon's TSW marker, web users making the
background (CS0), through a 30 Mbit/s schedtun link under TICKET (or its
naive variant) with maximum delay d and 256 packets of buffer
(schedlab/ticketrun.py has the topology; docs/ticket-mininet.md the
differences from the paper).  Writes OUT/summary.json: per class the
queueing delay (mean, max), the one-way delay at the receiver, the loss
rate and the received rate over the window [warm-up, duration) of
traffic time, the excess rate per flow, and the sender's TICKET counters;
OUT keeps the packet logs, stats lines, configurations and every
source's records.  scripts/reproduce.sh ticket runs the sweep.

Holds the experiment lock (schedlab.lock) like geo.py; run as root with
/usr/bin/python3.  Exit status: 0 done, 1 the run failed (or the machine
is busy), 2 bad arguments, 130 interrupted.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import geo                                              # noqa: E402
from schedlab import onerun                             # noqa: E402
from schedlab.runerr import bad                         # noqa: E402
from schedlab.ticketrun import TicketRun, TicketSpec    # noqa: E402

PROG = "ticket.py"
VARIANTS = ("ticket", "naive")


def parse_args(argv):
    """The command line -> a checked namespace; UsageError."""
    p = argparse.ArgumentParser(prog=PROG, description="The TICKET paper's §3 "
                                "experiment in Mininet, one run (docs/ticket-mininet.md).")
    p.add_argument("--variant", default="ticket", help="ticket (Algorithm 2) or naive "
                   "(Algorithm 1) (default ticket)")
    p.add_argument("--d", type=float, default=10.0, help="maximum delay d, ms (0..10000; 10)")
    p.add_argument("--users", type=int, default=270, help="web users (background; 270)")
    p.add_argument("--think", type=float, default=3.0,
                   help="their mean think time, s (the overload; 3)")
    p.add_argument("--delay", type=float, default=50.0, help="one-way delay, ms (50)")
    onerun.add_common(p, "ticket", "sources, marker, access links")
    a = onerun.parse_common(p, argv)
    if a.variant not in VARIANTS:
        raise bad("--variant", a.variant, "unknown (accepted: %s)" % ", ".join(VARIANTS))
    if not 0 <= a.d <= 10000:
        raise bad("--d", a.d, "out of range (accepted: 0..10000 ms)")
    if not 1 <= a.users <= 4096:
        raise bad("--users", a.users, "out of range (accepted: 1..4096)")
    if not a.think > 0:
        raise bad("--think", a.think, "not positive (accepted: seconds > 0)")
    if not 0 <= a.delay <= 5000:
        raise bad("--delay", a.delay, "out of range (accepted: 0..5000 ms)")
    return a


def run_locked(a, argv, log):
    """The run under the lock; returns the exit status."""
    def make(out):
        return TicketRun(TicketSpec(a.variant, a.d, a.users, a.think, a.duration, a.warmup,
                                    out, a.schedtun_path, seed=a.seed, delay_ms=a.delay),
                         (lambda m: None) if a.quiet else log)

    def report(summary):
        for c, v in summary["ticket"]["classes"].items():
            log("%-3s  %8.1f kbit/s  loss %s  queueing mean %s max %s ms" % (
                c, v["rate_kbps"], "-" if v["loss"] is None else "%.4f" % v["loss"],
                v["sojourn_mean_ms"], v["sojourn_max_ms"]))
    return onerun.locked_run(onerun.out_dir(a.out, "ticket"), argv, a.schedtun_path, make,
                             report, log)


def main(argv):
    return geo.main(argv, PROG, parse_args, run_locked, tools=("ss", "mnexec", "tc"))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
