"""schedlab/ticketlog.py - the TICKET paper's §3 numbers from a run's packet logs.

Karlsson's §3 measures, per In-Time class, queueing delay (mean and
maximum), loss rate and throughput, over a steady-state window (20-200 s
of each run).  measure(sender_log, receiver_log, t0_ns, t1_ns, flows)
streams the two daemons' per-packet logs (docs/pktlog.md; a log of a
30 Mbit/s run holds millions of lines, so nothing is kept per packet)
and returns, for events with t0_ns <= t_ns < t1_ns:

  per class ("ef" = conforming, "af" = excess, "cs0" = background):
    sender   dep_pkts, drop_pkts, drops (by reason), loss (drops over
             dep + drops: every packet that left the scheduler either
             way inside the window, so no packet is matched across the
             window's edges), sojourn_mean_ms / sojourn_max_ms (the
             queueing delay of the paper's Figs. 3 and 5, from enqueue to
             the start on the link);
    receiver arr_pkts, arr_bytes, rate_kbps (inner IP bytes), and
             owd_mean_ms / owd_max_ms (one-way delay at the receiver:
             queueing, serialisation, the link's propagation delay);
  "per_flow_kbps": the class's received rate divided by `flows` (the
  paper's "excess throughput per flow" for af); "flow_rates_kbps": the
  af rate of each 5-tuple seen, for the spread.
With series_from_ns and bin_ns, also "series": from series_from_ns (the
traffic's start) to t1_ns in bins of bin_ns, per bin the af rate per
flow and the af, cs0 and link loss, so that a reader sees whether the
warm-up left out the start-up and the window is steady.

Pure: no Mininet, no root.  A line that is not a record raises
TicketLogError naming FILE:LINE (a run whose log is damaged is discarded,
not measured).
"""
from schedlab.pktlog import COL as _COL
from schedlab.pktlog import LogError
from schedlab.pktlog import col_int as _int
from schedlab.pktlog import stream as _rows

CLASSES = ("ef", "af", "cs0")


class TicketLogError(ValueError):
    """A log that cannot be measured (not a packet log, a bad line)."""


def _blank():
    return {"dep_pkts": 0, "drop_pkts": 0, "drops": {}, "sojourn_sum_ns": 0,
            "sojourn_max_ns": None, "arr_pkts": 0, "arr_bytes": 0, "owd_sum_ns": 0,
            "owd_max_ns": None}


def _add(a, what, v_ns):
    """Adds v_ns to a's WHAT_sum_ns and WHAT_max_ns."""
    a[what + "_sum_ns"] += v_ns
    if a[what + "_max_ns"] is None or v_ns > a[what + "_max_ns"]:
        a[what + "_max_ns"] = v_ns


def _bin(series, t):
    """The bin of time t, or None (outside the series)."""
    if series is None or not series["from"] <= t < series["to"]:
        return None
    return series["bins"][(t - series["from"]) // series["width"]]


def _scan_sender(path, t0_ns, t1_ns, acc, series):
    for n, row in _rows(path):
        ev = row[_COL["event"]]
        if ev not in ("dep", "drop"):
            continue
        t = _int(path, n, row, "t_ns")
        cls = row[_COL["class"]]
        if cls not in acc:
            continue
        b = _bin(series, t)
        if b is not None:
            b[cls][0 if ev == "dep" else 1] += 1
        if not t0_ns <= t < t1_ns:
            continue
        a = acc[cls]
        if ev == "dep":
            a["dep_pkts"] += 1
            _add(a, "sojourn", _int(path, n, row, "sojourn_ns"))
        else:
            why = row[_COL["reason"]]
            a["drop_pkts"] += 1
            a["drops"][why] = a["drops"].get(why, 0) + 1


def _scan_receiver(path, t0_ns, t1_ns, acc, af_flows, series):
    for n, row in _rows(path):
        if row[_COL["event"]] != "arr":
            continue
        t = _int(path, n, row, "t_ns")
        cls = row[_COL["class"]]
        if cls not in acc:
            continue
        b = _bin(series, t)
        if b is not None and cls == "af":
            b["af_bytes"] += _int(path, n, row, "len_bytes")
        if not t0_ns <= t < t1_ns:
            continue
        a = acc[cls]
        ln = _int(path, n, row, "len_bytes")
        a["arr_pkts"] += 1
        a["arr_bytes"] += ln
        _add(a, "owd", _int(path, n, row, "owd_ns"))
        if cls == "af":
            key = "%s:%s" % (row[_COL["src"]], row[_COL["sport"]])
            af_flows[key] = af_flows.get(key, 0) + ln


def _ms(ns):
    return None if ns is None else round(ns / 1e6, 4)


def _series(series_from_ns, t1_ns, bin_ns):
    if series_from_ns is None:
        return None
    if not bin_ns > 0 or not t1_ns > series_from_ns:
        raise TicketLogError("series from %s ns in bins of %s ns: empty (accepted: a "
                             "start before the window's end, bins > 0)"
                             % (series_from_ns, bin_ns))
    nb = -(-(t1_ns - series_from_ns) // bin_ns)
    return {"from": series_from_ns, "to": t1_ns, "width": bin_ns,
            "bins": [{"ef": [0, 0], "af": [0, 0], "cs0": [0, 0], "af_bytes": 0}
                     for _ in range(nb)]}


def _series_out(series, flows):
    def loss(dep, drop):
        return round(drop / (dep + drop), 6) if dep + drop else None
    out = {"from_ns": series["from"], "bin_s": series["width"] / 1e9,
           "af_kbps_per_flow": [], "af_loss": [], "cs0_loss": [], "link_loss": []}
    for i, b in enumerate(series["bins"]):
        width = min(series["width"], series["to"] - series["from"] - i * series["width"])
        out["af_kbps_per_flow"].append(round(b["af_bytes"] * 8 / (width / 1e9) / 1e3
                                             / flows, 3))
        out["af_loss"].append(loss(*b["af"]))
        out["cs0_loss"].append(loss(*b["cs0"]))
        out["link_loss"].append(loss(sum(b[c][0] for c in CLASSES),
                                     sum(b[c][1] for c in CLASSES)))
    return out


def measure(sender_log, receiver_log, t0_ns, t1_ns, flows, series_from_ns=None,
            bin_ns=10 * 10**9):
    """The window's numbers (module doc); flows: the number of In-Time
    (TFRC) flows that share the ef and af rates."""
    if not t1_ns > t0_ns:
        raise TicketLogError("window [%d, %d) ns: empty (accepted: t1 > t0)" % (t0_ns, t1_ns))
    if flows < 1:
        raise TicketLogError("flows %r: not a count (accepted: 1 or more)" % (flows,))
    acc = {c: _blank() for c in CLASSES}
    af_flows = {}
    series = _series(series_from_ns, t1_ns, bin_ns)
    try:
        _scan_sender(sender_log, t0_ns, t1_ns, acc, series)
        _scan_receiver(receiver_log, t0_ns, t1_ns, acc, af_flows, series)
    except (OSError, LogError) as e:
        raise TicketLogError(str(e)) from None
    span_s = (t1_ns - t0_ns) / 1e9
    out = {"window_ns": [t0_ns, t1_ns], "flows": flows, "classes": {}}
    for c, a in acc.items():
        left = a["dep_pkts"] + a["drop_pkts"]
        rate_kbps = a["arr_bytes"] * 8 / span_s / 1e3
        out["classes"][c] = {
            "dep_pkts": a["dep_pkts"], "drop_pkts": a["drop_pkts"],
            "drops": dict(sorted(a["drops"].items())),
            "loss": a["drop_pkts"] / left if left else None,
            "sojourn_mean_ms": _ms(a["sojourn_sum_ns"] / a["dep_pkts"]) if a["dep_pkts"]
            else None,
            "sojourn_max_ms": _ms(a["sojourn_max_ns"]),
            "arr_pkts": a["arr_pkts"], "arr_bytes": a["arr_bytes"],
            "rate_kbps": round(rate_kbps, 3),
            "per_flow_kbps": round(rate_kbps / flows, 3),
            "owd_mean_ms": _ms(a["owd_sum_ns"] / a["arr_pkts"]) if a["arr_pkts"] else None,
            "owd_max_ms": _ms(a["owd_max_ns"]),
        }
    out["flow_rates_kbps"] = sorted(round(b * 8 / span_s / 1e3, 3) for b in af_flows.values())
    if series is not None:
        out["series"] = _series_out(series, flows)
    return out
