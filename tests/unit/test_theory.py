"""test_theory.py - schedlab/theory.py (as mininet/theory.py), schedlab's
measure, outputs, runtheory and geospec modules, and geo.py's pure parts.

  SCHEDTUN=/path/to/schedtun /usr/bin/python3 -m unittest -v test_theory
(run from tests/unit; ctest's unit.theory_py does exactly this).

Three kinds of checks:
  - the equations against worked examples computed by hand (the numbers
    in conf/pss-receiver.conf's comment and the paper's 9:2 set);
  - the equations against `schedtun params pss ... --no-sim` at several
    points, so that the Python and the C (src/params/params_eq.c) cannot drift;
  - the stats/iperf readers and the CSV/JSON writers on small files.
SCHEDTUN must name an executable when set; unset, the build trees'
schedtun is tried (tests/unit/pytools.py); neither fails the cross-checks
(ctest always sets it).
"""
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "mininet"))

from pytools import tool  # noqa: E402
import geo      # noqa: E402
import theory   # noqa: E402
from schedlab import geospec, measure, outputs, pairconf, runerr, runtheory  # noqa: E402

M = 1e6


def schedtun_path():
    """The schedtun binary to cross-check against (pytools.tool: $SCHEDTUN,
    else a build tree's); none fails the test, never skips it."""
    return tool("SCHEDTUN", "schedtun")


class WorkedExamples(unittest.TestCase):
    """The 9:2, 1400-byte set of conf/pss-receiver.conf, by hand."""

    def test_k_af_and_b(self):
        self.assertAlmostEqual(theory.k_af(9, 1400, 2, 1400), 9 / 11, places=12)
        self.assertAlmostEqual(theory.b_factor(9, 1400, 2, 1400), 8 / 9, places=12)
        # unequal sizes: 9*1500 / (9*1500 + 2*500) = 13500 / 14500
        self.assertAlmostEqual(theory.k_af(9, 1500, 2, 500), 13500 / 14500, places=12)

    def test_pss_parameters(self):
        bw = theory.pss_bw(8 / 9, 20 * M, 10 * M)
        self.assertAlmostEqual(bw, 4 / 9, places=12)
        self.assertAlmostEqual(theory.pss_lm_bytes(1400, 9, bw), 6222.222, places=3)
        pp = theory.pss_params(9, 1400, 2, 1400, 20 * M, 10 * M)
        self.assertEqual((pp["lm"], pp["lr"]), (6222, 0))
        # 4.2.1 with T = 15 s: 15 * 2 500 000 * 4/9 = 16 666 667; LM = 6222 + LR
        pp = theory.pss_params(9, 1400, 2, 1400, 20 * M, 10 * M, lr_period_s=15)
        self.assertEqual((pp["lr"], pp["lm"]), (16666667, 16672889))

    def test_rates_at_ef_5(self):
        k = 9 / 11
        self.assertAlmostEqual(theory.wrr_af_bps(k, 20 * M, 5 * M) / M, 12.272727, places=5)
        self.assertAlmostEqual(theory.wrr_cs0_bps(k, 20 * M, 5 * M) / M, 2.727273, places=5)
        af = theory.pss_af_bps(k, 20 * M, 10 * M, 5 * M)
        self.assertAlmostEqual(af / M, 8.181818, places=5)
        self.assertAlmostEqual(theory.pss_cs0_bps(af, 20 * M, 5 * M) / M, 6.818182, places=5)

    def test_rates_ef_above_expected(self):
        # R_EF = 15: eq. 7 takes C - R_EF = 5, eq. 8 leaves CS0 nothing
        af = theory.pss_af_bps(9 / 11, 20 * M, 10 * M, 15 * M)
        self.assertAlmostEqual(af / M, 5.0, places=9)
        self.assertEqual(theory.pss_cs0_bps(af, 20 * M, 15 * M), 0.0)
        # EF above C: nothing below 0
        self.assertEqual(theory.wrr_af_bps(9 / 11, 20 * M, 25 * M), 0.0)
        self.assertEqual(theory.pss_af_bps(9 / 11, 20 * M, 10 * M, 25 * M), 0.0)

    def test_instantaneous_pss_uses_nominal_reservation(self):
        # C(t) = 26, R_EF = 5, reservation against the nominal 20: 9/11 * 10
        th = theory.class_theory("pss", {"k_af": 9 / 11, "ef_exp_bps": 10 * M,
                                         "nominal_bps": 20 * M}, 26 * M, 5 * M)
        self.assertAlmostEqual(th["af"] / M, 8.181818, places=5)
        self.assertAlmostEqual(th["cs0"] / M, 26 - 5 - 8.181818, places=5)
        self.assertEqual(th["ef"], 5 * M)
        # DWRR follows C(t): 9/11 * (26 - 5)
        th = theory.class_theory("dwrr", {"k_af": 9 / 11}, 26 * M, 5 * M)
        self.assertAlmostEqual(th["af"] / M, 17.181818, places=5)
        self.assertEqual(theory.class_theory("fifo", {}, 20 * M, 5 * M),
                         {"ef": None, "af": None, "cs0": None})
        self.assertEqual(theory.class_theory("prio", {}, 20 * M, 5 * M)["af"], 15 * M)

    def test_cosine(self):
        c = theory.parse_spec("cosine:20Mbit:0.3:15s")
        self.assertFalse(c.constant)
        self.assertAlmostEqual(c.at(0) / M, 26.0, places=9)
        self.assertAlmostEqual(c.at(7.5) / M, 14.0, places=9)
        # the mean over a whole period, from anywhere, is the mean
        self.assertAlmostEqual(c.mean_over(0, 15) / M, 20.0, places=12)
        self.assertAlmostEqual(c.mean_over(4.2, 19.2) / M, 20.0, places=12)
        # over [0, 1]: 20 (1 + 0.3 * sin(2 pi / 15) * 15 / (2 pi)) = 25.826...
        # exactly (the closed form, not a midpoint rule's 1e-3)
        exact = 20 * (1 + 0.3 * math.sin(2 * math.pi / 15) * 15 / (2 * math.pi))
        self.assertAlmostEqual(c.mean_over(0, 1) / M, exact, places=12)
        # over the trough's half period [3.75, 11.25]: 20 (1 - 0.3 * 2 / pi)
        self.assertAlmostEqual(c.mean_over(3.75, 11.25) / M,
                               20 * (1 - 0.6 / math.pi), places=12)
        # a constant, and an empty interval: the rate itself
        self.assertEqual(theory.RateSpec(5e6).mean_over(0, 3), 5e6)
        self.assertAlmostEqual(c.mean_over(2, 2), c.at(2), places=6)

    def test_parse(self):
        # rates as the daemon reads them (schedlab.units, tc's units)
        self.assertEqual(theory.parse_rate("20Mbit"), 20e6)
        self.assertEqual(theory.parse_rate("20mbps"), 160e6)       # bytes/s
        self.assertEqual(theory.parse_rate("2.5kibit"), 2560.0)
        self.assertEqual(theory.parse_rate("500kbit"), 5e5)
        self.assertEqual(theory.parse_rate("1.5mbit"), 1.5e6)
        self.assertEqual(theory.parse_rate("20000000"), 20e6)
        # zero with a rate unit, as `schedtun params --ef-exp` takes it
        for zero in ("0", "0.0", "0Mbit", " 00kbit"):
            self.assertEqual(theory.parse_rate(zero), 0.0, zero)
        for badv in ("x", "20M", "-1Mbit", "", "20 Mbyte", "0x", "0.0.0", "0M"):
            with self.assertRaises(ValueError, msg=badv) as cm:
                theory.parse_rate(badv)
            self.assertIn("'%s' is not a rate (accepted: " % badv, str(cm.exception))
            self.assertTrue(str(cm.exception).endswith("; or 0)"), str(cm.exception))
        self.assertEqual(theory.parse_duration("250ms"), 0.25)
        self.assertEqual(theory.parse_duration("6.1s"), 6.1)
        self.assertEqual(theory.parse_duration("100us"), 1e-4)
        with self.assertRaises(ValueError):
            theory.parse_duration("1min")
        self.assertEqual(theory.parse_spec("cosine:2.5kibit:0.5:250ms").mean_bps, 2560.0)
        self.assertEqual(theory.parse_spec("0", allow_zero=True).mean_bps, 0.0)
        for badv in ("cosine:20Mbit:1.2:15s", "cosine:20Mbit:0.3", "cosine:20Mbit:x:15s",
                     "cosine:0:0.3:15s", "cosine:20M:0.3:15s", "cosine:20Mbit:0.3:1min",
                     "cosine:20Mbit:0.3:0", "0", "20M"):
            with self.assertRaises(ValueError, msg=badv) as cm:
                theory.parse_spec(badv)
            self.assertIn("accepted", str(cm.exception))

    def test_rel_error(self):
        self.assertAlmostEqual(theory.rel_error(8.8, 8.0), 0.1)
        self.assertIsNone(theory.rel_error(1.0, 0.0))
        self.assertIsNone(theory.rel_error(1.0, None))


def params_out(binary, w_af, w_cs0, l_af, l_cs0, c, ef_exp, ef, lr=None):
    """`schedtun params pss ... --no-sim` -> {name: value} of its first lines."""
    cmd = [binary, "params", "pss", "--w-af", str(w_af), "--w-cs0", str(w_cs0),
           "--l-af", str(l_af), "--l-cs0", str(l_cs0), "--capacity", c,
           "--ef-exp", ef_exp, "--ef", ef, "--no-sim"]
    if lr:
        cmd += ["--lr", lr]
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         timeout=60, check=True).stdout.decode()
    vals = {}
    for key, pat in (("k_af", r"^K_AF = ([0-9.]+)"), ("b", r"^B = ([0-9.]+)"),
                     ("bw", r"^BW = ([0-9.]+)"), ("lm", r"^LM = ([0-9]+) bytes"),
                     ("lr", r"^LR = ([0-9]+) bytes"),
                     ("wrr_af", r"^DWRR AF = ([0-9.]+) Mbit/s"),
                     ("wrr_cs0", r"^DWRR CS0 = ([0-9.]+) Mbit/s"),
                     ("pss_af", r"^PSS AF = ([0-9.]+) Mbit/s"),
                     ("pss_cs0", r"^PSS CS0 = ([0-9.]+) Mbit/s")):
        m = re.search(pat, out, re.M)      # the first: the paper set
        if not m:
            raise AssertionError("no %r in:\n%s" % (pat, out))
        vals[key] = float(m.group(1))
    return vals


class AgainstParamsCalculator(unittest.TestCase):
    """theory.py vs `schedtun params pss --no-sim` (src/params/params_eq.c)."""

    POINTS = [   # w_af, w_cs0, l_af, l_cs0, C, R_EF^exp, R_EF, lr
        (9, 2, 1400, 1400, 20e6, 10e6, 10e6, None),
        (9, 2, 1400, 1400, 20e6, 10e6, 5e6, None),
        (9, 2, 1400, 1400, 20e6, 10e6, 15e6, None),
        (9, 2, 1500, 500, 20e6, 10e6, 10e6, None),
        (2, 9, 500, 1500, 20e6, 10e6, 12e6, None),
        (3, 2, 1500, 1500, 14e6, 3e6, 0.0, None),
        (9, 2, 1400, 1400, 20e6, 15e6, 5e6, "period:15s"),
        (5, 4, 1200, 800, 50e6, 20e6, 30e6, "period:6.1s"),
    ]

    @classmethod
    def setUpClass(cls):
        cls.bin = schedtun_path()

    def test_points(self):
        for w_af, w_cs0, l_af, l_cs0, c, exp, ef, lr in self.POINTS:
            with self.subTest(point=(w_af, w_cs0, l_af, l_cs0, c, exp, ef, lr)):
                got = params_out(self.bin, w_af, w_cs0, l_af, l_cs0, "%d" % c,
                                 "%d" % exp, "%d" % ef, lr)
                k = theory.k_af(w_af, l_af, w_cs0, l_cs0)
                b = theory.b_factor(w_af, l_af, w_cs0, l_cs0)
                period = float(lr.split(":")[1].rstrip("s")) if lr else None
                pp = theory.pss_params(w_af, l_af, w_cs0, l_cs0, c, exp, period)
                # printed with 6 decimals: half a unit of the last one
                self.assertAlmostEqual(k, got["k_af"], delta=5e-7)
                self.assertAlmostEqual(b, got["b"], delta=5e-7)
                self.assertAlmostEqual(pp["bw"], got["bw"], delta=5e-7)
                self.assertEqual(pp["lr"], got["lr"])
                self.assertEqual(pp["lm"], got["lm"])
                af = theory.pss_af_bps(k, c, exp, ef)
                # printed in Mbit/s with 3 decimals
                for name, mine in (("wrr_af", theory.wrr_af_bps(k, c, ef)),
                                   ("wrr_cs0", theory.wrr_cs0_bps(k, c, ef)),
                                   ("pss_af", af),
                                   ("pss_cs0", theory.pss_cs0_bps(af, c, ef))):
                    self.assertAlmostEqual(mine / M, got[name], delta=5.0001e-4,
                                           msg=name)


def stats_line(t, ef, af, cs0, credit=None):
    """A minimal schedtun stats line with these out_bytes."""
    ln = {"t": t, "link": {"out_bytes": ef + af + cs0},
          "classes": {c: {"out_bytes": v} for c, v in
                      (("ef", ef), ("af", af), ("cs0", cs0))},
          "rx": {}, "sched": {"name": "pss"}}
    if credit is not None:
        ln["sched"]["af"] = {"credit": credit, "prio": 1, "switches": 3}
    return ln


class ReadersWriters(unittest.TestCase):
    """schedlab.measure's readers and outputs' writers on small files."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def path(self, name):
        return os.path.join(self.d, name)

    def test_stats_rates_credit_and_partial_line(self):
        with open(self.path("s.jsonl"), "w") as f:
            f.write(json.dumps(stats_line(1.0, 1250000, 1000000, 250000, 500.0)) + "\n")
            f.write(json.dumps(stats_line(2.0, 1250000, 1000000, 250000, 700.5)) + "\n")
            # the final partial interval at shutdown: 0.5 s
            f.write(json.dumps(stats_line(2.5, 625000, 0, 0, 0.0)) + "\n")
            f.write('{"t": 3.0, "link"')            # being written: ignored
        lines = measure.stats_lines(self.path("s.jsonl"))
        self.assertEqual(len(lines), 3)
        rows = measure.stats_rates(lines, offset_s=0.5)
        self.assertEqual([(r["t0"], r["t1"]) for r in rows], [(-0.5, 0.5), (0.5, 1.5), (1.5, 2.0)])
        self.assertAlmostEqual(rows[1]["ef"], 10.0)
        self.assertAlmostEqual(rows[1]["af"], 8.0)
        self.assertAlmostEqual(rows[1]["link"], 20.0)
        self.assertAlmostEqual(rows[2]["ef"], 10.0)      # 625000 B in 0.5 s
        self.assertEqual(measure.stats_credit(lines, 0.5)[1], (1.5, 700.5, 1))
        # window [0.5, 2.0]: the last two intervals, weighted by length
        self.assertAlmostEqual(measure.window_mean(rows, "af", 0.5, 2.0), 8.0 * 1 / 1.5)
        self.assertIsNone(measure.window_mean(rows, "af", 5, 6))
        # EF started 0.5 s before the end of its first interval at 10 Mbit/s... of 20
        self.assertAlmostEqual(measure.traffic_start(rows, 20e6), 0.0)

    def test_bad_stats_line_names_the_line(self):
        with open(self.path("bad.jsonl"), "w") as f:
            f.write("{}\nnot json\n")
        with self.assertRaisesRegex(ValueError, r"bad.jsonl:2:"):
            measure.stats_lines(self.path("bad.jsonl"))

    def test_rates_csv_round_trip(self):
        rows = [(2.0, "af", 8.5, "daemon"), (1.0, "af", 8.25, "daemon"),
                (1.0, "ef", 10.0, "iperf"), (1.0, "cs0", None, "theory"),
                (1.0, "cs0", float("nan"), "daemon")]
        outputs.write_rates_csv(self.path("r.csv"), rows)
        with open(self.path("r.csv")) as f:
            self.assertEqual(f.readline().strip(), "t,class,mbps,source")
        back = outputs.read_rates_csv(self.path("r.csv"))
        self.assertEqual(back, [(1.0, "af", 8.25, "daemon"), (2.0, "af", 8.5, "daemon"),
                                (1.0, "ef", 10.0, "iperf")])
        with open(self.path("bad.csv"), "w") as f:
            f.write("t,cls,mbps\n")
        with self.assertRaises(ValueError):
            outputs.read_rates_csv(self.path("bad.csv"))

    def test_credit_csv(self):
        outputs.write_credit_csv(self.path("c.csv"), [(0.5, 1234.56, 1), (1.5, 0.0, 3)])
        with open(self.path("c.csv")) as f:
            self.assertEqual(f.read().splitlines(),
                             ["t,credit_bytes,prio", "0.500,1234.6,1", "1.500,0.0,3"])

    def test_summary_json(self):
        outputs.write_summary_json(self.path("s.json"),
                                 {"a": float("nan"), "b": [1.5, float("inf")], "c": {"d": 2}})
        with open(self.path("s.json")) as f:
            self.assertEqual(json.load(f), {"a": None, "b": [1.5, None], "c": {"d": 2}})

    def test_iperf_prefers_receiver_intervals(self):
        doc = {"intervals": [{"sum": {"end": 1.0, "bits_per_second": 9e6}}],
               "server_output_json": {"intervals": [
                   {"sum": {"end": 1.0, "bits_per_second": 7e6}},
                   {"sum": {"end": 2.0, "bits_per_second": 8e6}}]}}
        with open(self.path("i.json"), "w") as f:
            json.dump(doc, f)
        self.assertEqual(measure.iperf_rates(self.path("i.json"), 0.5), [(1.5, 7.0), (2.5, 8.0)])
        with open(self.path("e.json"), "w") as f:
            json.dump({"error": "unable to connect"}, f)
        self.assertEqual(measure.iperf_rates(self.path("e.json")), [])
        self.assertEqual(measure.iperf_error(self.path("e.json")), "unable to connect")
        self.assertEqual(measure.iperf_rates(self.path("missing.json")), [])

    def test_best_lag(self):
        # the daemon: 1 Mbit/s for 10 s, then 10; iperf3's clock 4 s late
        rows = [{"t0": t - 1.0, "t1": t + 0.3, "af": 1.0 if t <= 10 else 10.0}
                for t in range(1, 21)]
        pts = [(float(t), 0.96 * (1.0 if t + 4 <= 10 else 10.0)) for t in range(1, 17)]
        self.assertEqual(measure.best_lag(pts, rows, "af"), 4)
        self.assertEqual(measure.best_lag([], rows, "af"), 0)

    def test_theory_rows_time_varying(self):
        rows = [{"t0": -1.0, "t1": 0.0}, {"t0": 0.0, "t1": 1.0}]
        cap = theory.parse_spec("cosine:20Mbit:0.3:15s")
        th = runtheory.theory_rows("dwrr", {"k_af": 0.5}, cap, theory.RateSpec(4e6), rows,
                               c_offset_s=0.0)
        self.assertEqual(th[0]["ef"], 0.0)          # before EF's origin
        exact = 20 * (1 + 0.3 * math.sin(2 * math.pi / 15) * 15 / (2 * math.pi))
        self.assertAlmostEqual(th[1]["c"], exact, places=3)
        self.assertAlmostEqual(th[1]["af"], 0.5 * (th[1]["c"] - 4.0), places=9)

    def test_window_theory_varying_link(self):
        # K 0.5, C_nom 20, R_EF^exp 8: the reservation is 0.5 (20 - 8) = 6.
        # Second 1: C 10, EF 8 -> AF min(6, 2) = 2; second 2: C 30 -> 6.
        model = {"k_af": 0.5, "ef_exp_bps": 8 * M, "nominal_bps": 20 * M}
        th = []
        for i, c in enumerate((10.0, 30.0)):
            v = theory.class_theory("pss", model, c * M, 8 * M)
            th.append({"t0": float(i), "t1": i + 1.0, "c": c,
                       **{k: v[k] / M for k in measure.CLASSES}})
        w = runtheory.window_theory("pss", model, th, 0.0, 2.0, True)
        self.assertAlmostEqual(w["af"][1], 4.0)      # each second: (2 + 6) / 2
        self.assertAlmostEqual(w["af"][0], 6.0)      # eq. 7 on C_avg 20: min(6, 12)
        self.assertAlmostEqual(w["cs0"][0], 6.0)     # eq. 8: 20 - 8 - 6
        self.assertAlmostEqual(w["ef"][0], 8.0)
        self.assertIn("window means", w["af"][2])
        self.assertAlmostEqual(w["af"][3], 6.0)      # the window variant: the same here
        # the paper's: C_avg and the EF profile's mean, not the window's own
        # means: a window that caught C at 19 and EF at 8.5 on average
        # (not whole periods) against the profile's 20 and 8
        th2 = [dict(r, c=19.0, ef=8.5) for r in th]
        p = runtheory.window_theory("pss", model, th2, 0.0, 2.0, True, 20 * M, 8 * M)
        self.assertAlmostEqual(p["af"][0], 6.0)      # min(6, 20 - 8)
        self.assertAlmostEqual(p["cs0"][0], 6.0)     # 20 - 8 - 6
        self.assertAlmostEqual(p["af"][3], 6.0)      # window: min(6, 19 - 8.5)
        self.assertAlmostEqual(p["cs0"][3], 4.5)     # window: 19 - 8.5 - 6
        self.assertIn("C_avg and the EF profile's mean", p["af"][2])
        d = runtheory.window_theory("dwrr", {"k_af": 0.81}, th2, 0.0, 2.0, True, 20 * M, 10 * M)
        self.assertAlmostEqual(d["af"][0], 0.81 * 10)   # eq. 1 on C_avg - EF_avg: 8.1
        self.assertAlmostEqual(d["cs0"][0], 0.19 * 10)  # eq. 6: 1.9
        self.assertAlmostEqual(d["af"][3], 0.81 * 10.5)  # on the window's 19 - 8.5
        const = runtheory.window_theory("pss", model, th, 0.0, 2.0, False)
        self.assertAlmostEqual(const["af"][0], 4.0)  # a constant link: per second
        self.assertAlmostEqual(const["af"][3], 4.0)
        fifo = [dict(r, ef=None, af=None, cs0=None) for r in th]   # no equations
        self.assertIsNone(runtheory.window_theory("fifo", model, fifo, 0.0, 2.0, True)["af"][0])


class GeoCommandLine(unittest.TestCase):
    """geo.py's argument checks and geospec's link and scheduler texts (no Mininet)."""

    @classmethod
    def setUpClass(cls):
        cls.bin = schedtun_path()

    def args(self, *extra):
        return geo.parse_args(["--schedtun", self.bin, "--ef-tool", "iperf"] + list(extra))

    def test_errors_name_option_and_accepted(self):
        for argv, opt in ((["--sched", "pss", "--capacity", "x"], "--capacity 'x'"),
                          (["--sched", "nope"], "--sched 'nope'"),
                          (["--sched", "pss", "--ef", "cosine:5M:0.6:6.1s"], "--ef 'cosine"),
                          (["--sched", "pss", "--weights", "1:2"], "--weights '1:2'"),
                          (["--sched", "pss", "--ef-exp", "30Mbit"], "--ef-exp '30Mbit'"),
                          (["--sched", "pss", "--ef", "5M"], "--ef '5M'")):
            with self.subTest(argv=argv):
                with self.assertRaises(runerr.UsageError) as cm:
                    self.args(*argv)
                self.assertTrue(str(cm.exception).startswith(opt), str(cm.exception))

    def pair(self, a):
        """The SchedtunLink's two configuration texts for a run's arguments
        (geospec.link_options through pairconf, as the link writes them)."""
        a.out = tempfile.mkdtemp()
        o = geospec.link_options(a, self.bin)
        ends = [pairconf.End(t, tc, ul.split("/")[0], st) for t, tc, ul, st in
                zip(o["tun_names"], o["tun_addrs"], o["ul_addrs"], o["stats_files"])]
        spec = pairconf.PairSpec(rate=o.get("rate"), profile=o.get("profile"),
                                 delay=o["delay"], sched=o["sched"], rev_sched=o["rev_sched"],
                                 rev_rate=o["rev_rate"], rev_delay=o["rev_delay"],
                                 mtu=o["mtu"], port=o["port"], end1=ends[0], end2=ends[1])
        return o, pairconf.pair_texts(spec)

    def test_default_pss_params_and_cosine_link(self):
        a = self.args("--sched", "pss", "--capacity", "cosine:20Mbit:0.3:15s")
        text = geospec.sched_group_text(a)
        # C 20, R_EF^exp = EF default 10: BW 4/9, LR 15 s of C BW, LM = 6222 + LR
        self.assertIn("bw = 0.444444444; lm = 16672889; lr = 16666667; "
                      "credit_init = 16666667;", text)
        o, (fwd, rev) = self.pair(a)
        self.assertIn('kind = "cosine"; mean = "20000000"; amplitude = 0.3; '
                      'period = "15s"; }; delay = "250000us";', fwd)
        self.assertIn(text, fwd)
        # the return path: fifo at 1 Gbit/s, the same delay
        self.assertIn('link = { rate = "1000000000"; delay = "250000us"; };', rev)
        self.assertIn('scheduler = { name = "fifo"; };', rev)
        self.assertEqual(o["conf_files"], (os.path.join(a.out, "a.conf"),
                                           os.path.join(a.out, "b.conf")))
        self.assertEqual(o["stats_files"][1], os.path.join(a.out, "stats-b.jsonl"))
        self.assertIn('address = "10.10.0.1/24"', fwd)
        self.assertIn('peer = "10.0.0.1:5000"', rev)

    def test_generated_conf_passes_check(self):
        a = self.args("--sched", "dwrr", "--ef", "5Mbit")
        _, texts = self.pair(a)
        for name, text in zip(("a.conf", "b.conf"), texts):
            path = os.path.join(a.out, name)
            with open(path, "w") as f:
                f.write(text)
            r = subprocess.run([self.bin, "--check", "-f", path], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT)
            self.assertEqual(r.returncode, 0, r.stdout.decode())
        self.assertIn('link = { rate = "20000000"; delay = "250000us"; };', texts[0])
        self.assertAlmostEqual(geospec.theory_model(a, texts[0])["k_af"], 12600 / 15400)

    def test_force_option(self):
        self.assertFalse(self.args("--sched", "pss").force)
        self.assertTrue(self.args("--sched", "pss", "--force").force)

    def test_conf_sched_group(self):
        group = geospec.conf_sched_group(os.path.join(ROOT, "conf", "pss-receiver.conf"))
        self.assertTrue(group.startswith("scheduler"))
        self.assertTrue(group.endswith("};"))
        self.assertEqual(geospec.sched_group_name(group), "pss")
        self.assertEqual(geospec.pss_bw_of(group), 0.444444)


if __name__ == "__main__":
    unittest.main()
