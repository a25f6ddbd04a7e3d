#!/usr/bin/python3
"""plot_rates.py - per-class rates from schedtun stats (JSON lines).

Run with /usr/bin/python3 (matplotlib comes from Debian's python3-matplotlib).

  plot_rates.py STATS.jsonl OUT.png [--title T] [--skip S]
        plot per-class egress rate (Mbit/s) against t, with the link rate
        C(t); a second panel shows the per-class queueing delay.
  plot_rates.py plot STATS.jsonl OUT.png [...]          (same as above)
  plot_rates.py summary SENDER.jsonl [RECEIVER.jsonl] [--skip S] [--json F]
        per-class table of the sender's egress (mean out rate, share of the
        link, drops, queueing delay) and, from the receiver's file, what
        arrived (rx loss, one-way delay).
  plot_rates.py follow STATS.jsonl [--deadline S] [--pid PID]... [--watch PID]...
        print one line per stats interval as the daemon writes them
        (t, per-class out Mbit/s, queue lengths, drops) until the deadline
        passes or every --pid has exited; exit status 3 if a --watch pid
        (a daemon) exits first.
  plot_rates.py iperf CLASS=FILE...
        table of iperf3 client --json outputs (goodput, loss/retransmits).

The stats format is docs/stats-format.md: one object per interval, counters
are deltas over the interval, `t` is the end of the interval (s since start).
"""
import argparse
import json
import math
import os
import sys
import time

CLASSES = ("ef", "af", "cs0")
LABELS = {"ef": "EF", "af": "AF", "cs0": "CS0"}
COLORS = {"ef": "tab:red", "af": "tab:blue", "cs0": "tab:green"}


# ---------------------------------------------------------------- reading

def parse_lines(lines, source="stats"):
    """JSON objects from stats lines; a torn last line (daemon still
    writing) and blank lines are skipped, other bad lines are reported."""
    recs = []
    lines = list(lines)
    for i, line in enumerate(lines):
        line = line.strip()
        if not line:
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            if i != len(lines) - 1:
                print(f"{source}:{i + 1}: not JSON, skipped", file=sys.stderr)
            continue
        if isinstance(obj, dict) and "t" in obj:
            recs.append(obj)
    return recs


def read_stats(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return parse_lines(f.read().split("\n"), path)


def intervals(recs):
    """(t_end, dt, rec) per record; dt from the previous t (the first one
    from daemon start, t = 0).  Records with dt <= 0 are dropped."""
    out = []
    prev = 0.0
    for r in recs:
        t = float(r["t"])
        dt = t - prev
        if dt > 1e-6:
            out.append((t, dt, r))
        prev = t
    return out


def g(d, *keys, default=0.0):
    """Nested get with a default: g(rec, 'classes', 'ef', 'out_bytes')."""
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            return default
        d = d[k]
    return d if d is not None else default


def mbit(nbytes, dt):
    return nbytes * 8.0 / dt / 1e6 if dt > 0 else 0.0


# ---------------------------------------------------------------- summary

def traffic_start(recs, frac=0.01):
    """Start (daemon time) of the first interval in which the traffic read
    from the tun exceeds `frac` of the link rate (100 kbit/s when the link is
    unlimited): when the application traffic began, to the interval."""
    for t, dt, r in intervals(recs):
        rate = float(g(r, "link", "rate_bps")) or 1e7
        inb = sum(float(g(r, "classes", c, "in_bytes")) for c in CLASSES)
        if inb * 8.0 / dt > frac * rate:
            return t - dt
    return None


def resolve_window(recs, skip, until, traffic_duration):
    """(from, to) in daemon time.  With traffic_duration, the window is
    measured from the traffic's start found in the stats: skip s after it
    until traffic_duration s after it."""
    if traffic_duration is None:
        return skip, until
    t0 = traffic_start(recs)
    if t0 is None:
        return skip, until
    return t0 + skip, t0 + traffic_duration


def in_window(ivs, start, end):
    """Intervals lying inside [start, end] (daemon time, s), 1 ms slack."""
    return [(t, dt, r) for t, dt, r in ivs
            if t - dt >= start - 1e-3 and (end is None or t <= end + 1e-3)]


def summarize(sender_recs, receiver_recs=None, skip=0.0, until=None, rx_shift=0.0):
    """Per-class numbers over the intervals inside [skip, until] (daemon
    time; until None = to the end).  The receiver's intervals are taken in
    the same window moved by rx_shift seconds (sender start - receiver start
    in wall time), with half an interval of slack.

    Delay percentiles cannot be merged exactly from per-interval p99s: the
    table gives the packet-weighted mean of the interval p99s and, as
    p99max, the largest interval p99."""
    ivs = in_window(intervals(sender_recs), skip, until)
    res = {"skip": skip, "until": until, "intervals": len(ivs), "classes": {}}
    dur = sum(dt for _, dt, _ in ivs)
    cap_bits = 0.0
    unlimited = False
    for _, dt, r in ivs:
        rate = float(g(r, "link", "rate_bps"))
        if rate <= 0:
            unlimited = True
        cap_bits += rate * dt
    res["duration_s"] = dur
    res["link_mean_mbit"] = cap_bits / dur / 1e6 if dur > 0 and not unlimited else None
    link_out = sum(float(g(r, "link", "out_bytes")) for _, _, r in ivs)
    res["link_out_mbit"] = mbit(link_out, dur)
    res["late_p99_us_mean"] = wmean([(g(r, "link", "late_us", "p99"), g(r, "link", "out_pkts"))
                                     for _, _, r in ivs])
    res["late_p99_us_max"] = max([float(g(r, "link", "late_us", "p99")) for _, _, r in ivs],
                                 default=0.0)

    rx_ivs = []
    if receiver_recs:
        rx_ivs = in_window(intervals(receiver_recs), skip + rx_shift - 0.5,
                           None if until is None else until + rx_shift + 0.5)

    for c in CLASSES:
        d = {}
        out_b = sum(float(g(r, "classes", c, "out_bytes")) for _, _, r in ivs)
        out_p = sum(float(g(r, "classes", c, "out_pkts")) for _, _, r in ivs)
        in_p = sum(float(g(r, "classes", c, "in_pkts")) for _, _, r in ivs)
        d["in_pkts"] = int(in_p)
        d["out_pkts"] = int(out_p)
        d["out_mbit"] = mbit(out_b, dur)
        d["share"] = (out_b * 8.0 / cap_bits) if cap_bits > 0 and not unlimited else None
        d["share_of_out"] = out_b / link_out if link_out > 0 else None
        d["drop_pkts"] = int(sum(float(g(r, "classes", c, "drop_pkts")) for _, _, r in ivs))
        d["drop_pct"] = 100.0 * d["drop_pkts"] / in_p if in_p > 0 else 0.0
        d["qlen_max"] = int(max([g(r, "classes", c, "qlen_pkts") for _, _, r in ivs], default=0))
        pk = [(g(r, "classes", c, "delay_ms", "avg"), g(r, "classes", c, "out_pkts")) for _, _, r in ivs]
        d["delay_avg_ms"] = wmean(pk)
        d["delay_p99_ms"] = wmean([(g(r, "classes", c, "delay_ms", "p99"), w) for (_, w), (_, _, r)
                                   in zip(pk, ivs)])
        d["delay_p99max_ms"] = max([float(g(r, "classes", c, "delay_ms", "p99"))
                                    for _, _, r in ivs if g(r, "classes", c, "out_pkts") > 0],
                                   default=None)
        if rx_ivs:
            pk = sum(float(g(r, "rx", c, "pkts")) for _, _, r in rx_ivs)
            lost = sum(float(g(r, "rx", c, "lost")) for _, _, r in rx_ivs)
            d["rx_pkts"] = int(pk)
            d["rx_lost"] = int(lost)
            d["rx_loss_pct"] = 100.0 * lost / (pk + lost) if pk + lost > 0 else 0.0
            rdur = sum(dt for _, dt, _ in rx_ivs)
            d["rx_mbit"] = mbit(sum(float(g(r, "rx", c, "bytes")) for _, _, r in rx_ivs), rdur)
            ow = [(g(r, "rx", c, "owd_ms", "avg"), g(r, "rx", c, "pkts")) for _, _, r in rx_ivs]
            d["owd_avg_ms"] = wmean(ow)
            d["owd_p99_ms"] = wmean([(g(r, "rx", c, "owd_ms", "p99"), w) for (_, w), (_, _, r)
                                     in zip(ow, rx_ivs)])
        res["classes"][c] = d
    return res


def wmean(pairs):
    """Weighted mean of (value, weight) pairs; None without weight."""
    num = den = 0.0
    for v, w in pairs:
        w = float(w)
        if w > 0:
            num += float(v) * w
            den += w
    return num / den if den > 0 else None


def fmt(v, spec, none="-"):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return none
    return format(v, spec)


def format_summary(res, title=None):
    lines = []
    if title:
        lines.append(title)
    link = res["link_mean_mbit"]
    win = f"t {res['skip']:g}..{res['until']:g} s" if res["until"] is not None \
        else f"t >= {res['skip']:g} s"
    lines.append(f"window: {res['duration_s']:.1f} s ({res['intervals']} intervals, "
                 f"{win} of daemon time); link "
                 f"{fmt(link, '.2f', 'unlimited')} Mbit/s mean, carried "
                 f"{res['link_out_mbit']:.2f} Mbit/s; late p99 "
                 f"{fmt(res['late_p99_us_mean'], '.1f')} us (max interval "
                 f"{fmt(res['late_p99_us_max'], '.1f')} us)")
    has_rx = any("rx_pkts" in d for d in res["classes"].values())
    hdr = (f"{'class':<5} {'out Mbit/s':>10} {'share':>6} {'drops':>7} {'drop%':>6} "
           f"{'qmax':>5} {'qdelay avg':>10} {'p99':>8} {'p99max':>8}")
    if has_rx:
        hdr += f" {'rx Mbit/s':>9} {'rx lost':>7} {'loss%':>6} {'owd avg':>8} {'owd p99':>8}"
    lines.append(hdr)
    lines.append("-" * len(hdr))
    tot = {"out": 0.0, "drops": 0}
    for c in CLASSES:
        d = res["classes"][c]
        tot["out"] += d["out_mbit"]
        tot["drops"] += d["drop_pkts"]
        share = d["share"] if d["share"] is not None else d["share_of_out"]
        row = (f"{LABELS[c]:<5} {d['out_mbit']:>10.2f} {fmt(share and share * 100, '5.1f'):>5}% "
               f"{d['drop_pkts']:>7d} {d['drop_pct']:>6.2f} {d['qlen_max']:>5d} "
               f"{fmt(d['delay_avg_ms'], '8.1f'):>8}ms {fmt(d['delay_p99_ms'], '6.1f'):>6}ms "
               f"{fmt(d['delay_p99max_ms'], '6.1f'):>6}ms")
        if has_rx:
            row += (f" {fmt(d.get('rx_mbit'), '9.2f'):>9} {d.get('rx_lost', 0):>7d} "
                    f"{fmt(d.get('rx_loss_pct'), '6.2f'):>6} {fmt(d.get('owd_avg_ms'), '6.1f'):>6}ms "
                    f"{fmt(d.get('owd_p99_ms'), '6.1f'):>6}ms")
        lines.append(row)
    lines.append("-" * len(hdr))
    share_t = tot["out"] / link * 100 if link else None
    lines.append(f"{'all':<5} {tot['out']:>10.2f} {fmt(share_t, '5.1f'):>5}% {tot['drops']:>7d}")
    lines.append("share = class out bits / link capacity over the window (of carried "
                 "bits when the link is unlimited); qdelay = time in the scheduler; "
                 "p99 = packet-weighted mean of per-interval p99s, p99max = worst interval; "
                 "rx/owd = the receiving daemon's view.")
    return "\n".join(lines)


# ---------------------------------------------------------------- iperf3

def iperf_result(path):
    """What the iperf3 client's --json output says the receiver got."""
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    if "error" in d and "end" not in d:
        return {"error": d["error"]}
    end = d.get("end", {})
    rcv = end.get("sum_received") or end.get("sum") or {}
    snd = end.get("sum_sent") or end.get("sum") or {}
    res = {"proto": d.get("start", {}).get("test_start", {}).get("protocol", "?"),
           "streams": d.get("start", {}).get("test_start", {}).get("num_streams", 0),
           "goodput_mbit": float(rcv.get("bits_per_second", 0.0)) / 1e6,
           "sent_mbit": float(snd.get("bits_per_second", 0.0)) / 1e6,
           "seconds": float(rcv.get("seconds", 0.0))}
    if res["proto"] == "UDP":
        # The receiver's duration stretches while the end-of-test exchange
        # waits on the control connection (CS0, maybe starved): rate the
        # delivered bytes over the sender's duration instead.
        if float(snd.get("seconds", 0.0)) > 0:
            res["goodput_mbit"] = float(rcv.get("bytes", 0)) * 8.0 / float(snd["seconds"]) / 1e6
        res["lost_pct"] = float(rcv.get("lost_percent", 0.0))
        res["jitter_ms"] = float(rcv.get("jitter_ms", 0.0))
    else:
        res["retransmits"] = int(snd.get("retransmits", 0))
    if "error" in d:
        res["error"] = d["error"]
    return res


def format_iperf(results):
    lines = [f"{'class':<5} {'iperf3':>6} {'flows':>5} {'goodput Mbit/s':>14} {'sent Mbit/s':>11} "
             f"{'retrans / loss%':>15}"]
    for c in CLASSES:
        if c not in results:
            continue
        r = results[c]
        if "goodput_mbit" not in r:
            lines.append(f"{LABELS[c]:<5} error: {r.get('error')}")
            continue
        extra = (f"{r['lost_pct']:.2f}% jit {r['jitter_ms']:.2f}ms" if r["proto"] == "UDP"
                 else f"{r['retransmits']} retr")
        lines.append(f"{LABELS[c]:<5} {r['proto']:>6} {r['streams']:>5} {r['goodput_mbit']:>14.2f} "
                     f"{r['sent_mbit']:>11.2f} {extra:>15}"
                     + (f"  ({r['error']})" if "error" in r else ""))
    return "\n".join(lines)


# ---------------------------------------------------------------- plot

def plot(recs, out_png, title=None, skip=0.0, until=None):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ivs = intervals(recs)
    if not ivs:
        raise SystemExit(f"plot_rates: no stats intervals to plot")
    t = [x[0] for x in ivs]
    fig, (ax, ax2) = plt.subplots(2, 1, figsize=(10, 7), sharex=True,
                                  gridspec_kw={"height_ratios": [3, 1.3]})
    link = [float(g(r, "link", "rate_bps")) / 1e6 for _, _, r in ivs]
    total = [mbit(float(g(r, "link", "out_bytes")), dt) for _, dt, r in ivs]
    if any(v > 0 for v in link):
        # C(t) is a value at the end of each interval: draw it as a step.
        ax.step(t, link, where="post", color="black", linestyle="--", linewidth=1.5,
                label="link rate C(t)")
    ax.plot(t, total, color="0.55", linewidth=1, label="total out")
    for c in CLASSES:
        ax.plot(t, [mbit(float(g(r, "classes", c, "out_bytes")), dt) for _, dt, r in ivs],
                color=COLORS[c], linewidth=1.8, marker=".", markersize=3,
                label=f"{LABELS[c]} out")
        # only intervals that sent something of the class have a delay:
        # the others are gaps in the line (NaN), not zeros
        dly = [max(float(g(r, "classes", c, "delay_ms", "avg")), 1e-3)
               if g(r, "classes", c, "out_pkts") > 0 else float("nan") for _, _, r in ivs]
        ax2.plot(t, dly, color=COLORS[c], linewidth=1.2, marker=".", markersize=3,
                 label=f"{LABELS[c]}")
    # shade what lies outside the measurement window (warm-up, tail)
    for a in (ax, ax2):
        if skip > 0:
            a.axvspan(0, skip, color="0.92", zorder=0)
        if until is not None and until < t[-1]:
            a.axvspan(until, t[-1], color="0.92", zorder=0)
    ax.set_ylabel("rate (Mbit/s)")
    top = max(link + total + [0.1])
    ax.set_ylim(0, top * 1.3)           # room for the legend above the curves
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper right", fontsize=8, ncol=3)
    ax.set_title(title or os.path.basename(out_png))
    ax2.set_ylabel("queueing delay\navg (ms, log)")
    ax2.set_xlabel("t (s since daemon start)")
    ax2.set_yscale("log")
    ax2.grid(True, alpha=0.3)
    ax2.legend(loc="upper right", fontsize=8, ncol=3)
    fig.tight_layout()
    fig.savefig(out_png, dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------- follow

def live_line(t, dt, r):
    parts = [f"t={t:7.1f}s"]
    for c in CLASSES:
        parts.append(f"{LABELS[c]} {mbit(float(g(r, 'classes', c, 'out_bytes')), dt):6.2f}")
    rate = float(g(r, "link", "rate_bps"))
    parts.append(f"| tot {mbit(float(g(r, 'link', 'out_bytes')), dt):6.2f}/"
                 f"{(rate / 1e6 if rate > 0 else float('inf')):.2f} Mbit/s")
    parts.append("| q " + "/".join(str(int(g(r, "classes", c, "qlen_pkts"))) for c in CLASSES))
    parts.append("| drop " + "/".join(str(int(g(r, "classes", c, "drop_pkts"))) for c in CLASSES))
    return "  ".join(parts)


def pid_running(pid):
    """True while the process exists and is not a zombie (an exited child
    stays in /proc until its parent reaps it)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def follow(path, deadline_s, pids=(), watch=(), out=sys.stdout):
    """Prints each new complete line of `path`; waits for the file to
    appear; stops after deadline_s seconds, or once every pid in `pids`
    has exited (after printing what the file holds by then).  Returns 3
    if a pid in `watch` (the daemons) exited first, else 0."""
    dead = []
    end = time.monotonic() + deadline_s
    pos = 0
    buf = ""
    prev_t = None
    print("live (sender egress, per interval): class out Mbit/s | total out / link Mbit/s"
          " | queue pkts EF/AF/CS0 | drops EF/AF/CS0", file=out, flush=True)
    last = False
    while time.monotonic() < end and not last:
        last = bool(pids) and not any(pid_running(p) for p in pids)
        dead = [p for p in watch if not pid_running(p)]
        if dead:
            last = True
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                f.seek(pos)
                chunk = f.read()
                pos = f.tell()
        except FileNotFoundError:
            chunk = ""
        if chunk:
            buf += chunk
            *complete, buf = buf.split("\n")
            for r in parse_lines(complete, path):
                t = float(r["t"])
                dt = t - prev_t if prev_t is not None else t
                prev_t = t
                if dt > 1e-6:
                    print(live_line(t, dt, r), file=out, flush=True)
        if not last:
            time.sleep(0.2)
    if dead:
        print(f"follow: process {', '.join(map(str, dead))} (watched) exited during the run",
              file=sys.stderr, flush=True)
        return 3
    return 0


# ---------------------------------------------------------------- main

def main(argv):
    if argv and argv[0] not in ("plot", "summary", "follow", "iperf", "-h", "--help"):
        argv = ["plot"] + argv
    ap = argparse.ArgumentParser(prog="plot_rates.py",
                                 description="per-class rates from schedtun stats JSONL")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("plot", help="STATS.jsonl OUT.png: rate over time per class")
    p.add_argument("stats")
    p.add_argument("out_png")
    p.add_argument("--title")
    p.add_argument("--skip", "--from", dest="skip", type=float, default=0.0,
                   help="shade the first S seconds (warm-up)")
    p.add_argument("--until", "--to", dest="until", type=float,
                   help="shade what comes after S seconds")
    p.add_argument("--traffic-duration", type=float, metavar="D",
                   help="window from the traffic's start in the stats: [start+skip, start+D]")
    s = sub.add_parser("summary", help="per-class summary table")
    s.add_argument("sender")
    s.add_argument("receiver", nargs="?")
    s.add_argument("--skip", "--from", dest="skip", type=float, default=0.0,
                   help="leave out intervals that start before S seconds (warm-up)")
    s.add_argument("--until", "--to", dest="until", type=float,
                   help="leave out intervals that end after S seconds")
    s.add_argument("--traffic-duration", type=float, metavar="D",
                   help="window from the traffic's start in the stats: [start+skip, start+D]")
    s.add_argument("--rx-shift", type=float, default=0.0,
                   help="receiver window = sender window + S s (sender start - receiver start)")
    s.add_argument("--iperf", action="append", default=[], metavar="CLASS=FILE",
                   help="iperf3 client --json output of that class's traffic (repeatable)")
    s.add_argument("--title")
    s.add_argument("--json", help="also write the numbers as JSON to this file")
    f = sub.add_parser("follow", help="live per-interval lines while the daemon runs")
    f.add_argument("stats")
    f.add_argument("--deadline", type=float, default=3600.0, help="stop after S seconds")
    f.add_argument("--pid", type=int, action="append", default=[],
                   help="stop once this process has exited (repeatable: once all have)")
    f.add_argument("--watch", type=int, action="append", default=[],
                   help="stop, with exit status 3, if this process exits (repeatable)")
    i = sub.add_parser("iperf", help="table of iperf3 client --json outputs")
    i.add_argument("files", nargs="+", metavar="CLASS=FILE")
    a = ap.parse_args(argv)

    if a.cmd == "plot":
        recs = read_stats(a.stats)
        frm, until = resolve_window(recs, a.skip, a.until, a.traffic_duration)
        plot(recs, a.out_png, a.title, frm, until)
        print(f"plot: {a.out_png}")
    elif a.cmd == "summary":
        snd = read_stats(a.sender)
        rcv = read_stats(a.receiver) if a.receiver else None
        if not intervals(snd):
            raise SystemExit(f"plot_rates: {a.sender}: no stats intervals")
        frm, until = resolve_window(snd, a.skip, a.until, a.traffic_duration)
        res = summarize(snd, rcv, frm, until, a.rx_shift)
        print(format_summary(res, a.title))
        if a.iperf:
            res["iperf"] = {}
            for spec in a.iperf:
                c, _, path = spec.partition("=")
                if c not in CLASSES or not path:
                    raise SystemExit(f"plot_rates: --iperf {spec}: want ef|af|cs0=FILE")
                try:
                    res["iperf"][c] = iperf_result(path)
                except (OSError, ValueError) as e:
                    res["iperf"][c] = {"error": str(e)}
            print()
            print("iperf3 (whole run, the application's view):")
            print(format_iperf(res["iperf"]))
        if a.json:
            with open(a.json, "w", encoding="utf-8") as fh:
                json.dump(res, fh, indent=1)
    elif a.cmd == "iperf":
        res = {}
        for spec in a.files:
            c, _, path = spec.partition("=")
            if c not in CLASSES or not path:
                raise SystemExit(f"plot_rates: {spec}: want ef|af|cs0=FILE")
            try:
                res[c] = iperf_result(path)
            except (OSError, ValueError) as e:
                res[c] = {"error": str(e)}
        print(format_iperf(res))
    else:
        try:
            return follow(a.stats, a.deadline, a.pid, a.watch)
        except KeyboardInterrupt:
            return 130
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
