"""schedlab/pdrrlog.py - the PDRR paper's numbers from one Mininet run's files.

Kortebi, Oueslati and Roberts (2005) measure, on a 10 Mbit/s link under
PDRR or DRR: the delay of UDP packets (Fig. 3 left: its complementary
distribution, against an M/M/1 queue at the priority load), and in
overload (§5) the AFL length and the priority load over time (Fig. 4),
the fair rate, the UDP delay's mean, the TCP flows' mean throughput and
their blocking probability.  Here, from the sender daemon's files:

  sender(path, w0, w1, udp_port, tcp_port, link_bps)
      the per-packet log (docs/pktlog.md), streamed: the UDP packets'
      wait in the scheduler (`sojourn_ns` of their `dep`: enqueue to the
      start of transmission, the W of the paper's M/M/1 formula) over
      departures in [w0, w1): mean, p50, p99, max and P(W > t) at GRID_MS;
      the share of them that PDRR sent through its priority queue (the
      log's verdict `pq`); the link's departures (utilisation; the bytes
      through PQ; Cobham's residual term R = sum over departures of
      tx^2 / 2, over the window, tx = len x 8 / C); the offered load
      (bytes enqueued, and dropped on arrival: a drop without a sojourn);
      the most common length of the TCP data packets; drops by class and
      reason; and, over the whole log, the flows (source address and
      port) that had a packet refused by admission.
  stats(path, offset_s, w0_s, w1_s, link_bps, max_flows, admit_bps, bin_s, end_s)
      the stats lines (docs/stats-format.md; "sched" is PDRR's): over the
      window, AFL length mean/max, fair rate mean/min (smoothed, as
      admission sees it), the priority load (PQ's bytes over C), PQ's mean
      packet, push-outs, refusals; when the AFL first reached max_flows
      and the fair rate first fell under admit_bps; and a series in bins
      of bin_s from the traffic's start to end_s (Fig. 4).
  transfers(records, sink, w0, w1, refused, bytes_scale)
      the TCP transfers (websess records, each with its host's "src")
      that arrived in [w0, w1): by status, the mean throughput of the
      completed ones (size x 8 / arrival to the sink's reply: the paper's
      TCP throughput) and of all of them (a cut one at what the sink got),
      and the blocked ones (a packet refused by admission during the
      transfer: the blocking probability; and before it connected).
  udp_flows(records, refused)
      the on-off flows, and those with a packet refused in their life.
  theory(udp, link, stats, link_bps)
      Cobham's M/G/1 non-preemptive priority mean E[W] = R / (1 - rho)
      and the paper's M/M/1 line P(W > t) = rho exp(-(1 - rho) t C / 8 s)
      at the priority load rho and PQ's mean packet s.

Pure: no Mininet, no root.  A bad log line raises PdrrLogError naming
FILE:LINE (such a run is discarded, not measured).
"""
import bisect
import json
import math
from array import array

from schedlab.pktlog import COL as _COL
from schedlab.pktlog import LogError
from schedlab.pktlog import col_int as _int
from schedlab.pktlog import stream as _rows

GRID_MS = (0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1, 1.5, 2, 3, 5, 7.5, 10, 15, 20,
           30, 50, 75, 100, 150, 200, 300, 500, 750, 1000, 1500, 2000)
TCP, UDP = 6, 17


class PdrrLogError(ValueError):
    """Files that cannot be measured (not a packet log, a bad line)."""


def _quantile(xs, q):
    """xs sorted; the value at rank ceil(q n) (nearest rank), or None."""
    if not xs:
        return None
    return xs[min(len(xs) - 1, max(0, math.ceil(q * len(xs)) - 1))]


def _port(path, n, row, col):
    """A port column: an int, or None where the packet has none (ICMP, a
    non-first fragment)."""
    return _int(path, n, row, col) if row[_COL[col]] != "" else None


def sender(path, w0, w1, udp_port, tcp_port, link_bps):
    """(numbers, refusals) of the sender log (module doc): refusals maps
    (source address, source port) to the times of its packets refused by
    admission, over the whole log; PdrrLogError."""
    waits = array("q")
    udp_pq = 0
    dep_pkts = dep_bytes = pq_bytes = offered_bytes = 0
    tx2_sum_s2 = 0.0
    tcp_lens = {}
    drops = {}
    class_bytes = {}
    refused = {}
    try:
        for n, row in _rows(path):
            ev = row[_COL["event"]]
            if ev not in ("enq", "dep", "drop"):
                continue
            t = _int(path, n, row, "t_ns")
            inside = w0 <= t < w1
            if ev == "enq":
                # every packet past its class limit is logged `enq` first,
                # also one the scheduler then refuses (admission)
                if inside:
                    offered_bytes += _int(path, n, row, "len_bytes")
                continue
            if ev == "drop":
                reason = row[_COL["reason"]]
                if reason == "admission":
                    key = (row[_COL["src"]], _port(path, n, row, "sport"))
                    refused.setdefault(key, []).append(t)
                if inside:
                    if reason == "class_limit":      # refused before its `enq`
                        offered_bytes += _int(path, n, row, "len_bytes")
                    by = drops.setdefault(row[_COL["class"]], {})
                    by[reason] = by.get(reason, 0) + 1
                continue
            if not inside:
                continue
            ln = _int(path, n, row, "len_bytes")
            dep_pkts += 1
            dep_bytes += ln
            cls = row[_COL["class"]]
            class_bytes[cls] = class_bytes.get(cls, 0) + ln
            tx = ln * 8 / link_bps
            tx2_sum_s2 += tx * tx
            pq = row[_COL["verdict"]] == "pq"
            if pq:
                pq_bytes += ln
            proto = row[_COL["proto"]]
            dport = _port(path, n, row, "dport")
            if proto == str(UDP) and dport == udp_port:
                waits.append(_int(path, n, row, "sojourn_ns"))
                udp_pq += pq
            elif proto == str(TCP) and dport == tcp_port and ln > 100:
                tcp_lens[ln] = tcp_lens.get(ln, 0) + 1
    except (LogError, OSError) as e:
        raise PdrrLogError(str(e)) from None
    span_s = (w1 - w0) / 1e9
    ws = sorted(waits)
    k = len(ws)
    udp = {"pkts": k, "pq_share": udp_pq / k if k else None,
           "wait_mean_ms": sum(ws) / k / 1e6 if k else None,
           "wait_p50_ms": None if not k else _quantile(ws, 0.5) / 1e6,
           "wait_p99_ms": None if not k else _quantile(ws, 0.99) / 1e6,
           "wait_max_ms": None if not k else ws[-1] / 1e6,
           "ccdf": [None if not k else _above(ws, t_ms * 1e6) / k for t_ms in GRID_MS]}
    link = {"dep_pkts": dep_pkts, "dep_bytes": dep_bytes,
            "utilisation": dep_bytes * 8 / (link_bps * span_s),
            "offered_bps": offered_bytes * 8 / span_s,
            "pq_load_log": pq_bytes * 8 / (link_bps * span_s),
            "cobham_r_ms": tx2_sum_s2 / 2 / span_s * 1e3,
            "class_bps": {c: b * 8 / span_s for c, b in sorted(class_bytes.items())}}
    mode = max(tcp_lens.items(), key=lambda kv: (kv[1], kv[0]))[0] if tcp_lens else None
    for times in refused.values():
        times.sort()
    return {"udp": udp, "link": link, "tcp_data_len_bytes": mode,
            "tcp_data_len_share": tcp_lens.get(mode, 0) / sum(tcp_lens.values())
            if tcp_lens else None, "drops": drops}, refused


def refused_between(refused, key, t0_ns, t1_ns):
    """Whether the flow `key` had a packet refused in [t0_ns, t1_ns]
    (refused: sender()'s map; t1_ns None: no end)."""
    times = refused.get(key)
    if not times:
        return False
    i = bisect.bisect_left(times, t0_ns)
    return i < len(times) and (t1_ns is None or times[i] <= t1_ns)


def _above(sorted_ns, t_ns):
    """How many of sorted_ns exceed t_ns (binary search)."""
    lo, hi = 0, len(sorted_ns)
    while lo < hi:
        mid = (lo + hi) // 2
        if sorted_ns[mid] <= t_ns:
            lo = mid + 1
        else:
            hi = mid
    return len(sorted_ns) - lo


def _lines(path):
    try:
        with open(path) as f:
            for n, ln in enumerate(f, 1):
                if not ln.endswith("\n") or not ln.strip():
                    continue          # the last line of a killed daemon
                try:
                    yield json.loads(ln)
                except ValueError as e:
                    raise PdrrLogError("%s:%d: not a stats line (%s)" % (path, n, e)) from None
    except OSError as e:
        raise PdrrLogError(str(e)) from None


def stats(path, offset_s, w0_s, w1_s, link_bps, max_flows, admit_bps, bin_s=5.0,
          end_s=None):
    """The stats lines' numbers (module doc); times in s of traffic time
    (a line's "t" minus offset_s, the end of its interval); the series
    runs from 0 to end_s (default w1_s)."""
    end_s = w1_s if end_s is None else end_s
    win = {"lines": 0, "afl_sum": 0, "afl_max": 0, "fair_sum": 0, "fair_min": None,
           "pq_out_bytes": 0, "pq_out_pkts": 0, "pushout": 0, "admission": 0,
           "sched_limit": 0, "rejected_flows": 0, "afl_full_pkts": 0}
    saturated_s = under_s = None
    bins = {}
    for j in _lines(path):
        sc = j.get("sched")
        if not isinstance(sc, dict) or "fair_rate_bps" not in sc:
            continue
        t = float(j["t"]) - offset_s
        afl, fair = int(sc["flows"]), int(sc["fair_rate_bps"])
        if 0 < t <= end_s:
            if saturated_s is None and afl >= max_flows:
                saturated_s = t
            if under_s is None and fair < admit_bps:
                under_s = t
            b = bins.setdefault(int((t - 1e-9) // bin_s), {"afl": [], "fair": [],
                                                           "pq_bytes": 0, "pq_pkts": []})
            b["afl"].append(afl)
            b["fair"].append(fair)
            b["pq_bytes"] += int(sc["pq_out_bytes"])
            b["pq_pkts"].append(int(sc["pq_pkts"]))
        if not w0_s < t <= w1_s:
            continue
        win["lines"] += 1
        win["afl_sum"] += afl
        win["afl_max"] = max(win["afl_max"], afl)
        win["fair_sum"] += fair
        win["fair_min"] = fair if win["fair_min"] is None else min(win["fair_min"], fair)
        win["pq_out_bytes"] += int(sc["pq_out_bytes"])
        win["pq_out_pkts"] += int(sc["pq_out_pkts"])
        win["rejected_flows"] += int(sc["rejected_flows"])
        win["afl_full_pkts"] += int(sc["afl_full_pkts"])
        for k in ("pushout", "admission", "sched_limit"):
            win[k] += int(sc["drops"][k])
    n = win["lines"]
    if not n:
        raise PdrrLogError("%s: no PDRR stats line in the window %g-%g s" % (path, w0_s, w1_s))
    span = w1_s - w0_s
    series = []
    for i in sorted(bins):
        b = bins[i]
        series.append([round((i + 1) * bin_s, 3), round(sum(b["afl"]) / len(b["afl"]), 1),
                       max(b["afl"]), round(sum(b["fair"]) / len(b["fair"])),
                       round(b["pq_bytes"] * 8 / (link_bps * bin_s), 4), max(b["pq_pkts"])])
    return {"afl_mean": win["afl_sum"] / n, "afl_max": win["afl_max"],
            "fair_mean_bps": win["fair_sum"] / n, "fair_min_bps": win["fair_min"],
            "pq_load": win["pq_out_bytes"] * 8 / (link_bps * span),
            "pq_mean_bytes": win["pq_out_bytes"] / win["pq_out_pkts"]
            if win["pq_out_pkts"] else None,
            "pq_out_pkts": win["pq_out_pkts"], "pushout": win["pushout"],
            "admission_drops": win["admission"], "sched_limit": win["sched_limit"],
            "rejected_flows": win["rejected_flows"], "afl_full_pkts": win["afl_full_pkts"],
            "afl_saturated_s": saturated_s, "fair_under_admit_s": under_s,
            "lines": n, "series_cols": ["t_s", "afl_mean", "afl_max", "fair_bps",
                                        "pq_load", "pq_pkts_max"],
            "series": series}


def transfers(records, sink, w0, w1, refused, bytes_scale=1.0):
    """The TCP transfers that arrived in [w0, w1) (module doc).  records:
    websess sender records, each with "src" (its host's address); sink:
    the sink's records (peer, burst, bytes), which say what a cut
    transfer delivered; bytes_scale turns a transfer's payload bytes into
    the IP bytes it puts on the link (1000 / 948 for the paper's packets).
    A transfer joins its sink record on (address, user, burst), its
    refusals on (address, local port).
    Throughput: "completed", over the completed transfers (the paper's);
    "all", over every transfer that was sent, a cut or failed one at the
    bytes the sink got until it closed (so a run where transfers never
    finish shows it).  Blocked: a packet refused by admission between
    the transfer's start and its close; at set-up: before it connected."""
    got = {}
    for r in sink:
        if r.get("burst") is not None:
            got[(r["peer"], r["user"], r["burst"])] = r["bytes"]
    mine = [r for r in records if w0 <= r["start_ns"] < w1]
    by_status = {}
    done_rates, all_rates = [], []
    blocked = at_setup = 0
    for r in mine:
        st = r["status"].split(":", 1)[0]
        by_status[st] = by_status.get(st, 0) + 1
        if st == "refused":                   # the sender's cap: never sent
            continue
        close = r.get("closed_ns") or r["end_ns"]
        key = (r["src"], r["local_port"])
        if refused_between(refused, key, r["start_ns"], close):
            blocked += 1
        if refused_between(refused, key, r["start_ns"], r["connected_ns"] or close):
            at_setup += 1
        if st == "ok" and r["end_ns"] > r["start_ns"]:
            rate = r["size_bytes"] * bytes_scale * 8 / ((r["end_ns"] - r["start_ns"]) / 1e9)
            done_rates.append(rate)
            all_rates.append(rate)
        elif close and close > r["start_ns"]:
            all_rates.append(got.get((r["src"], r["user"], r["burst"]), 0) * bytes_scale * 8
                             / ((close - r["start_ns"]) / 1e9))
    n = len(mine)
    sent = n - by_status.get("refused", 0)
    return {"arrived": n, "by_status": by_status, "completed": len(done_rates),
            "completed_share": len(done_rates) / sent if sent else None,
            "throughput_mean_bps": sum(done_rates) / len(done_rates) if done_rates else None,
            "throughput_all_mean_bps": sum(all_rates) / len(all_rates) if all_rates else None,
            "blocked": blocked, "blocking": blocked / sent if sent else None,
            "blocked_setup": at_setup, "blocking_setup": at_setup / sent if sent else None,
            "size_mean_bytes": sum(r["size_bytes"] for r in mine) / n if n else None}


def udp_flows(records, refused):
    """The on-off flows (onoff sender records with "src"): how many, and
    how many had a packet refused by admission in their life."""
    hit = sum(1 for r in records if refused_between(
        refused, (r["src"], r["local_port"]), r["birth_ns"], r.get("death_ns")))
    return {"flows": len(records), "refused_flows": hit}


def theory(udp, link, st, link_bps):
    """Cobham's mean and the paper's M/M/1 CCDF at GRID_MS (module doc)."""
    rho, s = st["pq_load"], st["pq_mean_bytes"]
    if s is None or not 0 <= rho < 1:        # no PQ (plain DRR), or saturated
        return {"rho": rho, "pq_mean_bytes": s, "cobham_mean_ms": None, "mm1_ccdf": None,
                "mm1_mean_ms": None, "udp_wait_mean_ms": udp["wait_mean_ms"]}
    mu = link_bps / (8 * s)                      # PQ packets a second
    mm1 = [rho * math.exp(-(1 - rho) * mu * t_ms / 1e3) for t_ms in GRID_MS]
    return {"rho": rho, "pq_mean_bytes": s,
            "cobham_mean_ms": link["cobham_r_ms"] / (1 - rho), "mm1_ccdf": mm1,
            "mm1_mean_ms": rho / ((1 - rho) * mu) * 1e3,
            "udp_wait_mean_ms": udp["wait_mean_ms"]}
