"""test_dqexp.py - the Dual Queue experiment 1's pure parts.

  /usr/bin/python3 -m unittest -v test_dqexp   (from tests/unit; ctest's
  unit.dqexp)

schedlab.dqlog on a packet log and records written by hand (every number
worked here), the five schedulers' configuration texts against `schedtun
--check -f`, and mininet/dqsweep.py's points, tables and --redraw --check
on synthetic records.  No Mininet, no root.
"""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "mininet"))

import dqsweep  # noqa: E402
from schedlab import dqlog, records, sweep  # noqa: E402
from schedlab.dqrun import SCHEDS, DqSpec  # noqa: E402
from schedlab.pktlog import HEADER  # noqa: E402
from test_theory import schedtun_path  # noqa: E402

S = 1_000_000_000
MS = 1_000_000


def line(t, ev, src, soj="", dport=6000, reason=""):
    return ",".join(str(x) for x in (t, ev, "cs0", 0, 6, src, 40000, "172.30.0.2", dport,
                                     1400, "", soj, "", "", "", reason))


class Degraded(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dqexp-")
        self.log = os.path.join(self.tmp, "a.csv")

    def write(self, lines):
        with open(self.log, "w") as f:
            f.write(",".join(HEADER) + "\n" + "".join(ln + "\n" for ln in lines))

    def test_periods_sources_and_map(self):
        a, b, c = "10.0.1.2", "10.0.2.2", "10.0.3.2"
        # window [10 s, 15 s) in 2-s periods: [10,12) [12,14); 14-15 s is no whole period
        self.write([
            line(9 * S, "dep", a, soj=500 * MS),               # before the window
            line(10 * S, "enq", a),                            # enq: not a verdict
            line(10 * S + 1, "dep", a, soj=119 * MS),          # a good in period 0
            line(10 * S + 2, "dep", b, soj=120 * MS),          # b degraded (>= 120 ms)
            line(11 * S, "dep", b, soj=1 * MS),
            line(11 * S + 1, "dep", c, soj=300 * MS, dport=53),  # not the web's port
            line(12 * S, "drop", a, reason="pushout"),         # a degraded in period 1
            line(13 * S, "dep", c, soj=5 * MS),                # c good in period 1
            line(14 * S, "drop", b, reason="expired"),         # after the last period
        ])
        g = dqlog.degraded(self.log, 10 * S, 15 * S, 2 * S, 6000, [a, b, c, "10.0.4.2"])
        self.assertEqual((g["periods"], g["period_s"]), (2, 2.0))
        # active: (a,0) (b,0) (a,1) (c,1); degraded: (b,0) (a,1)
        self.assertEqual((g["active"], g["degraded"], g["fraction"]), (4, 2, 0.5))
        self.assertEqual(g["per_period"], [0.5, 0.5])
        self.assertEqual(g["drops"], {"pushout": 1})
        self.assertEqual(g["map"], {a: ".#", b: "# ", c: " .", "10.0.4.2": "  "})

    def test_refusals(self):
        self.write([line(1, "dep", "x", soj="bad")])
        with self.assertRaisesRegex(dqlog.DqLogError, r"a\.csv:2: sojourn_ns 'bad'"):
            dqlog.degraded(self.log, 0, 2 * S, S, 6000)
        with self.assertRaisesRegex(dqlog.DqLogError, "not one whole period"):
            dqlog.degraded(self.log, 0, S, 2 * S, 6000)
        with self.assertRaisesRegex(dqlog.DqLogError, "No such file"):
            dqlog.degraded(self.log + ".gone", 0, 2 * S, S, 6000)
        with self.assertRaisesRegex(dqlog.DqLogError, "empty"):
            dqlog.effective_bps([], 5, 5)

    def test_eq2_and_effective(self):
        sent = [  # 1000 B in 2 s and 3000 B in 1 s: eq. 2 = 32000 bits / 3 s
            {"status": "ok", "acked_bytes": 1000, "size_bytes": 1000, "start_ns": 10 * S,
             "end_ns": 12 * S},
            {"status": "ok", "acked_bytes": 3000, "size_bytes": 3000, "start_ns": 11 * S,
             "end_ns": 12 * S},
            {"status": "cut: grace", "acked_bytes": 0, "size_bytes": 9, "start_ns": 13 * S,
             "end_ns": 20 * S},
            {"status": "ok", "acked_bytes": 9999, "size_bytes": 9999, "start_ns": 9 * S,
             "end_ns": 11 * S},                                 # started before
        ]
        e = dqlog.eq2(sent, 10 * S, 15 * S)
        self.assertEqual(e["bursts"], 3)
        self.assertEqual(e["by_status"], {"ok": 2, "cut": 1})
        self.assertAlmostEqual(e["session_rate_bps"], 32000 / 3)
        sink = [{"bytes": 500, "last_ns": 10 * S}, {"bytes": 700, "last_ns": 14 * S},
                {"bytes": 10 ** 6, "last_ns": 15 * S}]
        self.assertEqual(dqlog.effective_bps(sink, 10 * S, 15 * S), 1200 * 8 / 5)


class Confs(unittest.TestCase):
    def test_each_scheduler_accepted(self):
        tmp = tempfile.mkdtemp(prefix="dqexp-")
        for name in SCHEDS:
            text = DqSpec(name, 3.0, 80, 20, tmp, "x").conf_text()
            path = os.path.join(tmp, name + ".conf")
            with open(path, "w") as f:
                f.write(text)
            r = subprocess.run([schedtun_path(), "--check", "-f", path],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            self.assertEqual(r.returncode, 0, r.stdout.decode() + text)
        self.assertIn("forced_redirect = false", DqSpec("dq-paper", 1, 9, 1, "/", "x").conf_text())
        self.assertIn("busy_test = false", DqSpec("dq-full-only", 1, 9, 1, "/", "x").conf_text())
        self.assertIn("limit = 357", DqSpec("fifo", 1, 9, 1, "/", "x").conf_text())
        drr = DqSpec("drrexp", 1, 9, 1, "/", "x").conf_text()
        self.assertIn('priority = false; t_expire = "5s"; buffer = 357;', drr)


def fake(pt, rep, frac, eq2_bps, valid=True):
    res = {"window_s": [20, 80], "classes": {}, "link": {}, "extra": {
        "warnings": [],
        "dq": {"degraded": {"fraction": frac, "drops": {"pushout": 2}, "active": 100,
                            "map": {"10.0.1.2": ".#", "10.0.2.2": " ."}},
               "eq2": {"session_rate_bps": eq2_bps, "by_status": {"ok": 40}, "bursts": 41},
               "effective_bps": 1.6e6}}}
    return records.make("dq", dqsweep.params_of(pt, dqsweep.FULL, {}), "q" * 64, rep, None,
                        valid, [] if valid else ["stalled"], res, {"code": {"commit": "abc"}})


class Sweep(unittest.TestCase):
    def test_points(self):
        core, allp = dqsweep.points("core"), dqsweep.points("all")
        self.assertEqual(len(core), 2 * 5 + 2 * 3)
        self.assertEqual([p.key for p in allp[:len(core)]], [p.key for p in core])
        self.assertEqual([p.key for p in allp[len(core):]],
                         [p.key for p in dqsweep.points("more")])
        self.assertEqual(len({p.key for p in allp}), len(allp))
        self.assertIn("think0.5-dq-paper", [p.key for p in core])
        self.assertIn("think12.5-drrexp", [p.key for p in core])
        argv = dqsweep.argv_of(core[0], dqsweep.FULL, "/b", "/o/x-rep2", 2)
        self.assertEqual(argv[argv.index("--seed") + 1], "2")

    def test_tables_and_check(self):
        pt = dqsweep.Pt(0.5, "dq")
        recs = [fake(pt, 0, 0.30, 40e3), fake(pt, 1, 0.32, 44e3), fake(pt, 2, 0.34, 48e3),
                fake(pt, 3, 0.9, 1e3, valid=False)]
        text = dqsweep.table_text(recs, dqsweep.FULL, dqsweep.points("all"))
        row = next(ln for ln in text.splitlines() if ln.startswith("| 0.5 | DQ |"))
        cells = [c.strip() for c in row.strip("|").split("|")]
        # 30, 32, 34 %: sd 2, t(0.975, 2) 4.303: ± 4.97; 40, 44, 48 kbit/s: ± 9.9
        self.assertEqual(cells[2:], ["3 (1)", "32.0 ± 5.0", "44.0 ± 9.9", "1.600 ± 0.000",
                                     "40 ± 0"])
        self.assertIn("| 0.5 | DQ | pushout 6 |", text)
        tmp = tempfile.mkdtemp(prefix="dqexp-")
        paths = dqsweep.draw(recs, dqsweep.FULL, dqsweep.points("all"), tmp)
        self.assertEqual(sorted(os.path.basename(p) for p in paths),
                         ["dq-runs.md", "dq.md", "dq.png"])
        readme = os.path.join(tmp, "README.md")
        block = dqsweep.readme_text(recs, dqsweep.FULL, dqsweep.points("all"))
        self.assertIn("  - think time 0.5 s: DQ 32.0 ± 5.0 % degraded, eq. 2 44.0 ± 9.9 "
                      "kbit/s.", block)
        with open(readme, "w") as f:
            f.write(sweep.splice("x\n  %s\n  %s\n" % dqsweep.MARK, dqsweep.MARK, block))
        logs = []
        self.assertEqual(sweep.check(dqsweep.SPEC, recs, dqsweep.FULL, dqsweep.points("all"),
                                     tmp, logs.append, readme), 0, logs)
        recs.append(fake(pt, 4, 0.5, 50e3))
        self.assertEqual(sweep.check(dqsweep.SPEC, recs, dqsweep.FULL, dqsweep.points("all"),
                                     tmp, logs.append, readme), 3)

    def test_paired_by_seed(self):
        dq, fifo = dqsweep.Pt(0.5, "dq"), dqsweep.Pt(0.5, "fifo")
        recs = [fake(dq, 0, 0.30, 40e3), fake(dq, 1, 0.32, 44e3), fake(dq, 2, 0.34, 48e3),
                fake(dq, 3, 0.2, 90e3),                       # no fifo run 3: unpaired
                fake(fifo, 0, 1.0, 30e3), fake(fifo, 1, 1.0, 50e3), fake(fifo, 2, 1.0, 40e3),
                fake(fifo, 4, 1.0, 1e3, valid=False)]
        text = dqsweep.table_text(recs, dqsweep.FULL, dqsweep.points("all"))
        # eq. 2 differences 10, -6, 8: mean 4, sd sqrt(76), t 4.303: ± 21.7;
        # degraded -70, -68, -66 points: ± 5.0; DQ not worse in all three
        self.assertIn("| 0.5 | DQ − FIFO | 4.0 ± 21.7 | 2 of 3 | -68.0 ± 5.0 | 3 of 3 |", text)
        self.assertNotIn("DQ − DRRexp", text)
        block = dqsweep.readme_text(recs, dqsweep.FULL, dqsweep.points("all"))
        self.assertIn("; DQ's eq. 2 above FIFO's in 2 of 3 runs paired by seed.", block)
        n, up, d = sweep.paired([fake(dq, 0, 0.3, 1.0)], [fake(fifo, 1, 0.3, 1.0)],
                                dqsweep.eq2_kbps)
        self.assertEqual((n, up, d), (0, 0, []))

    def test_no_records(self):
        self.assertIn("No runs recorded yet.",
                      dqsweep.table_text([], dqsweep.FULL, dqsweep.points("all")))
        self.assertIn("no runs recorded yet",
                      dqsweep.readme_text([], dqsweep.FULL, dqsweep.points("all")))


if __name__ == "__main__":
    unittest.main()
