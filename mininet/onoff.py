#!/usr/bin/python3
"""onoff.py - on-off UDP streams between two hosts (schedlab.onoff).

  onoff.py recv --listen ADDR:PORT [--out FILE] [--duration S]
      counts until SIGINT/SIGTERM or for S seconds (port 0: any free
      one, named on stderr), then writes one JSON line per flow in FILE (default -:
      stdout) and a summary line on stderr.
  onoff.py send --to ADDR:PORT [--flows N] [--peak RATE] [--size BYTES]
                [--on S] [--off S] [--lifetime S|none] [--arrivals R]
                [--duration S] [--seed N] [--dscp N] [--out FILE]
      N flows at the start and R more per second (Poisson), each living
      an exponential lifetime, alternating exponential on periods (BYTES
      packets at RATE) and off periods, for S seconds; one JSON line per
      flow in FILE (default -: stdout) as each ends, then a summary line
      on stderr (flows, packets, bytes, rate, on fraction).

Defaults are the PDRR paper's streams (§4.3): 64 kbit/s peak, on and off
500 ms, lifetime 60 s; 200-byte packets (IP headers included).  RATE is
written as in the configuration file (64kbit, 1Mbit; a plain number is
bit/s).  Exit status: 0 done, 2 bad arguments, 1 when nothing was sent
or received.  Runs on any host (loopback included); in Mininet, start it
in the hosts.
"""
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from schedlab import cli, onoff, units  # noqa: E402

PROG = "onoff"


def _lifetime(text):
    return None if text == "none" else float(text)


def _args(argv):
    ap, rv, sd = cli.parser(PROG, __doc__, "recv")
    rv.add_argument("--duration", type=float, default=None)
    d = onoff.OnOffSpec(dst=("", 0))
    sd.add_argument("--flows", type=int, default=d.flows)
    sd.add_argument("--peak", default="64kbit")
    sd.add_argument("--size", type=int, default=d.size_bytes)
    sd.add_argument("--on", type=float, default=d.on_s)
    sd.add_argument("--off", type=float, default=d.off_s)
    sd.add_argument("--lifetime", type=_lifetime, default=d.lifetime_s)
    sd.add_argument("--arrivals", type=float, default=d.arrivals_per_s)
    sd.add_argument("--duration", type=float, default=d.duration_s)
    sd.add_argument("--seed", type=int, default=d.seed)
    sd.add_argument("--dscp", type=int, default=None)
    sd.add_argument("--out", default="-")
    return ap.parse_args(argv)


def _recv(a, stop):
    if a.duration is not None and not (math.isfinite(a.duration) and a.duration > 0):
        raise onoff.OnOffError("duration '%s': not a duration (accepted: seconds > 0)"
                               % a.duration)
    rx = onoff.Receiver(onoff.parse_addr(a.listen, listen=True))
    emit, close = cli.jsonl_writer(a.out)
    rx.start()
    cli.say(PROG, "receiving on %s:%d" % (a.listen.rpartition(":")[0], rx.port))
    stop.wait(a.duration)
    records = rx.stop()
    for r in records:
        emit(r)
    close()
    summary = onoff.summarise_received(records, rx.bad)
    cli.say_summary(PROG, summary)
    return 0 if summary["packets"] else 1


def _send(a, stop):
    try:
        peak = units.parse_rate_bps(a.peak)
    except ValueError:
        raise onoff.OnOffError("peak '%s': not a rate (accepted: %s)"
                               % (a.peak, units.RATE_ACCEPTED)) from None
    spec = onoff.OnOffSpec(dst=onoff.parse_addr(a.to), flows=a.flows, peak_bps=peak,
                           size_bytes=a.size, on_s=a.on, off_s=a.off,
                           lifetime_s=a.lifetime, arrivals_per_s=a.arrivals,
                           duration_s=a.duration, seed=a.seed, dscp=a.dscp)
    onoff.check(spec)
    emit, records, close = cli.recorder(a.out)
    onoff.run_flows(spec, emit, stop)
    close()
    summary = onoff.summarise_sent(records)
    cli.say_summary(PROG, summary)
    return 0 if summary["packets"] else 1


def main(argv=None):
    a = _args(argv)
    stop = cli.stop_event()
    try:
        return (_recv if a.cmd == "recv" else _send)(a, stop)
    except (onoff.OnOffError, OSError) as e:
        cli.say(PROG, e)
        return 2


if __name__ == "__main__":
    sys.exit(main())
