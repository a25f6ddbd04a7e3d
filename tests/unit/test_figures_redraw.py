"""test_figures_redraw.py - figures and tables drawn from run records.

  /usr/bin/python3 -m unittest -v test_figures_redraw
(run from tests/unit; ctest's unit.figures_redraw does exactly this).

Synthetic records (no Mininet, no binary) of the compare table and of
Fig. 7's points go through mininet/figdata.py and the drawings the way
`reproduce.sh --redraw` takes them: the values are the runs' means with
their Student-t intervals, the newest key of a point wins, discarded runs
are named and left out, a theory of 0 gets an absolute error, the same
records in another order give the same bytes, and `--redraw --check`
passes on a committed copy and fails on a hand-edited one, on a table
without records and on records without a table.
"""
import contextlib
import io
import json
import os
import random
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "mininet"))

import figdata    # noqa: E402
import figextract  # noqa: E402
import figplan    # noqa: E402
import figlist    # noqa: E402
import reproduce  # noqa: E402
from schedlab import cache, records  # noqa: E402

TOOLS = {"iperf3": "iperf 3.12", "kernel": "6.1"}
CALC = {"bw": "0.408163265", "lm": 66286, "lr": 0, "sim_af": 8.15, "sim_cs0": 1.85}
T975_2 = 4.302652729911275          # t(0.975, 2): three runs


def prov(commit="c" * 40, minute=0, day=27):
    return {"argv": ["geo.py"], "config_files": {},
            "code": {"commit": commit, "tree": "t" * 64, "dirty": False,
                     "dirty_hash": None, "dirty_files": []},
            "cpu": {"model": "Fake CPU", "count": 2},
            "start_utc": "2026-11-%02dT10:%02d:00.000+00:00" % (day, minute),
            "end_utc": "2026-11-%02dT10:%02d:50.000+00:00" % (day, minute)}


def record(run, fig, rep, rates, theory, valid=True, code_tree="t" * 64,
           timing=reproduce.FULL, extra=None):
    """One run's record of a figures.Run (rates/theory: {class: Mbit/s})."""
    if run.sched == "pss":
        run.calc = dict(CALC)
    if run.var:
        run.sim = {"ef": 10.0, "af": 4.0, "cs0": 6.0}
    point = reproduce.point_of(run, fig, timing, "/bin/schedtun", TOOLS)
    key = cache.run_key(point.params, {"tree": code_tree, "dirty_hash": None})
    res = {"window_s": [timing["warmup"], timing["duration"]],
           "classes": {c: {"measured_mbps": rates[c], "theory_mbps": theory.get(c)}
                       for c in rates},
           "link": {"measured_mbps": sum(rates.values()), "capacity_mbps": 20.0},
           "ef_owd_ms": {"avg": 250.5 + rep, "p99_max": 252.0}}
    res["extra"] = extra if extra is not None else {
        "efgen_owd_ms": {"p50": 250.8, "p99": 252.0 + rep},
        "loss": {c: {"drop": 0.01 * rep, "lost": 0.0} for c in ("ef", "af", "cs0")}}
    reasons = [] if valid else ["sender departure 512.3 ms late at t=21.0 s (limit 100 ms)"]
    return records.make(fig, point.params, key, rep, None, valid, reasons, res,
                        prov(minute=rep, day=27 if code_tree == "t" * 64 else 26))


def compare_records():
    """Three runs of every compare point (prio's CS0 theory 0), a
    discarded PSS run, and an older key of DWRR that must not count."""
    recs = []
    runs = figlist.FIGURES["compare"]["runs"]()
    for run in runs:
        th = {"ef": 10.0, "af": 8.1, "cs0": 1.9} if run.sched in ("pss", "dwrr") else (
            {"ef": 10.0, "af": 10.0, "cs0": 0.0} if run.sched == "prio" else {})
        for rep, af in enumerate((8.0, 8.2, 8.4)):
            cs0 = {"prio": 0.01 * (rep + 1)}.get(run.sched, 1.9)
            recs.append(record(run, "compare", rep, {"ef": 10.0, "af": af, "cs0": cs0}, th))
        if run.sched == "pss":
            recs.append(record(run, "compare", 3, {"ef": 9.7, "af": 7.0, "cs0": 1.7}, th,
                               valid=False))
        if run.sched == "dwrr":        # an older code's runs of the same point
            for rep in range(2):
                recs.insert(0, record(run, "compare", rep, {"ef": 10.0, "af": 99.0,
                                                            "cs0": 1.0}, th,
                                      code_tree="o" * 64))
    return recs


def quiet(fn, *args):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = fn(*args)
    return rc, buf.getvalue()


class Extract(unittest.TestCase):
    """figextract on a hand-written run directory."""

    def test_run_dir(self):
        with tempfile.TemporaryDirectory() as d:
            def lines(name, objs):
                with open(os.path.join(d, name), "w") as f:
                    for o in objs:
                        f.write(json.dumps(o) + "\n")
            # efgen's sink: its clock starts before the traffic
            lines("efgen-sink.jsonl", [
                {"t": 1.0, "rcvd_pkts": 0},
                {"t": 2.0, "rcvd_pkts": 5, "owd_ms": {"p50": 900.0, "p99": 990.0}},
                {"t": 3.0, "rcvd_pkts": 5, "owd_ms": {"p50": 251.0, "p99": 260.0}},
                {"t": 4.0, "rcvd_pkts": 5, "owd_ms": {"p50": 250.0, "p99": 255.0}},
                {"t": 5.0, "rcvd_pkts": 5, "owd_ms": {"p50": 1.0, "p99": 2.0}},
                {"summary": {"rcvd_pkts": 20}}])

            def cls(inn, drop):
                return {"in_pkts": inn, "drop_pkts": drop}
            lines("stats-a.jsonl", [{"classes": {"ef": cls(100, 0), "af": cls(200, 4),
                                                 "cs0": cls(0, 0)}}] * 2)
            lines("stats-b.jsonl", [{"rx": {"ef": {"pkts": 99, "lost": 1},
                                            "af": {"pkts": 196, "lost": 0},
                                            "cs0": {"pkts": 0, "lost": 0}}}])
            with open(os.path.join(d, "rates.csv"), "w") as f:
                f.write("t,class,mbps,source\n1.000,af,4.123456,daemon\n"
                        "2.000,af,5.0,daemon\n1.000,ef,9.0,daemon\n1.000,af,3.9,iperf\n"
                        "1.000,link,20.5,theory\n2.000,link,19.5,theory\n")
            with open(os.path.join(d, "credit.csv"), "w") as f:
                f.write("t,credit_bytes,prio\n1.000,1000.0,high\n2.000,-50.5,low\n")
            x = figextract.extract(d, {"warmup": 1, "duration": 3}, with_series=True)
        # t0 = 2 (the first line with packets): the window (3, 5] holds t = 4
        # and 5, not 3 (p99 260) nor the slow start at 2: p50 the upper middle
        # of 1, 250; p99 the larger of 255, 2
        self.assertEqual(x["efgen_owd_ms"], {"p50": 250.0, "p99": 255.0})
        self.assertEqual(x["loss"]["af"], {"drop": 0.02, "lost": 0.0})
        self.assertEqual(x["loss"]["ef"], {"drop": 0.0, "lost": 0.01})
        self.assertEqual(x["loss"]["cs0"], {"drop": None, "lost": None})
        s = x["series"]
        self.assertEqual(s["t"], [1.0, 2.0])
        self.assertEqual(s["af"], [4.1235, 5.0])     # rounded to 1e-4, daemon only
        self.assertEqual(s["ef"], [9.0, None])
        self.assertEqual(s["c"], [20.5, 19.5])
        self.assertEqual((s["credit_t"], s["credit_bytes"]), ([1.0, 2.0], [1000.0, -50.5]))

    def test_pss_balance(self):
        """The AF balance over the whole stats intervals inside the window
        (as summary.json's means), on the sender's clock (offset 0.7 s)."""
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "summary.json"), "w") as f:
                json.dump({"sender_offset_s": 0.7, "window_s": [2, 4.5]}, f)
            with open(os.path.join(d, "stats-a.jsonl"), "w") as f:
                for t in range(1, 8):       # each second: 125000 B = 1 Mbit/s
                    af = {"credit": 1000.0 * t, "sent_bytes": 125000 * t,
                          "low_bytes": 12500, "cut_bytes": 25000, "floor_bytes": 0,
                          "drain_bytes": 1, "ahead_bytes": 0}
                    f.write(json.dumps({"t": float(t), "classes": {
                        c: {"out_bytes": 0} for c in ("ef", "af", "cs0")},
                        "link": {"out_bytes": 0}, "sched": {"af": af}}) + "\n")
            x = figextract.pss_af(d)
        # window [2.7, 5.2] on the sender's clock: the intervals (3, 4] and
        # (4, 5] lie inside it, (2, 3] and (5, 6] straddle its ends
        self.assertEqual(x["window_s"], [2.3, 4.3])
        # sent 125000 * (4 + 5) B over 2 s; credit 3000 -> 5000
        self.assertEqual(x["sent"], 4.5)
        self.assertEqual((x["low"], x["cut"], x["floor"]), (0.1, 0.2, 0.0))
        self.assertEqual(x["dcredit"], 0.008)

    def test_missing_files(self):
        with tempfile.TemporaryDirectory() as d:
            x = figextract.extract(d, {"warmup": 1, "duration": 3}, with_series=True)
        self.assertEqual(x["efgen_owd_ms"], {"p50": None, "p99": None})
        self.assertEqual(x["series"]["t"], [])


class Plan(unittest.TestCase):
    """figplan: what the records still need, counted once per shared point."""

    def test_plan_and_progress(self):
        with tempfile.TemporaryDirectory() as d:
            store = os.path.join(d, "runs.jsonl")
            for r in compare_records():
                records.append(store, r)

            def prepare(run):                # what record() gave the runs
                if run.sched == "pss":
                    run.calc = dict(CALC)
                return run
            items = figplan.plan(
                ["compare", "fig5"], figlist.FIGURES, lambda n: reproduce.FULL,
                lambda r, n, t: reproduce.point_of(r, n, t, "/bin/schedtun", TOOLS),
                prepare, store, 3, 2, {"tree": "t" * 64, "dirty_hash": None})
            recs = records.load(store)
        # compare's 7 points are recorded (3 valid each); fig5's 24 include
        # compare's PSS and DWRR at 81:19, EF 10: counted under compare
        self.assertEqual(len(items), 7 + 24 - 2)
        dwrr = next(it for it in items if it.run.key == "dwrr-w81-19-ef10")
        self.assertEqual((dwrr.fig, dwrr.shared_with, dwrr.need["to_run"]),
                         ("compare", ["fig5"], 0))
        self.assertEqual(figplan.runs_left(items), 22 * 3)
        # each record took 50 s (prov()) for FULL's traffic: the rest is set-up
        dur = reproduce.FULL["duration"]
        self.assertAlmostEqual(figplan.overhead_s(recs), 50.0 - dur)
        self.assertAlmostEqual(figplan.seconds_left(items, 20.0), 22 * 3 * (dur + 20.0))
        lines = figplan.table(items, 20.0, 3)
        self.assertEqual(lines[1].split(), ["compare", "7", "7", "0", "0", "0"])
        self.assertEqual(lines[2].split(), ["fig5", "22", "0", "0", "66",
                                            "%.0f" % (66 * (dur + 20.0) / 60.0)])
        # progress: the first estimate, then the mean so far
        now = [100.0]
        prog = figplan.Progress(4, 600.0, clock=lambda: now[0])
        self.assertEqual(prog.text(), "runs 0 of 4, 0 min in, about 10 min left")
        now[0] += 120.0
        prog.tick()
        self.assertEqual(prog.text(), "runs 1 of 4, 2 min in, about 6 min left")


class Collect(unittest.TestCase):
    def test_newest_key_and_timing(self):
        recs = compare_records()
        runs = figlist.FIGURES["compare"]["runs"]()
        pts = figdata.collect(recs, runs, reproduce.FULL)
        dwrr = pts["dwrr-w81-19-ef10"]
        self.assertEqual(dwrr.n, 3)
        self.assertEqual(len(dwrr.older_keys), 1)
        self.assertAlmostEqual(dwrr.measured("af").mean, 8.2)
        pss = pts["pss-paper-w81-19-ef10-exp10"]
        self.assertEqual((pss.n, [d[0] for d in pss.discarded]), (3, [3]))
        self.assertEqual(pss.run.calc, CALC)          # from the record, no binary
        # the quick timing has no records: every point is missing
        self.assertFalse(any(figdata.collect(recs, runs, reproduce.QUICK).values()))


class Draw(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name
        self.store = os.path.join(self.tmp, "runs.jsonl")

    def tearDown(self):
        self._tmp.cleanup()

    def write(self, recs, path=None):
        path = path or self.store
        if os.path.exists(path):
            os.unlink(path)
        for r in recs:
            records.append(path, r)

    def redraw(self, results, *extra):
        return quiet(reproduce.main, ["all", "--redraw", "--records", self.store,
                                      "--results", results] + list(extra))

    def test_compare_table(self):
        self.write(compare_records())
        out = os.path.join(self.tmp, "out")
        rc, log = self.redraw(out)
        self.assertEqual(rc, 0, log)
        # compare's PSS and DWRR points are Fig. 5's and 6's too: drawn there
        self.assertEqual(sorted(os.listdir(out)), sorted(
            ["README.md", "compare-runs.md", "compare.md"] + ["fig%d%s" % (n, s) for n in (5, 6)
                                                 for s in ("-runs.md", ".md", ".png")]))
        with open(os.path.join(out, "compare.md")) as f:
            text = f.read()
        hw = T975_2 * 0.2 / 3 ** 0.5                    # sd of 8.0, 8.2, 8.4 is 0.2
        dwrr = next(ln for ln in text.splitlines() if ln.startswith("| dwrr "))
        self.assertIn("| 3 | 10.000 ± 0.000 [10.000] | 8.200 ± %.3f [8.100] |" % hw, dwrr)
        self.assertNotIn("99.0", text)               # the older key is not mixed in
        # efgen p50 mean 250.8, p99 mean of 252, 253, 254; drops 0, 1, 2 %
        self.assertIn("| 250.8 / 253.0 |", dwrr)
        self.assertIn("| 1.00 % / 1.00 % / 1.00 % |", dwrr)
        # the discarded PSS run: named with its reason, not in the mean
        self.assertIn("- pss-paper-w81-19-ef10-exp10 rep 3: sender departure 512.3 ms "
                      "late", text)
        self.assertIn("7 points with runs; valid runs per point: 3; 1 discarded", text)
        self.assertIn("commit cccccccccc: 22 runs", text)    # 7 x 3 + the discarded one
        # the index: one row per figure with runs, its largest error
        with open(os.path.join(out, "README.md")) as f:
            index = f.read()
        row = next(ln for ln in index.splitlines() if ln.startswith("| compare |"))
        # prio: AF 8.0, 8.2, 8.4 against 10: -18 % ± t(0.975, 2) 2 % / sqrt(3)
        self.assertIn("AF: -18.0 % [-23.0, -13.0] (prio-w81-19-ef10, n = 3)", row)
        self.assertIn("CS0 where the theory is 0: +0.020 Mbit/s [", row)
        self.assertNotIn("| fig7 |", index)
        with open(os.path.join(out, "compare-runs.md")) as f:
            runs_md = f.read()
        # prio's CS0 theory is 0: its error is absolute, in Mbit/s (0.01..0.03)
        prio = next(ln for ln in runs_md.splitlines() if "| prio |" in ln)
        self.assertIn("+0.020 Mbit/s [", prio)

    def test_same_records_any_order_same_bytes(self):
        recs = compare_records()
        self.write(recs)
        a = os.path.join(self.tmp, "a")
        self.redraw(a)
        random.Random(7).shuffle(recs)
        self.write(recs)
        b = os.path.join(self.tmp, "b")
        self.redraw(b)
        for name in ("compare.md", "compare-runs.md"):
            with open(os.path.join(a, name), "rb") as f1, open(os.path.join(b, name), "rb") as f2:
                self.assertEqual(f1.read(), f2.read(), name)

    def test_check(self):
        self.write(compare_records())
        committed = os.path.join(self.tmp, "committed")
        self.assertEqual(self.redraw(committed)[0], 0)
        rc, log = self.redraw(committed, "--check")
        self.assertEqual(rc, 0, log)
        self.assertIn("compare: compare.md follows from the records", log)
        # a hand-edited number fails, naming the file and line
        path = os.path.join(committed, "compare.md")
        with open(path) as f:
            text = f.read()
        with open(path, "w") as f:
            f.write(text.replace("8.200 ±", "8.300 ±", 1))
        rc, log = self.redraw(committed, "--check")
        self.assertEqual(rc, 1)
        self.assertRegex(log, r"compare\.md:\d+: committed '.*8\.300")
        # the index edited
        with open(path, "w") as f:
            f.write(text)
        index = os.path.join(committed, "README.md")
        with open(index, "a") as f:
            f.write("AF is always within 1 %.\n")
        rc, log = self.redraw(committed, "--check")
        self.assertEqual(rc, 1)
        self.assertIn("README.md:", log)
        self.assertEqual(self.redraw(committed)[0], 0)
        # records but no committed table
        os.unlink(path)
        rc, log = self.redraw(committed, "--check")
        self.assertEqual(rc, 1)
        self.assertIn("is not committed", log)
        # a committed table of a figure without records
        with open(os.path.join(committed, "fig9.md"), "w") as f:
            f.write("# fig9 typed by hand\n")
        rc, log = self.redraw(committed, "--check")
        self.assertEqual(rc, 1)
        self.assertIn("fig9: committed fig9.md but no records", log)

    def test_var_sweep_and_series(self):
        """Fig. 7's points and Fig. 8's series from the same records."""
        recs = []
        series = {"t": [1.0, 2.0], "ef": [9.0, 11.0], "af": [5.0, 4.0], "cs0": [6.0, 5.0],
                  "c": [20.0, 19.0], "credit_t": [1.0, 2.0], "credit_bytes": [1e5, 2e5]}
        for run in figlist.FIGURES["fig7"]["runs"]():
            for rep in range(3):
                recs.append(record(run, "fig7", rep, {"ef": run.ef, "af": 4.0 + rep * 0.1,
                                                      "cs0": 6.0},
                                   {"ef": run.ef, "af": 4.05, "cs0": 6.0},
                                   timing=reproduce.VAR_FULL,
                                   extra={"efgen_owd_ms": {"p50": None, "p99": None},
                                          "loss": {}, "series": series,
                                          "pss_af": {"low": 0.3 + 0.1 * rep,
                                                     "cut": 0.2, "sent": 4.1,
                                                     "floor": 0.0, "dcredit": 0.0}}))
        self.write(recs)
        out = os.path.join(self.tmp, "out")
        rc, log = self.redraw(out)
        self.assertEqual(rc, 0, log)
        # fig7, fig8 (its runs are fig7's), fig9/11/12 share fig7's PSS points
        for name in ("fig7.md", "fig7.png", "fig8.md", "fig8.png", "fig11.md"):
            self.assertIn(name, os.listdir(out))
        with open(os.path.join(out, "fig7.md")) as f:
            text = f.read()
        hw = T975_2 * 0.1 / 3 ** 0.5
        self.assertIn("| 4.100 ± %.3f | 4.050 | +1.2 %% [" % hw, text)
        self.assertIn("| 0.400 / 0.200 |", text)     # AF p_low 0.3, 0.4, 0.5
        with open(os.path.join(out, "fig11.md")) as f:
            fig11 = f.read()
        self.assertIn("| 0 | (no valid run) |", fig11)     # DWRR never ran
        with open(os.path.join(out, "fig8.md")) as f:
            self.assertIn("n = 3): AF 4.100 ±", f.read())


if __name__ == "__main__":
    unittest.main()
