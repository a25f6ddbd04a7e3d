"""test_readme_demo.py - scripts/readme-demo.py on a synthetic demo run.

  /usr/bin/python3 -m unittest -v test_readme_demo
(run from tests/unit; ctest's unit.readme_demo does exactly this).

The README's demo tables are written by the script from a
`geo-demo.sh --compare` run, never by hand: its blocks carry the run's
provenance and its tables verbatim, splicing replaces exactly what stands
between the markers (twice gives the same text), a README without the
markers is refused, and the real README.md has both blocks.
"""
import importlib.util
import json
import os
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
_spec = importlib.util.spec_from_file_location(
    "readme_demo", os.path.join(ROOT, "scripts", "readme-demo.py"))
rd = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rd)

STEP = ["EF step 2.5 -> 7.5 Mbit/s at t = 24.83 s: ...",
        "class   before  theory    after  theory  change  theory",
        "AF        9.20    9.00     9.08    9.00   -0.13   +0.00"]


def fake_run(d):
    os.makedirs(os.path.join(d, "pss"))
    with open(os.path.join(d, "pss", "demo.txt"), "w") as f:
        f.write("per class over the window ...\nclass out Mbit/s\n\n" + "\n".join(STEP) + "\n")
    with open(os.path.join(d, "pss", "summary.json"), "w") as f:
        json.dump({"provenance": {
            "start_utc": "2026-11-27T18:55:17.336+00:00",
            "end_utc": "2026-11-27T18:56:06.336+00:00",
            "code": {"commit": "4af10a4f604d9949bcaf011e535c671718e86bdf", "dirty": False},
            "cpu": {"model": "Fake CPU", "count": 2}, "loadavg_before": [0.45, 1.0, 1.0]}}, f)
    with open(os.path.join(d, "compare.txt"), "w") as f:
        f.write("geo-demo --compare: pss vs dwrr\n" + STEP[0] + "\nsched class\n"
                "dwrr AF 10.50\n")
    with open(os.path.join(d, "compare.png"), "wb") as f:
        f.write(b"\x89PNG fake")


README = ("intro\n<!-- geo-demo-step -->\nold numbers\n<!-- /geo-demo-step -->\n"
          "middle\n<!-- geo-demo-compare -->\nold\n<!-- /geo-demo-compare -->\nend\n")


class ReadmeDemo(unittest.TestCase):
    def test_blocks_and_splice(self):
        with tempfile.TemporaryDirectory() as d:
            fake_run(os.path.join(d, "run"))
            b = rd.blocks(os.path.join(d, "run"))
            readme, img = os.path.join(d, "README.md"), os.path.join(d, "geo-demo.png")
            with open(readme, "w") as f:
                f.write(README)
            rd.update(os.path.join(d, "run"), readme, img)
            with open(readme) as f:
                once = f.read()
            rd.update(os.path.join(d, "run"), readme, img)
            with open(readme) as f:
                self.assertEqual(f.read(), once)          # idempotent
            with open(img, "rb") as f:
                self.assertEqual(f.read(), b"\x89PNG fake")
        head = ("   From a run on 2026-11-27 at commit 4af10a4f60 (2 x Fake CPU, load 0.45 "
                "before; geo.py ran 49 s; written by `scripts/readme-demo.py`):")
        self.assertEqual(b["geo-demo-step"], head + "\n\n   ```\n" +
                         "".join("   %s\n" % ln for ln in STEP) + "   ```")
        # the compare block: the table without its title and step lines
        self.assertIn("   sched class\n   dwrr AF 10.50\n   ```", b["geo-demo-compare"])
        self.assertNotIn("EF step", b["geo-demo-compare"])
        self.assertTrue(once.startswith("intro\n<!-- geo-demo-step -->\n" + head))
        self.assertIn("\n<!-- /geo-demo-step -->\nmiddle\n", once)
        self.assertTrue(once.endswith("<!-- /geo-demo-compare -->\nend\n"))
        self.assertNotIn("old", once)

    def test_refusals(self):
        with self.assertRaisesRegex(ValueError, "no <!-- geo-demo-step -->"):
            rd.splice("no markers\n", "geo-demo-step", "x")
        with self.assertRaisesRegex(ValueError, "no 'EF step' line"):
            rd.step_table("class before\n")

    def test_real_readme_has_both_blocks(self):
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            text = f.read()
        for name in ("geo-demo-step", "geo-demo-compare"):
            self.assertEqual(rd.splice(text, name, "X").count("\nX\n"), 1, name)


if __name__ == "__main__":
    unittest.main()
