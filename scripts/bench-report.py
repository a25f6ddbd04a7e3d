#!/usr/bin/python3
"""bench-report.py - the numbers of scripts/bench.sh: one row per run while
it measures, then the report, the targets table and results.json.

bench.sh calls the row commands; `report` can be re-run on a finished
results directory (it reads only the files bench.sh left there):

  bench-report.py meta OUT KEY=VALUE...           OUT/meta.json (the machine, the build)
  bench-report.py iperf-row OUT/MODE FWD KIND REP IPERF_JSON
  bench-report.py paced-row OUT/MODE KEY=VALUE...
  bench-report.py mix-row OUT/MODE KEY=VALUE...
  bench-report.py plain-mix-row OUT/MODE KEY=VALUE...
  bench-report.py report OUT [--json FILE]        prints the report, writes OUT/results.json

Every row is one JSON object appended to a .jsonl file of the mode's
directory (OUT/unpinned, OUT/pinned); a number that could not be measured
is null with the reason in "why".
"""
import datetime
import json
import math
import os
import platform
import subprocess
import sys

MODES = ("unpinned", "pinned")
CLASSES = ("ef", "af", "cs0")


# ------------------------------------------------------------------ stats lines
# (docs/stats-format.md: one object per interval, counters are deltas over
# it, `t` its end in seconds since the daemon started)
def g(d, *keys, default=0.0):
    """Nested get with a default: g(rec, 'classes', 'ef', 'out_bytes')."""
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            return default
        d = d[k]
    return d if d is not None else default


def read_stats(path):
    """The stats objects of a daemon's file; blank and torn lines (a
    daemon killed mid-write) are skipped."""
    recs = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if isinstance(obj, dict) and "t" in obj:
                recs.append(obj)
    return recs


def intervals(recs):
    """(t_end, dt, rec) per record, dt from the previous t (the first from
    the daemon's start, t = 0); records with dt <= 0 are dropped."""
    out, prev = [], 0.0
    for r in recs:
        t = float(r["t"])
        if t - prev > 1e-6:
            out.append((t, t - prev, r))
        prev = t
    return out


def in_window(ivs, start, end):
    """The intervals lying inside [start, end] (daemon time, s), 1 ms slack."""
    return [(t, dt, r) for t, dt, r in ivs if t - dt >= start - 1e-3 and t <= end + 1e-3]


def window_summary(ivs):
    """The sender's link over its window intervals: duration_s,
    link_out_mbit (carried), late_p99_us_mean (the interval p99s of the
    departure lateness weighted by packets sent) and late_p99_us_max."""
    dur = sum(dt for _, dt, _ in ivs)
    out_bits = 8.0 * sum(float(g(r, "link", "out_bytes")) for _, _, r in ivs)
    pk = [(float(g(r, "link", "late_us", "p99")), float(g(r, "link", "out_pkts")))
          for _, _, r in ivs]
    n = sum(w for _, w in pk if w > 0)
    return {"duration_s": dur,
            "link_out_mbit": out_bits / dur / 1e6 if dur > 0 else 0.0,
            "late_p99_us_mean": sum(v * w for v, w in pk if w > 0) / n if n > 0 else None,
            "late_p99_us_max": max((v for v, _ in pk), default=0.0)}

# Issue 10's targets.  kind: ">=" / "<=" on the measured value, "abs<=" on
# its magnitude, None for an informative row (no target).
TARGETS = [
    ("paced_1g_stats", "paced 1 Gbit/s, fifo, 5 ms, 4 cubic: carried (daemon stats)",
     ">=", 0.97, "Gbit/s"),
    ("paced_1g_iperf", "paced 1 Gbit/s: carried (iperf3 receiver, TCP payload)",
     ">=", 0.93, "Gbit/s"),
    ("paced_1g_error", "paced 1 Gbit/s: pacing error (carried/configured - 1)",
     "abs<=", 0.1, "%"),
    ("paced_max", "highest paced rate with |error| <= 0.1 % (saturated)",
     ">=", 2.0, "Gbit/s"),
    ("tcp_vs_plain", "unpaced TCP, 1 cubic flow: schedtun / plainfwd", ">=", 4.0, "x"),
    ("udp_vs_plain", "unpaced 64-byte UDP delivered: schedtun / plainfwd", ">=", 1.5, "x"),
    ("tcp_vs_veth", "unpaced TCP: schedtun / veth alone", None, None, "x"),
    ("udp_vs_veth", "unpaced 64-byte UDP: schedtun / veth alone", None, None, "x"),
    ("cpu_20m", "CPU at 20 Mbit/s mix, both daemons / both plainfwd", "<=", 1.5, "x"),
    ("late_p99", "departure lateness p99 / timer floor p99 (20 Mbit/s mix)",
     "<=", 2.0, "x"),
]


# ------------------------------------------------------------------ helpers
def kv(args):
    out = {}
    for a in args:
        k, sep, v = a.partition("=")
        if not sep:
            sys.exit(f"bench-report: expected KEY=VALUE, got {a!r}")
        out[k] = v
    return out


def append(path, row):
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(row) + "\n")


def load_jsonl(path):
    rows = []
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    rows.append(json.loads(line))
    except (OSError, ValueError):
        pass
    return rows


def load_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def fnum(x):
    """float or None (for NaN, None, unparsable)."""
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(v) or math.isinf(v) else v


def fmt(v, spec, none="n/a"):
    return none if v is None else format(v, spec)


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def side(s0, s1, wall):
    """One forwarder's numbers over the window from two fwd_sample lines
    (bench.sh): cpu_ns voluntary_cs nonvoluntary_cs tun_rx_pkts tun_tx_pkts
    tun_rx_bytes tun_tx_bytes tun_tx_dropped udp_rcvbuf_errors."""
    try:
        a = [int(x) for x in s0.split()]
        b = [int(x) for x in s1.split()]
        cpu, vcs, _ivcs, rxp, txp, _rxb, txb, tun_drop, rcvbuf = [y - x for x, y in zip(a, b)]
    except ValueError:
        return None
    if wall <= 0:
        return None
    pkts = rxp + txp
    return {"cpu_pct": cpu / 1e9 / wall * 100.0,      # % of one core
            "wake_s": vcs / wall,                      # sleeps per s
            "tun_pps": pkts / wall,                    # read + written
            "tun_read_mbit": txb * 8.0 / wall / 1e6,
            "tun_queue_drops": tun_drop,               # the tun's queue was full
            "udp_rcvbuf_errors": rcvbuf}               # a UDP socket was full


def per_k(cpu_pct, pps):
    """CPU time per 1000 packets in ms (= us per packet)."""
    return cpu_pct / 100.0 / pps * 1e6 if cpu_pct is not None and pps else None


def failed_clients(prefix, classes):
    failed = []
    for c in classes:
        d = load_json(f"{prefix}-{c}.json")
        if d is None or "error" in d:
            failed.append(c)
    return failed


# TCP/UDP counters of a namespace worth a look when a flow falls short
# (names as in /proc/net/snmp and /proc/net/netstat).
NET_COUNTERS = ("Tcp.RetransSegs", "Tcp.InErrs", "Udp.RcvbufErrors", "Udp.SndbufErrors",
                "TcpExt.TCPTimeouts", "TcpExt.TCPLossProbes", "TcpExt.TCPSpuriousRTOs",
                "TcpExt.TCPFastRetrans", "TcpExt.TCPSlowStartRetrans", "TcpExt.TCPSACKReorder",
                "TcpExt.TCPRcvQDrop", "TcpExt.TCPBacklogDrop", "TcpExt.TCPOFOQueue",
                "TcpExt.TCPOFODrop", "TcpExt.TCPZeroWindowDrop", "TcpExt.TCPRcvCoalesce",
                "TcpExt.PruneCalled", "TcpExt.RcvPruned")


def net_counters(path):
    """{"Group.Name": value} from a copy of /proc/net/snmp + netstat."""
    out = {}
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except OSError:
        return out
    for head, vals in zip(lines[::2], lines[1::2]):
        h, v = head.split(), vals.split()
        if h and v and h[0] == v[0]:
            for name, val in zip(h[1:], v[1:]):
                try:
                    out[h[0].rstrip(":") + "." + name] = int(val)
                except ValueError:
                    pass
    return out


def net_deltas(prefix, side_):
    a, b = net_counters(f"{prefix}-{side_}0"), net_counters(f"{prefix}-{side_}1")
    return {k: b[k] - a[k] for k in NET_COUNTERS if k in a and k in b and b[k] != a[k]}


def cpu_busy(prefix):
    """Per CPU over the window, in %: busy (user + system + irq + softirq:
    the work at normal priority, ours), nice (niced processes: a fuzzer,
    a build), steal (the hypervisor's), from two cpu_snap copies of
    /proc/stat."""
    def snap(path):
        out = {}
        try:
            with open(path, encoding="utf-8") as f:
                for line in f:
                    x = line.split()
                    out[x[0]] = [int(v) for v in x[1:9]]
        except (OSError, ValueError):
            pass
        return out
    a, b = snap(prefix + "0"), snap(prefix + "1")
    res = {}
    for cpu in sorted(set(a) & set(b)):
        d = [y - x for x, y in zip(a[cpu], b[cpu])]
        tot = sum(d)
        if tot <= 0:
            continue
        user, nice, system, _idle, _iowait, irq, softirq, steal = d
        res[cpu] = {"busy": (user + system + irq + softirq) * 100.0 / tot,
                    "nice": nice * 100.0 / tot, "steal": steal * 100.0 / tot}
    return res


def cpu_text(busy):
    return ", ".join(f"{c} {v['busy']:.0f} %" + (f" (+{v['nice']:.0f} % niced)" if v["nice"] >= 1 else "")
                     + (f" (+{v['steal']:.0f} % stolen)" if v["steal"] >= 1 else "")
                     for c, v in busy.items()) or "n/a"


def window_ivs(stats, t0, t1):
    try:
        return in_window(intervals(read_stats(stats)), t0, t1)
    except OSError:
        return []


def fwd_pps(ivs):
    """Packets forwarded (sent on the link + written to the tun) per s."""
    dur = sum(dt for _, dt, _ in ivs)
    n = sum(g(r, "link", "out_pkts") + sum(g(r, "rx", c, "pkts") for c in CLASSES)
            for _, _, r in ivs)
    return n / dur if dur > 0 else None


def counters(ivs, group):
    """Sum over the window of every counter of the stats group (drops, io)."""
    tot = {}
    for _, _, r in ivs:
        for k, v in (r.get(group) or {}).items():
            if isinstance(v, (int, float)):
                tot[k] = tot.get(k, 0) + v
    return tot


def saturation(ivs):
    """How many intervals of the window the link was saturated in.  An
    interval counts as saturated when it ended with packets in the
    scheduler (sum of classes' qlen_pkts > 0) or dropped packets at a queue
    (classes' drop_pkts > 0): the scheduler had work when the pacer
    looked, so the link, not the offered load, set the carried rate.  The
    snapshot is taken once per interval, at its end; a queue that ran dry
    in between and refilled is not seen."""
    n = 0
    for _, _, r in ivs:
        q = sum(g(r, "classes", c, "qlen_pkts") for c in CLASSES)
        d = sum(g(r, "classes", c, "drop_pkts") for c in CLASSES)
        n += 1 if q > 0 or d > 0 else 0
    return n


def sides(kw):
    """The two forwarders' numbers over the window (side() of A, of B)."""
    wall = float(kw["u1"]) - float(kw["u0"])
    return (side(kw["sa0"], kw["sa1"], wall), side(kw["sb0"], kw["sb1"], wall))


def sched_window(kw):
    """The sender's and receiver's stats intervals inside the window, and
    window_summary() of the sender's."""
    u0, u1 = float(kw["u0"]), float(kw["u1"])
    sa, sb = float(kw["start_a"]), float(kw["start_b"])
    ivs_a = window_ivs(kw["stats_a"], u0 - sa, u1 - sa)
    ivs_b = window_ivs(kw["stats_b"], u0 - sb, u1 - sb)
    return ivs_a, ivs_b, window_summary(ivs_a) if ivs_a else None


# ------------------------------------------------------------------ rows
def cmd_meta(out, args):
    kw = kv(args)
    model = "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    build_type = "unknown"
    try:
        with open(os.path.join(kw.get("build_dir", ""), "CMakeCache.txt"), encoding="utf-8") as f:
            for line in f:
                if line.startswith("CMAKE_BUILD_TYPE:"):
                    build_type = line.split("=", 1)[1].strip() or "(none)"
    except OSError:
        pass

    def git(*a):
        try:
            return subprocess.run(["git", "-C", kw.get("root", "."), *a], capture_output=True,
                                  text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return ""
    commit = git("rev-parse", "--short=12", "HEAD") or "unknown"
    if git("status", "--porcelain", "--untracked-files=no"):
        commit += "-dirty"
    try:
        iperf = subprocess.run(["iperf3", "--version"], capture_output=True, text=True).stdout
        iperf = iperf.split("\n")[0].strip()
    except OSError:
        iperf = "unknown"
    with open("/proc/loadavg", encoding="utf-8") as f:
        load = f.read().split()[:3]
    meta = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": commit,
        "nproc": len(os.sched_getaffinity(0)),
        "cpu_model": model,
        "kernel": platform.release(),
        "build_type": build_type,
        "iperf3": iperf,
        "loadavg_at_start": " ".join(load),
    }
    meta.update({k: v for k, v in kw.items() if k not in ("root", "build_dir")})
    with open(os.path.join(out, "meta.json"), "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=1)
        f.write("\n")


def cmd_iperf_row(md, args):
    fwd, kind, rep, path = args
    d = load_json(path)
    row = {"fwd": fwd, "kind": kind, "rep": int(rep), "value": None}
    if d is None:
        row["why"] = "no iperf3 JSON"
    elif "error" in d:
        row["why"] = "iperf3: " + str(d["error"])
    else:
        end = d.get("end", {})
        rx = end.get("sum_received") or {}
        if kind == "udp":
            # delivered datagrams = bytes received / 64, over the receiver's time
            if rx.get("seconds"):
                row["value"] = rx["bytes"] / 64 / rx["seconds"]
            sent = end.get("sum_sent") or end.get("sum") or {}
            if sent.get("seconds"):
                row["sent_pps"] = sent.get("packets", 0) / sent["seconds"]
            row["unit"] = "pkt/s"
        else:
            if "bits_per_second" in rx:
                row["value"] = rx["bits_per_second"] / 1e6
            row["retransmits"] = (end.get("sum_sent") or {}).get("retransmits")
            row["unit"] = "Mbit/s"
        if row["value"] is None:
            row["why"] = "no receiver summary in the iperf3 JSON"
    row["cpus"] = cpu_busy(path + "-cpu")
    append(os.path.join(md, "compare.jsonl"), row)
    what = {"tcp": "TCP 1 flow", "tcp4": "TCP 4 flows", "udp": "UDP 64 B"}[kind]
    extra = ""
    if kind == "udp" and row.get("sent_pps") is not None:
        extra = f" delivered ({row['sent_pps']:.0f} pkt/s sent)"
    elif kind != "udp" and row.get("retransmits") is not None:
        extra = f" ({row['retransmits']} retransmits)"
    print(f"    {fwd:<8} {what:<12} rep {rep}: {fmt(row['value'], '12.1f')} "
          f"{row.get('unit', '')}{extra}{'  ' + row['why'] if 'why' in row else ''}; "
          f"CPUs busy: {cpu_text(row['cpus'])}")


def sched_row(args):
    """What a schedtun pair's run row starts from: its arguments, both
    sides' numbers, the stats windows, the row's common members."""
    kw = kv(args)
    A, B = sides(kw)
    ivs_a, ivs_b, summ = sched_window(kw)
    row = {"rate": kw["rate"], "bps": float(kw["bps"]), "intervals": len(ivs_a),
           "carried_bps": None, "error_pct": None,
           "cpu_a_pct": A and A["cpu_pct"], "cpu_b_pct": B and B["cpu_pct"],
           "late_p99_us": None, "cpus": cpu_busy(kw["net"] + "-cpu")}
    if summ and summ["duration_s"] > 0:
        row["carried_bps"] = summ["link_out_mbit"] * 1e6
        row["error_raw_pct"] = (row["carried_bps"] / row["bps"] - 1.0) * 100.0
        row["window_s"] = summ["duration_s"]
        row["late_p99_us"] = summ["late_p99_us_mean"]
        row["late_p99_us_max"] = summ["late_p99_us_max"]
        # the median and the worst departure of the sender's window (the
        # median packet-weighted like late p99; the worst over every
        # interval): scripts/rt-bench.sh's columns
        w = [(g(r, "link", "out_pkts"), r["link"].get("late_us") or {}) for _, _, r in ivs_a]
        npk = sum(n for n, _ in w)
        if npk:
            row["late_p50_us"] = sum(n * lt.get("p50", 0.0) for n, lt in w) / npk
            row["late_max_us"] = max(lt.get("max", 0.0) for _, lt in w)
        # saturated (paced), backlogged (mix): see saturation()
        row["saturated_intervals"] = saturation(ivs_a)
    else:
        row["why"] = "no stats intervals inside the window"
    return kw, A, B, ivs_a, ivs_b, row


def cmd_paced_row(md, args):
    kw, A, B, ivs_a, ivs_b, row = sched_row(args)
    row["iperf_bps"] = None
    d = load_json(kw["iperf"])
    if d is None or "error" in d:
        row["iperf_why"] = "iperf3: " + (str(d["error"]) if d else "no JSON")
    else:
        rx = d.get("end", {}).get("sum_received") or {}
        row["iperf_bps"] = rx.get("bits_per_second")
        row["iperf_seconds"] = rx.get("seconds")
        row["retransmits"] = (d.get("end", {}).get("sum_sent") or {}).get("retransmits")
    if row["carried_bps"] is not None:
        row["saturated"] = row["saturated_intervals"] == len(ivs_a)
        row["qlen_mean_pkts"] = mean([sum(g(r, "classes", c, "qlen_pkts") for c in CLASSES)
                                      for _, _, r in ivs_a])
        for s_, S in (("a", A), ("b", B)):
            row["tun_queue_drops_" + s_] = S and S["tun_queue_drops"]
            row["udp_rcvbuf_errors_" + s_] = S and S["udp_rcvbuf_errors"]
        row["net_a"], row["net_b"] = net_deltas(kw["net"], "a"), net_deltas(kw["net"], "b")
        row["drops_a"] = {k: v for k, v in counters(ivs_a, "drops").items() if v}
        row["drops_b"] = {k: v for k, v in counters(ivs_b, "drops").items() if v}
        row["io_a"] = counters(ivs_a, "io")
        row["rx_lost_b"] = sum(g(r, "rx", c, "lost") for _, _, r in ivs_b for c in CLASSES)
        row["pps_a"] = fwd_pps(ivs_a)
        if A and row["pps_a"]:
            row["wake_per_pkt_a"] = A["wake_s"] / row["pps_a"]
        err = row["error_raw_pct"]
        if row["saturated"]:
            row["error_pct"] = err
        else:
            row["error_why"] = (f"not saturated: {len(ivs_a) - row['saturated_intervals']} of "
                                f"{len(ivs_a)} intervals ended with an empty queue and no drop "
                                f"(carried/configured - 1 = {err:+.2f} %)")
    append(os.path.join(md, "paced.jsonl"), row)
    print(f"    carried {fmt(row['carried_bps'] and row['carried_bps'] / 1e9, '.4f')} Gbit/s "
          f"(stats), {fmt(row['iperf_bps'] and row['iperf_bps'] / 1e9, '.4f')} Gbit/s (iperf3); "
          f"error {fmt(row['error_pct'], '+.3f', 'n/a')}{'' if row['error_pct'] is None else ' %'}"
          f"{' (' + row['error_why'] + ')' if 'error_why' in row else ''}; "
          f"saturated {row.get('saturated_intervals', 'n/a')}/{row['intervals']} intervals; "
          f"late p99 {fmt(row.get('late_p99_us'), '.0f')} us; "
          f"CPU a {fmt(row['cpu_a_pct'], '.0f')} % b {fmt(row['cpu_b_pct'], '.0f')} %")
    print(f"    sender drops {row.get('drops_a', {}) or 'none'}, io {row.get('io_a', {})}, "
          f"receiver drops {row.get('drops_b', {}) or 'none'}, rx lost {row.get('rx_lost_b', 'n/a')}, "
          f"mean qlen {fmt(row.get('qlen_mean_pkts'), '.0f')} pkts, "
          f"TCP retransmits {row.get('retransmits', 'n/a')}; full tun queue drops "
          f"a {row.get('tun_queue_drops_a', 'n/a')} b {row.get('tun_queue_drops_b', 'n/a')}, "
          f"UDP rcvbuf errors a {row.get('udp_rcvbuf_errors_a', 'n/a')} "
          f"b {row.get('udp_rcvbuf_errors_b', 'n/a')}")
    print(f"    CPUs busy: {cpu_text(row['cpus'])}")
    print(f"    namespace counters over the window, sender side a: {row.get('net_a') or '-'}; "
          f"receiver side b: {row.get('net_b') or '-'}")


def cmd_mix_row(md, args):
    kw, A, B, ivs_a, ivs_b, row = sched_row(args)
    row["failed"] = failed_clients(kw["prefix"], CLASSES)
    row["pps_a"], row["pps_b"] = fwd_pps(ivs_a), fwd_pps(ivs_b)
    for s, S in (("a", A), ("b", B)):
        pps = row["pps_" + s]
        row["ms_per_1k_" + s] = per_k(S and S["cpu_pct"], pps)
        row["wake_per_pkt_" + s] = S["wake_s"] / pps if S and pps else None
        row["tun_pps_" + s] = S and S["tun_pps"]
    if row["carried_bps"] is not None:
        row["error_pct"] = row["error_raw_pct"]
        # backlogged: the link never ran dry for lack of traffic, which would
        # look like a pacing error
        row["backlogged"] = row["saturated_intervals"] == len(ivs_a)
    append(os.path.join(md, "mix.jsonl"), row)
    print(f"    carried {fmt(row['carried_bps'] and row['carried_bps'] / 1e6, '.3f')} Mbit/s, "
          f"error {fmt(row['error_pct'], '+.4f')} %, late p99 {fmt(row['late_p99_us'], '.1f')} us "
          f"(worst {fmt(row.get('late_p99_us_max'), '.1f')}), CPU a {fmt(row['cpu_a_pct'], '.2f')} % "
          f"b {fmt(row['cpu_b_pct'], '.2f')} %, backlogged {row.get('backlogged', 'n/a')}, "
          f"failed iperf3 clients: {','.join(row['failed']) or '-'}; CPUs busy: {cpu_text(row['cpus'])}")


def cmd_plain_mix_row(md, args):
    kw = kv(args)
    A, B = sides(kw)
    row = {"rate": kw["rate"], "bps": float(kw["bps"]),
           "failed": failed_clients(kw["prefix"], CLASSES), "cpus": cpu_busy(kw["net"] + "-cpu")}
    for s, S in (("a", A), ("b", B)):
        row["cpu_" + s + "_pct"] = S and S["cpu_pct"]
        row["pps_" + s] = S and S["tun_pps"]
        row["ms_per_1k_" + s] = per_k(S and S["cpu_pct"], S and S["tun_pps"])
        row["wake_per_pkt_" + s] = S["wake_s"] / S["tun_pps"] if S and S["tun_pps"] else None
    row["carried_bps"] = A and A["tun_read_mbit"] * 1e6
    append(os.path.join(md, "mix-plain.jsonl"), row)
    print(f"    carried {fmt(row['carried_bps'] and row['carried_bps'] / 1e6, '.3f')} Mbit/s, "
          f"CPU a {fmt(row['cpu_a_pct'], '.2f')} % b {fmt(row['cpu_b_pct'], '.2f')} %, "
          f"failed iperf3 clients: {','.join(row['failed']) or '-'}; CPUs busy: {cpu_text(row['cpus'])}")


# ------------------------------------------------------------------ report
def mode_results(md):
    """Everything measured in one pin mode, and its targets."""
    res = {"timer_floor": load_json(os.path.join(md, "timer-floor.json")),
           "compare": load_jsonl(os.path.join(md, "compare.jsonl")),
           "paced": load_jsonl(os.path.join(md, "paced.jsonl")),
           "mix": load_jsonl(os.path.join(md, "mix.jsonl")),
           "mix_plain": load_jsonl(os.path.join(md, "mix-plain.jsonl"))}
    means = {}
    for r in res["compare"]:
        means.setdefault(f"{r['fwd']}_{r['kind']}", []).append(r["value"])
    res["compare_mean"] = {k: mean(v) for k, v in means.items()}
    res["targets"] = {t[0]: measure(t[0], res) for t in TARGETS}
    return res


def ratio(num, den, what_num, what_den):
    if num is None:
        return None, f"{what_num} not measured"
    if not den:
        return None, f"{what_den} not measured"
    return num / den, None


def find_rate(rows, bps):
    for r in rows:
        if abs(r["bps"] - bps) < 1:
            return r
    return None


def measure(tid, res):
    """(value, why-not) of one target in one mode."""
    cm = res["compare_mean"]
    if tid.startswith("paced_1g"):
        if not res["paced"]:
            return None, "paced test not run"
        r = find_rate(res["paced"], 1e9)
        if r is None:
            return None, "1Gbit not in --paced-rates"
        if tid == "paced_1g_stats":
            return (r["carried_bps"] / 1e9, None) if r["carried_bps"] is not None else \
                (None, r.get("why", "no stats"))
        if tid == "paced_1g_iperf":
            return (r["iperf_bps"] / 1e9, None) if r["iperf_bps"] is not None else \
                (None, r.get("iperf_why", "no iperf3 result"))
        return r["error_pct"], r.get("error_why", r.get("why"))
    if tid == "paced_max":
        rows = sorted(res["paced"], key=lambda r: r["bps"])
        if not rows:
            return None, "paced test not run"
        best = None
        for r in rows:
            if r["error_pct"] is None or abs(r["error_pct"]) > 0.1:
                break
            best = r
        if best is None:
            return 0.0, f"none: the lowest swept rate, {rows[0]['rate']}, already fails"
        if best is rows[-1] and best["bps"] < 2e9:
            return None, f"every swept rate passed; the sweep stopped at {best['rate']}"
        return best["bps"] / 1e9, None
    if tid in ("tcp_vs_plain", "udp_vs_plain", "tcp_vs_veth", "udp_vs_veth"):
        kind, ref = tid.split("_vs_")
        return ratio(cm.get(f"sched_{kind}"), cm.get(f"{ref}_{kind}"),
                     f"schedtun {kind}", f"{'plainfwd' if ref == 'plain' else 'veth'} {kind}")
    if tid == "cpu_20m":
        s, p = find_rate(res["mix"], 20e6), find_rate(res["mix_plain"], 20e6)
        if s is None or p is None:
            return None, "20Mbit mix not run (--rates) or no plainfwd mix (--no-plain-pacing)"
        if None in (s["cpu_a_pct"], s["cpu_b_pct"], p["cpu_a_pct"], p["cpu_b_pct"]):
            return None, "CPU not sampled"
        return ratio(s["cpu_a_pct"] + s["cpu_b_pct"], p["cpu_a_pct"] + p["cpu_b_pct"],
                     "schedtun CPU", "plainfwd CPU")
    if tid == "late_p99":
        s = find_rate(res["mix"], 20e6)
        if s is None:
            return None, "20Mbit mix not run (--rates)"
        fl = res["timer_floor"]
        return ratio(s["late_p99_us"], fl and fl["p99_us"], "late p99", "timer floor")
    raise KeyError(tid)


def verdict(kind, target, v):
    if kind is None:
        return "info"
    if v is None:
        return "n/a"
    ok = {">=": v >= target, "<=": v <= target, "abs<=": abs(v) <= target}[kind]
    return "MET" if ok else "missed"


def target_text(kind, target, unit):
    if kind is None:
        return "-"
    u = "" if unit == "x" else " " + unit
    sym = {">=": ">= ", "<=": "<= ", "abs<=": "|e| <= "}[kind]
    return f"{sym}{target:g}{'x' if unit == 'x' else ''}{u}"


def value_text(v, unit):
    if v is None:
        return "n/a"
    if unit == "x":
        return f"{v:.2f}x"
    if unit == "%":
        return f"{v:+.3f} %"
    return f"{v:.3f} {unit}"


def targets_rows(results):
    """[(label, target text, {mode: (value text, verdict, why)})]"""
    rows = []
    for tid, label, kind, target, unit in TARGETS:
        per = {}
        for m, res in results["modes"].items():
            v, why = res["targets"][tid]
            vt = "none" if tid == "paced_max" and v == 0 else value_text(v, unit)
            per[m] = (vt, verdict(kind, target, v), why)
        rows.append((tid, label, target_text(kind, target, unit), per))
    return rows


def print_report(out, results):
    meta = results["meta"]
    p = print
    p()
    p("=" * 100)
    p(f"schedtun benchmark, {meta.get('date')}, commit {meta.get('commit')}, "
      f"{meta.get('build_type')} build")
    p(f"{meta.get('nproc')} CPUs ({meta.get('cpu_model')}), kernel {meta.get('kernel')}, "
      f"{meta.get('iperf3')}; load at start {meta.get('loadavg_at_start')}")
    p(f"window {meta.get('time')} s after {meta.get('warmup')} s warm-up, {meta.get('reps')} "
      f"reps per unpaced test; results in {out}")
    p("=" * 100)
    for m, res in results["modes"].items():
        pin = ("daemons/forwarders on CPU 1, iperf3 on CPU 0 (veth alone: client CPU 0, "
               "server CPU 1)" if m == "pinned" else "nothing pinned (as a user runs it)")
        p(f"\n--- {m}: {pin}")
        fl = res["timer_floor"]
        if fl:
            p(f"timer floor (idle sleeper, 600 us sleeps, slack 1 ns): p50 {fl['p50_us']:.1f} us, "
              f"p99 {fl['p99_us']:.1f} us, max {fl['max_us']:.1f} us")
        cm = res["compare_mean"]
        if cm:
            p("\nunpaced (rate \"unlimited\", delay 0, prio), mean over reps")
            p(f"{'test':<26} {'veth alone':>11} {'plainfwd':>11} {'schedtun':>11} "
              f"{'sched/plain':>11} {'sched/veth':>11}")
            for kind, label in (("tcp", "TCP 1 flow, Mbit/s"), ("tcp4", "TCP 4 flows, Mbit/s"),
                                ("udp", "UDP 64 B delivered, pkt/s")):
                v, pl, s = cm.get(f"veth_{kind}"), cm.get(f"plain_{kind}"), cm.get(f"sched_{kind}")
                if v is None and pl is None and s is None:
                    continue
                r1 = s / pl if s is not None and pl else None
                r2 = s / v if s is not None and v else None
                p(f"{label:<26} {fmt(v, '.0f'):>11} {fmt(pl, '.0f'):>11} {fmt(s, '.0f'):>11} "
                  f"{fmt(r1, '.2f'):>11} {fmt(r2, '.3f'):>11}")
        if res["paced"]:
            p("\npaced: schedtun pair, fifo, delay 5 ms each way, iperf3 -P 4 -C cubic")
            p(f"{'rate':<8} {'stats Gb/s':>10} {'iperf Gb/s':>10} {'error %':>9} {'satur.':>7} "
              f"{'qlen':>5} {'late p99':>8} {'CPU a%':>6} {'CPU b%':>6} {'retr':>6}  sender drops/io")
            for r in sorted(res["paced"], key=lambda r: r["bps"]):
                io = {k: v for k, v in (r.get("io_a") or {}).items() if v}
                p(f"{r['rate']:<8} {fmt(r['carried_bps'] and r['carried_bps'] / 1e9, '.4f'):>10} "
                  f"{fmt(r['iperf_bps'] and r['iperf_bps'] / 1e9, '.4f'):>10} "
                  f"{fmt(r['error_pct'], '+.3f'):>9} "
                  f"{str(r.get('saturated_intervals', '-')) + '/' + str(r['intervals']):>7} "
                  f"{fmt(r.get('qlen_mean_pkts'), '.0f'):>5} {fmt(r.get('late_p99_us'), '.0f'):>8} "
                  f"{fmt(r['cpu_a_pct'], '.0f'):>6} {fmt(r['cpu_b_pct'], '.0f'):>6} "
                  f"{str(r.get('retransmits', '-')):>6}  {r.get('drops_a') or '-'} {io or ''}"
                  f" tun queue full a {r.get('tun_queue_drops_a', '-')}, UDP rcvbuf full"
                  f" b {r.get('udp_rcvbuf_errors_b', '-')}; CPUs busy {cpu_text(r.get('cpus') or {})}")
            p("  error = carried (link.out_bytes over the window) / configured - 1, printed only when")
            p("  the link was saturated in every interval (satur. = intervals that ended with packets")
            p("  queued or with queue drops); otherwise the offered load, not the pacer, set the rate.")
            p("  sender drops = the sender's stats' drops by reason; tun queue full a = packets the")
            p("  kernel dropped because daemon a did not read its tun fast enough; UDP rcvbuf full b =")
            p("  datagrams dropped at a full UDP socket in b's namespace (daemon b's); CPUs busy =")
            p("  each CPU's user + system + irq + softirq time over the window (/proc/stat).")
        if res["mix"]:
            p("\nEF+AF+CS0 mix (EF UDP at 20 % of the rate, AF 4 cubic, CS0 4 cubic), delay 0, prio")
            p(f"{'rate':<9} {'forwarder':<9} {'Mbit/s':>9} {'error %':>9} {'late p99':>8} {'worst':>7} "
              f"{'CPU a%':>7} {'CPU b%':>7} {'ms/1k a':>7} {'ms/1k b':>7} {'wake/pkt a':>10} {'failed':>6}")
            plain = {r["rate"]: r for r in res["mix_plain"]}
            for r in res["mix"]:
                p(f"{r['rate']:<9} {'schedtun':<9} {fmt(r['carried_bps'] and r['carried_bps'] / 1e6, '.3f'):>9} "
                  f"{fmt(r['error_pct'], '+.4f'):>9} {fmt(r['late_p99_us'], '.1f'):>8} "
                  f"{fmt(r.get('late_p99_us_max'), '.1f'):>7} {fmt(r['cpu_a_pct'], '.2f'):>7} "
                  f"{fmt(r['cpu_b_pct'], '.2f'):>7} {fmt(r['ms_per_1k_a'], '.2f'):>7} "
                  f"{fmt(r['ms_per_1k_b'], '.2f'):>7} {fmt(r['wake_per_pkt_a'], '.3f'):>10} "
                  f"{','.join(r['failed']) or '-':>6}")
                q = plain.get(r["rate"])
                if q:
                    p(f"{'':<9} {'plainfwd':<9} {fmt(q['carried_bps'] and q['carried_bps'] / 1e6, '.3f'):>9} "
                      f"{'':>9} {'':>8} {'':>7} {fmt(q['cpu_a_pct'], '.2f'):>7} "
                      f"{fmt(q['cpu_b_pct'], '.2f'):>7} {fmt(q['ms_per_1k_a'], '.2f'):>7} "
                      f"{fmt(q['ms_per_1k_b'], '.2f'):>7} {fmt(q['wake_per_pkt_a'], '.3f'):>10} "
                      f"{','.join(q['failed']) or '-':>6}")
            p("  late p99 = packet-weighted mean of the per-interval link.late_us.p99, worst = the")
            p("  largest; CPU = % of one core over the window (a sends the data, b the ACKs);")
            p("  plainfwd does not pace: its TCP streams are capped with iperf3 -b to total the rate;")
            p("  ms/1k = CPU ms per 1000 packets forwarded; wake/pkt = sleeps per packet.")
    modes = list(results["modes"])
    p("\n" + "=" * 100)
    p("targets (issue 10)")
    head = f"{'target':<62} {'wanted':>14}"
    for m in modes:
        head += f" {m:>13} {'':<6}"
    p(head)
    notes = []
    for tid, label, wanted, per in targets_rows(results):
        line = f"{label:<62} {wanted:>14}"
        for m in modes:
            vt, vd, why = per[m]
            line += f" {vt:>13} {'' if vd == 'n/a' else vd:<6}"
            if why:
                notes.append(f"  {m}, {label}: {why}")
        p(line)
    if notes:
        p("n/a and notes:")
        for n in notes:
            p(n)
    p("=" * 100)


def cmd_report(out, args):
    json_out = None
    if args[:1] == ["--json"] and len(args) == 2:
        json_out = args[1]
    elif args:
        sys.exit("bench-report: report OUT [--json FILE]")
    results = {"meta": load_json(os.path.join(out, "meta.json")) or {}, "modes": {}}
    for m in MODES:
        md = os.path.join(out, m)
        if os.path.isdir(md):
            results["modes"][m] = mode_results(md)
    if not results["modes"]:
        sys.exit(f"bench-report: no results in {out} (no {' or '.join(MODES)} directory)")
    with open("/proc/loadavg", encoding="utf-8") as f:
        results["meta"]["loadavg_at_report"] = " ".join(f.read().split()[:3])
    results["targets"] = [
        {"id": tid, "label": label, "kind": kind, "target": target, "unit": unit,
         "modes": {m: {"value": res["targets"][tid][0], "why": res["targets"][tid][1],
                       "verdict": verdict(kind, target, res["targets"][tid][0])}
                   for m, res in results["modes"].items()}}
        for tid, label, kind, target, unit in TARGETS]
    print_report(out, results)
    for path in filter(None, (os.path.join(out, "results.json"), json_out)):
        with open(path, "w", encoding="utf-8") as f:
            json.dump(results, f, indent=1)
            f.write("\n")


def main(argv):
    cmds = {"meta": cmd_meta, "iperf-row": cmd_iperf_row,
            "paced-row": cmd_paced_row, "mix-row": cmd_mix_row,
            "plain-mix-row": cmd_plain_mix_row, "report": cmd_report}
    if len(argv) < 2 or argv[0] not in cmds:
        sys.exit(__doc__)
    cmds[argv[0]](argv[1], argv[2:])


if __name__ == "__main__":
    main(sys.argv[1:])
