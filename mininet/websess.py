#!/usr/bin/python3
"""websess.py - web-like TCP sessions between two hosts (schedlab.websess).

  websess.py sink --listen ADDR:PORT [--out FILE] [--idle S]
      serves until SIGINT/SIGTERM; one JSON line per connection in FILE
      (default -: stdout).
  websess.py send --to ADDR:PORT [--users N] [--alpha A] [--mean BYTES]
                  [--max BYTES] [--think S] [--duration S] [--grace S]
                  [--seed N] [--cc reno|cubic|...] [--dscp N] [--out FILE]
                  [--arrivals R [--max-open N]] [--mss BYTES]
      N users, each a sequence of bursts (Pareto sizes, exponential think
      times, one TCP connection each) for S seconds; one JSON line per
      burst in FILE (default -: stdout), then a summary line on stderr
      (bursts by status, bytes, eq. 2's session rate, mean throughput).
      --arrivals R: open loop instead of users: transfers arrive as a
      Poisson process of R a second (the PDRR paper's TCP flows), at most
      --max-open at once (more are recorded as refused); --mss: the TCP
      maximum segment size (TCP_MAXSEG).

Defaults are the DQ paper's experiment 1 (Table 1): 50 users, shape 1.3,
mean 30000 bytes, think 0.5 s; Reno.  Exit status: 0 done, 2 bad
arguments, 1 when nothing could be sent or served.  Runs on any host
(loopback included); in Mininet, start it in the hosts (schedlab.traffic
does so for its own tools).
"""
import os
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from schedlab import cli, websess  # noqa: E402

PROG = "websess"


def main(argv=None):
    ap, sk, sd = cli.parser(PROG, __doc__, "sink")
    sk.add_argument("--idle", type=float, default=600.0)
    d = websess.WebSpec(dst=("", 0))
    sd.add_argument("--users", type=int, default=d.users)
    sd.add_argument("--alpha", type=float, default=d.alpha)
    sd.add_argument("--mean", type=float, default=d.mean_bytes)
    sd.add_argument("--max", type=float, default=d.max_bytes)
    sd.add_argument("--think", type=float, default=d.think_s)
    sd.add_argument("--duration", type=float, default=d.duration_s)
    sd.add_argument("--grace", type=float, default=d.grace_s)
    sd.add_argument("--seed", type=int, default=d.seed)
    sd.add_argument("--cc", default=d.cc)
    sd.add_argument("--dscp", type=int, default=None)
    sd.add_argument("--out", default="-")
    sd.add_argument("--arrivals", type=float, default=d.arrivals_per_s)
    sd.add_argument("--max-open", type=int, default=d.max_open)
    sd.add_argument("--mss", type=int, default=None)
    a = ap.parse_args(argv)
    websess.raise_nofile()
    stop = cli.stop_event()
    try:
        if a.cmd == "sink":
            addr = websess.parse_addr(a.listen)
            emit, close = cli.jsonl_writer(a.out)
            # a thread per connection: thousands under an overloaded open loop
            threading.stack_size(websess.OPEN_STACK_BYTES)
            sink = websess.Sink(addr, emit, idle_s=a.idle).start()
            cli.say(PROG, "sink on %s:%d" % (addr[0], sink.port))
            while not stop.wait(0.5):
                pass
            sink.stop()
            close()
            return 0
        spec = websess.WebSpec(dst=websess.parse_addr(a.to), users=a.users, alpha=a.alpha,
                               mean_bytes=a.mean, max_bytes=a.max, think_s=a.think,
                               duration_s=a.duration, grace_s=a.grace, seed=a.seed,
                               cc=a.cc, dscp=a.dscp, arrivals_per_s=a.arrivals,
                               max_open=a.max_open, mss_bytes=a.mss)
        websess.check(spec)
        emit, records, close = cli.recorder(a.out)
    except (websess.WebError, OSError) as e:
        cli.say(PROG, e)
        return 2
    websess.run(spec, emit, stop)
    close()
    summary = websess.summarise(records)
    cli.say_summary(PROG, summary)
    return 0 if summary["by_status"].get("ok") else 1


if __name__ == "__main__":
    sys.exit(main())
