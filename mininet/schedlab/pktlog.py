"""schedlab/pktlog.py - reads schedtun's per-packet log (docs/pktlog.md).

The daemon writes one CSV line per packet event when stats.packet_log is
set (include/plog/plog.h has the columns): `enq`, `dep` (with the tunnel
sequence number, the time in the scheduler and the link start), `drop`
(with the stats line's drops counter it moved) at the sender, `arr` (with
the one-way delay) at the receiver.  This module turns one or more logs
into tables:

  read(path)            records (Rec), and a Reading with the lines that
                        were not records (truncated, wrong column count,
                        bad numbers), by line number: never an exception
                        for bad content
  flows(recs)           one row per inner 5-tuple: first/last time, packets
                        and bytes per event, drops by reason, sojourn and
                        one-way delay mean/max, packets delayed over a bound
  sessions(rows, bursts) the flows grouped per web user (websess records:
                        a burst's local port is its flow's source port)
  check(...)            a sender's and a receiver's logs against their
                        daemons' stats lines (every departure and drop
                        logged, arrivals = departures - losses)
  stream(path), col_int(...)  the rows one at a time, for logs of millions
                        of lines (ticketlog, dqlog): a bad line raises
                        LogError naming FILE:LINE

Times are ns of CLOCK_REALTIME (the same clock in every network namespace
of a host, and in websess' records).
"""
import csv
import json
import math
from dataclasses import dataclass, field
from typing import Optional

HEADER = ("t_ns", "event", "class", "dscp", "proto", "src", "sport", "dst",
          "dport", "len_bytes", "seq", "sojourn_ns", "start_ns", "owd_ns",
          "verdict", "reason")
EVENTS = ("enq", "dep", "drop", "arr")
CLASSES = ("ef", "af", "cs0")
COL = {c: i for i, c in enumerate(HEADER)}
_INT_COLS = ("t_ns", "dscp", "proto", "sport", "dport", "len_bytes", "seq",
             "sojourn_ns", "start_ns", "owd_ns")


class LogError(ValueError):
    """The file is not a packet log at all (no or another header)."""


@dataclass
class Rec:
    """One event.  Optional numbers are None when the column is empty."""
    t_ns: int
    event: str
    cls: str
    dscp: Optional[int]
    proto: Optional[int]
    src: str
    sport: Optional[int]
    dst: str
    dport: Optional[int]
    len_bytes: Optional[int]
    seq: Optional[int]
    sojourn_ns: Optional[int]
    start_ns: Optional[int]
    owd_ns: Optional[int]
    verdict: str
    reason: str

    def flow(self):
        """The inner 5-tuple, or None (no valid inner packet)."""
        if self.proto is None:
            return None
        return (self.proto, self.src, self.sport, self.dst, self.dport)


@dataclass
class Reading:
    """What read() found: records and the lines that were not."""
    path: str
    recs: list = field(default_factory=list)
    bad: list = field(default_factory=list)     # (line number, why)

    def counts(self):
        """{event: n} and {reason: n} over the records."""
        ev, why = {}, {}
        for r in self.recs:
            ev[r.event] = ev.get(r.event, 0) + 1
            if r.event == "drop":
                why[r.reason] = why.get(r.reason, 0) + 1
        return ev, why


def _int(text, col):
    if text == "":
        return None
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{col} {text!r} is not an integer") from None


def parse_row(row):
    """A list of 16 strings -> Rec, or ValueError naming the bad column."""
    if len(row) != len(HEADER):
        raise ValueError(f"{len(row)} columns (expected {len(HEADER)})")
    v = dict(zip(HEADER, row))
    nums = {c: _int(v[c], c) for c in _INT_COLS}
    if nums["t_ns"] is None:
        raise ValueError("t_ns is empty")
    if v["event"] not in EVENTS:
        raise ValueError(f"event {v['event']!r} (accepted: {', '.join(EVENTS)})")
    if v["class"] not in CLASSES + ("",):
        raise ValueError(f"class {v['class']!r} (accepted: {', '.join(CLASSES)} or empty)")
    if v["event"] == "drop" and not v["reason"]:
        raise ValueError("a drop without a reason")
    return Rec(t_ns=nums["t_ns"], event=v["event"], cls=v["class"],
               dscp=nums["dscp"], proto=nums["proto"], src=v["src"],
               sport=nums["sport"], dst=v["dst"], dport=nums["dport"],
               len_bytes=nums["len_bytes"], seq=nums["seq"],
               sojourn_ns=nums["sojourn_ns"], start_ns=nums["start_ns"],
               owd_ns=nums["owd_ns"], verdict=v["verdict"], reason=v["reason"])


def read(path):
    """Reads a log.  LogError when the first line is not the header (not a
    packet log, or an empty file); any later line that is not a record
    (a file cut mid-line, garbage) is listed in Reading.bad, not raised."""
    out = Reading(path)
    with open(path, newline="", encoding="ascii", errors="replace") as f:
        first = f.readline()
        if first.rstrip("\r\n").split(",") != list(HEADER):
            raise LogError(f"{path}: not a schedtun packet log (first line "
                           f"{first[:60]!r}, expected the header "
                           f"{','.join(HEADER[:3])},...)")
        n = 1
        for line in f:
            n += 1
            if not line.endswith("\n"):
                out.bad.append((n, "truncated (no end of line)"))
                continue
            try:
                row = next(csv.reader([line]))
                out.recs.append(parse_row(row))
            except (ValueError, csv.Error, StopIteration) as e:
                out.bad.append((n, str(e) or "empty line"))
    return out


def stream(path):
    """(line number, row: a list of 16 strings) of each record of the log
    at path, read as it goes; LogError for a file that is not a packet
    log or a line without 16 columns (a run whose log is damaged is not
    measured)."""
    with open(path, newline="", encoding="ascii", errors="replace") as f:
        first = f.readline()
        if first.rstrip("\r\n").split(",") != list(HEADER):
            raise LogError("%s: not a schedtun packet log (first line %r)"
                           % (path, first[:60]))
        for n, row in enumerate(csv.reader(f), 2):
            if len(row) != len(HEADER):
                raise LogError("%s:%d: %d columns (expected %d)"
                               % (path, n, len(row), len(HEADER)))
            yield n, row


def col_int(path, n, row, col):
    """Column `col` of a stream() row as an integer; LogError naming FILE:LINE."""
    try:
        return int(row[COL[col]])
    except ValueError:
        raise LogError("%s:%d: %s %r is not an integer"
                       % (path, n, col, row[COL[col]])) from None


class _Acc:
    """Mean and max of a stream of values."""
    __slots__ = ("n", "s", "mx", "over")

    def __init__(self):
        self.n, self.s, self.mx, self.over = 0, 0, None, 0

    def add(self, v, bound):
        self.n += 1
        self.s += v
        self.mx = v if self.mx is None or v > self.mx else self.mx
        if bound is not None and v > bound:
            self.over += 1

    def mean(self):
        return self.s / self.n if self.n else None


FLOW_COLS = ("proto", "src", "sport", "dst", "dport", "class", "first_ns",
             "last_ns", "enq_pkts", "dep_pkts", "dep_bytes", "arr_pkts",
             "arr_bytes", "drop_pkts", "drops", "sojourn_mean_ms",
             "sojourn_max_ms", "owd_mean_ms", "owd_max_ms", "over_pkts",
             "verdicts")


def flows(recs, delay_over_ms=None):
    """One dict per 5-tuple (FLOW_COLS), ordered by first packet.  Records
    without a tuple (drops of invalid packets) are left out; summary()
    counts them.  delay_over_ms: count the packets whose one-way delay (or,
    in a sender-only log, time in the scheduler) exceeded it (the DQ
    paper's 120 ms)."""
    bound = None if delay_over_ms is None else delay_over_ms * 1e6
    tab = {}
    for r in recs:
        k = r.flow()
        if k is None:
            continue
        f = tab.get(k)
        if f is None:
            f = tab[k] = {"key": k, "class": r.cls, "first_ns": r.t_ns,
                          "last_ns": r.t_ns, "ev": {}, "bytes": {},
                          "drops": {}, "soj": _Acc(), "owd": _Acc(),
                          "verdicts": {}}
        f["first_ns"] = min(f["first_ns"], r.t_ns)
        f["last_ns"] = max(f["last_ns"], r.t_ns)
        f["ev"][r.event] = f["ev"].get(r.event, 0) + 1
        f["bytes"][r.event] = f["bytes"].get(r.event, 0) + (r.len_bytes or 0)
        if r.event == "drop":
            f["drops"][r.reason] = f["drops"].get(r.reason, 0) + 1
        if r.event == "dep" and r.sojourn_ns is not None:
            f["soj"].add(r.sojourn_ns, bound)
        if r.event == "arr" and r.owd_ns is not None:
            f["owd"].add(r.owd_ns, bound)
        if r.verdict and r.event in ("dep", "drop"):
            f["verdicts"][r.verdict] = f["verdicts"].get(r.verdict, 0) + 1
    rows = []
    for f in sorted(tab.values(), key=lambda f: f["first_ns"]):
        proto, src, sport, dst, dport = f["key"]
        ms = (lambda v: None if v is None else round(v / 1e6, 3))
        over = f["owd"].over if f["owd"].n else f["soj"].over
        rows.append({
            "proto": proto, "src": src, "sport": sport, "dst": dst,
            "dport": dport, "class": f["class"], "first_ns": f["first_ns"],
            "last_ns": f["last_ns"], "enq_pkts": f["ev"].get("enq", 0),
            "dep_pkts": f["ev"].get("dep", 0),
            "dep_bytes": f["bytes"].get("dep", 0),
            "arr_pkts": f["ev"].get("arr", 0),
            "arr_bytes": f["bytes"].get("arr", 0),
            "drop_pkts": f["ev"].get("drop", 0),
            "drops": ";".join(f"{k}={v}" for k, v in sorted(f["drops"].items())),
            "sojourn_mean_ms": ms(f["soj"].mean()), "sojourn_max_ms": ms(f["soj"].mx),
            "owd_mean_ms": ms(f["owd"].mean()), "owd_max_ms": ms(f["owd"].mx),
            "over_pkts": over if bound is not None else None,
            "verdicts": ";".join(f"{k}={v}" for k, v in sorted(f["verdicts"].items())),
        })
    return rows


SESSION_COLS = ("user", "bursts", "flows_seen", "first_ns", "last_ns",
                "arr_bytes", "dep_bytes", "drop_pkts", "owd_max_ms",
                "flows_over")


def sessions(flow_rows, bursts):
    """The flows of web users (websess sender records: user, local_port),
    one row per user: bursts, how many of them the log saw (as a flow whose
    source port is the burst's local port), bytes, drops, the largest
    one-way delay, and how many of its flows had a packet over the bound
    (flows(delay_over_ms=...)).  Flows of other sources are left out."""
    user_of = {}
    count = {}
    for b in bursts:
        if b.get("local_port"):
            user_of[b["local_port"]] = b["user"]
        count[b["user"]] = count.get(b["user"], 0) + 1
    tab = {}
    for f in flow_rows:
        if f["proto"] != 6:
            continue
        u = user_of.get(f["sport"])
        if u is None:
            continue
        s = tab.setdefault(u, {"user": u, "bursts": count.get(u, 0),
                               "flows_seen": 0, "first_ns": f["first_ns"],
                               "last_ns": f["last_ns"], "arr_bytes": 0,
                               "dep_bytes": 0, "drop_pkts": 0,
                               "owd_max_ms": None, "flows_over": 0})
        s["flows_seen"] += 1
        s["first_ns"] = min(s["first_ns"], f["first_ns"])
        s["last_ns"] = max(s["last_ns"], f["last_ns"])
        s["arr_bytes"] += f["arr_bytes"]
        s["dep_bytes"] += f["dep_bytes"]
        s["drop_pkts"] += f["drop_pkts"]
        if f["owd_max_ms"] is not None and (s["owd_max_ms"] is None or
                                            f["owd_max_ms"] > s["owd_max_ms"]):
            s["owd_max_ms"] = f["owd_max_ms"]
        if f["over_pkts"]:
            s["flows_over"] += 1
    return [tab[u] for u in sorted(tab)]


def summary(reading):
    """Events, drops by reason, records without a tuple, bad lines."""
    ev, why = reading.counts()
    return {"path": reading.path, "records": len(reading.recs),
            "events": ev, "drops": why,
            "untupled": sum(1 for r in reading.recs if r.flow() is None),
            "bad_lines": len(reading.bad),
            "first_bad": reading.bad[:5]}


# ---- against the daemons' stats lines -------------------------------------

def _stats_sums(path):
    """Sums the deltas of a stats file: {dotted key: total}."""
    tot = {}
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            o = json.loads(line)
            for c in CLASSES:
                for k in ("in_pkts", "out_pkts", "drop_pkts"):
                    key = f"classes.{c}.{k}"
                    tot[key] = tot.get(key, 0) + o["classes"][c][k]
                for k in ("pkts", "lost"):
                    key = f"rx.{c}.{k}"
                    tot[key] = tot.get(key, 0) + o["rx"][c][k]
            for k, v in o["drops"].items():
                tot[f"drops.{k}"] = tot.get(f"drops.{k}", 0) + v
            tot["link.out_pkts"] = tot.get("link.out_pkts", 0) + o["link"]["out_pkts"]
            lg = o.get("log") or {}
            tot["log.lost"] = tot.get("log.lost", 0) + lg.get("lost", 0)
    return tot


def check(send_log, send_stats, recv_log=None, recv_stats=None):
    """A sender's log against its stats lines (and a receiver's, if given),
    after both daemons stopped with the sender drained.  Returns a list of
    problems (empty: consistent) and the numbers compared."""
    bad, nums = [], {}
    s = read(send_log)
    st = _stats_sums(send_stats)
    ev, why = s.counts()
    nums["sender"] = {"events": ev, "drops": why}
    if s.bad:
        bad.append(f"{send_log}: {len(s.bad)} lines are not records "
                   f"(first: line {s.bad[0][0]}: {s.bad[0][1]})")
    if st.get("log.lost"):
        bad.append(f"{send_stats}: the daemon lost {st['log.lost']} records")
    for k, v in st.items():
        if k.startswith("drops.") and v != why.get(k[6:], 0):
            bad.append(f"sender drops.{k[6:]}: stats {v}, log {why.get(k[6:], 0)}")
    for k in why:
        if f"drops.{k}" not in st:
            bad.append(f"sender log drop reason {k!r} is no stats counter")
    if ev.get("dep", 0) + why.get("send_error", 0) != st["link.out_pkts"]:
        bad.append(f"sender: dep {ev.get('dep', 0)} + send_error "
                   f"{why.get('send_error', 0)} != link.out_pkts {st['link.out_pkts']}")
    for c in CLASSES:
        enq = sum(1 for r in s.recs if r.event == "enq" and r.cls == c)
        lim = sum(1 for r in s.recs if r.event == "drop" and r.cls == c
                  and r.reason == "class_limit")
        if enq + lim != st[f"classes.{c}.in_pkts"]:
            bad.append(f"sender {c}: enq {enq} + class_limit {lim} != "
                       f"in_pkts {st[f'classes.{c}.in_pkts']}")
    if recv_log is None:
        return bad, nums
    r = read(recv_log)
    rt = _stats_sums(recv_stats)
    rev, rwhy = r.counts()
    nums["receiver"] = {"events": rev, "drops": rwhy}
    if r.bad:
        bad.append(f"{recv_log}: {len(r.bad)} lines are not records")
    for k, v in rt.items():
        if k.startswith("drops.") and v != rwhy.get(k[6:], 0):
            bad.append(f"receiver drops.{k[6:]}: stats {v}, log {rwhy.get(k[6:], 0)}")
    rx = sum(rt[f"rx.{c}.pkts"] for c in CLASSES)
    if rev.get("arr", 0) != rx:
        bad.append(f"receiver: arr {rev.get('arr', 0)} != rx pkts {rx}")
    # Arrivals are departures less what the underlay lost, packet by
    # packet: (class, seq) of each arrival is a departure's.
    sent = {(x.cls, x.seq) for x in s.recs if x.event == "dep"}
    got = {(x.cls, x.seq) for x in r.recs if x.event == "arr"}
    stray = got - sent
    missing = len(sent - got)
    lost = sum(rt[f"rx.{c}.lost"] for c in CLASSES)
    nums["missing"], nums["lost"] = missing, lost
    if stray:
        bad.append(f"{len(stray)} arrivals match no departure (e.g. {sorted(stray)[:3]})")
    if missing != lost:
        bad.append(f"departures never arrived: {missing}; the receiver counted "
                   f"{lost} lost")
    return bad, nums


def fmt_table(rows, cols):
    """Aligned text of rows (dicts) in cols; None prints as '-'."""
    def cell(v):
        if v is None:
            return "-"
        if isinstance(v, float):
            return f"{v:.3f}" if not math.isnan(v) else "nan"
        return str(v)
    data = [[cell(r.get(c)) for c in cols] for r in rows]
    w = [max([len(c)] + [len(d[i]) for d in data]) for i, c in enumerate(cols)]
    out = ["  ".join(c.rjust(w[i]) for i, c in enumerate(cols))]
    out += ["  ".join(d[i].rjust(w[i]) for i in range(len(cols))) for d in data]
    return "\n".join(out)
