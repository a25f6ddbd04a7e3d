#!/usr/bin/python3
"""pdrr.py - the PDRR paper's Fig. 3 (left) and §5 experiments in Mininet, one run.

  pdrr.py --case fig3-pdrr|fig3-drr|s5-admission|s5-none
          [--duration S] [--warmup S] [--seed N] [--delay MS]
          [--out DIR] [--schedtun PATH] [--force] [--quiet]

A 10 Mbit/s schedtun link under PDRR (quantum 1000 bytes); open-loop TCP
transfers of 1000-byte packets (Poisson arrivals, truncated Pareto sizes
of 8-1000 packets, shape 1.5) make 80 % of the offered load, on-off
64 kbit/s UDP flows (Poisson arrivals, 1-min lifetimes) the rest
(schedlab/pdrrrun.py has the topology; docs/pdrr-mininet.md the
differences from the paper).  Cases: fig3-pdrr and fig3-drr (plain DRR:
PDRR's priority queue off) at 9 Mbit/s offered; s5-admission and
s5-none: 11 Mbit/s offered, a 1000-packet buffer, an AFL of 500, with and
without admission control at a fair rate of 100 kbit/s.  Writes
OUT/summary.json: the UDP packets' wait (mean, p99, its complementary
distribution) beside Cobham's M/G/1 mean and the paper's M/M/1 line, the
TCP transfers' mean throughput and blocking, the fair rate, AFL length
and priority load over the window and in 5-s bins over the run.
scripts/reproduce.sh pdrr runs the sweep.

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
from schedlab.pdrrrun import CASES, PdrrRun, PdrrSpec   # noqa: E402
from schedlab.runerr import bad                         # noqa: E402

PROG = "pdrr.py"


def parse_args(argv):
    """The command line -> a checked namespace; UsageError."""
    p = argparse.ArgumentParser(prog=PROG, description="The PDRR paper's Fig. 3 and "
                                "section 5 in Mininet, one run (docs/pdrr-mininet.md).")
    p.add_argument("--case", default="fig3-pdrr", help="one of: " + ", ".join(CASES) +
                   " (fig3-pdrr)")
    p.add_argument("--delay", type=float, default=20.0,
                   help="the link's one-way delay each way, ms (20)")
    onerun.add_common(p, "pdrr", "the sources' draws")
    a = onerun.parse_common(p, argv)
    if a.case not in CASES:
        raise bad("--case", a.case, "unknown (accepted: %s)" % ", ".join(CASES))
    if not 0 <= a.delay <= 1000:
        raise bad("--delay", a.delay, "out of range (accepted: 0..1000 ms)")
    if a.duration - a.warmup < 5:
        raise bad("--duration", a.duration, "leaves less than 5 s after the warm-up "
                  "(accepted: duration >= warm-up + 5)")
    return a


def run_locked(a, argv, log):
    """The run under the lock; returns the exit status."""
    def make(out):
        return PdrrRun(PdrrSpec(a.case, a.duration, a.warmup, out, a.schedtun_path,
                                seed=a.seed, delay_ms=a.delay),
                       (lambda m: None) if a.quiet else log)

    def report(summary):
        m = summary["pdrr"]
        u, t, st = m["sender"]["udp"], m["tcp"], m["stats"]

        def ms(v):
            return "-" if v is None else "%.3f ms" % v
        log("UDP wait mean %s (Cobham %s), p99 %s; TCP %s kbit/s over %d of %d "
            "transfers, blocking %s; fair rate %.0f kbit/s; AFL mean %.0f max %d; "
            "PQ load %.3f; link %.1f %%"
            % (ms(u["wait_mean_ms"]), ms(m["theory"].get("cobham_mean_ms")),
               ms(u["wait_p99_ms"]),
               "-" if t["throughput_mean_bps"] is None else "%.0f" %
               (t["throughput_mean_bps"] / 1e3), t["completed"], t["arrived"],
               "-" if t["blocking"] is None else "%.1f %%" % (100 * t["blocking"]),
               st["fair_mean_bps"] / 1e3, st["afl_mean"], st["afl_max"], st["pq_load"],
               100 * m["sender"]["link"]["utilisation"]))
    return onerun.locked_run(onerun.out_dir(a.out, "pdrr"), argv, a.schedtun_path, make,
                             report, log)


def main(argv):
    return geo.main(argv, PROG, parse_args, run_locked, tools=("ss", "mnexec", "tc"))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
