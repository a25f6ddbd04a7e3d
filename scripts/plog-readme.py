#!/usr/bin/python3
"""plog-readme.py - the per-packet log's cost and example, in the docs,
from a scripts/plog-bench.sh run.

  scripts/plog-readme.py RESULTS_JSON                 (plog-bench's OUT/results.json)
  scripts/plog-readme.py --update [--root DIR] RESULTS_JSON

Prints the three Markdown blocks: `plog-cost` (docs/pktlog.md: the
machine, the command, per case and mode the rate and the CPU with their
95 % intervals, on/off, CPU per record, records lost), `plog-example`
(docs/pktlog.md: lines of the logs of the 20 Mbit/s run and the start of
its flows table) and `plog-cost-readme` (README.md: the cost at 20 Mbit/s
and 1 Gbit/s in two lines).  With --update it also writes each between
its `<!-- NAME -->` and `<!-- /NAME -->` markers in DIR/docs/pktlog.md
and DIR/README.md (DIR: the repository, or a scratch copy).  The numbers
in those blocks come from here only; never edit them by hand.
"""
import importlib.util
import json
import os
import re
import sys

PROG = "plog-readme"
REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
# the one formatting of an interval, plog-bench's
_spec = importlib.util.spec_from_file_location(
    "plog_bench", os.path.join(REPO, "scripts", "plog-bench.py"))
_pb = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_pb)
ci, num = _pb.ci, _pb.num
BUSY_PCT = 90.0         # a CPU this busy cannot show a cost as more CPU
CASE_TEXT = {"r20": "20 Mbit/s, 10 ms", "g1": "1 Gbit/s, 5 ms, offload on"}
CASE_SHORT = {"r20": "20 Mbit/s", "g1": "1 Gbit/s"}


def provenance(meta):
    """The sentence saying where, when and how the numbers were measured."""
    pin = ("pinned: the daemons and their log writers on CPU 1, iperf3 on CPU 0"
           if meta["pinned"] else "nothing pinned")
    forced = (f" Run with --force beside: {', '.join(meta['busy_at_start'])}."
              if meta.get("forced") and meta.get("busy_at_start") else "")
    return (f"Measured by `scripts/plog-bench.sh` on {meta['date']}, commit "
            f"`{meta['commit']}`, {meta['build_type']} build: {meta['cores']} CPUs "
            f"({meta['cpu_model']}), Linux {meta['kernel']}, {meta['iperf3']}; "
            f"{meta['reps']} round{'' if meta['reps'] == 1 else 's'} of {meta['time_s']} s per "
            f"case and mode, log off and on "
            f"alternating; {pin}; load average at start {meta['loadavg_at_start']}.{forced}")


def saturated(c):
    """{cpu: the highest mean busy %} of a case's CPUs that were at least
    BUSY_PCT busy in some mode."""
    out = {}
    for m in c["modes"].values():
        for k, v in m.items():
            if k.startswith("busy_") and v and v["mean"] >= BUSY_PCT:
                out[k[5:]] = max(out.get(k[5:], 0.0), v["mean"])
    return out


def cost_block(res):
    """The `plog-cost` block: provenance, command, the two tables and the
    notes (busy CPUs, failed iperf3 runs, lost records)."""
    meta, cases = res["meta"], res["cases"]
    out = [provenance(meta), "",
           f"Command: `scripts/plog-bench.sh{(' ' + meta['args']) if meta['args'] else ''}`, "
           f"then `scripts/plog-readme.py --update OUT/results.json`. iperf3 -C cubic -P 4 "
           f"A → B through a fifo link; means ± the 95 % Student-t half-width over the rounds; "
           f"CPU in % of one core, utime + stime over the iperf3 run.", "",
           "| link | log | iperf3 rate, Mbit/s | CPU sender | CPU receiver | "
           "CPU log writers, sender / receiver | CPU all | CPUs busy |",
           "|---|---|--:|--:|--:|--:|--:|--:|"]
    for case, c in cases.items():
        for mode, m in c["modes"].items():
            wr = "–" if mode == "off" else (f"{ci(m['cpu_wa_pct'], '.1f', ' %')} / "
                                           f"{ci(m['cpu_wb_pct'], '.1f', ' %')}")
            busy = {k[5:]: v for k, v in m.items() if k.startswith("busy_") and v}
            out.append(f"| {CASE_TEXT.get(case, case)} | {mode} | {ci(m['rx_mbit'])} | "
                       f"{ci(m['cpu_a_pct'], '.1f', ' %')} | {ci(m['cpu_b_pct'], '.1f', ' %')} "
                       f"| {wr} | {ci(m['cpu_total_pct'], '.1f', ' %')} | "
                       + (", ".join(f"{cpu} {v['mean']:.0f} %" for cpu, v in busy.items())
                          or "n/a") + " |")
    for case, c in cases.items():
        for cpu, pct in saturated(c).items():
            out += ["", f"At {CASE_SHORT.get(case, case)}, {cpu} was up to {pct:.0f} % busy: "
                    f"a CPU that busy cannot show a cost as more CPU time; read the rate "
                    f"there (and the CPU of all, which the kernel splits between the daemons "
                    f"differently from run to run)."]
    out += ["", "With the log on, from the means: rate and CPU on/off; records a second "
            "and bytes a record as written; the CPU a record = (CPU on − CPU off) / records "
            "a second for a daemon (for all, the sum of both daemons and, with the log on, both writers: over the records of both logs), CPU / "
            "records a second for a writer (in brackets, the "
            "same from /proc/PID/schedstat's time on a CPU, finer than the clock ticks); "
            "records lost = the sum of `log.lost` over both daemons' stats lines. A "
            "negative CPU a record is a difference smaller than the spread between runs "
            "(the intervals above).", "",
            "| link | rate on/off | CPU on/off, sender / receiver / all | records/s, "
            "sender / receiver | bytes a record | CPU a record, all | CPU a record, "
            "daemon sender / receiver | CPU a record, writer sender / receiver | records lost |",
            "|---|--:|--:|--:|--:|--:|--:|--:|--:|"]
    lost_any = []
    for case, c in cases.items():
        if not c["on_off"]:
            continue
        oo, ns, on = c["on_off"], c["ns_per_record"], c["modes"]["on"]
        la, lb = on["log_a"], on["log_b"]
        rec = la["records"] + lb["records"]
        bpr = (la["bytes"] + lb["bytes"]) / rec if rec else None
        lost = la["lost"] + lb["lost"]
        if lost:
            lost_any.append((case, lost, rec))

        def nsp(k):
            return f"{num(ns[k + '_pct'], '.0f')} ns ({num(ns[k + '_sched_pct'], '.0f')})"
        out.append(f"| {CASE_SHORT.get(case, case)} | {num(oo['rx'], '.3f')} | "
                   f"{num(oo['cpu_a'], '.2f')} / {num(oo['cpu_b'], '.2f')} / "
                   f"{num(oo['cpu_total'], '.2f')} | "
                   f"{num(la['records_per_s'], '.0f')} / {num(lb['records_per_s'], '.0f')} | "
                   f"{num(bpr, '.1f')} | {nsp('total')} | {nsp('daemon_a')} / {nsp('daemon_b')} | "
                   f"{nsp('writer_a')} / {nsp('writer_b')} | {lost} |")
    for case, c in cases.items():
        for mode, m in c["modes"].items():
            if m["iperf_failed"]:
                out += ["", f"iperf3 failed in {m['iperf_failed']} of the {m['n']} runs at "
                        f"{CASE_SHORT.get(case, case)} with the log {mode}: its rate is over "
                        f"the others."]
    for case, lost, rec in lost_any:
        out += ["", f"**Records were lost** at {CASE_SHORT.get(case, case)}: {lost} of "
                f"{lost + rec} (`log.lost`): the log could not keep up there; forwarding "
                f"did not lose them."]
    return "\n".join(out)


def example_block(res):
    """The `plog-example` block: log lines and the flows table's first rows
    as the run recorded them."""
    ex = res.get("example")
    if not ex:
        return "(this run had no 20 Mbit/s run with the log on: no example)"
    return "\n".join([
        f"The header and {len(ex['sender'])} consecutive lines of the sender's log "
        f"(`a.plog.csv`, the 20 Mbit/s run with the log on, round {ex['round']} of the "
        f"measurement below), {len(ex['receiver'])} arrivals from the receiver's "
        f"(`b.plog.csv`), and the first {len(ex['flows']) - 1} of the {ex['flows_rows']} "
        f"rows of `{ex['flows_cmd']}`:", "",
        "```", ex["header"], *ex["sender"], "```", "",
        "```", ex["header"], *ex["receiver"], "```", "",
        "```", f"$ {ex['flows_cmd']} | head -n {len(ex['flows'])}",
        *(row.rstrip() for row in ex["flows"]), "```"])


def readme_block(res):
    """The `plog-cost-readme` block: one sentence, the cost per case."""
    meta, cases = res["meta"], res["cases"]
    parts = []
    for case in ("r20", "g1"):
        c = cases.get(case)
        if not c or not c["on_off"]:
            continue
        oo, ns = c["on_off"], c["ns_per_record"]
        lost = c["modes"]["on"]["log_a"]["lost"] + c["modes"]["on"]["log_b"]["lost"]
        parts.append(f"at {CASE_SHORT[case]} the rate is {num(oo['rx'], '.3f')}× the rate "
                     f"without it and the CPU of both daemons and their writers "
                     f"{num(oo['cpu_total'], '.2f')}× ({num(ns['total_sched_pct'], '.0f')} ns "
                     f"on a CPU a record"
                     + "".join(f"; {cpu} {pct:.0f} % busy: read the rate"
                               for cpu, pct in saturated(c).items())
                     + f"), {lost} records lost")
    body = "; ".join(parts) if parts else "not measured in this run"
    return (f"The per-packet log's cost (`scripts/plog-bench.sh`, {meta['date']}, "
            f"{meta['cores']} CPUs): {body}. Details: "
            f"[docs/pktlog.md](docs/pktlog.md#what-it-costs).")


def put_block(page, name, text, path):
    """page with text between its `<!-- name -->` and `<!-- /name -->`
    lines, indented as the opening marker is (a block inside a list
    item); exits naming path when the markers are missing."""
    block = re.compile(r"^([ \t]*)<!-- %s -->\n.*?^[ \t]*<!-- /%s -->$"
                       % (re.escape(name), re.escape(name)), re.S | re.M)
    m = block.search(page)
    if not m:
        sys.exit(f"{PROG}: {path}: no <!-- {name} --> ... <!-- /{name} --> markers; nothing written")
    ind = m.group(1)
    body = "\n".join((ind + ln) if ln else ln for ln in text.split("\n"))
    return page[:m.start()] + f"{ind}<!-- {name} -->\n{body}\n{ind}<!-- /{name} -->" + page[m.end():]


def update(root, blocks):
    """Writes blocks [(path under root, name, text)] into their pages;
    every page is read and every marker found before anything is
    written, so a missing marker leaves all pages as they were."""
    pages = {}
    for path, name, text in blocks:
        full = os.path.join(root, path)
        if full not in pages:
            with open(full, encoding="utf-8") as f:
                pages[full] = f.read()
        pages[full] = put_block(pages[full], name, text, full)
    for full, page in pages.items():
        with open(full, "w", encoding="utf-8") as f:
            f.write(page)
        print(f"{PROG}: {full} updated", file=sys.stderr)


def main(argv):
    """Prints the blocks; with --update writes them (module doc)."""
    write, root = False, REPO
    args = list(argv)
    while args and args[0].startswith("--"):
        opt = args.pop(0)
        if opt == "--update":
            write = True
        elif opt == "--root" and args:
            root = args.pop(0)
        else:
            sys.exit(f"{PROG}: option '{opt}': not understood (accepted: --update, --root DIR)\n"
                     + __doc__)
    if len(args) != 1:
        sys.exit(__doc__)
    try:
        with open(args[0], encoding="utf-8") as f:
            res = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"{PROG}: results '{args[0]}': {e} (accepted: plog-bench.sh's OUT/results.json)")
    blocks = [("docs/pktlog.md", "plog-cost", cost_block(res)),
              ("docs/pktlog.md", "plog-example", example_block(res)),
              ("README.md", "plog-cost-readme", readme_block(res))]
    for path, name, text in blocks:
        print(f"<!-- {name} --> ({path})\n{text}\n")
    if write:
        try:
            update(root, blocks)
        except OSError as e:
            sys.exit(f"{PROG}: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
