"""test_reproduce.py - mininet/reproduce.py's points, without Mininet.

  /usr/bin/python3 -m unittest -v test_reproduce
(run from tests/unit; ctest's unit.reproduce does exactly this).

point_of(): what a figure run becomes for schedlab.experiment: the cache
key's parameters (the timing and the tools among them, so a longer run or
another iperf3 is another point), the never-full classes of the stall
rule (EF only where its peak stays below the link's lowest rate) and the
geo.py command with the run's own directory.
"""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "mininet"))

import figprep   # noqa: E402
import figures   # noqa: E402
import reproduce  # noqa: E402
from pytools import tool  # noqa: E402
from schedlab import cache  # noqa: E402

TOOLS = {"iperf3": "iperf 3.12", "kernel": "6.1"}
CODE = {"tree": "t" * 64, "dirty_hash": None}


class PointOf(unittest.TestCase):
    def point(self, run, timing=reproduce.FULL, tools=TOOLS):
        return reproduce.point_of(run, "figX", timing, "/bin/schedtun", tools)

    def test_never_full(self):
        # constant 20 Mbit/s: EF at 15 (0.75 C) still below C
        self.assertEqual(self.point(figures.Run("dwrr", (81, 19), 15.0, 15.0)).never_full,
                         ("ef",))
        # section 4.2: C down to 0.7 x 20 = 14; EF peaks at 1.6 EF_avg:
        # 8 for EF_avg 5 fits, 16 for 10 does not
        self.assertEqual(self.point(figures.Run("dwrr", (81, 19), 5.0, 5.0, var=True))
                         .never_full, ("ef",))
        self.assertEqual(self.point(figures.Run("dwrr", (81, 19), 10.0, 10.0, var=True))
                         .never_full, ())
        # fifo: EF waits behind AF and CS0 in one queue, so it can fill
        self.assertEqual(self.point(figures.Run("fifo", (81, 19), 10.0, 10.0)).never_full, ())

    def test_params_and_key(self):
        run = figures.Run("pss", (9, 2), 10.0, 10.0, "calibrated")
        run.sched_params = "pss = { bw = 0.409090909; lm = 7764; lr = 1146; };"
        run.calc = {"bw": "0.409090909", "lm": 7764, "lr": 1146}
        p = self.point(run)
        self.assertEqual((p.params["point"], p.params["calc"]), (run.key, run.calc))
        for k in cache.REQUIRED_PARAMS:
            self.assertIn(k, p.params)
        self.assertEqual(p.params["sched_group"], run.sched_params)
        self.assertEqual((p.params["duration_s"], p.params["warmup_s"]),
                         (reproduce.FULL["duration"], reproduce.FULL["warmup"]))
        self.assertEqual(p.params["weights"], [9, 2])
        key = cache.run_key(p.params, CODE)
        # the same point again: the same key; a longer run, another iperf3,
        # another R_EF^exp or scheduler group: another point
        self.assertEqual(cache.run_key(self.point(run).params, CODE), key)
        self.assertNotEqual(cache.run_key(self.point(run, reproduce.QUICK).params, CODE), key)
        self.assertNotEqual(cache.run_key(self.point(run, tools=dict(TOOLS, iperf3="3.16"))
                                          .params, CODE), key)
        other = figures.Run("pss", (9, 2), 10.0, 5.0, "calibrated")
        other.sched_params, other.calc = run.sched_params, run.calc
        self.assertNotEqual(cache.run_key(self.point(other).params, CODE), key)
        # the command: geo.py with the run's own directory and binary
        argv = p.argv("/tmp/run-dir")
        self.assertEqual(argv[argv.index("--out") + 1], "/tmp/run-dir")
        self.assertEqual(argv[argv.index("--schedtun") + 1], "/bin/schedtun")
        self.assertEqual(argv[argv.index("--duration") + 1], str(reproduce.FULL["duration"]))
        self.assertEqual(argv[argv.index("--sched-params") + 1], run.sched_params)


class Prepare(unittest.TestCase):
    """figprep.prepare against the real calculator and simulator."""

    def test_constant_link(self):
        schedtun = tool("SCHEDTUN", "schedtun")
        cal = figprep.prepare(figures.Run("pss", (9, 2), 10.0, 10.0, "calibrated"), schedtun)
        paper = figprep.prepare(figures.Run("pss", (9, 2), 10.0, 10.0, "paper"), schedtun)
        # the calibrated set goes to geo.py whole; the paper's geo.py computes
        self.assertEqual(cal.sched_params, figures.calibrated_params(cal.calc))
        self.assertIsNone(paper.sched_params)
        self.assertGreater(abs(float(cal.calc["bw"]) - float(paper.calc["bw"]))
                           / float(paper.calc["bw"]), figures.CAL_BW_DIFF)
        # the calculator's BW as the scheduler block prints it (9 digits)
        self.assertEqual(paper.calc["bw"], "%.9g" % float(paper.calc["bw"]))
        self.assertIsNone(paper.sim)
        # fixed choice of figures.pss_runs, checked against the calculator:
        # 81:19 runs the paper's rule only, and would be refused as 9:2
        other = figures.Run("pss", (81, 19), 10.0, 10.0, "paper")
        figprep.prepare(other, schedtun)
        c = figures.calc(schedtun, (81, 19), 10.0, 10.0)
        fake = figures.Run("pss", figures.SMALL_W, 10.0, 10.0, "paper")
        with self.assertRaises(SystemExit):
            figprep.check_rule_choice(fake, c)

    def test_varying_link(self):
        schedtun = tool("SCHEDTUN", "schedtun")
        tool("SCHEDTUN_SIM", "schedtun-sim")        # sim_rates finds it beside schedtun
        run = figprep.prepare(figures.Run("pss", (81, 19), 5.0, 5.0, "paper", var=True,
                                          variant="noidle"), schedtun)
        self.assertIn("idle_credit = false;", run.sched_params)
        self.assertIn("lr = %d;" % run.calc["lr"], run.sched_params)
        self.assertGreater(run.calc["lr"], 0)       # LR = T C BW (section 4.2.1)
        # the simulator's Algorithm 1 on the cosine link: EF gets its mean
        self.assertAlmostEqual(run.sim["ef"], 5.0, delta=0.1)
        self.assertAlmostEqual(run.sim["ef"] + run.sim["af"] + run.sim["cs0"], 20.0,
                               delta=0.5)
        nomem = figprep.prepare(figures.Run("pss", (81, 19), 5.0, 5.0, "paper", var=True,
                                            variant="nomem"), schedtun)
        self.assertEqual(nomem.calc["lr"], 0)


class Main(unittest.TestCase):
    """reproduce.main resolves the binary once: without --schedtun each
    point still has one (the calculator's, geo.py's and the provenance's)."""

    def test_plan_without_schedtun(self):
        import contextlib
        import io
        import tempfile
        import figplan
        binary = os.path.abspath(tool("SCHEDTUN", "schedtun"))
        seen = []
        real = figplan.table

        def spy(items, overhead, repeat):
            seen.extend(items)
            return real(items, overhead, repeat)
        old_env = os.environ.get("SCHEDTUN")
        os.environ["SCHEDTUN"] = binary
        figplan.table = spy
        try:
            with tempfile.TemporaryDirectory() as d, \
                    contextlib.redirect_stdout(io.StringIO()) as out:
                rc = reproduce.main(["compare", "--plan", "--records",
                                     os.path.join(d, "runs.jsonl"), "--out", d])
        finally:
            figplan.table = real
            if old_env is None:
                del os.environ["SCHEDTUN"]
            else:
                os.environ["SCHEDTUN"] = old_env
        self.assertEqual(rc, 0)
        self.assertIn("schedtun: %s" % binary, out.getvalue())
        self.assertEqual(len(seen), 7)
        for it in seen:
            self.assertEqual(it.point.binary, binary)
            argv = it.point.argv("/tmp/x")
            self.assertEqual(argv[argv.index("--schedtun") + 1], binary)


if __name__ == "__main__":
    unittest.main()
