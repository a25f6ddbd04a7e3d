#!/usr/bin/env bash
# doc-keys.sh SCHEDTUN [--check] - the key tables of the documentation,
# generated from the key tables that parse the file (`schedtun
# --help-conf-md` for the file's sections, `schedtun --help-sched-md NAME`
# for scheduler NAME), so that the docs, the man page, --help-sched and the
# parser cannot drift apart.
#
# Every block between `<!-- keys:NAME -->` and `<!-- /keys:NAME -->`, in
# README.md and in docs/*.md (whichever files hold one), is replaced by the
# reference of scheduler NAME, or of the file's sections for NAME "file".  With --check nothing is written: exit 1 and
# a diff when a file is not what the binary prints, or when a scheduler of
# `schedtun --help` has no block or more than one.
set -euo pipefail
bin=${1:?usage: doc-keys.sh SCHEDTUN [--check]}
mode=${2:-}
cd "$(dirname "$0")/.."
python3 - "$bin" "$mode" <<'PY'
import difflib, glob, re, subprocess, sys

bin, mode = sys.argv[1], sys.argv[2]
BLOCK = re.compile(r"<!-- keys:(\w+) -->\n.*?<!-- /keys:\1 -->", re.S)


def run(*args):
    return subprocess.run([bin, *args], check=True, capture_output=True,
                          text=True).stdout


line = [l for l in run("--help").splitlines() if l.startswith("schedulers:")]
names = line[0].split(":", 1)[1].replace("|", " ").split() if line else []


def table(m):
    name = m.group(1)
    if name == "file":
        return "<!-- keys:file -->\n%s<!-- /keys:file -->" % (
            run("--help-conf-md").lstrip("\n"))
    if name not in names:               # reported below, left as it is
        return m.group(0)
    return "<!-- keys:%s -->\n%s<!-- /keys:%s -->" % (
        name, run("--help-sched-md", name), name)


files = [f for f in ["README.md"] + sorted(glob.glob("docs/*.md"))
         if "<!-- keys:" in open(f, encoding="utf-8").read()]
seen, bad = {}, 0
for f in files:
    old = open(f, encoding="utf-8").read()
    for m in BLOCK.finditer(old):
        seen.setdefault(m.group(1), []).append(f)
    new = BLOCK.sub(table, old)
    if new == old:
        continue
    if mode == "--check":
        sys.stdout.writelines(difflib.unified_diff(
            old.splitlines(True), new.splitlines(True), f, f + " (generated)"))
        print("doc-keys: %s: key tables differ from %s --help-sched-md "
              "(run scripts/doc-keys.sh %s)" % (f, bin, bin))
        bad = 1
    else:
        open(f, "w", encoding="utf-8").write(new)
        print("doc-keys: %s updated" % f)

# the file's sections and every scheduler the binary knows: one table each
for name in ["file"] + names:
    where = seen.get(name, [])
    if len(where) != 1:
        print("doc-keys: scheduler %s has %d key tables (%s); wanted one "
              "<!-- keys:%s --> block in README.md or docs/*.md"
              % (name, len(where), ", ".join(where) or "none", name))
        bad = 1
for name in sorted(set(seen) - set(names) - {"file"}):
    print("doc-keys: <!-- keys:%s --> in %s: no such scheduler in %s --help"
          % (name, ", ".join(seen[name]), bin))
    bad = 1
if not names:
    print("doc-keys: no 'schedulers:' line in %s --help" % bin)
    bad = 1
if bad:
    sys.exit(1)
if mode == "--check":
    print("doc-keys: %d tables in %s match the key tables"
          % (sum(map(len, seen.values())), ", ".join(files)))
PY
