#!/usr/bin/env python3
"""bench-block.py - a benchmark's saved output into the documentation.

  scripts/bench-block.py [--check]

Each entry of BLOCKS names a benchmark's output as saved in docs/data/
(its first lines say the command, the commit, the machine and when) and
the block of a page between `<!-- NAME -->` and `<!-- /NAME -->` that
shows it: the lines from the output's "=== means" line to its end, in a
code block, after one line naming the file.  So the numbers on the page
are the benchmark's own, never retyped.  With --check nothing is written:
exit 1 and a diff when a page is not what its file gives (ctest
unit.bench_blocks).
"""
import difflib
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# (block name, the page, the benchmark's saved output)
BLOCKS = [("auth-bench", "docs/performance.md", "docs/data/auth-bench.txt")]


def block_text(data_rel):
    """The block's body for the saved output data_rel."""
    with open(os.path.join(ROOT, data_rel)) as f:
        lines = f.read().rstrip("\n").split("\n")
    starts = [i for i, l in enumerate(lines) if l.startswith("=== means")]
    if not starts:
        raise SystemExit("bench-block: %s has no '=== means' line" % data_rel)
    name = os.path.basename(data_rel)
    return ("The means, from [data/%s](data/%s) (its first lines: the command, "
            "commit, machine and time):\n\n```\n%s\n```\n"
            % (name, name, "\n".join(lines[starts[0]:])))


def main(argv):
    check = argv[1:] == ["--check"]
    if argv[1:] and not check:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    bad = 0
    for name, page, data in BLOCKS:
        path = os.path.join(ROOT, page)
        with open(path) as f:
            old = f.read()
        begin, end = "<!-- %s -->\n" % name, "<!-- /%s -->" % name
        if old.count(begin) != 1 or old.count(end) != 1:
            print("bench-block: %s needs one '%s' and one '%s'" % (page, begin.strip(), end))
            return 1
        head, rest = old.split(begin)
        tail = rest.split(end)[1]
        new = head + begin + block_text(data) + end + tail
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
