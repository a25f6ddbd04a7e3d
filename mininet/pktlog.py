#!/usr/bin/python3
"""pktlog.py - tables from schedtun's per-packet logs (schedlab.pktlog).

  pktlog.py summary LOG...
      events, drops by reason, records without an inner 5-tuple and lines
      that are not records, per file.
  pktlog.py flows LOG... [--delay-over MS] [--format text|csv|json]
      one row per inner 5-tuple over all the files given (give a sender's
      and a receiver's log to have departures and arrivals side by side):
      first/last time, packets and bytes per event, drops by reason, time
      in the scheduler and one-way delay (mean, max), packets over MS.
  pktlog.py sessions LOG... --websess BURSTS.jsonl [--delay-over MS] [...]
      the flows of websess.py's users, one row per user (its bursts' local
      ports are the flows' source ports): bursts, flows seen, bytes, drops,
      largest one-way delay, flows with a packet over MS (the DQ paper's
      sessions delayed over 120 ms).
  pktlog.py check --sender LOG --sender-stats JSONL [--receiver LOG
                  --receiver-stats JSONL] [--udp-port P --iperf JSON
                  [--iperf-tail-ms MS]]
      the logs against the daemons' stats lines (every departure and drop
      logged with its reason, arrivals = departures - losses) and, with
      --iperf, an iperf3 UDP test's received bytes against the arrivals of
      its flow (destination port P), exactly; --iperf-tail-ms MS also
      accepts up to the datagrams that arrived in the flow's last MS (the
      iperf3 server stops counting at the client's end-of-test message,
      which a per-flow scheduler may let overtake them).  Exit 1 on any
      mismatch.

Exit status: 0, 1 (check failed), 2 (bad arguments, unreadable file or not
a packet log).
"""
import argparse
import csv
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from schedlab import pktlog  # noqa: E402

PROG = "pktlog"


def _emit(rows, cols, fmt):
    if fmt == "json":
        for r in rows:
            print(json.dumps({c: r.get(c) for c in cols}))
    elif fmt == "csv":
        w = csv.writer(sys.stdout, lineterminator="\n")
        w.writerow(cols)
        for r in rows:
            w.writerow(["" if r.get(c) is None else r.get(c) for c in cols])
    else:
        print(pktlog.fmt_table(rows, cols))


def _read_all(paths):
    recs = []
    for p in paths:
        rd = pktlog.read(p)
        recs += rd.recs
        if rd.bad:
            print(f"{PROG}: {p}: {len(rd.bad)} lines are not records "
                  f"(first: line {rd.bad[0][0]}: {rd.bad[0][1]})", file=sys.stderr)
    return recs


def _check_iperf(recv_log, port, iperf_json, tail_ms=0.0):
    """An iperf3 UDP test's received datagrams and bytes (its -J report)
    against the receiver log's arrivals of its flow carrying the test's
    block size: equal, exactly, except that the iperf3 server stops
    counting when the client's end-of-test message arrives over TCP, which
    a per-flow scheduler may let overtake the last datagrams: with tail_ms,
    the log may hold more arrivals than iperf3 counted, at most those that
    arrived in the last tail_ms of the flow (taken from the log itself).
    The server's bytes are always its datagrams times the block size.
    iperf3's 4-byte UDP connect message is an arrival of the same flow that
    iperf3 does not count: reported, not compared."""
    j = json.load(open(iperf_json))
    blk = int(j["start"]["test_start"]["blksize"])
    s = j["end"].get("sum_received") or j["end"]["sum"]
    dgrams = int(s["packets"]) - int(s["lost_packets"])
    recs = [r for r in pktlog.read(recv_log).recs
            if r.event == "arr" and r.proto == 17 and r.dport == port]
    pay = [(r.len_bytes or 0) - (40 if ":" in r.src else 20) - 8 for r in recs]
    data = [r for r, p in zip(recs, pay) if p == blk]
    n = len(data)
    last_ns = max((r.t_ns for r in data), default=0)
    tail = sum(1 for r in data if r.t_ns > last_ns - tail_ms * 1e6) if tail_ms else 0
    print(f"iperf3 received {s['bytes']} bytes in {dgrams} datagrams of {blk}; "
          f"the receiver's log: {n} arrivals of {blk} bytes ({n * blk} bytes), "
          f"{tail} of them in the flow's last {tail_ms:g} ms, "
          f"{len(pay) - n} other ({sorted(set(p for p in pay if p != blk))} bytes)")
    if dgrams * blk != int(s["bytes"]) or not dgrams <= n <= dgrams + tail:
        return [f"iperf3 received {s['bytes']} bytes in {dgrams} datagrams, the "
                f"log's arrivals of UDP port {port} carried {n * blk} in {n} "
                f"(accepted: iperf3's count, plus at most the {tail} that arrived "
                f"in the flow's last {tail_ms:g} ms)"]
    return []


def _check(a):
    problems, nums = pktlog.check(a.sender, a.sender_stats, a.receiver,
                                  a.receiver_stats)
    print(json.dumps(nums, sort_keys=True))
    if a.iperf:
        problems += _check_iperf(a.receiver, a.udp_port, a.iperf, a.iperf_tail_ms)
    for p in problems:
        print(f"{PROG}: check: {p}", file=sys.stderr)
    return 1 if problems else 0


def main(argv=None):
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    sm = sub.add_parser("summary")
    sm.add_argument("logs", nargs="+")
    for name in ("flows", "sessions"):
        p = sub.add_parser(name)
        p.add_argument("logs", nargs="+")
        p.add_argument("--delay-over", type=float, default=None, metavar="MS")
        p.add_argument("--format", choices=("text", "csv", "json"), default="text")
        if name == "sessions":
            p.add_argument("--websess", required=True, metavar="BURSTS.jsonl")
    ck = sub.add_parser("check")
    ck.add_argument("--sender", required=True)
    ck.add_argument("--sender-stats", required=True)
    ck.add_argument("--receiver")
    ck.add_argument("--receiver-stats")
    ck.add_argument("--udp-port", type=int)
    ck.add_argument("--iperf")
    ck.add_argument("--iperf-tail-ms", type=float, default=0.0, metavar="MS")
    a = ap.parse_args(argv)
    if a.cmd == "check" and (bool(a.receiver) != bool(a.receiver_stats) or
                             bool(a.iperf) != bool(a.udp_port) or
                             (a.iperf and not a.receiver)):
        ap.error("--receiver goes with --receiver-stats, --iperf with "
                 "--udp-port and a receiver")
    if a.cmd == "check" and not a.iperf_tail_ms >= 0:
        ap.error(f"--iperf-tail-ms '{a.iperf_tail_ms:g}': must be >= 0 (milliseconds)")
    if getattr(a, "delay_over", None) is not None and not a.delay_over > 0:
        ap.error(f"--delay-over '{a.delay_over}': must be > 0 (milliseconds)")
    try:
        if a.cmd == "summary":
            for p in a.logs:
                print(json.dumps(pktlog.summary(pktlog.read(p))))
            return 0
        if a.cmd == "check":
            return _check(a)
        rows = pktlog.flows(_read_all(a.logs), a.delay_over)
        if a.cmd == "flows":
            _emit(rows, pktlog.FLOW_COLS, a.format)
            return 0
        with open(a.websess) as f:
            bursts = [json.loads(x) for x in f if x.strip()]
        _emit(pktlog.sessions(rows, bursts), pktlog.SESSION_COLS, a.format)
        return 0
    except (OSError, pktlog.LogError, ValueError, KeyError) as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
