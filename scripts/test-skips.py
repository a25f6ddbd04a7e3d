#!/usr/bin/env python3
"""test-skips.py - what did not run, from ctest's JUnit results.

    test-skips.py [--expect NAME]... JUNIT.xml...
    test-skips.py --self-test

Reads the JUnit files that `ctest --output-junit FILE` wrote (run with
--test-output-size-passed/-failed large enough that no output is cut) and
prints one line per test, or part of a test, that did not run:

    NAME<TAB>REASON

A test is counted as not run when
  - ctest says so: status "notrun" (SKIP_RETURN_CODE 77: the reason is the
    test's "SKIP: NAME: REASON" line; a missing executable, ...) or
    "disabled";
  - its output has a "SKIP: NAME: REASON" line although it ran (a part
    skipped: netns-lib.sh's `st_skip --part`, test_rt's message);
  - a cmocka program skipped a test ("[  SKIPPED ] test_x"; cmocka's exit
    status does not count skips, so ctest says Passed);
  - a Python unittest run skipped a test ("test_x (mod.C) ... skipped 'why'",
    or only the count in "OK (skipped=N)");
  - an --expect NAME has no result at all (not registered with ctest).
Exit status 0 when the files were read (whatever they say), 2 when one is
missing or is not ctest's JUnit.  The policy (fail, or list and allow
with SCHEDTUN_TEST_ALLOW_SKIP) is scripts/test.sh's.
"""
import re
import sys
import tempfile
import os
import xml.etree.ElementTree as ET

class NotJUnit(Exception):
    pass


SKIP_LINE = re.compile(r"^SKIP: (\S+): (.*)$")
CMOCKA_SKIP = re.compile(r"^\[  SKIPPED \] (\w+)\s*$")
PY_SKIP = re.compile(r"\.\.\. skipped '(.*)'$")
PY_NAME = re.compile(r"^(\w+) \(([\w.]+)\)")
PY_COUNT = re.compile(r"^(?:OK|FAILED) \(.*\bskipped=(\d+)")


def skips_in_output(test, out):
    """(name, reason) for each skip the output of test `test` reports."""
    found = []
    lines = out.splitlines()
    said = []                       # SKIP: lines' text, for the cmocka ones
    for line in lines:
        m = SKIP_LINE.match(line)
        if m:
            found.append((test, m.group(2)))
            said.append(m.group(2))
    for line in lines:
        m = CMOCKA_SKIP.match(line)
        if m:
            sub = m.group(1)
            if any(s.startswith(sub + ":") or (" " + sub + ":") in s for s in said):
                continue            # its reason is on a SKIP: line already
            found.append((test, "cmocka test %s skipped (it printed no SKIP: line)" % sub))
    py = 0
    for i, line in enumerate(lines):
        m = PY_SKIP.search(line)
        if not m:
            continue
        n = PY_NAME.match(line) or (i > 0 and PY_NAME.match(lines[i - 1]))
        sub = n.group(1) if n else "a unittest test"
        found.append((test, "%s skipped: %s" % (sub, m.group(1))))
        py += 1
    for line in lines:
        m = PY_COUNT.match(line)
        if m and int(m.group(1)) > py:
            found.append((test, "%d unittest test(s) skipped" % (int(m.group(1)) - py)))
    # one line per reason
    seen, out_ = set(), []
    for f in found:
        if f not in seen:
            seen.add(f)
            out_.append(f)
    return out_


def scan(path):
    """(names seen, [(name, reason)]) of one ctest JUnit file."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        raise NotJUnit("cannot read %s as ctest's JUnit: %s" % (path, e))
    if root.tag != "testsuite":
        raise NotJUnit("%s: root element <%s>, not ctest's <testsuite>" % (path, root.tag))
    names, skips = [], []
    for tc in root.iter("testcase"):
        name = tc.get("name", "?")
        names.append(name)
        status = tc.get("status", "")
        out = "".join(e.text or "" for e in tc.findall("system-out"))
        if status in ("notrun", "disabled"):
            reasons = [r for n, r in skips_in_output(name, out)
                       if not r.startswith("cmocka test ")]
            if not reasons:
                sk = tc.find("skipped")
                msg = sk.get("message", "") if sk is not None else ""
                reasons = ["ctest: %s%s" % ("disabled" if status == "disabled" else "not run",
                                            ", " + msg if msg else "")]
            skips += [(name, r) for r in reasons]
        else:
            skips += skips_in_output(name, out)
    return names, skips


def main(argv):
    expect, files = [], []
    i = 0
    while i < len(argv):
        if argv[i] == "--expect" and i + 1 < len(argv):
            expect.append(argv[i + 1])
            i += 2
        elif argv[i] == "--self-test":
            return self_test()
        else:
            files.append(argv[i])
            i += 1
    if not files:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    seen, skips = set(), []
    for f in files:
        try:
            names, s = scan(f)
        except NotJUnit as e:
            print("test-skips.py: %s" % e, file=sys.stderr)
            return 2
        seen.update(names)
        skips += s
    for name in expect:
        if name not in seen:
            skips.append((name, "no result: not registered with ctest, or not selected"))
    for name, reason in skips:
        print("%s\t%s" % (name, reason.replace("\t", " ").replace("\n", " ")))
    return 0


# ------------------------------------------------------------ self-test
def junit(cases):
    """A JUnit file as ctest 3.25 writes it; cases: (name, status, out, msg)."""
    x = ['<?xml version="1.0" encoding="UTF-8"?>\n<testsuite name="t" tests="%d">'
         % len(cases)]
    for name, status, out, msg in cases:
        x.append('<testcase name="%s" classname="%s" time="0.1" status="%s">'
                 % (name, name, status))
        if status == "notrun":
            x.append('<skipped message="%s"/>' % msg)
        if status == "fail":
            x.append('<failure message=""/>')
        esc = out.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        x.append("<system-out>%s</system-out></testcase>" % esc)
    x.append("</testsuite>")
    return "\n".join(x)


FIX_CMOCKA_PASS = """[==========] Running 2 test(s).
[ RUN      ] test_a
[       OK ] test_a
[==========] 2 test(s) run.
[  PASSED  ] 2 test(s).
"""
FIX_CMOCKA_SKIP = """[ RUN      ] test_on
SKIP: test_rt: test_on: SCHED_FIFO is refused (EPERM)
[  SKIPPED ] test_on
[ RUN      ] test_disk
[  SKIPPED ] test_disk
[==========] 3 test(s) run.
[  PASSED  ] 1 test(s).
[  SKIPPED ] 2 test(s), listed below:
[  SKIPPED ] test_on
[  SKIPPED ] test_disk

 2 SKIPPED TEST(S)
"""
FIX_PY_OUT = """test_points (test_theory.Cross.test_points) ... skipped 'no schedtun binary (set SCHEDTUN)'
test_k (test_theory.K.test_k)
K_AF for 9:2 ... ok
test_doc (test_theory.K.test_doc)
First docstring line ... skipped 'no data'

Ran 3 tests in 0.1s

OK (skipped=2)
"""
FIX_PY_QUIET = "...s.\nRan 4 tests in 0.1s\n\nOK (skipped=1)\n"


def self_test():
    cases = [
        # (cases, expect, wanted skips)
        ([("unit.a", "run", FIX_CMOCKA_PASS, ""),
          ("integration.ok", "run", "PASS: ok\nnot SKIPPED here; SKIP: no\n", "")],
         ["unit.a", "integration.ok"], []),
        ([("integration.t", "notrun", "SKIP: t: needs root (tun)\n", "SKIP_RETURN_CODE=77")],
         [], [("integration.t", "needs root (tun)")]),
        ([("integration.t", "notrun", "", "SKIP_RETURN_CODE=77")],
         [], [("integration.t", "ctest: not run, SKIP_RETURN_CODE=77")]),
        ([("unit.gone", "notrun", "", "Unable to find executable: /b/x")],
         [], [("unit.gone", "ctest: not run, Unable to find executable: /b/x")]),
        ([("unit.off", "disabled", "", "")], [], [("unit.off", "ctest: disabled")]),
        ([("integration.rt", "run", "ok: a\nSKIP: rt: VmLck: no rel build\nPASS\n", "")],
         [], [("integration.rt", "VmLck: no rel build")]),
        ([("unit.test_rt", "run", FIX_CMOCKA_SKIP, "")], [],
         [("unit.test_rt", "test_on: SCHED_FIFO is refused (EPERM)"),
          ("unit.test_rt", "cmocka test test_disk skipped (it printed no SKIP: line)")]),
        ([("unit.theory_py", "run", FIX_PY_OUT, "")], [],
         [("unit.theory_py", "test_points skipped: no schedtun binary (set SCHEDTUN)"),
          ("unit.theory_py", "test_doc skipped: no data")]),
        ([("unit.q", "run", FIX_PY_QUIET, "")], [], [("unit.q", "1 unittest test(s) skipped")]),
        # a failed test that also skipped a part: the skip is listed too
        ([("integration.f", "fail", "SKIP: f: case uso: Linux 5.10 < 6.2\nFAIL: f: x\n", "")],
         [], [("integration.f", "case uso: Linux 5.10 < 6.2")]),
        # an expected test without any result
        ([("unit.a", "run", FIX_CMOCKA_PASS, "")], ["unit.a", "integration.test_new"],
         [("integration.test_new", "no result: not registered with ctest, or not selected")]),
    ]
    bad = 0
    with tempfile.TemporaryDirectory() as d:
        for k, (cs, expect, want) in enumerate(cases):
            p = os.path.join(d, "j%d.xml" % k)
            with open(p, "w") as f:
                f.write(junit(cs))
            names, got = scan(p)
            for e in expect:
                if e not in names:
                    got.append((e, "no result: not registered with ctest, or not selected"))
            if got != want:
                print("self-test case %d: got %r, want %r" % (k, got, want))
                bad += 1
        # not JUnit at all: an error, never "nothing skipped"
        p = os.path.join(d, "bad.xml")
        with open(p, "w") as f:
            f.write("<html></html>")
        try:
            scan(p)
            print("self-test: a non-JUnit file was accepted")
            bad += 1
        except NotJUnit:
            pass
        try:
            scan(os.path.join(d, "missing.xml"))
            print("self-test: a missing file was accepted")
            bad += 1
        except NotJUnit:
            pass
    if bad:
        print("test-skips.py self-test: %d case(s) failed" % bad)
        return 1
    print("test-skips.py self-test: %d cases ok" % (len(cases) + 2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
