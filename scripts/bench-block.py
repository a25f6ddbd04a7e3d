#!/usr/bin/env python3
"""bench-block.py - a benchmark's saved output into the documentation.

  scripts/bench-block.py [--check]

Each entry of BLOCKS names a benchmark's output as saved in docs/data/
(its first lines say the command, the commit, the machine and when),
the block of a page between `<!-- NAME -->` and `<!-- /NAME -->` that
shows it, and how: the lines from the output's "=== means" line to its
end, in a code block, after one line naming the file (block_text); or a
sentence of the README made from those means (security_summary).  So the
numbers on the pages are the benchmark's own, never retyped.  With --check nothing is written:
exit 1 and a diff when a page is not what its file gives (ctest
unit.bench_blocks).
"""
import difflib
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# (block name, the page, the benchmark's saved output)
SECURITY = "docs/data/security-bench.txt"


def read_lines(data_rel):
    """The saved output's lines, and the index of its '=== means' line."""
    with open(os.path.join(ROOT, data_rel)) as f:
        lines = f.read().rstrip("\n").split("\n")
    starts = [i for i, l in enumerate(lines) if l.startswith("=== means")]
    if not starts:
        raise SystemExit("bench-block: %s has no '=== means' line" % data_rel)
    return lines, starts[0]


def block_text(data_rel):
    """The block's body for the saved output data_rel."""
    lines, start = read_lines(data_rel)
    name = os.path.basename(data_rel)
    return ("The means, from [data/%s](data/%s) (its first lines: the command, "
            "commit, machine and time):\n\n```\n%s\n```\n"
            % (name, name, "\n".join(lines[start:])))


def block_with_ranges(data_rel):
    """block_text(), then each case's and mode's range over its runs
    (tso-bench's per-run lines): the spread the means hide."""
    lines, start = read_lines(data_rel)
    runs = {}
    for l in lines[:start]:
        f = l.split()
        if len(f) > 3 and not l.startswith("#"):
            kv = dict(x.split("=") for x in f[3:])
            runs.setdefault((f[0], f[1]), []).append(kv)
    out = []
    for (case, mode), r in runs.items():
        col = "rx_kpps" if float(r[0].get("rx_kpps", 0)) else "rx_mbit"
        v = sorted(float(x[col]) for x in r)
        out.append("%-7s %-5s %s %.1f .. %.1f (%d runs)" % (
            case, mode, "kpps" if col == "rx_kpps" else "Mbit/s", v[0], v[-1], len(v)))
    body = block_text(data_rel)
    return body + ("\nThe range of each over its runs (the receiver's rate):\n\n"
                   "```\n%s\n```\n" % "\n".join(sorted(out)))


def means_table(data_rel):
    """tso-bench's means: {(case, mode): {column: value}}."""
    lines, start = read_lines(data_rel)
    head = lines[start + 1].split()
    rows = {}
    for l in lines[start + 2:]:
        f = l.split()
        if len(f) == len(head) and "/" not in f[1]:
            rows[(f[0], f[1])] = dict(zip(head[2:], map(float, f[2:])))
    return lines, rows


def security_summary(data_rel):
    """The README's sentence on what a key, encryption and the sandbox
    cost, from tso-bench's means (scripts/tso-bench.sh --modes
    on,mac,enc,nosb)."""
    lines, m = means_table(data_rel)
    when = [l for l in lines if l.startswith("# commit")][0].split(", ")
    date = [w for w in when if "UTC" in w][0]
    cpus = [w for w in when if " CPUs " in w][0].split(" CPUs ")[0]
    head = [l for l in lines if l.startswith("=== means")][0]
    rounds = head.split(" rounds")[0].split()[-1]
    pinned = "pinned: 1" in head

    def three(case, col, fmt):
        return " / ".join(fmt % m[(case, k)][col] for k in ("on", "mac", "enc"))

    def ratio(case, col):
        return m[(case, "on")][col] / m[(case, "nosb")][col]
    return (
        "  The cost of the tunnel's security (`scripts/tso-bench.sh`, %s, %s CPUs%s, "
        "the mean of %s runs; without a key / with a key / encrypted): "
        "unpaced, one TCP flow %s Mbit/s, 64-byte UDP %s kpps; paced at 1 Gbit/s "
        "%s Mbit/s; at 20 Mbit/s the sender's CPU %s %% of a core. The seccomp "
        "sandbox: %.2f× the unsandboxed TCP rate and %.2f× its UDP rate, "
        "unpaced. Details: [docs/performance.md](docs/performance.md#the-cost-of-"
        "authentication-encryption-and-the-sandbox).\n  "
        % (date, cpus, ", both daemons on one core" if pinned else "", rounds,
           three("tcp1", "rx_Mbit", "%.0f"), three("udp64", "rx_kpps", "%.0f"),
           three("paced", "rx_Mbit", "%.0f"), three("paced20", "cpu_a", "%.0f"),
           ratio("tcp1", "rx_Mbit"), ratio("udp64", "rx_kpps")))


# (block name, the page, the benchmark's saved output, the renderer)
BLOCKS = [("security-bench", "docs/performance.md", SECURITY, block_with_ranges),
          ("security-cost-readme", "README.md", SECURITY, security_summary)]


def main(argv):
    check = argv[1:] == ["--check"]
    if argv[1:] and not check:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    bad = 0
    for name, page, data, render in BLOCKS:
        path = os.path.join(ROOT, page)
        with open(path) as f:
            old = f.read()
        begin, end = "<!-- %s -->\n" % name, "<!-- /%s -->" % name
        if old.count(begin) != 1 or old.count(end) != 1:
            print("bench-block: %s needs one '%s' and one '%s'" % (page, begin.strip(), end))
            return 1
        head, rest = old.split(begin)
        tail = rest.split(end)[1]
        new = head + begin + render(data) + end + tail
        if new == old:
            continue
        if check:
            bad = 1
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(True), new.splitlines(True), page, page + " (from %s)" % data))
        else:
            with open(path, "w") as f:
                f.write(new)
            print("bench-block: %s updated from %s" % (page, data))
    if bad:
        print("bench-block: run scripts/bench-block.py to rewrite the blocks")
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv))
