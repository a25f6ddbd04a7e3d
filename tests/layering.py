#!/usr/bin/python3
"""layering.py - the architecture's rules, checked over the tree and the
library (issue 18).

    tests/layering.py ROOT [LIBCORE.a]      check; exit 1 on any violation
    tests/layering.py --self-test           prove that each rule can fail

The parts are the folders of src/ (include/ mirrors them).  A part may use
only the parts that PARTS lists for it, by `#include "part/name.h"`; a
header private to one part's files (src/PART/x.h) is included bare, and
only from that folder.  Three rules of DESIGN.md on top:

  - only the event loop (src/daemon/loop.c) touches libevent;
  - schedulers, the link model, the packets, the value layer and the core
    never read a clock (they may not include util/clock.h nor reference a
    clock call) and never sleep;
  - schedulers never see the configuration file (no conf/ header, no
    libconfig file reading, no fopen).

With the library, the objects' symbol references must form no circle
(strongly connected files), and the clock and libevent rules are checked
again on what the objects really call, whatever they include.  Each part's
src/PART/README.md states what it may use; it must say what PARTS says.
"""
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

# What each part may use, in layer order: a part sees only earlier ones.
PARTS = collections.OrderedDict([
    ("util",   []),
    ("pkt",    ["util"]),
    ("sec",    ["util"]),
    ("plog",   ["util", "pkt"]),
    ("link",   ["util", "pkt"]),
    ("cfgval", ["util"]),
    ("sched",  ["util", "pkt", "cfgval"]),
    ("mark",   ["util", "pkt", "cfgval"]),
    ("conf",   ["util", "pkt", "sec", "link", "cfgval", "sched", "mark"]),
    ("core",   ["util", "pkt", "sec", "plog", "link", "cfgval", "sched", "mark",
                "conf"]),
    ("daemon", ["util", "pkt", "sec", "plog", "link", "cfgval", "sched", "mark",
                "conf", "core"]),
    ("sim",    ["util", "pkt", "sec", "plog", "link", "cfgval", "sched", "mark",
                "conf", "core"]),
    ("params", ["util", "pkt", "sec", "plog", "link", "cfgval", "sched", "mark",
                "conf", "core", "sim"]),
    ("efgen",  ["util", "pkt", "link"]),
    ("tools",  ["util", "pkt", "sec", "plog", "link", "cfgval", "sched", "mark",
                "conf", "core", "daemon", "sim", "params", "efgen"]),
])
NO_HEADERS = {"tools"}                  # mains: nothing to include
LIBEVENT_FILES = {"src/daemon/loop.c"}
CLOCKLESS = {"util": False, "pkt": True, "sec": True, "plog": True, "link": True,
             "cfgval": True,
             "sched": True, "mark": True, "core": True}
CLOCK_CALLS = {"clock_gettime", "clock_mono_ns", "clock_real_ns", "time",
               "gettimeofday", "nanosleep", "clock_nanosleep", "usleep",
               "sleep", "timerfd_settime"}
FILE_CALLS = {"config_read_file", "config_read", "config_read_string",
              "conf_load"}

INCLUDE = re.compile(r'^\s*#\s*include\s+([<"])([^>"]+)[>"]', re.M)


def sources(root):
    """(path relative to root, part, kind) of every C file of src/, include/."""
    out = []
    for top in ("src", "include"):
        base = os.path.join(root, top)
        for dirpath, _, files in os.walk(base):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    rel = os.path.relpath(os.path.join(dirpath, f), root)
                    parts = rel.split(os.sep)
                    out.append((rel, parts[1] if len(parts) == 3 else None,
                                top))
    return out


def check_tree(root):
    """The #include rules and the folders' READMEs; a list of errors."""
    errs = []
    for rel, part, top in sources(root):
        if part is None or part not in PARTS:
            errs.append(f"{rel}: not in a part's folder ({top}/PART/, "
                        f"PART one of {', '.join(PARTS)})")
            continue
        if top == "include" and part in NO_HEADERS:
            errs.append(f"{rel}: include/{part}/ has no headers "
                        "(the programs' mains export nothing)")
        text = open(os.path.join(root, rel), encoding="utf-8").read()
        for m in INCLUDE.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            kind, name = m.group(1), m.group(2)
            close = ">" if kind == "<" else '"'
            where = f"{rel}:{line}: #include {kind}{name}{close}"
            if kind == "<":
                if name.startswith("event2/") and rel not in LIBEVENT_FILES:
                    errs.append(f"{where}: only {', '.join(LIBEVENT_FILES)}"
                                " may use libevent")
                continue
            if "/" not in name:
                here = os.path.join(os.path.dirname(rel), name)
                if top != "src" or not os.path.exists(os.path.join(root, here)):
                    errs.append(f"{where}: a bare name is a header private "
                                f"to its folder, and {here} does not exist")
                continue
            used = name.split("/")[0]
            if not os.path.exists(os.path.join(root, "include", name)):
                errs.append(f"{where}: no include/{name} (a part's private "
                            "header is included bare, from its own folder)")
            elif used != part and used not in PARTS[part]:
                errs.append(f"{where}: {part} may use only "
                            f"{', '.join(PARTS[part]) or 'nothing'} "
                            "besides itself")
            elif name == "util/clock.h" and CLOCKLESS.get(part):
                errs.append(f"{where}: {part} never reads a clock: `now` is "
                            "passed in (util/tstamp.h has the type)")
    for part, uses in PARTS.items():
        readme = os.path.join(root, "src", part, "README.md")
        if not os.path.exists(readme):
            errs.append(f"src/{part}/README.md: missing (what the part is, "
                        "what it may use)")
            continue
        m = re.search(r"^May use: (.*)$", open(readme, encoding="utf-8").read(),
                      re.M)
        said = [] if not m else [w for w in re.split(r"[ ,.]+", m.group(1))
                                 if w and w not in ("nothing", "and")]
        if not m or sorted(said) != sorted(uses):
            errs.append(f"src/{part}/README.md: its 'May use:' line must "
                        f"list {', '.join(uses) or 'nothing'}")
    return errs


def nm(lib, *flags):
    r = subprocess.run(["nm", "-A", *flags, lib], capture_output=True,
                       text=True, check=True)
    for line in r.stdout.splitlines():
        member, rest = line.split(":")[1], line.split(":", 2)[2]
        yield member, rest.split()


def check_symbols(root, lib):
    """Circles and forbidden calls among the library's objects."""
    errs = []
    part_of = {}
    for rel, part, top in sources(root):
        if top == "src" and rel.endswith(".c"):
            obj = os.path.basename(rel) + ".o"
            if obj in part_of:
                errs.append(f"{rel}: a second {obj} in the library")
            part_of[obj] = part
    defs = {}
    for member, f in nm(lib, "--defined-only", "-g"):
        if len(f) >= 3:
            defs[f[2]] = member
    graph = collections.defaultdict(dict)
    for member, f in nm(lib, "-u"):
        sym = f[-1]
        part = part_of.get(member)
        if part is None:
            errs.append(f"{lib}({member}): not a file of src/")
            continue
        if CLOCKLESS.get(part) and sym in CLOCK_CALLS:
            errs.append(f"{member} ({part}) calls {sym}: it never reads a "
                        "clock nor sleeps")
        if part == "sched" and sym in FILE_CALLS:
            errs.append(f"{member} (sched) calls {sym}: a scheduler sees its "
                        "settings, never the configuration file")
        if sym.startswith(("event_", "evtimer_", "evutil_")):
            errs.append(f"{member} calls libevent's {sym}: only "
                        f"{', '.join(LIBEVENT_FILES)} may")
        if sym in defs and defs[sym] != member:
            graph[member].setdefault(defs[sym], sym)
    for comp in circles(graph):
        edges = [f"{a} -> {b} ({graph[a][b]})" for a in comp
                 for b in sorted(graph[a]) if b in comp]
        errs.append("a circle of files: " + "; ".join(edges))
    return errs


def circles(graph):
    """The strongly connected sets of more than one node (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, {})):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    nodes = set(graph) | {w for v in graph for w in graph[v]}
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def self_test():
    """Each rule, broken once in a small tree of its own, must be reported;
    the same tree unbroken must pass."""
    ok = True

    def tree(files):
        d = tempfile.mkdtemp(prefix="layering-")
        for part, uses in PARTS.items():
            os.makedirs(os.path.join(d, "src", part))
            with open(os.path.join(d, "src", part, "README.md"), "w") as f:
                f.write(f"May use: {', '.join(uses) or 'nothing'}.\n")
        for path, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(d, path)), exist_ok=True)
            with open(os.path.join(d, path), "w") as f:
                f.write(text)
        return d

    good = {"include/util/tstamp.h": "", "include/util/clock.h": "",
            "include/sched/sched.h": '#include "util/tstamp.h"\n',
            "src/sched/drr.h": "",
            "src/sched/pss.c": '#include "sched/sched.h"\n#include "drr.h"\n',
            "src/daemon/loop.c": '#include <event2/event.h>\n'
                                 '#include "util/clock.h"\n'}
    cases = {
        "clean tree": ({}, None),
        "scheduler reads the clock": (
            {"src/sched/pss.c": '#include "util/clock.h"\n'}, "never reads"),
        "upward include": (
            {"src/util/log.c": '#include "sched/sched.h"\n'}, "may use only"),
        "libevent outside the loop": (
            {"src/core/core.c": "#include <event2/event.h>\n"},
            "may use libevent"),
        "private header from another part": (
            {"src/link/pacer.c": '#include "sched/drr.h"\n'}, "no include/"),
        "file outside a part": ({"src/stray.c": ""}, "not in a part"),
        "README disagrees": ({"src/pkt/README.md": "May use: util, link.\n"},
                             "'May use:' line"),
    }
    for name, (change, want) in cases.items():
        d = tree({**good, **change})
        try:
            errs = check_tree(d)
        finally:
            shutil.rmtree(d)
        passed = (not errs) if want is None else any(want in e for e in errs)
        print(f"self-test {'ok  ' if passed else 'FAIL'} {name}: "
              f"{errs[0] if errs else 'no error'}")
        ok &= passed
    g = {"a.c.o": {"b.c.o": "f"}, "b.c.o": {"c.c.o": "g"},
         "c.c.o": {"a.c.o": "h"}, "d.c.o": {"a.c.o": "f"}}
    found = circles(g)
    passed = found == [["a.c.o", "b.c.o", "c.c.o"]] and \
        circles({"a.c.o": {"b.c.o": "f"}}) == []
    print(f"self-test {'ok  ' if passed else 'FAIL'} circle of three: {found}")
    return ok and passed


def main(argv):
    if argv[1:] == ["--self-test"]:
        return 0 if self_test() else 1
    if len(argv) not in (2, 3):
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    root = argv[1]
    errs = check_tree(root)
    if len(argv) == 3:
        errs += check_symbols(root, argv[2])
    for e in errs:
        print(e)
    n = len(sources(root))
    print(f"layering: {n} files in {len(PARTS)} parts, "
          f"{len(errs)} violation{'s' if len(errs) != 1 else ''}")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
