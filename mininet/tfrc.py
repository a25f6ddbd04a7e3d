#!/usr/bin/python3
"""tfrc.py - TFRC (RFC 5348) flows over UDP between two hosts (schedlab.tfrcnet).

  tfrc.py recv --listen ADDR:PORT [--out FILE] [--duration S]
               [--drop-every K] [--hold-feedback S]
      serves any number of flows until SIGINT/SIGTERM (or S seconds); one
      JSON line per flow in FILE (default -: stdout) when it ends: packets
      received, lost, loss events, p, one-way delay mean and max; a total
      on stderr.  --drop-every and --hold-feedback are test hooks: discard
      every K-th data packet, delay each feedback packet by S seconds.
  tfrc.py send --to ADDR:PORT [--size BYTES] [--max-rate RATE|none]
               [--duration S] [--dscp N] [--seed N] [--start-max S]
               [--every S] [--out FILE]
      one flow for S seconds; a JSON line every --every seconds (0: one
      per feedback) in FILE (default -: stdout): X, X_recv, p, R, the rate
      sent; then a summary line on stderr (packets, bytes, mean rate, the
      final p and R).

Defaults are the TICKET paper's flows (Karlsson, §3.1): 320-byte packets,
greedy (--max-rate none); `--max-rate 64kbit` makes a PCM-like
application-limited flow.  Start the receiver first: a sender that gets
no feedback halves its one packet a second every 2 s (RFC 5348 §4.4).
Exit status: 0 done; 2 bad arguments (an address that cannot be bound
or connected included); 1 when the send side sent nothing or its socket
failed.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from schedlab import cli, netutil, tfrcnet, units  # noqa: E402

PROG = "tfrc"


def _rate(text):
    """--max-rate: "none" or a rate as the daemon reads one -> bit/s or None."""
    if text.strip().lower() == "none":
        return None
    try:
        return units.parse_rate_bps(text)
    except ValueError:
        raise tfrcnet.TfrcError("max-rate '%s': not a rate (accepted: none, or %s)"
                                % (text, units.RATE_ACCEPTED)) from None


def _parser():
    ap, rv, sd = cli.parser(PROG, __doc__, "recv")
    rv.add_argument("--duration", type=float, default=None)
    rv.add_argument("--drop-every", type=int, default=0)
    rv.add_argument("--hold-feedback", type=float, default=0.0)
    d = tfrcnet.SendSpec(dst=("", 0))
    sd.add_argument("--size", type=int, default=d.size_bytes)
    sd.add_argument("--max-rate", default="none")
    sd.add_argument("--duration", type=float, default=d.duration_s)
    sd.add_argument("--dscp", type=int, default=None)
    sd.add_argument("--seed", type=int, default=d.seed)
    sd.add_argument("--start-max", type=float, default=d.start_max_s)
    sd.add_argument("--every", type=float, default=d.every_s)
    sd.add_argument("--out", default="-")
    return ap


def _recv(a, stop):
    emit, records, close = cli.recorder(a.out)
    rx = tfrcnet.TfrcReceiver(netutil.parse_addr(a.listen, tfrcnet.TfrcError), emit,
                              drop_every=a.drop_every, hold_feedback_s=a.hold_feedback).start()
    cli.say(PROG, "receiving on port %d" % rx.port)
    stop.wait(a.duration)
    rx.stop()
    close()
    cli.say_summary(PROG, tfrcnet.summarise_receiver(records))
    return 0


def main(argv=None):
    a = _parser().parse_args(argv)
    stop = cli.stop_event()
    try:
        if a.cmd == "recv":
            if a.duration is not None and not a.duration >= 0:
                raise tfrcnet.TfrcError("duration '%s': not a duration (accepted: seconds >= 0)"
                                        % a.duration)
            return _recv(a, stop)
        spec = tfrcnet.SendSpec(dst=netutil.parse_addr(a.to, tfrcnet.TfrcError),
                                size_bytes=a.size, max_rate_bps=_rate(a.max_rate),
                                duration_s=a.duration, dscp=a.dscp, seed=a.seed,
                                start_max_s=a.start_max, every_s=a.every)
        tfrcnet.check(spec)
        emit, close = cli.jsonl_writer(a.out)
    except (tfrcnet.TfrcError, OSError) as e:
        cli.say(PROG, e)
        return 2
    try:
        summary = tfrcnet.run_sender(spec, emit, stop)
    except OSError as e:
        cli.say(PROG, e)
        return 1
    finally:
        try:
            close()
        except OSError:
            pass        # a reader that went away (| head) was reported above
    cli.say_summary(PROG, summary)
    return 0 if summary["packets"] else 1


if __name__ == "__main__":
    sys.exit(main())
