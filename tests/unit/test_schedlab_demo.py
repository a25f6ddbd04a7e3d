"""test_schedlab_demo.py - geo-demo's library parts on synthetic inputs.

  SCHEDTUN=/path/to/schedtun /usr/bin/python3 -m unittest -v test_schedlab_demo
(run from tests/unit; ctest's unit.schedlab_demo does exactly this).

  - efstep: step:R1:T:R2 read as the daemon reads rates and durations,
    its exact means, efgen's text, the refusals; geo.py's --ef takes it
    (the window's mean as R_EF^exp) and schedlab.traffic hands it to efgen;
  - demo.plan: the demo's scenario written out as geo.py options (its
    defaults, not geo.py's), the step at the middle of the window, the PSS
    parameters from `schedtun params pss --json`, bad options refused;
  - demoreport: the phases before/after the step and their theory on a
    hand-written rates.csv and summary.json (every interval a different
    value, so a wrong interval in or out changes the mean), the table and
    the comparison;
  - demostats: the daemons' per-class counters over the window from
    hand-written stats lines, B's window moved onto B's clock;
  - the front end's refusals (geo-demo.sh, demo.py).
No root, no Mininet, no network; SCHEDTUN (or a build tree's schedtun)
for the calculator and geo.py's argument checks.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "mininet"))

from pytools import tool  # noqa: E402
from schedlab import demo, demoreport, demostats, efstep  # noqa: E402


class EfStep(unittest.TestCase):
    def test_parse_and_means(self):
        s = efstep.parse_step("step:2.5Mbit:25s:7.5Mbit")
        self.assertEqual((s.before_bps, s.at_s, s.after_bps), (2.5e6, 25.0, 7.5e6))
        self.assertFalse(s.constant)
        self.assertEqual((s.at(24.999), s.at(25.0)), (2.5e6, 7.5e6))
        # 5 s at 2.5 and 15 s at 7.5 over [20, 40]: (12.5 + 112.5) / 20
        self.assertAlmostEqual(s.mean_over(20, 40), 6.25e6)
        self.assertEqual(s.mean_over(0, 10), 2.5e6)
        self.assertEqual(s.mean_over(30, 30), 7.5e6)
        s.set_window(10, 40)
        self.assertAlmostEqual(s.mean_bps, 5e6)
        self.assertEqual(s.efgen_rate(), "step:2500000:25.0:7500000")
        z = efstep.parse_step("STEP:0:500ms:1mbps")     # tc: mbps = 8 Mbit/s
        self.assertEqual((z.before_bps, z.at_s, z.after_bps), (0.0, 0.5, 8e6))

    def test_refusals(self):
        for text, what in (("step:20M:1s:1Mbit", "R1 '20M' is not a rate"),
                           ("step:1Mbit:x:2Mbit", "T 'x' is not a duration"),
                           ("step:1Mbit:0:2Mbit", "T '0' must be above 0"),
                           ("step:0:1s:0", "both rates are 0"),
                           ("step:1Mbit:2Mbit", "is not a step"),
                           ("step:1Mbit:1s:2Gbit", "above 1 Gbit/s")):
            with self.subTest(text=text):
                with self.assertRaises(ValueError) as cm:
                    efstep.parse_step(text)
                self.assertIn(what, str(cm.exception))
                self.assertIn("(accepted: step:R1:T:R2", str(cm.exception))

    def test_geo_takes_a_step(self):
        import geo
        from schedlab import traffic
        bdir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, bdir)
        for name in ("schedtun", "schedtun-efgen"):
            os.symlink(tool("SCHEDTUN", "schedtun"), os.path.join(bdir, name))
        base = ["--sched", "pss", "--schedtun", os.path.join(bdir, "schedtun"),
                "--duration", "40", "--warmup", "10"]
        a = geo.parse_args(base + ["--ef", "step:2.5Mbit:20s:7.5Mbit"])
        # R_EF^exp = the window's mean: 10 s at 2.5, 20 s at 7.5
        self.assertAlmostEqual(a.ef_exp_bps, (25 + 150) / 30 * 1e6)
        self.assertEqual(traffic.efgen_rate(a.ef_spec), "step:2500000:20.0:7500000")
        self.assertEqual(traffic.efgen_rate(geo.parse_args(base + ["--ef", "8Mbit"]).ef_spec),
                         "8000000")
        with self.assertRaises(geo.UsageError) as cm:
            geo.parse_args(base + ["--ef", "step:2.5Mbit:0s:7.5Mbit"])
        self.assertIn("--ef 'step:2.5Mbit:0s:7.5Mbit': T '0s' must be above 0", str(cm.exception))
        with self.assertRaises(geo.UsageError) as cm:
            geo.parse_args(base + ["--ef", "step:2.5Mbit:20s:7.5Mbit", "--ef-tool", "iperf"])
        self.assertIn("time-varying EF needs schedtun-efgen", str(cm.exception))


class Plan(unittest.TestCase):
    def test_default_scenario(self):
        p = demo.plan({"out": "/tmp/x"}, tool("SCHEDTUN", "schedtun"))
        argv = p.geo_argv()
        opt = {argv[i]: argv[i + 1] for i in range(0, len(argv), 2)}
        self.assertEqual(opt["--sched"], "pss")
        self.assertEqual(opt["--weights"], "3:2")
        self.assertEqual((opt["--af-flows"], opt["--cs0-flows"]), ("4", "4"))
        self.assertEqual((opt["--duration"], opt["--warmup"]), ("40", "10"))
        self.assertEqual((opt["--capacity"], opt["--delay"]), ("20Mbit", "250ms"))
        # the middle of the window 10..40; R_EF^exp its mean
        self.assertEqual(opt["--ef"], "step:2.5Mbit:25s:7.5Mbit")
        self.assertEqual(opt["--ef-exp"], "5000000")
        self.assertEqual(opt["--out"], "/tmp/x")
        self.assertEqual(p.settle_s, 2.0)
        # the calibrated rule for 3:2, 1400 B, C 20, R_EF^exp 5 (docs/pss.md):
        # BW C = K_AF (C - R_EF^exp) = 9 Mbit/s, credit_init = LR
        self.assertEqual(opt["--sched-params"], 'pss = { bw = 0.45; lm = 10220; lr = 1260; '
                         'capacity = "20Mbit"; credit_init = 1260; };')
        self.assertIn("calibrated", p.params_cmd)

    def test_short_dwrr_and_constant(self):
        p = demo.plan({"sched": "dwrr", "duration": "18", "warmup": "7", "settle": "1",
                       "no_plot": True})
        argv = p.geo_argv()
        self.assertIn("step:2.5Mbit:12.5s:7.5Mbit", argv)
        self.assertNotIn("--sched-params", argv)        # geo.py's quanta W L = 4200/2800
        self.assertEqual(argv[-1], "--no-plot")
        self.assertNotIn("--force", argv)
        self.assertEqual(demo.plan({"sched": "prio", "force": True}).geo_argv()[-1], "--force")
        u = demo.plan({"sched": "fifo", "ef": "STEP:1Mbit:3Mbit"})
        self.assertEqual((u.step_at_s, u.ef_exp_bps), (25.0, 2e6))
        self.assertIn("step:1Mbit:25s:3Mbit", u.geo_argv())
        c = demo.plan({"sched": "prio", "ef": "4Mbit", "duration": "20"})
        self.assertIsNone(c.step_at_s)
        self.assertIn("4Mbit", c.geo_argv())
        self.assertEqual(c.warmup_s, 20 / 3.0)
        self.assertEqual(c.ef_exp_bps, 4e6)

    def test_refusals(self):
        for opts, what in (({"duration": "3"}, "--duration '3': out of range"),
                           ({"weights": "1:2"}, "--weights '1:2'"),
                           ({"ef": "30Mbit"}, "--ef '30Mbit': EF (and R_EF^exp 3e+07 bit/s) must stay below"),
                           ({"ef": "step:1Mbit"}, "--ef 'step:1Mbit'"),
                           ({"rule": "x"}, "--rule 'x'"),
                           ({"flows": "0"}, "--flows '0'"),
                           ({"duration": "18", "warmup": "7", "settle": "6"},
                            "--settle '6': leaves nothing"),
                           ({"sched": "wfq"}, "--sched 'wfq': unknown scheduler")):
            with self.subTest(opts=opts):
                with self.assertRaises(ValueError) as cm:
                    demo.plan(dict(opts, sched_params=opts.get("sched_params", "")))
                self.assertIn("geo-demo: " + what, str(cm.exception))


class FrontEnd(unittest.TestCase):
    """Refusals before anything runs (no root needed: they come first).
    Each command also carries --duration 3, which demo.py refuses (exit 2)
    before geo.py starts: with a refusal broken, nothing runs either."""

    def run_cmd(self, argv):
        env = dict(os.environ, SCHEDTUN=tool("SCHEDTUN", "schedtun"))
        return subprocess.run(argv, capture_output=True, text=True, timeout=60, env=env)

    def test_geo_demo_refuses_what_it_cannot_keep(self):
        sh = os.path.join(ROOT, "scripts", "geo-demo.sh")
        r = self.run_cmd(["bash", sh, "--forwarder", "plainfwd", "--no-deps", "-d", "3"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("geo-demo: --forwarder 'plainfwd': only schedtun now", r.stderr)
        self.assertIn("scripts/bench.sh", r.stderr)
        r = self.run_cmd(["bash", sh, "--compare", "pss", "--no-deps", "-d", "3"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("--compare 'pss': the same scheduler as --sched", r.stderr)
        r = self.run_cmd(["bash", sh, "--bogus", "-d", "3"])
        self.assertEqual((r.returncode, r.stderr.strip()),
                         (2, "geo-demo: unknown option '--bogus' (see --help)"))

    def test_demo_py_bad_option_exit_2(self):
        r = self.run_cmd(["/usr/bin/python3", os.path.join(ROOT, "mininet", "demo.py"), "run",
                          "--duration", "3", "--out", tempfile.gettempdir()])
        self.assertEqual(r.returncode, 2)
        self.assertIn("geo-demo: --duration '3': out of range (accepted: 5..600)", r.stderr)


# Daemon rows of a synthetic run: 1-s intervals ending at t = 1..20;
# every class value differs per interval.  EF steps 2.5 -> 7.5 in the
# interval ending at 12 s; the interval ending at 13 s carries junk (100)
# so that counting it shows.
AF = {t: 9.0 + 0.1 * t for t in range(1, 21)}
AF[13] = 100.0


def synthetic_rows():
    rows = []
    for t in range(1, 21):
        ef = 2.5 if t <= 12 else 7.5
        af = AF[t]
        cs0 = 20.0 - ef - af if t != 13 else 100.0
        for c, v in (("ef", ef), ("af", af), ("cs0", cs0), ("link", 20.0)):
            rows.append((t, c, v, "daemon"))
            rows.append((t, c, 0.0, "theory"))      # must be ignored
    return rows


def write_run(d, sched="pss", shift=0.6, ef="step:2.5Mbit:12.5s:7.5Mbit"):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "rates.csv"), "w") as f:
        f.write("t,class,mbps,source\n")
        for t, c, v, s in synthetic_rows():
            f.write("%.3f,%s,%.6f,%s\n" % (t, c, v, s))
    summ = {"traffic_start_after_launch_s": shift,
            "config": {"sched": sched, "k_af": 0.6, "ef_exp_bps": 5e6,
                       "capacity_mean_bps": 20e6, "ef": ef, "ef_mean_bps": 5e6,
                       "warmup_s": 7.0, "duration_s": 18.0}}
    with open(os.path.join(d, "summary.json"), "w") as f:
        json.dump(summ, f)


def mean(ts, f):
    return sum(f(t) for t in ts) / len(ts)


class Report(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)

    def test_phases_around_the_step(self):
        write_run(self.dir)
        rep = demoreport.report(self.dir, 1.0)
        # step at efgen's 12.5 s = traffic time 12.5 - 0.6 = 11.9:
        # before = [7, 11.9]: intervals ending 8..11; after = [12.9, 18]:
        # ending 14..18 (the one ending at 13 starts at 12 < 12.9)
        self.assertAlmostEqual(rep["step"]["at_s"], 11.9)
        b, a = rep["phases"]["before"], rep["phases"]["after"]
        self.assertEqual((b["intervals"], a["intervals"]), (4, 5))
        self.assertAlmostEqual(b["duration_s"], 4.0)
        self.assertAlmostEqual(b["af"], mean(range(8, 12), AF.get))
        self.assertAlmostEqual(a["af"], mean(range(14, 19), AF.get))
        self.assertAlmostEqual(b["ef"], 2.5)
        self.assertAlmostEqual(a["ef"], 7.5)
        self.assertAlmostEqual(a["cs0"], mean(range(14, 19), lambda t: 12.5 - AF[t]))
        # pss: AF eq. 7 = min(0.6 (20 - 5), 20 - R_EF) = 9 in both, CS0 eq. 8
        self.assertEqual(rep["theory"]["before"], {"ef": 2.5, "af": 9.0, "cs0": 8.5, "link": 20.0})
        self.assertEqual(rep["theory"]["after"], {"ef": 7.5, "af": 9.0, "cs0": 3.5, "link": 20.0})
        self.assertEqual(rep["equations"]["af"], "eq. 7")

    def test_settle_and_no_shift(self):
        write_run(self.dir, shift=0.0)
        rep = demoreport.report(self.dir, 2.0)
        # step at 12.5: before ending 8..12, after [14.5, 18]: ending 16..18
        self.assertEqual(rep["phases"]["before"]["intervals"], 5)
        self.assertEqual(rep["phases"]["after"]["intervals"], 3)
        self.assertAlmostEqual(rep["phases"]["after"]["af"], mean(range(16, 19), AF.get))

    def test_dwrr_and_no_theory(self):
        write_run(self.dir, sched="dwrr")
        th = demoreport.report(self.dir, 1.0)["theory"]
        # eq. 1: 0.6 (20 - R_EF), eq. 6: 0.4 (20 - R_EF)
        self.assertAlmostEqual(th["before"]["af"], 10.5)
        self.assertAlmostEqual(th["after"]["af"], 7.5)
        self.assertAlmostEqual(th["after"]["cs0"], 5.0)
        write_run(self.dir, sched="fifo")
        rep = demoreport.report(self.dir, 1.0)
        self.assertEqual(rep["theory"], {"before": None, "after": None})
        self.assertIn("theory: none for fifo", demoreport.format_table(rep))

    def test_constant_ef_is_one_window(self):
        write_run(self.dir, ef="5Mbit")
        rep = demoreport.report(self.dir, 1.0)
        self.assertIsNone(rep["step"])
        w = rep["phases"]["window"]
        # [7, 18]: intervals ending 8..18, the junk one at 13 included
        self.assertEqual(w["intervals"], 11)
        self.assertAlmostEqual(w["af"], mean(range(8, 19), AF.get))
        self.assertEqual(rep["theory"]["window"]["af"], 9.0)

    def test_table_and_compare(self):
        write_run(os.path.join(self.dir, "pss"))
        write_run(os.path.join(self.dir, "dwrr"), sched="dwrr")
        p = demoreport.report(os.path.join(self.dir, "pss"), 1.0)
        d = demoreport.report(os.path.join(self.dir, "dwrr"), 1.0)
        b, a = p["phases"]["before"]["af"], p["phases"]["after"]["af"]
        lines = demoreport.format_table(p).split("\n")
        self.assertIn("EF step 2.5 -> 7.5 Mbit/s at t = 11.90 s", lines[0])
        self.assertEqual(lines[1].split(), ["class", "before", "theory", "after", "theory",
                                            "change", "theory"])
        self.assertEqual(lines[3].split(), ["AF", "%.2f" % b, "9.00", "%.2f" % a, "9.00",
                                            "%+.2f" % (a - b), "+0.00"])
        self.assertEqual(lines[4].split()[1:3], ["%.2f" % p["phases"]["before"]["cs0"], "8.50"])
        self.assertIn("K_AF = 0.6, C = 20, R_EF^exp = 5 Mbit/s", lines[-1])
        cmp = demoreport.compare_table([p, d]).split("\n")
        self.assertEqual(len(cmp), 7)
        self.assertEqual(cmp[5].split()[:3], ["dwrr", "AF", "%.2f" % d["phases"]["before"]["af"]])
        self.assertEqual(cmp[5].split()[3:], ["10.50", "%.2f" % d["phases"]["after"]["af"],
                                              "7.50", "%+.2f" % (d["phases"]["after"]["af"] -
                                                                 d["phases"]["before"]["af"]),
                                              "-3.00"])
        write_run(os.path.join(self.dir, "prio"), sched="prio", ef="5Mbit")
        with self.assertRaises(demoreport.ReportError):
            demoreport.compare_table([p, demoreport.report(os.path.join(self.dir, "prio"), 1.0)])

    def test_intervals_of_any_length(self):
        # a stats line missing (a 2-s interval ending at 12) and a short
        # one: each interval from the previous end, means weighted by time
        os.makedirs(self.dir, exist_ok=True)
        with open(os.path.join(self.dir, "rates.csv"), "w") as f:
            f.write("t,class,mbps,source\n")
            for t, v in ((9.0, 1.0), (10.0, 2.0), (12.0, 5.0), (12.5, 8.0), (13.5, 50.0)):
                for c in ("ef", "af", "cs0", "link"):
                    f.write("%.3f,%s,%.6f,daemon\n" % (t, c, v))
        rates = demoreport.read_rates(os.path.join(self.dir, "rates.csv"))
        m = demoreport.phase_means(rates, 9.0, 12.5)
        # (10, 12] 2 s at 5 and (12, 12.5] 0.5 s at 8, (9, 10] 1 s at 2
        self.assertEqual(m["intervals"], 3)
        self.assertAlmostEqual(m["duration_s"], 3.5)
        self.assertAlmostEqual(m["af"], (2 * 1 + 5 * 2 + 8 * 0.5) / 3.5)
        # the first row's interval is a stats interval long: (8, 9]
        self.assertEqual(demoreport.phase_means(rates, 8.0, 9.0)["ef"], 1.0)

    def test_bad_inputs(self):
        write_run(self.dir)
        with open(os.path.join(self.dir, "rates.csv"), "w") as f:
            f.write("time,class,rate\n")
        with self.assertRaises(demoreport.ReportError) as cm:
            demoreport.report(self.dir, 1.0)
        self.assertIn("rates.csv: header ['time', 'class', 'rate'], not t,class,mbps,source",
                      str(cm.exception))
        os.unlink(os.path.join(self.dir, "summary.json"))
        with self.assertRaises(demoreport.ReportError) as cm:
            demoreport.report(self.dir, 1.0)
        self.assertIn("summary.json", str(cm.exception))

    def test_compare_png(self):
        for s in ("pss", "dwrr"):
            write_run(os.path.join(self.dir, s), sched=s)
        runs = [(os.path.join(self.dir, s), demoreport.report(os.path.join(self.dir, s), 1.0))
                for s in ("pss", "dwrr")]
        from schedlab import demoplot
        png = os.path.join(self.dir, "compare.png")
        demoplot.compare_png(png, runs, "t")
        with open(png, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")


def stats_line(t, wall, classes=None, rx=None):
    o = {"t": float(t), "link": {"out_bytes": 0}}
    if wall is not None:
        o["wall"] = wall
    if classes:
        o["classes"] = classes
    if rx:
        o["rx"] = rx
    return o


class WindowCounters(unittest.TestCase):
    """A: t = 1..20 s of daemon time, origin 1000 (wall); B: origin 1002.
    Window 5..15 s of traffic time, A's t = traffic time + 2: A's
    intervals ending 8..17; B's clock is 2 s behind, + 250 ms delay: B's
    window 5.25..15.25 (0.5 s slack), intervals ending 6..15."""

    def setUp(self):
        self.a, self.b = [], []
        for t in range(1, 21):
            af = {"in_pkts": 100, "out_pkts": t, "out_bytes": 1000 * t, "drop_pkts": t % 3,
                  "delay_ms": {"avg": t, "p99": 2 * t}}
            self.a.append(stats_line(t, 1000.0 + t, {"af": af}))
            rx = {"af": {"pkts": 10, "bytes": 500 * t, "lost": 1 if t == 12 else 0,
                         "owd_ms": {"avg": 250.0 + t}}}
            self.b.append(stats_line(t, 1002.0 + t, rx=rx))
        self.summary = {"sender_offset_s": 2.0, "window_s": [5.0, 15.0],
                        "config": {"delay_one_way_s": 0.25}}

    def test_sender_and_receiver(self):
        w = demostats.window_classes(self.a, self.b, self.summary)
        self.assertEqual((w["intervals_a"], w["intervals_b"]), (10, 10))
        af = w["classes"]["af"]
        ta, tb = range(8, 18), range(6, 16)
        self.assertAlmostEqual(af["out_mbps"], 8e-6 * sum(1000 * t for t in ta) / 10)
        drops = sum(t % 3 for t in ta)
        self.assertEqual(af["drop_pkts"], drops)
        self.assertAlmostEqual(af["drop_pct"], 100.0 * drops / 1000)
        self.assertAlmostEqual(af["qdelay_avg_ms"], sum(t * t for t in ta) / sum(ta))
        self.assertEqual(af["qdelay_p99_max_ms"], 34)
        self.assertAlmostEqual(af["rx_mbps"], 8e-6 * sum(500 * t for t in tb) / 10)
        self.assertEqual(af["rx_lost"], 1)
        self.assertAlmostEqual(af["rx_loss_pct"], 100.0 / 101)
        self.assertAlmostEqual(af["owd_avg_ms"], 250.0 + sum(tb) / 10)
        # a class without packets: no delay, no loss rate, no owd
        ef = w["classes"]["ef"]
        self.assertEqual((ef["out_mbps"], ef["drop_pkts"], ef["qdelay_avg_ms"],
                          ef["qdelay_p99_max_ms"], ef["rx_loss_pct"], ef["owd_avg_ms"]),
                         (0.0, 0, None, None, None, None))
        row = demostats.format_window(w).split("\n")[3].split()
        self.assertEqual(row[:3], ["AF", "%.2f" % af["out_mbps"], str(drops)])

    def test_receiver_without_a_clock(self):
        w = demostats.window_classes(self.a, [stats_line(1, None, rx={"af": {"pkts": 1}})],
                                     self.summary)
        self.assertEqual(w["intervals_b"], 0)
        self.assertEqual((w["classes"]["af"]["rx_mbps"], w["classes"]["af"]["rx_lost"]),
                         (None, None))


if __name__ == "__main__":
    unittest.main()
