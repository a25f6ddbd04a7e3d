"""test_ticketexp.py - the TICKET §3 experiment's pure parts.

  /usr/bin/python3 -m unittest -v test_ticketexp   (from tests/unit; ctest's
  unit.ticketexp)

schedlab.ticketlog on packet logs written by hand (every number worked
here), its refusals, the sender's configuration text against `schedtun
--check -f`, and mininet/ticketsweep.py's points, keys, table and
--redraw --check on synthetic records.  No Mininet, no root.
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "mininet"))

import ticketsweep  # noqa: E402
from schedlab import records, sweep, ticketlog  # noqa: E402
from schedlab.pktlog import HEADER  # noqa: E402
from schedlab.ticketrun import TicketSpec  # noqa: E402
from test_theory import schedtun_path  # noqa: E402

S = 1_000_000_000


def line(t, ev, cls, src="10.0.1.2", sport=40000, ln=348, soj="", owd="", reason=""):
    return ",".join(str(x) for x in (t, ev, cls, 46 if cls == "ef" else 10 if cls == "af"
                                     else 0, 17, src, sport, "172.30.0.2", 7000, ln, "",
                                     soj, "", owd, "", reason))


def write(path, lines):
    with open(path, "w") as f:
        f.write(",".join(HEADER) + "\n")
        for ln in lines:
            f.write(ln + "\n")


class Measure(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="ticketexp-")
        self.a = os.path.join(self.tmp, "a.csv")
        self.b = os.path.join(self.tmp, "b.csv")

    def test_window_and_classes(self):
        # window [10 s, 12 s): the events at 9.9 s and 12 s are outside
        write(self.a, [
            line(9_900_000_000, "dep", "af", soj=99_000_000),
            line(10 * S, "enq", "af"),
            line(10 * S + 1, "dep", "af", soj=2_000_000),
            line(10 * S + 2, "dep", "af", soj=4_000_000),
            line(10 * S + 3, "drop", "af", reason="out_of_order"),
            line(10 * S + 4, "drop", "af", reason="sched_limit"),
            line(11 * S, "dep", "ef", soj=1_000_000),
            line(11 * S, "dep", "cs0", ln=1500, soj=30_000_000),
            line(11 * S + 5, "drop", "cs0", ln=1500, reason="sched_limit"),
            line(11 * S + 6, "dep", "cs0", ln=1500, soj=10_000_000),
            line(11 * S + 7, "dep", "cs0", ln=1500, soj=20_000_000),
            line(12 * S, "drop", "cs0", reason="sched_limit"),
        ])
        write(self.b, [
            line(10 * S + 100, "arr", "af", sport=1, ln=500, owd=22_000_000),
            line(10 * S + 200, "arr", "af", sport=2, ln=250, owd=24_000_000),
            line(10 * S + 300, "arr", "af", sport=2, ln=250, owd=26_000_000),
            line(11 * S, "arr", "ef", ln=348, owd=21_000_000),
            line(12 * S, "arr", "af", sport=3, ln=10_000, owd=99_000_000),
        ])
        m = ticketlog.measure(self.a, self.b, 10 * S, 12 * S, flows=2)
        af, ef, cs0 = (m["classes"][c] for c in ("af", "ef", "cs0"))
        self.assertEqual((af["dep_pkts"], af["drop_pkts"]), (2, 2))
        self.assertEqual(af["drops"], {"out_of_order": 1, "sched_limit": 1})
        self.assertEqual(af["loss"], 0.5)
        self.assertEqual((af["sojourn_mean_ms"], af["sojourn_max_ms"]), (3.0, 4.0))
        # 1000 bytes in 2 s = 4 kbit/s, 2 kbit/s a flow; flows 1 and 2
        self.assertEqual((af["arr_pkts"], af["arr_bytes"]), (3, 1000))
        self.assertEqual((af["rate_kbps"], af["per_flow_kbps"]), (4.0, 2.0))
        self.assertEqual((af["owd_mean_ms"], af["owd_max_ms"]), (24.0, 26.0))
        self.assertEqual(m["flow_rates_kbps"], [2.0, 2.0])
        self.assertEqual(cs0["loss"], 0.25)
        self.assertEqual((cs0["sojourn_mean_ms"], cs0["sojourn_max_ms"]), (20.0, 30.0))
        self.assertEqual((cs0["arr_pkts"], cs0["rate_kbps"], cs0["owd_max_ms"]), (0, 0.0, None))
        self.assertEqual((ef["loss"], ef["owd_max_ms"]), (0.0, 21.0))

    def test_series_from_the_start(self):
        # bins of 1 s from 9 s to 12 s: [9,10) [10,11) [11,12)
        write(self.a, [
            line(9 * S, "dep", "af"), line(9 * S + 1, "drop", "af", reason="late"),
            line(10 * S, "dep", "cs0", soj=1), line(11 * S, "drop", "cs0", reason="x"),
            line(11 * S + 1, "dep", "cs0", soj=1), line(12 * S, "dep", "af", soj=1),
        ])
        write(self.b, [line(9 * S + 5, "arr", "af", ln=1000, owd=1),
                       line(11 * S + 5, "arr", "af", ln=250, owd=1),
                       line(11 * S + 6, "arr", "cs0", ln=9999, owd=1)])
        m = ticketlog.measure(self.a, self.b, 10 * S, 12 * S, flows=2,
                              series_from_ns=9 * S, bin_ns=S)
        sr = m["series"]
        self.assertEqual(sr["bin_s"], 1.0)
        # 1000 bytes in the first second: 8 kbit/s, 4 a flow; 250: 1 a flow
        self.assertEqual(sr["af_kbps_per_flow"], [4.0, 0.0, 1.0])
        self.assertEqual(sr["af_loss"], [0.5, None, None])
        self.assertEqual(sr["cs0_loss"], [None, 0.0, 0.5])
        self.assertEqual(sr["link_loss"], [0.5, 0.0, 0.5])
        # the window's own numbers leave the 9-s events out
        self.assertEqual(m["classes"]["af"]["drop_pkts"], 0)
        self.assertNotIn("series", ticketlog.measure(self.a, self.b, 10 * S, 12 * S, 2))

    def test_refusals(self):
        write(self.a, [line(1, "dep", "af", soj="x")])
        write(self.b, [])
        with self.assertRaisesRegex(ticketlog.TicketLogError, r"a\.csv:2: sojourn_ns 'x'"):
            ticketlog.measure(self.a, self.b, 0, 10, flows=1)
        with open(self.a, "w") as f:
            f.write("not,a,log\n")
        with self.assertRaisesRegex(ticketlog.TicketLogError, "not a schedtun packet log"):
            ticketlog.measure(self.a, self.b, 0, 10, flows=1)
        write(self.a, ["1,dep,af"])
        with self.assertRaisesRegex(ticketlog.TicketLogError, r":2: 3 columns"):
            ticketlog.measure(self.a, self.b, 0, 10, flows=1)
        with self.assertRaisesRegex(ticketlog.TicketLogError, "empty"):
            ticketlog.measure(self.a, self.b, 10, 10, flows=1)
        with self.assertRaisesRegex(ticketlog.TicketLogError, "not a count"):
            ticketlog.measure(self.a, self.b, 0, 10, flows=0)
        with self.assertRaisesRegex(ticketlog.TicketLogError, "No such file"):
            ticketlog.measure(self.a + ".gone", self.b, 0, 10, flows=1)


class SenderConf(unittest.TestCase):
    def test_daemon_accepts_it(self):
        tmp = tempfile.mkdtemp(prefix="ticketexp-")
        for variant, d in (("ticket", 2.0), ("naive", 100.0)):
            spec = TicketSpec(variant, d, 270, 3.0, 80, 20, tmp, "x", seed=3)
            text = spec.conf_text()
            self.assertIn('variant = "%s"; d = "%gms"; n_eb = 256;' % (variant, d), text)
            self.assertIn('committed = "267kbit"', text)
            path = os.path.join(tmp, "t.conf")
            with open(path, "w") as f:
                f.write(text)
            r = subprocess.run([schedtun_path(), "--check", "-f", path],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            self.assertEqual(r.returncode, 0, r.stdout.decode() + text)

    def test_access_links_seeded(self):
        a = TicketSpec("ticket", 2, 270, 3, 80, 20, "/x", "x", seed=1).access_mbps()
        b = TicketSpec("ticket", 2, 270, 3, 80, 20, "/x", "x", seed=2).access_mbps()
        self.assertEqual(len(a), 6)
        self.assertTrue(all(22.0 <= v <= 32.0 for v in a + b))
        self.assertEqual(a, TicketSpec("naive", 9, 1, 1, 80, 20, "/y", "y",
                                       seed=1).access_mbps())
        self.assertNotEqual(a, b)


def fake_record(pt, rep, af_loss, cs0_loss, excess_kbps, valid=True):
    cls = {c: {"dep_pkts": 900, "drop_pkts": 100, "drops": {}, "loss": None,
               "sojourn_mean_ms": 1.0, "sojourn_max_ms": pt.d_ms, "arr_pkts": 900,
               "arr_bytes": 1, "rate_kbps": 1.0, "per_flow_kbps": 267.0,
               "owd_mean_ms": 21.0, "owd_max_ms": 20.0 + pt.d_ms}
           for c in ("ef", "af", "cs0")}
    cls["ef"]["drop_pkts"], cls["ef"]["loss"] = 0, 0.0
    cls["af"]["loss"], cls["cs0"]["loss"] = af_loss, cs0_loss
    cls["af"]["per_flow_kbps"] = excess_kbps
    timing = ticketsweep.FULL
    params = ticketsweep.params_of(pt, timing, {"kernel": "k"})
    # 8 bins of 10 s: the warm-up (0-20 s) at half the window's rate
    series = {"bin_s": 10.0, "af_kbps_per_flow": [excess_kbps / 2] * 2 + [excess_kbps] * 6,
              "link_loss": [0.1, 0.1] + [0.02] * 6}
    res = {"window_s": [20, 80], "classes": {}, "link": {},
           "extra": {"ticket": {"classes": cls, "series": series}, "access_mbps": {},
                     "warnings": []}}
    return records.make("ticket", params, "k" * 64, rep, None, valid,
                        [] if valid else ["stalled"], res, {"commit": "c"})


class Sweep(unittest.TestCase):
    def test_points_core_first(self):
        core = ticketsweep.points("core")
        allp = ticketsweep.points("all")
        self.assertEqual(len(core), 3 * 2 * 2)
        self.assertEqual(len(allp), 3 * 4 * 2)
        self.assertEqual([p.key for p in allp[:len(core)]], [p.key for p in core])
        self.assertEqual([p.key for p in allp[len(core):]],
                         [p.key for p in ticketsweep.points("more")])
        self.assertEqual(core[0].key, "modest-d2-ticket")
        self.assertEqual({p.d_ms for p in core}, {2.0, 40.0})
        self.assertEqual(len({p.key for p in allp}), len(allp))

    def test_table_numbers_and_check(self):
        pt = ticketsweep.points("core")[0]
        recs = [fake_record(pt, r, af, 0.02, kb) for r, (af, kb) in
                enumerate(((0.02, 300.0), (0.03, 320.0), (0.04, 340.0)))]
        recs.append(fake_record(pt, 3, 0.9, 0.02, 1.0, valid=False))
        text = ticketsweep.table_text(recs, ticketsweep.FULL, ticketsweep.points("core"))
        row = next(ln for ln in text.splitlines() if ln.startswith("| 2 | ticket"))
        cells = [c.strip() for c in row.strip("|").split("|")]
        self.assertEqual(cells[2], "3 (1)")
        # excess 300, 320, 340: mean 320, sd 20, t(0.975, 2) = 4.303: ± 49.7
        self.assertEqual(cells[4], "320 ± 50")
        # excess loss 2, 3, 4 %: ± 2.48; background 2 % with sd 0; ratio 1, 1.5, 2
        self.assertEqual(cells[6], "0.00 ± 0.00")      # conforming: never dropped
        self.assertEqual(cells[7], "3.00 ± 2.48")
        self.assertEqual(cells[8], "2.00 ± 0.00")
        self.assertEqual(cells[9], "1.50 ± 1.24")
        # the link: af and cs0 drop 100 each, ef none; 2700 left: 200 / 2900
        self.assertEqual(cells[3], "6.90 ± 0.00")
        self.assertIn("Modest overload", text)
        # steady state: warm-up 160 (half of 320), both halves 320; loss 10 / 2 / 2 %
        self.assertIn("| modest-d2-ticket | 160 / 320 / 320 | 10.00 / 2.00 / 2.00 |", text)
        self.assertIn("390 kbit/s", text)
        tmp = tempfile.mkdtemp(prefix="ticketexp-")
        paths = ticketsweep.draw(recs, ticketsweep.FULL, ticketsweep.points("all"), tmp)
        self.assertEqual(sorted(os.path.basename(p) for p in paths),
                         ["ticket-runs.md", "ticket.md", "ticket.png"])
        block = ticketsweep.readme_text(recs, ticketsweep.FULL, ticketsweep.points("all"))
        self.assertIn("  - modest overload (link loss 6.90 ± 0.00 % over its 3 runs; the paper's 0.7 %), "
                      "d = 2 ms: ticket: excess loss 3.00 ± 2.48 % against background "
                      "2.00 ± 0.00 %, excess 320 ± 50 kbit/s a flow (n = 3).", block)
        readme = os.path.join(tmp, "README.md")
        with open(readme, "w") as f:
            f.write(sweep.splice("intro\n  %s\nstale\n  %s\nend\n" % ticketsweep.MARK,
                                 ticketsweep.MARK, block))
        with open(readme) as f:
            self.assertEqual(f.read(), "intro\n  %s\n%s\n  %s\nend\n"
                             % (ticketsweep.MARK[0], block, ticketsweep.MARK[1]))
        with self.assertRaisesRegex(ValueError, "no <!-- ticket-mininet-readme"):
            sweep.splice("no markers", ticketsweep.MARK, block)
        logs = []
        self.assertEqual(sweep.check(ticketsweep.SPEC, recs, ticketsweep.FULL, ticketsweep.points("all"),
                                           tmp, logs.append, readme), 0, logs)
        with open(os.path.join(tmp, "ticket.md"), "a") as f:
            f.write("typed\n")
        self.assertEqual(sweep.check(ticketsweep.SPEC, recs, ticketsweep.FULL, ticketsweep.points("all"),
                                           tmp, logs.append, readme), 1)
        # a record more, the README not redrawn: its block is stale too
        recs.append(fake_record(pt, 4, 0.05, 0.02, 360.0))
        self.assertEqual(sweep.check(ticketsweep.SPEC, recs, ticketsweep.FULL, ticketsweep.points("all"),
                                           tmp, logs.append, readme), 3)

    def test_no_records(self):
        text = ticketsweep.table_text([], ticketsweep.FULL, ticketsweep.points("all"))
        self.assertIn("No runs recorded yet.", text)

    def test_rep_seeds_the_sources(self):
        pt = ticketsweep.points("core")[0]
        argv = ticketsweep.argv_of(pt, ticketsweep.FULL, "/b/schedtun", "/o/x-rep3", 3)
        self.assertEqual(argv[argv.index("--seed") + 1], "3")
        self.assertEqual(argv[argv.index("--d") + 1], "2")
        point = ticketsweep.point_of(pt, ticketsweep.FULL, "/b/schedtun", {})
        self.assertEqual(point.argv("/w/ticket-abc-rep4")[
            point.argv("/w/ticket-abc-rep4").index("--seed") + 1], "4")
        json.dumps(point.params)      # the key's inputs are JSON


if __name__ == "__main__":
    unittest.main()
