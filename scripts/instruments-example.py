#!/usr/bin/python3
"""instruments-example.py - the numbers and the docs' blocks of
scripts/instruments-example.sh (issue 21's instruments through one pair).

  instruments-example.py meta OUT/meta.json KEY=VALUE...
      the provenance: date, commit (git describe --always --dirty), CPU
      model and count, kernel, the build type, load average, what runs
      beside it, and the script's settings (root, build_dir, time, forced,
      args).
  instruments-example.py summarise OUT KEY=VALUE...
      OUT/summary.json from the run's files in OUT (instruments-example.sh
      lists them) and its settings (check_rc, rate, delay, sched,
      sched_params, marker, tfrc_flows, tfrc_port0, onoff_port, web_port,
      problems).
  instruments-example.py [--update [--root DIR]] OUT/summary.json
      prints the blocks `instruments-example` (docs/instruments.md: the
      provenance, the command, the configuration and the tables) and
      `instruments-readme` (README.md: one measured number per
      instrument); --update writes each between its `<!-- NAME -->` and
      `<!-- /NAME -->` markers under DIR (the repository, or a scratch
      copy).  The numbers in those blocks come from here only.

Runs under Debian's python3.
"""
import argparse
import datetime
import importlib.util
import json
import os
import re
import sys

PROG = "instruments-example.py"
REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(REPO, "mininet"))
from schedlab import lock, onoff, pktlog, units, websess  # noqa: E402


def _load(name, file):
    spec = importlib.util.spec_from_file_location(name, os.path.join(REPO, "scripts", file))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


# plog-bench's provenance helpers and number format, plog-readme's block writer
_pb = _load("plog_bench", "plog-bench.py")
_pr = _load("plog_readme", "plog-readme.py")
_pr.PROG = PROG         # its messages name this script
num, kv = _pb.num, _pb.kv

IP_UDP_BYTES = 28       # an IPv4 UDP packet's headers: the marker meters IP bytes
DELAY_OVER_MS = 120     # the DQ paper's bound
TABLE_ROWS = 5          # rows of each pktlog.py table shown in the docs


class ExampleError(Exception):
    """A run directory that lacks a file or holds a malformed one."""


# ---------------------------------------------------------------- meta
def cmd_meta(path, args):
    """Writes the provenance (module doc) to path as JSON."""
    kw = kv(args)
    with open("/proc/loadavg", encoding="utf-8") as f:
        load = " ".join(f.read().split()[:3])
    meta = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": _pb._out("git", "-C", kw.get("root", REPO), "describe", "--always",
                           "--dirty"),
        "cpu_model": _pb._first("/proc/cpuinfo", "model name", ":"),
        "cores": os.cpu_count(),
        "kernel": os.uname().release,
        "build_type": _pb._first(os.path.join(kw.get("build_dir", ""), "CMakeCache.txt"),
                                 "CMAKE_BUILD_TYPE:", "="),
        "loadavg_at_start": load,
        "busy_at_start": [f"{n} pid {p}" for p, n, _ in lock.busy()],
        "time_s": int(kw["time"]),
        "forced": kw.get("forced") == "1",
        "args": kw.get("args", ""),
    }
    with open(path, "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=1)
    print(f"{PROG}: {meta['date']}, {meta['commit']}, {meta['cpu_model']} x{meta['cores']}, "
          f"Linux {meta['kernel']}, {meta['build_type']} build, load {load}")
    return 0


# ---------------------------------------------------------------- summarise
def _path(out, name):
    p = os.path.join(out, name)
    if not os.path.exists(p):
        raise ExampleError(f"run directory '{out}': no {name} (accepted: an "
                           f"instruments-example.sh OUT)")
    return p


def _jsonl(path):
    with open(path, encoding="utf-8") as f:
        try:
            return [json.loads(x) for x in f if x.strip()]
        except ValueError as e:
            raise ExampleError(f"'{path}': {e} (accepted: JSON lines)") from None


def _last_summary(path, prog):
    """The JSON after `PROG: ` on the last such line of a source's messages
    (its summary), or None."""
    found = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            head, sep, rest = line.partition(": ")
            if sep and head == prog and rest.startswith("{"):
                found = json.loads(rest)
    return found


def _table(path):
    """A pktlog.py table printed as text: (header line, row lines)."""
    with open(path, encoding="utf-8") as f:
        lines = [ln.rstrip("\n") for ln in f if ln.strip()]
    return (lines[0] if lines else "", lines[1:])


def _by_class(recs):
    """Arrivals grouped by class: {cls: {n, owd_mean_ms, owd_max_ms}}."""
    out = {}
    for r in recs:
        c = out.setdefault(r.cls, {"n": 0, "s": 0, "mx": 0})
        c["n"] += 1
        c["s"] += r.owd_ns or 0
        c["mx"] = max(c["mx"], r.owd_ns or 0)
    return {k: {"n": v["n"], "owd_mean_ms": round(v["s"] / v["n"] / 1e6, 3),
                "owd_max_ms": round(v["mx"] / 1e6, 3)} for k, v in sorted(out.items())}


def _reasons(drops):
    """{reason: drop records} of some drop records."""
    out = {}
    for r in drops:
        out[r.reason] = out.get(r.reason, 0) + 1
    return dict(sorted(out.items()))


def stats_sums(path):
    """The marker's counts per class and the log's records and lost,
    summed over a daemon's stats lines."""
    marker, log = {}, {"records": 0, "lost": 0}
    for o in _jsonl(path):
        for cls, m in (o.get("marker") or {}).items():
            acc = marker.setdefault(cls, {})
            for k, v in m.items():
                if k != "flows":        # a gauge, not a count
                    acc[k] = acc.get(k, 0) + v
        lg = o.get("log") or {}
        log["records"] += lg.get("records", 0)
        log["lost"] += lg.get("lost", 0)
    return marker, log


def committed_bps(marker):
    """The EF committed rate of the run's `marker = { ... }` text (the .sh's
    MARKER, handed over as the summarise setting `marker`), in bit/s."""
    m = re.search(r'ef\s*=\s*\{[^}]*committed\s*=\s*"([^"]+)"', marker)
    if not m:
        raise ExampleError(f"marker '{marker}': no ef committed rate (accepted: "
                           f"marker = {{ ef = {{ committed = \"RATE\"; ... }}; }};)")
    return units.parse_rate_bps(m.group(1))


def expected_excess(recs, size, committed):
    """The share of a flow's bits above the committed rate, from its
    sender's per-interval records (rate_bps over each --every interval, in
    payload bits: scaled to IP bits, which the marker meters): the sum of
    max(0, rate - committed) over the sum of rate.  What a marker that
    followed the rate interval by interval would re-mark (the TSW's window
    is 1 s, the records' interval too); None without rates."""
    ip = [r["rate_bps"] * (size + IP_UDP_BYTES) / size
          for r in recs if r.get("rate_bps") is not None] if size else []
    tot = sum(ip)
    return sum(max(0.0, v - committed) for v in ip) / tot if tot > 0 else None


def tfrc_rows(out, kw, arr, drops, enq):
    """Per TFRC flow: the sender's summary (rate, p, R), the receiver's
    record, the marker's split (the classes of its enqueues in A's log),
    its arrivals at B by class and A's drops of it by reason."""
    rows = []
    for i in range(1, int(kw["tfrc_flows"]) + 1):
        port = int(kw["tfrc_port0"]) + i
        summ = _last_summary(_path(out, f"tfrc-send-{i}.log"), "tfrc")
        recs = _jsonl(_path(out, f"tfrc-send-{i}.jsonl"))
        rx = _jsonl(_path(out, f"tfrc-recv-{i}.jsonl"))
        rate = summ.get("mean_rate_bps") if summ else None
        size = summ["bytes"] // summ["packets"] if summ and summ.get("packets") else None
        ip_rate = rate * (size + IP_UDP_BYTES) / size if rate and size else None
        mine = [r for r in arr if r.proto == 17 and r.dport == port]
        cls = _by_class(mine)
        n = sum(c["n"] for c in cls.values())
        marked = [r for r in enq if r.proto == 17 and r.dport == port]
        rows.append({
            "flow": i, "seed": i, "port": port, "records": len(recs),
            "rate_bps": rate, "ip_rate_bps": ip_rate,
            "p": summ.get("p") if summ else None,
            "rtt_s": summ.get("rtt_s") if summ else None,
            "packets": summ.get("packets") if summ else None,
            "received": sum(r["packets"] for r in rx),
            "lost": sum(r["lost"] for r in rx),
            "expected_af_share": expected_excess(recs, size, committed_bps(kw["marker"])),
            "arrivals": cls,
            "af_share": cls.get("af", {}).get("n", 0) / n if n else None,
            "marked_af_share": (sum(1 for r in marked if r.cls == "af") / len(marked)
                                if marked else None),
            "drops_at_a": _reasons(r for r in drops if r.proto == 17 and r.dport == port)})
    return rows


def onoff_rows(out, kw, arr):
    """Per on-off flow: sent/received (schedlab.onoff.join), its on
    fraction, its delays at the receiver and its arrivals at B by class."""
    sent = _jsonl(_path(out, "onoff-send.jsonl"))
    got = _jsonl(_path(out, "onoff-recv.jsonl"))
    port = int(kw["onoff_port"])
    life = {s["flow"]: s for s in sent}
    rows = []
    for j in onoff.join(sent, got):
        s = life[j["flow"]]
        span = s["death_ns"] - s["birth_ns"]
        mine = [r for r in arr if r.proto == 17 and r.dport == port
                and r.sport == s["local_port"]]
        rows.append(dict(j, on_fraction=s["on_ns"] / span if span > 0 else None,
                         local_port=s["local_port"], arrivals=_by_class(mine)))
    return rows, onoff.summarise_sent(sent)


def web_summary(out, flow_rows):
    """Web sessions: bursts by status, eq. 2, mean throughput, and the
    users with a flow delayed over DELAY_OVER_MS."""
    bursts = _jsonl(_path(out, "websess-send.jsonl"))
    ses = pktlog.sessions(flow_rows, bursts)
    s = websess.summarise(bursts)
    s.update({"users": len({b["user"] for b in bursts}), "users_seen": len(ses),
              "users_over": sum(1 for u in ses if u["flows_over"]),
              "flows_seen": sum(u["flows_seen"] for u in ses),
              "flows_over": sum(u["flows_over"] for u in ses),
              "sink_records": len(_jsonl(_path(out, "websess-sink.jsonl")))})
    return s


def summarise(out, kw):
    """The summary (module doc) of run directory out, as a dict."""
    with open(_path(out, "meta.json"), encoding="utf-8") as f:
        meta = json.load(f)
    with open(_path(out, "commands.txt"), encoding="utf-8") as f:
        commands = [ln.rstrip("\n") for ln in f if ln.strip()]
    a, b = pktlog.read(_path(out, "a.plog.csv")), pktlog.read(_path(out, "b.plog.csv"))
    marker, log_a = stats_sums(_path(out, "a.stats.jsonl"))
    _, log_b = stats_sums(_path(out, "b.stats.jsonl"))
    arr = [r for r in b.recs if r.event == "arr"]
    drops = [r for r in a.recs if r.event == "drop"]
    enq = [r for r in a.recs if r.event == "enq"]
    flow_rows = pktlog.flows(a.recs + b.recs, DELAY_OVER_MS)
    with open(_path(out, "check.txt"), encoding="utf-8") as f:
        first = f.readline().strip()
    with open(_path(out, "check.err"), encoding="utf-8") as f:
        check_err = [ln.rstrip("\n") for ln in f if ln.strip()]
    on_rows, on_sent = onoff_rows(out, kw, arr)
    fh, fr = _table(_path(out, "flows.txt"))
    sh, sr = _table(_path(out, "sessions.txt"))
    return {
        "meta": meta, "commands": commands, "out": os.path.abspath(out),
        "config": {k: kw[k] for k in ("rate", "delay", "sched", "sched_params", "marker")},
        "problems": [p for p in kw.get("problems", "").split("\n") if p],
        "check": {"rc": int(kw["check_rc"]), "numbers": json.loads(first) if first else None,
                  "messages": check_err},
        "log": {"a": {"records": len(a.recs), "bad": len(a.bad), **log_a},
                "b": {"records": len(b.recs), "bad": len(b.bad), **log_b}},
        "marker": marker,
        "tfrc": tfrc_rows(out, kw, arr, drops, enq),
        "onoff": on_rows, "onoff_sent": on_sent,
        "web": web_summary(out, flow_rows),
        "tables": {"flows": {"header": fh, "rows": fr},
                   "sessions": {"header": sh, "rows": sr}},
    }


def cmd_summarise(out, args):
    """Writes OUT/summary.json."""
    s = summarise(out, kv(args))
    with open(os.path.join(out, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(s, f, indent=1)
    print(f"{PROG}: {os.path.join(out, 'summary.json')} written", file=sys.stderr)
    return 0


# ---------------------------------------------------------------- blocks
def _kbit(v):
    return num(None if v is None else v / 1e3, ".1f")


def _pct(v):
    return num(None if v is None else v * 100, ".1f")


def _cls(arrivals, cls, key):
    c = arrivals.get(cls)
    return "–" if not c else (str(c["n"]) if key == "n" else num(c[key], ".1f"))


def _few(table, what):
    rows = table["rows"]
    return ["```", table["header"], *rows[:TABLE_ROWS], "```", "",
            f"({min(TABLE_ROWS, len(rows))} of the {len(rows)} rows of the {what}.)"]


def _short(cmd, out):
    """cmd as the docs show it: the repository's paths relative to it,
    the run directory as OUT (summary.json keeps them whole)."""
    return cmd.replace(out + "/", "OUT/").replace(REPO + "/", "")


def example_block(s):
    """The `instruments-example` block (module doc)."""
    m, c = s["meta"], s["config"]
    forced = (f" Run with --force beside: {', '.join(m['busy_at_start'])}."
              if m.get("forced") and m.get("busy_at_start") else "")
    green = s["marker"].get("ef", {}).get("green", 0)
    yellow = s["marker"].get("ef", {}).get("yellow", 0)
    ck = s["check"]
    nums = ck["numbers"] or {}
    verdict = "passed" if ck["rc"] == 0 else f"FAILED (exit {ck['rc']})"
    out = [f"Measured by `scripts/instruments-example.sh{(' ' + m['args']) if m['args'] else ''}` "
           f"on {m['date']}, commit `{m['commit']}`, {m['build_type']} build: {m['cores']} CPUs "
           f"({m['cpu_model']}), Linux {m['kernel']}; load average at start "
           f"{m['loadavg_at_start']}; {m['time_s']} s of traffic.{forced} The tables: "
           f"`scripts/instruments-example.py --update OUT/summary.json`; everything the run "
           f"wrote stays in its OUT directory.", "",
           f"The pair: link {c['rate']}, {c['delay']} one-way, `scheduler = {{ name = "
           f"\"{c['sched']}\"; {c['sched_params']} }};`, both daemons with "
           f"`stats.packet_log`, the sender with `{c['marker']}`. The commands, in order "
           f"(namespaces `st-PID-a`/`-b` from scripts/netns-lib.sh):", "",
           "```", *(_short(x, s["out"]) for x in s["commands"]), "```", "",
           f"- `pktlog.py check`: {verdict}"
           + (f"; departures never arrived: {nums.get('missing')}, the receiver counted "
              f"{nums.get('lost')} lost" if nums else "")
           + "." + "".join(f" {x}" for x in ck["messages"][:3]),
           f"- The log: {s['log']['a']['records']} records at the sender, "
           f"{s['log']['b']['records']} at the receiver, "
           f"{s['log']['a']['lost'] + s['log']['b']['lost']} lost (`log.lost`).",
           f"- The marker (A's stats lines): EF green {green}, yellow {yellow} "
           f"({_pct(yellow / (green + yellow) if green + yellow else None)} % re-marked to AF).",
           ""]
    out += ["TFRC, per flow: the sender's summary (rate from the first packet to the last, "
            "final p and R), the share the marker should re-mark (from tfrc's records of "
            f"the rate sent each second, in IP bytes, {IP_UDP_BYTES} more than each payload: "
            f"the bits above {units.fmt_rate(committed_bps(c['marker']))} over all bits), B's log's arrivals by class and their one-way "
            "delay, the receiver's lost and A's log's drops of the flow by reason. AF "
            "marked: the share of the flow's packets A enqueued as AF (after the marker); "
            "AF arrived: the share of B's arrivals.", "",
            "| flow | rate, kbit/s | p | R, ms | AF expected | AF marked | EF arrivals | "
            "AF arrivals | AF arrived | EF delay mean / max, ms | AF delay mean / max, ms | "
            "lost (receiver) | drops at A (log) |",
            "|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for t in s["tfrc"]:
        a = t["arrivals"]
        out.append(f"| {t['flow']} | {_kbit(t['rate_bps'])} | {num(t['p'], '.4f')} | "
                   f"{num(None if t['rtt_s'] is None else t['rtt_s'] * 1e3, '.0f')} | "
                   f"{_pct(t['expected_af_share'])} % | {_pct(t['marked_af_share'])} % | "
                   f"{_cls(a, 'ef', 'n')} | "
                   f"{_cls(a, 'af', 'n')} | {_pct(t['af_share'])} % | "
                   f"{_cls(a, 'ef', 'owd_mean_ms')} / {_cls(a, 'ef', 'owd_max_ms')} | "
                   f"{_cls(a, 'af', 'owd_mean_ms')} / {_cls(a, 'af', 'owd_max_ms')} | "
                   f"{t['lost']} | "
                   + (", ".join(f"{k} {v}" for k, v in t["drops_at_a"].items()) or "0")
                   + " |")
    o = s["onoff_sent"]
    out += ["", f"On-off, per flow (`schedlab.onoff.join` of both ends' records; the "
            f"classes from B's log): all together {o['packets']} packets sent, on fraction "
            f"{num(o['on_fraction'], '.3f')}.", "",
            "| flow | sent | received | on fraction | EF / AF arrivals | "
            "delay mean / max, ms |", "|--:|--:|--:|--:|--:|--:|"]
    for r in s["onoff"]:
        ms = (lambda v: num(None if v is None else v / 1e6, ".1f"))
        out.append(f"| {r['flow']} | {r['sent']} | {r['received']} | "
                   f"{num(r['on_fraction'], '.3f')} | {_cls(r['arrivals'], 'ef', 'n')} / "
                   f"{_cls(r['arrivals'], 'af', 'n')} | {ms(r['delay_mean_ns'])} / "
                   f"{ms(r['delay_max_ns'])} |")
    w = s["web"]
    status = ", ".join(f"{k} {v}" for k, v in sorted(w["by_status"].items()))
    out += ["", f"Web sessions (websess.py's records): {w['bursts']} bursts ({status}), "
            f"the DQ paper's eq. 2 session rate {_kbit(w['session_rate_bps'])} kbit/s, the "
            f"PDRR paper's mean TCP throughput {_kbit(w['mean_throughput_bps'])} kbit/s; "
            f"{w['users_over']} of the {w['users']} users had a packet over "
            f"{DELAY_OVER_MS} ms ({w['flows_over']} of the {w['flows_seen']} bursts the "
            f"log saw).", "",
            f"`pktlog.py flows a.plog.csv b.plog.csv --delay-over {DELAY_OVER_MS}`:", ""]
    out += _few(s["tables"]["flows"], "flows table")
    out += ["", f"`pktlog.py sessions a.plog.csv b.plog.csv --websess websess-send.jsonl "
            f"--delay-over {DELAY_OVER_MS}`:", ""]
    out += _few(s["tables"]["sessions"], "sessions table")
    if s["problems"]:
        out += ["", "**The run reported problems:** " + "; ".join(s["problems"])]
    return "\n".join(out)


def readme_block(s):
    """The `instruments-readme` block: one measured number per instrument."""
    ef = s["marker"].get("ef", {})
    g, y = ef.get("green", 0), ef.get("yellow", 0)
    lost = s["log"]["a"]["lost"] + s["log"]["b"]["lost"]
    recs = s["log"]["a"]["records"] + s["log"]["b"]["records"]
    rates = [t["rate_bps"] for t in s["tfrc"] if t["rate_bps"]]
    dmax = [r["delay_max_ns"] for r in s["onoff"] if r["delay_max_ns"] is not None]
    w = s["web"]
    return (f"Measured together through one pair (`scripts/instruments-example.sh`, "
            f"{s['meta']['date']}): the packet log "
            f"{recs} records, {lost} lost, `pktlog.py check` "
            f"{'passed' if s['check']['rc'] == 0 else 'failed'}; the TSW marker re-marked "
            f"{_pct(y / (g + y) if g + y else None)} % of EF to AF; {len(rates)} TFRC flows at "
            f"{_kbit(sum(rates) / len(rates) if rates else None)} kbit/s each on average; "
            f"{len(s['onoff'])} on-off flows, one-way delay at most "
            f"{num(max(dmax) / 1e6 if dmax else None, '.0f')} ms; web sessions' eq. 2 rate "
            f"{_kbit(w['session_rate_bps'])} kbit/s, {w['users_over']} of {w['users']} users "
            f"over {DELAY_OVER_MS} ms. "
            f"[Details](docs/instruments.md#all-of-them-through-a-pair-a-measured-example).")


def cmd_blocks(argv):
    """Prints the blocks; with --update writes them (module doc).  Errors
    (unreadable summary, missing markers) exit with a message."""
    ap = argparse.ArgumentParser(prog=PROG, description="the docs' blocks of a run")
    ap.add_argument("--update", action="store_true", help="write them into the pages")
    ap.add_argument("--root", default=REPO, help="the pages' repository (or a scratch copy)")
    ap.add_argument("summary", help="instruments-example.sh's OUT/summary.json")
    a = ap.parse_args(argv)
    try:
        with open(a.summary, encoding="utf-8") as f:
            s = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"{PROG}: summary '{a.summary}': {e} (accepted: instruments-example.sh's "
                 f"OUT/summary.json)")
    blocks = [("docs/instruments.md", "instruments-example", example_block(s)),
              ("README.md", "instruments-readme", readme_block(s))]
    for path, name, text in blocks:
        print(f"<!-- {name} --> ({path})\n{text}\n")
    if a.update:
        try:
            _pr.update(a.root, blocks)
        except OSError as e:
            sys.exit(f"{PROG}: {e}")
    return 0


def main(argv):
    """Dispatches on the first argument (module doc)."""
    try:
        if argv and argv[0] == "meta" and len(argv) >= 2:
            return cmd_meta(argv[1], argv[2:])
        if argv and argv[0] == "summarise" and len(argv) >= 2:
            return cmd_summarise(argv[1], argv[2:])
        return cmd_blocks(argv)
    except (ExampleError, OSError, pktlog.LogError, KeyError, ValueError) as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
