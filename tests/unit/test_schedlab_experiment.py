"""test_schedlab_experiment.py - schedlab.experiment on a fake runner.

  /usr/bin/python3 -m unittest -v test_schedlab_experiment
(run from tests/unit; ctest's unit.schedlab_experiment does exactly this).

run_point() against a runner that writes what geo.py writes (summary.json,
the sender's stats lines, the daemons' configurations) into the run's
directory, each run scripted: valid, stalled (a departure 180 ms late
after the warm-up), an EF overflow, a non-zero exit.  Checked: a point
runs until it has n valid runs, a discarded run is recorded with its
reason and retried, a point that keeps stalling stops at the retry limit,
a second sweep with the same parameters and code runs nothing (the
cache), a changed duration runs again, and each record carries its
provenance (the command, the configurations, the code).  And
schedlab.sweep.main: a campaign of some points draws the tables and the
README block over every point, not only its own.  No root, no Mininet.
"""
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "mininet"))

from schedlab import experiment, records, sweep  # noqa: E402

CODE = {"commit": "c0ffee", "tree": "t" * 64, "dirty": False, "dirty_files": [],
        "dirty_hash": None}
PARAMS = {"sched": "pss", "sched_group": "pss = { bw = 0.4; };", "capacity": "20Mbit",
          "ef": "10Mbit", "duration_s": 30, "warmup_s": 10, "flows": [10, 10],
          "delay": "250ms", "seed": None, "tools": {"iperf3": "3.12"}}
OFFSET_S = 2.5          # the sender's t at traffic time 0


def stats_line(t, late_us=50.0, ef_drops=0, class_limit=0):
    cls = {"in_pkts": 0, "in_bytes": 0, "out_pkts": 0, "out_bytes": 0,
           "drop_pkts": 0, "drop_bytes": 0, "qlen_pkts": 0, "qlen_bytes": 0}
    return {"t": t, "wall": 1000.0 + t,
            "link": {"late_us": {"p50": 1.0, "p99": 2.0, "max": late_us}},
            "classes": {"ef": dict(cls, drop_pkts=ef_drops), "af": dict(cls),
                        "cs0": dict(cls)},
            "drops": {"class_limit": class_limit, "sched_limit": 0, "pushout": 0}}


class FakeGeo:
    """Writes one scripted run per call: "valid", "stall", "overflow",
    "exit1" or "nosummary"; records each argv."""

    def __init__(self, script):
        self.script, self.calls = list(script), []

    def __call__(self, argv, out_dir):
        kind = self.script.pop(0) if self.script else "valid"
        self.calls.append((list(argv), kind))
        # lines[k]: the interval ending at traffic time k + 1
        lines = [stats_line(OFFSET_S + t) for t in range(1, 33)]
        if kind == "stall":             # (19, 20]: inside the window (10, 30]
            lines[19]["link"]["late_us"]["max"] = 180000.0
        if kind == "stall_in_warmup":   # (4, 5]: before the window
            lines[4]["link"]["late_us"]["max"] = 180000.0
        if kind == "overflow":          # (14, 15]
            lines[14] = stats_line(15 + OFFSET_S, ef_drops=3, class_limit=3)
        with open(os.path.join(out_dir, "stats-a.jsonl"), "w") as f:
            for ln in lines:
                f.write(json.dumps(ln) + "\n")
        for name in ("a.conf", "b.conf"):
            with open(os.path.join(out_dir, name), "w") as f:
                f.write("# %s of %s\n" % (name, out_dir))
        if kind != "nosummary":
            summary = {"window_s": [10, 30], "sender_offset_s": OFFSET_S,
                       "classes": {"af": {"measured_mbps": 8.8, "theory_mbps": 8.18},
                                   "ef": {"measured_mbps": 10.0, "theory_mbps": 10.0},
                                   "cs0": {"measured_mbps": 1.2, "theory_mbps": 1.82}},
                       "link": {"measured_mbps": 20.0, "capacity_mbps": 20.0}}
            with open(os.path.join(out_dir, "summary.json"), "w") as f:
                json.dump(summary, f)
        return 1 if kind == "exit1" else 0


class TestRunPoint(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name
        self.store = os.path.join(self.tmp, "runs.jsonl")
        self.proc = os.path.join(self.tmp, "proc")
        os.makedirs(self.proc)
        with open(os.path.join(self.proc, "loadavg"), "w") as f:
            f.write("0.10 0.20 0.30 1/100 4242\n")
        with open(os.path.join(self.proc, "cpuinfo"), "w") as f:
            f.write("processor\t: 0\nmodel name\t: Fake CPU\n")
        self.binary = os.path.join(self.tmp, "schedtun")
        with open(self.binary, "w") as f:
            f.write("not really a binary\n")
        self.logged = []

    def tearDown(self):
        self._tmp.cleanup()

    def point(self, params=PARAMS, never_full=("ef",)):
        return experiment.Point("fig5", dict(params),
                                lambda out: ["geo.py", "--out", out], never_full,
                                self.binary)

    def go(self, geo, point=None, n=3, retry_limit=2):
        return experiment.run_point(point or self.point(), self.store,
                                    os.path.join(self.tmp, "work"), n, retry_limit, geo,
                                    CODE, ROOT, self.logged.append, proc_root=self.proc)

    def test_n_valid_runs_then_cached(self):
        geo = FakeGeo(["valid"] * 3)
        need = self.go(geo)
        self.assertEqual(len(geo.calls), 3)
        self.assertEqual((need["valid"], need["discarded"], need["to_run"]), (3, 0, 0))
        recs = records.load(self.store)
        self.assertEqual([r["rep"] for r in recs], [0, 1, 2])
        self.assertTrue(all(r["valid"] and r["reasons"] == [] for r in recs))
        self.assertEqual(recs[0]["results"]["classes"]["af"]["measured_mbps"], 8.8)
        # provenance: the exact command (with its own directory), the
        # configurations it wrote, the code
        out0 = experiment.run_dir(os.path.join(self.tmp, "work"), self.point(),
                                  need["key"], 0)
        self.assertEqual(recs[0]["provenance"]["argv"], ["geo.py", "--out", out0])
        self.assertEqual(recs[0]["provenance"]["config_files"]["a.conf"],
                         "# a.conf of %s\n" % out0)
        self.assertEqual(recs[0]["provenance"]["code"]["tree"], "t" * 64)
        self.assertEqual(recs[0]["provenance"]["loadavg_after"], [0.1, 0.2, 0.3])
        self.assertIsNone(recs[0]["seed"])
        # the same point and code again: nothing runs
        geo2 = FakeGeo([])
        need = self.go(geo2)
        self.assertEqual(geo2.calls, [])
        self.assertEqual(need["valid"], 3)
        # a longer run is another point
        longer = dict(PARAMS, duration_s=100)
        geo3 = FakeGeo([])
        self.go(geo3, self.point(longer))
        self.assertEqual(len(geo3.calls), 3)
        self.assertEqual(len(records.load(self.store)), 6)

    def test_extract_kept_in_the_record(self):
        """point.extract's numbers land in results["extra"]; an extract that
        cannot read the run makes it invalid, with the reason."""
        seen = []

        def extract(out):
            seen.append(out)
            if len(seen) == 2:
                raise ValueError("efgen-sink.jsonl:3: not JSON")
            return {"loss": {"af": {"drop": 0.01}}}
        point = experiment.Point("fig5", dict(PARAMS), lambda out: ["geo.py", "--out", out],
                                 ("ef",), self.binary, extract)
        self.go(FakeGeo(["valid"] * 3), point, n=2)
        recs = records.load(self.store)
        self.assertEqual([r["valid"] for r in recs], [True, False, True])
        self.assertEqual(recs[0]["results"]["extra"], {"loss": {"af": {"drop": 0.01}}})
        self.assertEqual(recs[1]["reasons"], ["its extra numbers cannot be read: "
                                              "efgen-sink.jsonl:3: not JSON"])
        self.assertEqual(len(seen), 3)

    def test_stalled_run_discarded_and_retried(self):
        geo = FakeGeo(["valid", "stall", "valid", "valid"])
        need = self.go(geo)
        self.assertEqual(len(geo.calls), 4)
        self.assertEqual((need["valid"], need["discarded"]), (3, 1))
        recs = records.load(self.store)
        bad = [r for r in recs if not r["valid"]]
        self.assertEqual(len(bad), 1)
        self.assertEqual(bad[0]["rep"], 1)
        self.assertEqual(bad[0]["reasons"],
                         ["sender departure 180.0 ms late at t=20.0 s (limit 100 ms)"])
        self.assertTrue(any("rep 1: discarded: sender departure 180.0 ms" in m
                            for m in self.logged))

    def test_stall_in_warmup_is_not_counted(self):
        geo = FakeGeo(["stall_in_warmup"])
        need = self.go(geo, n=1)
        self.assertEqual((need["valid"], need["discarded"]), (1, 0))

    def test_overflow_exit_and_missing_summary(self):
        geo = FakeGeo(["overflow", "exit1", "nosummary", "valid"])
        need = self.go(geo, n=1, retry_limit=5)
        self.assertEqual((need["valid"], need["discarded"]), (1, 3))
        reasons = [r["reasons"] for r in records.load(self.store) if not r["valid"]]
        self.assertIn("class ef dropped 3 packets", reasons[0][0])
        self.assertEqual(reasons[1], ["the run exited with status 1 (see its log)"])
        self.assertTrue(reasons[2][0].startswith("no summary.json: "))
        # an EF overflow where EF may fill (never_full empty) is valid
        self.store = os.path.join(self.tmp, "runs2.jsonl")
        need = self.go(FakeGeo(["overflow"]), self.point(never_full=()), n=1)
        self.assertEqual((need["valid"], need["discarded"]), (1, 0))

    def test_gives_up_at_the_retry_limit(self):
        geo = FakeGeo(["stall"] * 10)
        need = self.go(geo, n=3, retry_limit=2)
        self.assertEqual(len(geo.calls), 2)
        self.assertTrue(need["gave_up"])
        self.assertEqual((need["valid"], need["discarded"], need["to_run"]), (0, 2, 0))
        self.assertIn("retry limit 2 reached", self.logged[-1])



class TestSweepMain(unittest.TestCase):
    """main() with its runner, the code key, the lock and the runs stubbed:
    which points reach spec.draw and spec.readme_text."""

    class Pt:
        def __init__(self, key):
            self.key = key

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="sweep-main-")
        self.drawn, self.readme = [], []
        every = {"core": ["c1", "c2"], "more": ["c1", "c2", "m1"], "all": ["c1", "c2", "m1", "a1"]}
        self.spec = sweep.SweepSpec(
            name="fake", title="a fake sweep", full={"duration": 10, "warmup": 2},
            quick={"duration": 5, "warmup": 1}, overhead_s=1.0,
            points=lambda which: [self.Pt(k) for k in every[which]],
            point_of=lambda pt, timing, schedtun, tools: experiment.Point(
                pt.key, dict(PARAMS, point=pt.key), lambda out: ["true"], (), schedtun,
                lambda out: {}),
            draw=lambda recs, timing, pts, results: self.drawn.append(
                [p.key for p in pts]) or [],
            readme_text=lambda recs, timing, pts: self.readme.append(
                [p.key for p in pts]) or "",
            readme_mark=("<!-- fake -->", "<!-- /fake -->"),
            point_choices=("core", "more", "all"))
        self.saved = (sweep.cache.code_state, sweep.experiment.run_point,
                      sweep.lock.take, sweep.procs.interruptible, sweep.write_readme)

        class Held:
            def release(self):
                pass
        sweep.cache.code_state = lambda root, paths=None: dict(CODE)
        sweep.experiment.run_point = lambda *a, **k: None
        sweep.lock.take = lambda argv, force=False: (Held(), None)
        sweep.procs.interruptible = lambda: None
        sweep.write_readme = lambda spec, recs, timing, pts, log: self.readme.append(
            [p.key for p in pts])

    def tearDown(self):
        (sweep.cache.code_state, sweep.experiment.run_point, sweep.lock.take,
         sweep.procs.interruptible, sweep.write_readme) = self.saved

    def test_a_campaign_draws_every_point(self):
        store = os.path.join(self.tmp, "fake-runs.jsonl")
        open(store, "w").close()
        rc = sweep.main(["fake", "--points", "core", "--out", self.tmp, "--records", store,
                         "--update-committed"], self.spec)
        self.assertEqual(rc, 0)
        # after each of the campaign's 2 points, tables and README over all 4
        self.assertEqual(self.drawn, [["c1", "c2", "m1", "a1"]] * 2)
        self.assertEqual(self.readme, [["c1", "c2", "m1", "a1"]] * 2)

    def test_redraw_draws_every_point(self):
        store = os.path.join(self.tmp, "fake-runs.jsonl")
        open(store, "w").close()
        rc = sweep.main(["fake", "--redraw", "--records", store, "--results", self.tmp],
                        self.spec)
        self.assertEqual(rc, 0)
        self.assertEqual(self.drawn, [["c1", "c2", "m1", "a1"]])


if __name__ == "__main__":
    unittest.main()
