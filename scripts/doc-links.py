#!/usr/bin/python3
"""doc-links.py - every relative link of the documentation resolves.

  scripts/doc-links.py [--paths] [FILE.md ...]   (default: README.md docs/*.md)
  scripts/doc-links.py --self-test

For each Markdown link or image, `[text](target)` or `[name]: target`,
outside code blocks and code spans: a target with a scheme (https:,
mailto:) is left alone; any other must name a file or folder of the tree,
relative to the page (a bare `#anchor` names the page itself), and an
anchor into a Markdown page must be one of that page's headings, as
GitHub makes them (lower case, punctuation dropped, spaces to hyphens,
-1, -2 ... for repeats).  With --paths, every code span that looks like a
path of the tree (it starts with src/, include/, tests/, scripts/,
mininet/, conf/, docs/ or .ci/) must exist too, unless it holds a
placeholder (X, N, NAME, PART, TARGET, FILE, DIR, OUT as a word of
it, <...>, *, ..., $).

Prints one line per broken link, `FILE:LINE: target: why`, and exits 1
if there is any; ctest runs it as unit.doc_links.
"""
import glob
import os
import re
import sys
import tempfile
import unicodedata

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
FENCE = re.compile(r"^\s*(```|~~~)")
INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFDEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
CODE = re.compile(r"(`+)(.+?)\1")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
TREE = ("src/", "include/", "tests/", "scripts/", "mininet/", "conf/", "docs/", ".ci/")
PLACEHOLDER = re.compile(r"<|>|\*|\.\.\.|…|\{|\$")
PLACEHOLDER_WORDS = {"X", "Y", "N", "NAME", "PART", "TARGET", "FILE", "DIR", "OUT"}


def placeholder(path):
    return bool(PLACEHOLDER.search(path)) or \
        any(w in PLACEHOLDER_WORDS for w in re.split(r"[/_.-]", path))


def slug(text):
    """GitHub's anchor of a heading."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)      # links: their text
    text = re.sub(r"<[^>]+>", "", text).lower()                    # inline HTML
    keep = []
    for ch in text:
        cat = unicodedata.category(ch)
        if ch in " -" or cat[0] in "LMN" or cat == "Pc":
            keep.append(ch)
    return "".join(keep).replace(" ", "-")


def lines_outside_code(text):
    """(line number, line) of every line outside fenced code blocks."""
    fence = None
    for n, line in enumerate(text.split("\n"), 1):
        m = FENCE.match(line)
        if m:
            if fence is None:
                fence = m.group(1)
            elif line.strip().startswith(fence):
                fence = None
            continue
        if fence is None:
            yield n, line


_anchors = {}


def anchors(path):
    if path not in _anchors:
        seen, out = {}, set()
        with open(path, encoding="utf-8") as f:
            for _, line in lines_outside_code(f.read()):
                m = HEADING.match(line)
                if not m:
                    continue
                s = slug(m.group(2))
                k = seen.get(s, 0)
                seen[s] = k + 1
                out.add(s if k == 0 else "%s-%d" % (s, k))
        _anchors[path] = out
    return _anchors[path]


def check_file(path, root, paths):
    errs = []
    with open(path, encoding="utf-8") as f:
        text = f.read()
    here = os.path.dirname(path)
    rel = os.path.relpath(path, root)
    for n, line in lines_outside_code(text):
        spans = [m.group(2) for m in CODE.finditer(line)]
        bare = CODE.sub("", line)
        targets = [m.group(1) for m in INLINE.finditer(bare)]
        m = REFDEF.match(bare)
        if m:
            targets.append(m.group(1))
        for t in targets:
            if not t or re.match(r"^[a-z][a-z0-9+.-]*:", t, re.I):
                continue
            file_part, _, anchor = t.partition("#")
            dest = os.path.normpath(os.path.join(here, file_part)) if file_part else path
            if not os.path.exists(dest):
                errs.append("%s:%d: %s: no such file or folder" % (rel, n, t))
                continue
            if not os.path.realpath(dest).startswith(os.path.realpath(root) + os.sep) \
                    and os.path.realpath(dest) != os.path.realpath(root):
                errs.append("%s:%d: %s: outside the tree" % (rel, n, t))
                continue
            if anchor and dest.endswith(".md") and os.path.isfile(dest) \
                    and anchor not in anchors(dest):
                errs.append("%s:%d: %s: no heading '#%s' in %s"
                            % (rel, n, t, anchor, os.path.relpath(dest, root)))
        if not paths:
            continue
        for s in spans:
            for word in s.split():
                word = word.rstrip(",.;:)")
                if not word.startswith(TREE) or placeholder(word):
                    continue
                if not os.path.exists(os.path.join(root, word.split("#")[0])):
                    errs.append("%s:%d: `%s`: no such path in the tree" % (rel, n, word))
    return errs


def main(argv):
    paths = "--paths" in argv
    files = [a for a in argv if a != "--paths"]
    root = ROOT
    if not files:
        files = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    errs = []
    for f in files:
        errs += check_file(os.path.abspath(f), root, paths)
    for e in errs:
        print(e)
    print("doc-links: %d files, %s" % (len(files), "%d broken" % len(errs) if errs else "every link resolves"))
    return 1 if errs else 0


def self_test():
    """Each rule must be able to fail: a small tree with one error of each kind."""
    global ROOT
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "docs"))
        os.makedirs(os.path.join(d, "src", "x"))
        open(os.path.join(d, "src", "x", "a.c"), "w").close()
        with open(os.path.join(d, "docs", "b.md"), "w") as f:
            f.write("# B page\n\n## Real-time mode (`tunnel.realtime`, default 0)\n\n## Where is …\n## Where is …\n")
        with open(os.path.join(d, "README.md"), "w") as f:
            f.write("# Top\n\n"
                    "[ok](docs/b.md) [ok](docs/b.md#real-time-mode-tunnelrealtime-default-0)\n"
                    "[ok](docs/b.md#where-is-) [ok](docs/b.md#where-is--1) [ok](#top) [ok](src/)\n"
                    "[ok](https://example.org/x) `src/x/a.c` `src/PART/README.md` `src/x/fuzz_X.c`\n"
                    "```\n[in code](nowhere.md)\n```\n"
                    "`[in a span](nowhere.md)`\n"
                    "[bad file](docs/nope.md)\n"
                    "[bad anchor](docs/b.md#nope)\n"
                    "[bad self](#nope)\n"
                    "![bad image](img/x.png)\n"
                    "[ref]: docs/gone.md\n"
                    "`src/x/missing.c`\n"
                    "[outside](../)\n")
        ROOT = d
        errs = check_file(os.path.join(d, "README.md"), d, True)
    want = ["docs/nope.md", "docs/b.md#nope", "#nope", "img/x.png", "docs/gone.md",
            "`src/x/missing.c`", "../: outside"]
    ok = len(errs) == len(want) and all(w in e for w, e in zip(want, errs))
    for e in errs:
        print("  " + e)
    print("doc-links self-test: %s" % ("ok" if ok else "FAILED (wanted one error each for %s)" % ", ".join(want)))
    return 0 if ok else 1


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    sys.exit(main(sys.argv[1:]))
