#!/usr/bin/python3
"""bench-readme.py - docs/performance.md's bench table from a bench.sh run.

  scripts/bench-readme.py RESULTS_JSON            (bench.sh's OUT/results.json)
  scripts/bench-readme.py --update RESULTS_JSON   (also write it into the page)

Prints Markdown on stdout: the machine and the command the numbers come
from, the targets of issue 10 with the measured values (unpinned and
pinned), and the absolute numbers behind the ratios.  With --update it
also replaces what stands between `<!-- bench -->` and `<!-- /bench -->`
in docs/performance.md (the name is older than that page); never edit
the numbers by hand.
"""
import importlib.util
import json
import os
import re
import sys

# the one definition of the targets, their texts and verdicts
_spec = importlib.util.spec_from_file_location(
    "bench_report", os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench-report.py"))
br = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(br)

MARK = {"MET": "✔", "missed": "✘", "n/a": "n/a", "info": ""}


def md_escape(s):
    return s.replace("|", "\\|")


def fmt(v, spec, none="n/a"):
    return none if v is None else format(v, spec)


DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "performance.md")


def update(text, path=DOC):
    """Puts text between the page's <!-- bench --> markers."""
    with open(path, encoding="utf-8") as f:
        page = f.read()
    block = re.compile(r"^<!-- bench -->\n.*?^<!-- /bench -->$", re.S | re.M)
    if not block.search(page):
        sys.exit(f"bench-readme: {path} has no <!-- bench --> ... <!-- /bench --> markers")
    page = block.sub(lambda _: f"<!-- bench -->\n{text}\n<!-- /bench -->", page, count=1)
    with open(path, "w", encoding="utf-8") as f:
        f.write(page)
    print(f"bench-readme: {os.path.relpath(path)} updated", file=sys.stderr)


def main(argv):
    write = bool(argv) and argv[0] == "--update"
    if write:
        argv = argv[1:]
    if len(argv) != 1:
        sys.exit(__doc__)
    with open(argv[0], encoding="utf-8") as f:
        res = json.load(f)
    meta, modes = res["meta"], res["modes"]
    names = list(modes)
    out = []
    w = out.append
    w(f"Measured by `scripts/bench.sh` on {meta.get('date', '?')}, commit "
      f"`{meta.get('commit', '?')}`, {meta.get('build_type', '?')} build: "
      f"{meta.get('nproc', '?')} CPUs ({md_escape(str(meta.get('cpu_model', '?')))}), "
      f"Linux {meta.get('kernel', '?')}, {meta.get('iperf3', '?')}; "
      f"{meta.get('time', '?')} s windows after {meta.get('warmup', '?')} s of warm-up, "
      f"unpaced tests repeated {meta.get('reps', '?')}x; "
      f"load average at start {meta.get('loadavg_at_start', '?')}. "
      f"Unpinned: nothing pinned, as a user runs it; pinned: the daemons (and "
      f"plainfwd) on CPU 1, iperf3 on CPU 0.")
    w("")
    w(f"Command: `scripts/bench.sh{(' ' + meta['args']) if meta.get('args') else ''}`, then "
      f"`scripts/bench-readme.py OUT/results.json`.")
    w("")
    head = "| target | wanted |" + "".join(f" {m} |" for m in names)
    w(head)
    w("|---|---|" + "--:|" * len(names))
    for t in res["targets"]:
        cells = []
        for m in names:
            d = t["modes"][m]
            v = d["value"]
            text = "none" if t["id"] == "paced_max" and v == 0 else br.value_text(v, t["unit"])
            mark = MARK.get(d["verdict"], d["verdict"])
            cells.append(text if d["verdict"] in ("n/a", "info") else f"{text} {mark}")
        wanted = br.target_text(t["kind"], t["target"], t["unit"]).replace(">=", "≥").replace("<=", "≤")
        w(f"| {md_escape(t['label'])} | {md_escape(wanted)} |"
          + "".join(f" {c} |" for c in cells))
    notes = [(m, t["label"], t["modes"][m]["why"]) for t in res["targets"] for m in names
             if t["modes"][m]["why"]]
    if notes:
        w("")
        for m, label, why in notes:
            w(f"- {m}, {md_escape(label)}: {md_escape(why)}")

    w("")
    w("Behind the ratios (means over the repetitions):")
    w("")
    w("| test | mode | veth alone | plainfwd | schedtun |")
    w("|---|---|--:|--:|--:|")
    for kind, label in (("tcp", "TCP, 1 cubic flow, Mbit/s"), ("tcp4", "TCP, 4 cubic flows, Mbit/s"),
                        ("udp", "64-byte UDP delivered, pkt/s")):
        for m in names:
            cm = modes[m]["compare_mean"]
            vals = [cm.get(f"{f}_{kind}") for f in ("veth", "plain", "sched")]
            if all(v is None for v in vals):
                continue
            w(f"| {label} | {m} |" + "".join(f" {fmt(v, '.0f', '–')} |" for v in vals))
    paced = [(m, r) for m in names for r in sorted(modes[m]["paced"], key=lambda r: r["bps"])]
    if paced:
        w("")
        w("Paced (fifo, 5 ms each way, iperf3 -P 4 -C cubic); the error counts only when "
          "the link was saturated (every stats interval ended with packets queued or with "
          "queue drops):")
        w("")
        w("| rate | mode | carried (stats) | carried (iperf3) | error | saturated intervals | "
          "late p99 | CPU sender / receiver |")
        w("|---|---|--:|--:|--:|--:|--:|--:|")
        for m, r in paced:
            cb, ib = r.get("carried_bps"), r.get("iperf_bps")
            w(f"| {r['rate']} | {m} | {fmt(cb and cb / 1e9, '.3f')} Gbit/s | "
              f"{fmt(ib and ib / 1e9, '.3f')} Gbit/s | "
              f"{fmt(r.get('error_pct'), '+.3f')}{'' if r.get('error_pct') is None else ' %'} | "
              f"{r.get('saturated_intervals', '–')}/{r['intervals']} | "
              f"{fmt(r.get('late_p99_us'), '.0f')} µs | "
              f"{fmt(r.get('cpu_a_pct'), '.0f')} % / {fmt(r.get('cpu_b_pct'), '.0f')} % |")
    mix = [(m, r) for m in names for r in modes[m]["mix"]]
    if mix:
        w("")
        w("EF+AF+CS0 mix (EF UDP at 20 % of the rate, AF and CS0 4 cubic flows each, prio); "
          "plainfwd carries the same mix with its TCP capped to the rate:")
        w("")
        w("| rate | mode | pacing error | late p99 (timer floor p99) | CPU schedtun a + b | "
          "CPU plainfwd a + b |")
        w("|---|---|--:|--:|--:|--:|")
        for m, r in mix:
            fl = modes[m].get("timer_floor") or {}
            p = br.find_rate(modes[m]["mix_plain"], r["bps"])
            sa = None if None in (r["cpu_a_pct"], r["cpu_b_pct"]) else r["cpu_a_pct"] + r["cpu_b_pct"]
            pa = None if p is None or None in (p["cpu_a_pct"], p["cpu_b_pct"]) else \
                p["cpu_a_pct"] + p["cpu_b_pct"]
            w(f"| {r['rate']} | {m} | {fmt(r['error_pct'], '+.4f')}"
              f"{'' if r['error_pct'] is None else ' %'} | "
              f"{fmt(r['late_p99_us'], '.0f')} µs ({fmt(fl.get('p99_us'), '.0f')} µs) | "
              f"{fmt(sa, '.1f')} % | {fmt(pa, '.1f')} % |")
    print("\n".join(out))
    if write:
        update("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1:])
