#!/usr/bin/python3
"""readme-demo.py - README.md's demo sample from a `geo-demo.sh --compare` run.

  scripts/readme-demo.py --run          run `scripts/geo-demo.sh --compare dwrr`
                                         (as root) into results-tmp/readme-demo, then
                                         write its numbers into README.md
  scripts/readme-demo.py DIR            write the numbers of that run (DIR holds
                                         compare.txt, compare.png, pss/demo.txt, ...)
  scripts/readme-demo.py --print DIR    print the two blocks, write nothing

README.md holds the demo's step table between `<!-- geo-demo-step -->` and
`<!-- /geo-demo-step -->`, and the --compare table between
`<!-- geo-demo-compare -->` and `<!-- /geo-demo-compare -->`; each block
opens with the run's provenance (date, commit, CPU, load before, geo.py's
wall time, from pss/summary.json).  docs/img/geo-demo.png is the run's
compare.png.  Never edit these numbers by hand: run this.
"""
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
README = os.path.join(ROOT, "README.md")
IMG = os.path.join(ROOT, "docs", "img", "geo-demo.png")
sys.path.insert(0, os.path.join(ROOT, "mininet"))

from schedlab import provenance  # noqa: E402


def provenance_line(run_dir):
    """'From a run on DATE at COMMIT (CPU, load L, geo.py N s):' of a demo run."""
    with open(os.path.join(run_dir, "summary.json")) as f:
        prov = json.load(f)["provenance"]
    code, cpu = prov["code"], prov["cpu"]
    wall = provenance.seconds_between(prov["start_utc"], prov["end_utc"])
    return ("From a run on %s at commit %s%s (%d x %s, load %.2f before; geo.py ran "
            "%.0f s; written by `scripts/readme-demo.py`):"
            % (prov["start_utc"][:10], code["commit"][:10],
               " with uncommitted changes" if code["dirty"] else "", cpu["count"],
               cpu["model"] or "an unnamed CPU", prov["loadavg_before"][0], wall))


def step_table(demo_txt):
    """The lines of demo.txt from its "EF step" line on."""
    lines = demo_txt.rstrip("\n").split("\n")
    for i, ln in enumerate(lines):
        if ln.startswith("EF step"):
            return lines[i:]
    raise ValueError("demo.txt: no 'EF step' line (not a step scenario?)")


def blocks(run_dir):
    """{"geo-demo-step": text, "geo-demo-compare": text} of a --compare run."""
    pss = os.path.join(run_dir, "pss")
    with open(os.path.join(pss, "demo.txt")) as f:
        step = step_table(f.read())
    with open(os.path.join(run_dir, "compare.txt")) as f:
        cmp_lines = [ln for ln in f.read().rstrip("\n").split("\n")
                     if not ln.startswith(("geo-demo --compare", "EF step"))]
    head = provenance_line(pss)

    def block(lines):
        return "   " + head + "\n\n   ```\n" + "".join("   %s\n" % ln for ln in lines) + "   ```"
    return {"geo-demo-step": block(step), "geo-demo-compare": block(cmp_lines)}


def splice(text, name, body):
    """text with what stands between <!-- name --> and <!-- /name -->
    replaced by body; ValueError when the markers are missing."""
    pat = re.compile(r"(<!-- %s -->\n)(.*?)(\n *<!-- /%s -->)" % (name, name), re.S)
    if not pat.search(text):
        raise ValueError("README.md: no <!-- %s --> ... <!-- /%s --> block" % (name, name))
    return pat.sub(lambda m: m.group(1) + body + m.group(3), text, count=1)


def update(run_dir, readme=README, img=IMG):
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    for name, body in blocks(run_dir).items():
        text = splice(text, name, body)
    with open(readme, "w", encoding="utf-8") as f:
        f.write(text)
    shutil.copyfile(os.path.join(run_dir, "compare.png"), img)


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if argv else 2
    if argv[0] == "--print" and len(argv) == 2:
        for name, body in blocks(argv[1]).items():
            print("<!-- %s -->\n%s\n<!-- /%s -->" % (name, body, name))
        return 0
    if argv[0] == "--run" and len(argv) == 1:
        run_dir = os.path.join(ROOT, "results-tmp", "readme-demo")
        shutil.rmtree(run_dir, ignore_errors=True)
        rc = subprocess.call(["bash", os.path.join(HERE, "geo-demo.sh"), "--compare", "dwrr",
                              "-o", run_dir])
        if rc != 0:
            print("readme-demo: geo-demo.sh failed (exit %d); README.md unchanged" % rc,
                  file=sys.stderr)
            return 1
    elif len(argv) == 1:
        run_dir = argv[0]
    else:
        print("readme-demo: arguments %r (accepted: --run, DIR, --print DIR)" % (argv,),
              file=sys.stderr)
        return 2
    update(run_dir)
    print("readme-demo: README.md and %s from %s" % (os.path.relpath(IMG, ROOT), run_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
