"""schedlab/results.py - the results of a geo.py run.

results() reads the daemons' and traffic tools' outputs in --out and
writes rates.csv, credit.csv (PSS), summary.json and rates.png (formats:
mininet/README.md, "Outputs"; outputs.py); print_summary prints its
table; config_dict, version_of and machine are parts of summary.json.
The readers are measure.py's, the per-interval and window theory
runtheory.py's, the plot plot.py's.  No Mininet: a finished run's files
are enough (tests/unit/test_schedlab_geo.py runs it on synthetic ones).
"""
import datetime
import os
import platform
import socket
import subprocess

from schedlab import measure, outputs, plot, runtheory
from schedlab import theory
from schedlab.geospec import pss_bw_of
from schedlab.measure import CLASSES
from schedlab.traffic import EF_IP


def results(a, model, sched_group, t_daemon, t_traffic, t_sink, warnings):
    """rates.csv, credit.csv (PSS), summary.json, rates.png; returns the summary.

    From the run's arguments `a`, its theory `model` and `sched_group`
    text, the monotonic start times of the daemons (`t_daemon`, per host),
    of the traffic and of the efgen sink; problems are appended to
    `warnings`, the list summary.json reports.
    """
    launch_a = t_traffic - t_daemon["h1"]   # daemon a's time
    lines_a = measure.stats_lines(os.path.join(a.out, "stats-a.jsonl"))
    lines_b = measure.stats_lines(os.path.join(a.out, "stats-b.jsonl"))
    # traffic time 0 = when EF started (iperf3 needs round trips first),
    # placed by EF's rate at its own start (a cosine's peak, a step's R1)
    start = measure.traffic_start(measure.stats_rates(lines_a), a.ef_spec.at(0.0))
    shift = 0.0 if start is None else max(start - launch_a, 0.0)
    if start is None:
        warnings.append("no EF traffic in the sender's stats")
    off_a = launch_a + shift
    off_b = t_traffic - t_daemon["h2"] + shift
    rows = measure.stats_rates(lines_a, off_a)
    # efgen's cosine starts when it is launched, `shift` s before time 0
    th = runtheory.theory_rows(a.sched, model, a.capacity_spec, a.ef_spec, rows,
                           c_offset_s=off_a,
                           ef_offset_s=shift if a.ef_tool == "efgen" else 0.0)
    csv_rows = []
    for r, t in zip(rows, th):
        for c in CLASSES:
            csv_rows.append((r["t1"], c, r[c], "daemon"))
            csv_rows.append((t["t1"], c, t[c], "theory"))
        csv_rows.append((r["t1"], "link", r["link"], "daemon"))
        csv_rows.append((t["t1"], "link", t["c"], "theory"))
    iperf, iperf_lag = {}, {}
    for c in CLASSES:
        path = os.path.join(a.out, "iperf-%s.json" % c)
        if c == "ef" and a.ef_tool == "efgen":
            continue
        # iperf3's intervals count from its test start, about when the
        # first bytes reach the daemon: time 0 (within a second)
        iperf[c] = measure.iperf_rates(path)
        lag = measure.best_lag(iperf[c], rows, c)
        iperf_lag[c] = lag
        iperf[c] = [(t + lag, v) for t, v in iperf[c]]
        if not iperf[c]:
            warnings.append("no iperf3 intervals for %s: %s"
                            % (c, measure.iperf_error(path)))
        csv_rows += [(t, c, v, "iperf") for t, v in iperf[c]]
    efgen_summary = None
    if a.ef_tool == "efgen":
        sink, efgen_summary = measure.efgen_lines(os.path.join(a.out, "efgen-sink.jsonl"))
        off_s = t_traffic - t_sink + shift
        iperf["ef"] = [(float(ln["t"]) - off_s, ln["rcvd_bps"] / 1e6)
                       for ln in sink if "rcvd_bps" in ln]
        csv_rows += [(t, "ef", v, "efgen") for t, v in iperf["ef"]]
    outputs.write_rates_csv(os.path.join(a.out, "rates.csv"), csv_rows)
    credit = measure.stats_credit(lines_a, off_a) if a.sched == "pss" else []
    if a.sched == "pss":
        outputs.write_credit_csv(os.path.join(a.out, "credit.csv"), credit)
    w0, w1 = a.warmup, a.duration
    variable = not (a.capacity_spec.constant and a.ef_spec.constant)
    wth = runtheory.window_theory(a.sched, model, th, w0, w1, variable,
                              a.capacity_spec.mean_bps, a.ef_spec.mean_bps)
    classes = {}
    for c in CLASSES:
        meas = measure.window_mean(rows, c, w0, w1)
        thv, inst, eq, win = wth[c]
        classes[c] = {
            "measured_mbps": meas, "theory_mbps": thv,
            "rel_error": theory.rel_error(meas, thv), "theory": eq,
            "theory_instant_mbps": inst, "theory_window_mbps": win,
            # iperf3's receiver goodput (efgen's sink rate for EF with efgen)
            "iperf_mbps": measure.points_mean(iperf.get(c, []), w0, w1),
        }
    if a.sched == "pss":
        bw = pss_bw_of(sched_group)
        if bw is not None:
            c_mean = measure.window_mean(th, "c", w0, w1)
            ef_mean = measure.window_mean(th, "ef", w0, w1)
            classes["af"]["algorithm1_bw_c_mbps"] = (
                None if c_mean is None or ef_mean is None else
                min(bw * a.capacity_spec.mean_bps / 1e6, c_mean - ef_mean))
    owd = measure.ef_owd(lines_b, off_b, w0, w1)
    if efgen_summary:
        owd["efgen_summary"] = efgen_summary
    n_window = sum(1 for r in rows if measure.in_window(r, w0, w1))
    summary = {
        "tool": "mininet/geo.py",
        "finished": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "window_s": [w0, w1], "window_intervals": n_window,
        "traffic_start_after_launch_s": shift,
        # the sender daemon's t minus traffic time: where the window lies
        # in stats-a.jsonl (schedlab.experiment's stall rule)
        "sender_offset_s": off_a,
        "iperf_lag_s": iperf_lag,
        "classes": classes,
        "link": {"measured_mbps": measure.window_mean(rows, "link", w0, w1),
                 "capacity_mbps": measure.window_mean(th, "c", w0, w1)},
        "ef_owd_ms": owd,
        "config": config_dict(a, sched_group, model),
        "schedtun": {"path": a.schedtun_path, "version": version_of(a.schedtun_path)},
        "machine": machine(),
        "warnings": warnings,
    }
    if n_window == 0:
        warnings.append("no stats interval inside the window [%g, %g] s" % (w0, w1))
    outputs.write_summary_json(os.path.join(a.out, "summary.json"), summary)
    if not a.no_plot:
        title = "%s: C %s, EF %s (exp %g Mbit/s), AF %dx / CS0 %dx cubic, %g ms one way" % (
            a.sched, a.capacity, a.ef, a.ef_exp_bps / 1e6, a.af_flows, a.cs0_flows,
            a.delay_s * 1e3)
        try:
            plot.rates_png(os.path.join(a.out, "rates.png"), rows, th, credit, title, (w0, w1))
        except Exception as e:      # a plot failure must not lose the numbers
            warnings.append("rates.png not written: %s" % e)
            outputs.write_summary_json(os.path.join(a.out, "summary.json"), summary)
    return summary


def config_dict(a, sched_group, model):
    """The configuration of the run, for summary.json."""
    return {
        "sched": a.sched, "scheduler_group": sched_group,
        "conf": os.path.abspath(a.conf) if a.conf else None,
        "sched_params": a.sched_params,
        "capacity": a.capacity, "capacity_mean_bps": a.capacity_spec.mean_bps,
        "capacity_amplitude": a.capacity_spec.amplitude,
        "capacity_period_s": a.capacity_spec.period_s,
        "ef": a.ef, "ef_mean_bps": a.ef_spec.mean_bps,
        "ef_amplitude": a.ef_spec.amplitude, "ef_period_s": a.ef_spec.period_s,
        "ef_exp_bps": a.ef_exp_bps, "ef_tool": a.ef_tool,
        "ef_packet_ip_bytes": EF_IP,
        "delay_one_way_s": a.delay_s, "rtt_s": 2 * a.delay_s,
        "af_flows": a.af_flows, "cs0_flows": a.cs0_flows, "tcp": "cubic",
        "duration_s": a.duration, "warmup_s": a.warmup,
        "weights": [a.w_af, a.w_cs0], "l_af": a.l_af, "l_cs0": a.l_cs0,
        "k_af": model["k_af"], "k_af_from": model["k_af_from"],
        "return_path": "fifo, 1 Gbit/s, same one-way delay",
        "tunnel_mtu": 1400,
    }


def version_of(path):
    """`schedtun --version`'s first line, or the error."""
    try:
        out = subprocess.run([path, "--version"], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, timeout=10).stdout
        return out.decode(errors="replace").strip().splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError) as e:
        return "unknown (%s)" % e


def machine():
    """Host facts for summary.json: name, kernel, CPUs, Python, Mininet, iperf3."""
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((l.split(":", 1)[1].strip() for l in f
                        if l.startswith("model name")), "")
    except OSError:
        pass
    try:
        import mininet.net
        mn = mininet.net.VERSION
    except ImportError:
        mn = None
    try:
        ip3 = subprocess.run(["iperf3", "--version"], stdout=subprocess.PIPE,
                             timeout=10).stdout.decode().split("\n")[0].strip()
    except (OSError, subprocess.SubprocessError):
        ip3 = None
    return {"hostname": socket.gethostname(), "kernel": platform.release(),
            "cpus": os.cpu_count(), "cpu_model": cpu, "python": platform.python_version(),
            "mininet": mn, "iperf3": ip3,
            "tcp_default_cc": read_text("/proc/sys/net/ipv4/tcp_congestion_control")}


def read_text(path):
    """A small file's stripped text, or None."""
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def print_summary(s, log):
    """The per-class table of a summary, to stdout."""
    print("window %g..%g s (%d intervals), sender daemon out rates, Mbit/s:" % (
        s["window_s"][0], s["window_s"][1], s["window_intervals"]))
    print("  class  measured    theory   rel.err   iperf3/efgen (theory)")
    for c in CLASSES:
        r = s["classes"][c]
        f = (lambda v, w="%9.3f": (w % v) if v is not None else "%9s" % "-")
        print("  %-5s %s %s %s %s   %s" % (
            c.upper(), f(r["measured_mbps"]), f(r["theory_mbps"]),
            f(None if r["rel_error"] is None else 100 * r["rel_error"], "%8.1f%%"),
            f(r["iperf_mbps"]), r["theory"] or "no equation for this scheduler"))
    lk = s["link"]
    print("  link  %s %s" % ("%9.3f" % lk["measured_mbps"] if lk["measured_mbps"] is not None
                             else "        -", "%9.3f" % lk["capacity_mbps"]
                             if lk["capacity_mbps"] is not None else ""))
    if s["classes"]["af"].get("algorithm1_bw_c_mbps") is not None:
        print("  (PSS: Algorithm 1 gives AF about min(BW*C, C - R_EF) = %.3f; docs/pss.md)"
              % s["classes"]["af"]["algorithm1_bw_c_mbps"])
    o = s["ef_owd_ms"]
    if o.get("avg") is not None:
        print("  EF one-way delay at the receiver: avg %.1f ms, p99 up to %.1f, max %.1f"
              % (o["avg"], o["p99_max"], o["max"]))
    for w in s["warnings"]:
        log("warning: " + w)
