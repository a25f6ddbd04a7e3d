#!/usr/bin/python3
"""plog-bench.py - the numbers of scripts/plog-bench.sh (the per-packet
log's cost): what one run measured, and the summary over the rounds.

  plog-bench.py idle
      the processes that must not run beside a benchmark (schedlab.lock's
      busy list); exit 1 when there are any.
  plog-bench.py meta OUT.json KEY=VALUE...
      the provenance: machine (CPU model, cores, kernel), commit (git
      describe --always --dirty), date, load average, iperf3, the build
      type, what runs beside it, and the script's settings (KEY=VALUE).
  plog-bench.py run RUNS.jsonl KEY=VALUE...
      one run's record appended to RUNS.jsonl and printed on one line.
      Keys: case, mode (on|off), round, t0_ms, t1_ms (CLOCK_REALTIME, the
      iperf3 run), hz (CLK_TCK), cpu0, cpu1 ("TICKS:NS" per process: daemon
      a, daemon b, writer a, writer b; "-" for none), iperf (its -J
      output), stats_a, stats_b (the daemons' stats lines), plog_a, plog_b
      (the logs; empty when off).
  plog-bench.py example DIR round=N
      DIR/example.json from DIR/a.plog.csv and b.plog.csv: the header and
      8 consecutive sender lines with enq and dep, 3 receiver arrivals,
      and the first 5 rows of `mininet/pktlog.py flows`.
  plog-bench.py summary OUT
      OUT/results.json from OUT/meta.json, runs.jsonl and example/: per
      case and mode the mean and 95 % Student-t interval of the rate and
      the CPU (schedlab.repeats), on/off ratios, CPU per record; printed.

Runs under Debian's python3 (scipy for the intervals).
"""
import datetime
import json
import os
import platform
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(ROOT, "mininet"))
from schedlab import lock, pktlog, repeats  # noqa: E402

PROG = "plog-bench.py"
PROCS = ("a", "b", "wa", "wb")          # daemon a, daemon b, their log writers
HEADER = ",".join(pktlog.HEADER)
EXAMPLE_SENDER_LINES = 8
EXAMPLE_RECEIVER_LINES = 3
EXAMPLE_FLOW_ROWS = 5


def num(v, spec, none="n/a"):
    """v formatted with spec; none for None."""
    return none if v is None else format(v, spec)


def kv(args):
    """KEY=VALUE arguments as a dict; a malformed one is a usage error."""
    out = {}
    for a in args:
        k, sep, v = a.partition("=")
        if not sep or not k:
            sys.exit(f"{PROG}: argument '{a}': not KEY=VALUE")
        out[k] = v
    return out


# ---------------------------------------------------------------- idle, meta
def cmd_idle():
    """Lists the busy processes on stderr; 1 when there are any, else 0."""
    found = lock.busy()
    for pid, name, cmd in found:
        print(f"{PROG}: busy: {name} pid {pid} ({cmd})", file=sys.stderr)
    return 1 if found else 0


def _first(path, prefix, sep):
    """What follows sep on path's first line starting with prefix."""
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith(prefix):
                    return line.split(sep, 1)[1].strip() or "(none)"
    except OSError:
        pass
    return "unknown"


def _out(*cmd):
    """cmd's stdout, stripped; "unknown" when it cannot run or fails."""
    try:
        return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def cmd_meta(path, args):
    """Writes the provenance (module doc) to path as JSON and prints it
    on one line; args are the script's KEY=VALUE settings."""
    kw = kv(args)
    with open("/proc/loadavg", encoding="utf-8") as f:
        load = " ".join(f.read().split()[:3])
    meta = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": _out("git", "-C", kw.get("root", ROOT), "describe", "--always", "--dirty"),
        "cpu_model": _first("/proc/cpuinfo", "model name", ":"),
        "cores": os.cpu_count(),
        "kernel": platform.release(),
        "iperf3": _out("iperf3", "--version").split("\n")[0],
        "build_type": _first(os.path.join(kw.get("build_dir", ""), "CMakeCache.txt"),
                             "CMAKE_BUILD_TYPE:", "="),
        "loadavg_at_start": load,
        "busy_at_start": [f"{n} pid {p}" for p, n, _ in lock.busy()],
        "time_s": int(kw["time"]),
        "reps": int(kw["reps"]),
        "pinned": kw["pinned"] == "1",
        "forced": kw.get("forced") == "1",
        "cases": kw["cases"].split(","),
        "args": kw.get("args", ""),
    }
    with open(path, "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=1)
    print(f"{PROG}: {meta['date']}, {meta['commit']}, {meta['cpu_model']} x{meta['cores']}, "
          f"Linux {meta['kernel']}, {meta['build_type']} build, load {load}, "
          f"pinned {meta['pinned']}, {meta['reps']} rounds of {meta['time_s']} s")
    return 0


# ---------------------------------------------------------------- one run
def stats_log_sums(path):
    """Sums of the stats lines' log.records and log.lost, and how many
    lines had a `log` member (none when the log is off)."""
    rec = lost = with_log = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.endswith("\n"):
                continue
            log = json.loads(line).get("log")
            if log is not None:
                with_log += 1
                rec += log.get("records", 0)
                lost += log.get("lost", 0)
    return {"stats_records": rec, "lost": lost, "stats_lines_with_log": with_log}


def log_file_counts(path, t0_ns, t1_ns):
    """A log's size, its records (lines after the header) in all and
    timed inside [t0_ns, t1_ns], per event, and lines that are not
    records (no numeric t_ns: a cut line)."""
    out = {"bytes": os.path.getsize(path), "records": 0, "records_in_run": 0,
           "events": {}, "bad_lines": 0, "header_ok": False}
    with open(path, encoding="ascii", errors="replace") as f:
        out["header_ok"] = f.readline().rstrip("\n") == HEADER
        for line in f:
            t, _, rest = line.partition(",")
            ev = rest.split(",", 1)[0]
            if not line.endswith("\n") or not t.isdigit() or ev not in pktlog.EVENTS:
                out["bad_lines"] += 1
                continue
            out["records"] += 1
            out["events"][ev] = out["events"].get(ev, 0) + 1
            if t0_ns <= int(t) <= t1_ns:
                out["records_in_run"] += 1
    return out


def cpu_pcts(c0, c1, hz, wall_s):
    """{proc: {"pct": utime+stime %, "sched_pct": schedstat %}} from the
    "TICKS:NS" samples taken before and after (None for "-")."""
    out = {}
    for name, a, b in zip(PROCS, c0.split(), c1.split()):
        if a == "-" or b == "-":
            out[name] = None
            continue
        (ta, na), (tb, nb) = (map(int, a.split(":")), map(int, b.split(":")))
        out[name] = {"pct": (tb - ta) / hz / wall_s * 100.0,
                     "sched_pct": (nb - na) / 1e9 / wall_s * 100.0}
    return out


def cpus_busy(stat0, stat1):
    """{"cpuN": % busy} between two samples of /proc/stat's per-CPU lines
    (";"-joined): 100 - the share of idle and iowait time."""
    def parse(text):
        out = {}
        for line in filter(None, text.split(";")):
            f = line.split()
            out[f[0]] = [int(x) for x in f[1:]]
        return out
    a, b = parse(stat0), parse(stat1)
    busy = {}
    for cpu in a.keys() & b.keys():
        d = [y - x for x, y in zip(a[cpu], b[cpu])]
        total = sum(d[:8])             # user .. steal; guest is inside user
        idle = d[3] + d[4]
        busy[cpu] = 100.0 * (total - idle) / total if total > 0 else None
    return dict(sorted(busy.items()))


def iperf_rx_bps(path):
    """The receiver's rate of an iperf3 -J report, bit/s; None when the
    report is missing or not one (a failed client)."""
    try:
        with open(path, encoding="utf-8") as f:
            return float(json.load(f)["end"]["sum_received"]["bits_per_second"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def cmd_run(path, args):
    """Appends one run's record (module doc: the keys) to path and prints
    it as one line."""
    kw = kv(args)
    t0_ms, t1_ms = int(kw["t0_ms"]), int(kw["t1_ms"])
    wall_s = (t1_ms - t0_ms) / 1000.0
    rec = {"case": kw["case"], "mode": kw["mode"], "round": int(kw["round"]),
           "wall_s": wall_s, "rx_bps": iperf_rx_bps(kw["iperf"]),
           "cpu": cpu_pcts(kw["cpu0"], kw["cpu1"], int(kw["hz"]), wall_s),
           "cpus_busy": cpus_busy(kw.get("stat0", ""), kw.get("stat1", "")), "log": {}}
    for side in ("a", "b"):
        sums = stats_log_sums(kw["stats_" + side])
        plog = kw.get("plog_" + side, "")
        if plog:
            cnt = log_file_counts(plog, t0_ms * 1_000_000, t1_ms * 1_000_000)
            cnt.update(sums)
            payload = cnt["bytes"] - len(HEADER) - 1
            cnt["bytes_per_record"] = payload / cnt["records"] if cnt["records"] else None
            cnt["records_per_s"] = cnt["records_in_run"] / wall_s
            rec["log"][side] = cnt
        elif sums["stats_lines_with_log"]:
            print(f"{PROG}: {kw['stats_' + side]}: a `log` member with the log off",
                  file=sys.stderr)
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(rec) + "\n")
    print(run_line(rec))
    return 0


def run_line(r):
    """One run as one line of text."""
    def pct(p, k="pct"):
        return "-" if r["cpu"].get(p) is None else f"{r['cpu'][p][k]:.1f}"
    s = (f"{r['case']} {r['mode']:<3} {r['round']}: rx "
         f"{'failed' if r['rx_bps'] is None else format(r['rx_bps'] / 1e6, '.1f')} Mbit/s, "
         f"cpu a {pct('a')} % ({pct('a', 'sched_pct')}) b {pct('b')} % "
         f"({pct('b', 'sched_pct')})")
    s += ", busy " + " ".join(f"{c} {num(v, '.0f')} %" for c, v in r["cpus_busy"].items())
    if r["log"]:
        la, lb = r["log"]["a"], r["log"]["b"]
        s += (f", writers {pct('wa')}/{pct('wb')} %; records a {la['records']} "
              f"({la['records_per_s']:.0f}/s, {la['bytes'] / 1e6:.1f} MB) b {lb['records']} "
              f"({lb['records_per_s']:.0f}/s, {lb['bytes'] / 1e6:.1f} MB), lost a {la['lost']} "
              f"b {lb['lost']}")
        if not (la["header_ok"] and lb["header_ok"]) or la["bad_lines"] or lb["bad_lines"]:
            s += " (a log with a bad header or cut lines)"
    return s


# ---------------------------------------------------------------- example
def _window(lines, start, n, want):
    """The first n consecutive lines from index start on whose events
    include every event of want (a set); None when there is none."""
    for i in range(start, len(lines) - n + 1):
        evs = {ln.split(",", 2)[1] for ln in lines[i:i + n]}
        if want <= evs:
            return lines[i:i + n]
    return None


def cmd_example(d, args):
    """Writes d/example.json (module doc) from d's two logs; exits when
    pktlog.py flows fails on them."""
    kw = kv(args)
    with open(os.path.join(d, "a.plog.csv"), encoding="ascii") as f:
        a = f.read().splitlines()
    with open(os.path.join(d, "b.plog.csv"), encoding="ascii") as f:
        b = f.read().splitlines()
    # from the middle of the run: iperf3's data, not its control connection
    snd = (_window(a[1:], (len(a) - 1) // 2, EXAMPLE_SENDER_LINES, {"enq", "dep"})
           or a[1:1 + EXAMPLE_SENDER_LINES])
    arr = [ln for ln in b[1 + (len(b) - 1) // 2:] if ln.split(",", 2)[1] == "arr"]
    rcv = arr[:EXAMPLE_RECEIVER_LINES]
    script = os.path.join(ROOT, "mininet", "pktlog.py")
    argv = ["flows", "a.plog.csv", "b.plog.csv"]
    p = subprocess.run([sys.executable, script] + argv, cwd=d, capture_output=True,
                       text=True)
    if p.returncode:
        sys.exit(f"{PROG}: pktlog.py flows failed ({p.returncode}): {p.stderr.strip()}")
    rows = p.stdout.splitlines()
    ex = {"round": int(kw.get("round", 0)), "header": a[0], "sender": snd,
          "receiver": rcv, "flows_cmd": "mininet/pktlog.py " + " ".join(argv),
          "flows_rows": len(rows) - 1, "flows": rows[:1 + EXAMPLE_FLOW_ROWS]}
    with open(os.path.join(d, "example.json"), "w", encoding="utf-8") as f:
        json.dump(ex, f, indent=1)
    return 0


# ---------------------------------------------------------------- summary
def _summ(vals):
    """repeats.Summary of the values that are not None, as a dict; None
    when there are none."""
    vals = [v for v in vals if v is not None]
    return repeats.Summary(vals).as_dict() if vals else None


def _mean(vals):
    """Mean of the values that are not None; None when there are none."""
    vals = [v for v in vals if v is not None]
    return sum(vals) / len(vals) if vals else None


def _ratio(a, b):
    """a / b; None when either is missing or b is 0."""
    return None if a is None or not b else a / b


def summarise(runs):
    """results.json's "cases": {case: {"modes": {mode: ...}, "on_off": ...,
    "ns_per_record": ...}} from the run records."""
    out = {}
    for case in dict.fromkeys(r["case"] for r in runs):
        modes = {}
        for mode in ("off", "on"):
            rs = [r for r in runs if r["case"] == case and r["mode"] == mode]
            if not rs:
                continue
            m = {"n": len(rs), "iperf_failed": sum(r["rx_bps"] is None for r in rs),
                 "rx_mbit": _summ([None if r["rx_bps"] is None else r["rx_bps"] / 1e6
                                   for r in rs])}
            for k in ("pct", "sched_pct"):
                for p in PROCS:
                    vals = [r["cpu"][p][k] for r in rs if r["cpu"].get(p)]
                    m[f"cpu_{p}_{k}"] = _summ(vals)
                # all of schedtun: pinned, the four share CPU 1, and how the
                # kernel splits a busy core between the daemons varies by run
                m[f"cpu_total_{k}"] = _summ([sum(c[k] for c in r["cpu"].values() if c)
                                             for r in rs])
            for cpu in sorted({c for r in rs for c in r.get("cpus_busy", {})}):
                m[f"busy_{cpu}"] = _summ([r["cpus_busy"].get(cpu) for r in rs
                                          if "cpus_busy" in r])
            if mode == "on":
                for side in ("a", "b"):
                    lg = [r["log"][side] for r in rs]
                    m["log_" + side] = {
                        "records_per_s": _mean([x["records_per_s"] for x in lg]),
                        "bytes_per_record": _mean([x["bytes_per_record"] for x in lg]),
                        "records": sum(x["records"] for x in lg),
                        "bytes": sum(x["bytes"] for x in lg),
                        "lost": sum(x["lost"] for x in lg),
                        "bad_lines": sum(x["bad_lines"] for x in lg),
                        "headers_ok": all(x["header_ok"] for x in lg),
                    }
            modes[mode] = m
        c = {"modes": modes, "on_off": None, "ns_per_record": None}
        if "on" in modes and "off" in modes:
            on, off = modes["on"], modes["off"]

            def mean(m, key):
                s = m.get(key)
                return None if s is None else s["mean"]
            c["on_off"] = {"rx": _ratio(mean(on, "rx_mbit"), mean(off, "rx_mbit"))}
            for p in ("a", "b", "total"):
                c["on_off"][f"cpu_{p}"] = _ratio(mean(on, f"cpu_{p}_pct"), mean(off, f"cpu_{p}_pct"))
            ns = {}
            rps_all = on["log_a"]["records_per_s"] + on["log_b"]["records_per_s"]
            for k in ("pct", "sched_pct"):
                t_on, t_off = mean(on, f"cpu_total_{k}"), mean(off, f"cpu_total_{k}")
                ns[f"total_{k}"] = (None if None in (t_on, t_off) or not rps_all
                                    else (t_on - t_off) / 100.0 / rps_all * 1e9)
            for p, side in (("a", "a"), ("b", "b")):
                rps = on["log_" + side]["records_per_s"]
                for k in ("pct", "sched_pct"):
                    d_on, d_off = mean(on, f"cpu_{p}_{k}"), mean(off, f"cpu_{p}_{k}")
                    w = mean(on, f"cpu_w{p}_{k}")
                    ns[f"daemon_{p}_{k}"] = (None if None in (d_on, d_off) or not rps
                                             else (d_on - d_off) / 100.0 / rps * 1e9)
                    ns[f"writer_{p}_{k}"] = (None if w is None or not rps
                                             else w / 100.0 / rps * 1e9)
            c["ns_per_record"] = ns
        out[case] = c
    return out


def ci(s, spec=".1f", unit=""):
    """A repeats.Summary dict as 'mean ± half-width UNIT' (n = 1: no ±,
    said so); None as 'n/a'."""
    if s is None:
        return "n/a"
    if s["half_width"] is None:
        return f"{s['mean']:{spec}}{unit} (n = 1)"
    return f"{s['mean']:{spec}} ± {s['half_width']:{spec}}{unit}"


def summary_text(res):
    """results.json's summary as text, one line per case and mode and
    one for on/off."""
    meta = res["meta"]
    out = [f"=== plog-bench: {meta['date']}, commit {meta['commit']}, {meta['cpu_model']} "
           f"x{meta['cores']}, Linux {meta['kernel']}, pinned {meta['pinned']}, "
           f"{meta['reps']} rounds of {meta['time_s']} s ==="]
    for case, c in res["cases"].items():
        for mode, m in c["modes"].items():
            line = (f"{case:<4} {mode:<3} n={m['n']}: rx {ci(m['rx_mbit'])} Mbit/s, cpu a "
                    f"{ci(m['cpu_a_pct'])} % b {ci(m['cpu_b_pct'])} % all "
                    f"{ci(m['cpu_total_pct'])} %")
            busy = [f"{k[5:]} {ci(v)} %" for k, v in m.items() if k.startswith("busy_")]
            if busy:
                line += "; busy " + " ".join(busy)
            if mode == "on":
                line += (f", writers {ci(m['cpu_wa_pct'])} / {ci(m['cpu_wb_pct'])} %")
                for side in ("a", "b"):
                    lg = m["log_" + side]
                    line += (f"; log {side}: {lg['records_per_s']:.0f} records/s, "
                             f"{lg['bytes_per_record']:.1f} B/record, lost {lg['lost']}")
            out.append(line)
        if c["on_off"]:
            oo, ns = c["on_off"], c["ns_per_record"]
            out.append(f"{case:<4} on/off: rx {num(oo['rx'], '.3f')}x, cpu a {num(oo['cpu_a'], '.2f')}x "
                       f"b {num(oo['cpu_b'], '.2f')}x all {num(oo['cpu_total'], '.2f')}x; CPU per "
                       f"record (utime+stime; schedstat): all {num(ns['total_pct'], '.0f')}; "
                       f"{num(ns['total_sched_pct'], '.0f')} ns, "
                       f"daemon a {num(ns['daemon_a_pct'], '.0f')}; {num(ns['daemon_a_sched_pct'], '.0f')} ns, "
                       f"b {num(ns['daemon_b_pct'], '.0f')}; {num(ns['daemon_b_sched_pct'], '.0f')} ns, "
                       f"writer a {num(ns['writer_a_pct'], '.0f')}; {num(ns['writer_a_sched_pct'], '.0f')} ns, "
                       f"b {num(ns['writer_b_pct'], '.0f')}; {num(ns['writer_b_sched_pct'], '.0f')} ns")
    return "\n".join(out)


def cmd_summary(d):
    """Writes d/results.json (meta, runs, cases, example) and prints its
    summary."""
    with open(os.path.join(d, "meta.json"), encoding="utf-8") as f:
        meta = json.load(f)
    with open(os.path.join(d, "runs.jsonl"), encoding="utf-8") as f:
        runs = [json.loads(x) for x in f if x.strip()]
    res = {"meta": meta, "runs": runs, "cases": summarise(runs), "example": None}
    ex = os.path.join(d, "example", "example.json")
    if os.path.exists(ex):
        with open(ex, encoding="utf-8") as f:
            res["example"] = json.load(f)
    with open(os.path.join(d, "results.json"), "w", encoding="utf-8") as f:
        json.dump(res, f, indent=1)
    print(summary_text(res))
    return 0


def main(argv):
    """Dispatches the commands of the module doc; 2 on a bad command."""
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    cmd, rest = argv[0], argv[1:]
    if cmd == "idle" and not rest:
        return cmd_idle()
    if cmd in ("meta", "run", "example") and rest:
        return {"meta": cmd_meta, "run": cmd_run, "example": cmd_example}[cmd](rest[0], rest[1:])
    if cmd == "summary" and len(rest) == 1:
        return cmd_summary(rest[0])
    print(f"{PROG}: command '{' '.join(argv)}': not understood (accepted: idle, meta OUT.json "
          f"KEY=VALUE..., run RUNS.jsonl KEY=VALUE..., example DIR, summary OUT)", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
