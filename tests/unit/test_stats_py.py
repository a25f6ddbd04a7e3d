"""test_stats_py.py - scripts/stats.py on hand-written stats files.

  /usr/bin/python3 -m unittest -v test_stats_py
(run from tests/unit; ctest's unit.stats_py does exactly this).

Every function and subcommand the integration tests use: load (blank
lines, an unterminated last line, malformed lines), get, parse_rate,
intervals, sum (the conservation check), rates, field (every mode),
check-rate (the saturated-interval rule, constant and cosine C(t)),
check-rx-rate (the receiver's clock moved onto the sender's, only inside
saturated stretches), link-check (rx + lost against out - inflight, losses
explained), steady (the mix tests' rule, sender and receiver rates),
owd and origin.  Edge cases: a stalled interval (a line
written late, its interval twice as long), a missing class, a partial
last interval written at SIGTERM, the sched counters that restart from 0
after a SIGHUP swap (docs/stats-format.md: the only counters that do; the
class counters are deltas and carry on), an empty file.  Each expected
value is computed by hand in the comment next to it.
"""
import argparse
import contextlib
import io
import json
import math
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

import stats  # noqa: E402

CLS = ("ef", "af", "cs0")


def cls_block(in_pkts=0, in_bytes=0, out_pkts=0, out_bytes=0, drop_pkts=0,
              drop_bytes=0, qlen_pkts=0, qlen_bytes=0):
    return {"in_pkts": in_pkts, "in_bytes": in_bytes, "out_pkts": out_pkts,
            "out_bytes": out_bytes, "drop_pkts": drop_pkts,
            "drop_bytes": drop_bytes, "qlen_pkts": qlen_pkts,
            "qlen_bytes": qlen_bytes,
            "delay_ms": {"avg": 0.0, "p99": 0.0, "max": 0.0}}


def rx_block(pkts=0, nbytes=0, lost=0, owd=(0.0, 0.0, 0.0)):
    return {"pkts": pkts, "bytes": nbytes, "lost": lost,
            "owd_ms": {"avg": owd[0], "p99": owd[1], "max": owd[2]}}


def line(t, classes=None, rx=None, inflight=0, send_error=0, sched=None,
         rate_bps=20000000):
    """A stats line; classes / rx: {class: kwargs}, the others all 0."""
    classes = classes or {}
    rx = rx or {}
    c = {k: cls_block(**classes.get(k, {})) for k in CLS}
    out_b = sum(v["out_bytes"] for v in c.values())
    out_p = sum(v["out_pkts"] for v in c.values())
    return {"t": t,
            "link": {"rate_bps": rate_bps, "out_pkts": out_p,
                     "out_bytes": out_b, "inflight_pkts": inflight,
                     "late_us": {"p50": 1.0, "p99": 2.0, "max": 3.0}},
            "classes": c,
            "rx": {k: rx_block(**rx.get(k, {})) for k in CLS},
            "drops": {"send_error": send_error, "class_limit": 0,
                      "rx_bad_magic": 0},
            "io": {"tx_blocked": 0},
            "sched": sched or {"name": "fifo"}}


class Files(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def write(self, name, lines, tail="", mtime=None):
        path = os.path.join(self.dir.name, name)
        with open(path, "w") as f:
            for ln in lines:
                f.write((ln if isinstance(ln, str) else json.dumps(ln)) + "\n")
            f.write(tail)
        if mtime is not None:
            os.utime(path, ns=(int(mtime * 1e9), int(mtime * 1e9)))
        return path

    def run_main(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = stats.main(list(argv))
        return rc, out.getvalue(), err.getvalue()


# A flood at a constant 8 Mbit/s link, 1-s lines: 1 MB a second.
def flood(n=6, rate_bytes=1000000, t0=0.0, dt=1.0, qlen=50, drops=5):
    """n lines of a saturated link: line 0 fills the queue (nothing queued
    at its start), lines 1..n-2 saturated, the last drains it (qlen 0)."""
    out = []
    q_prev = 0
    for i in range(n):
        q = qlen if i < n - 1 else 0
        # 1000-byte packets: in = out + drops + the queue's growth
        out_p = rate_bytes // 1000
        out.append(line(round(t0 + (i + 1) * dt, 3), classes={"cs0": dict(
            in_pkts=out_p + drops + q - q_prev,
            in_bytes=(out_p + drops + q - q_prev) * 1000,
            out_pkts=out_p, out_bytes=out_p * 1000,
            drop_pkts=drops, drop_bytes=drops * 1000,
            qlen_pkts=q, qlen_bytes=q * 1000)}))
        q_prev = q
    return out


class TestLoad(Files):
    def test_blank_lines_skipped_partial_last_ignored(self):
        p = self.write("a", [line(1.0), "", line(2.0)], tail='{"t": 3.0, "li')
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            lines = stats.load(p)
        self.assertEqual([ln["t"] for ln in lines], [1.0, 2.0])
        self.assertIn("unterminated", err.getvalue())

    def test_malformed_line_is_an_error(self):
        p = self.write("a", [line(1.0), "{not json"])
        with self.assertRaisesRegex(stats.StatsError, ":2: not JSON"):
            stats.load(p)
        p = self.write("b", ['{"x": 1}'])
        with self.assertRaisesRegex(stats.StatsError, "no 't'"):
            stats.load(p)
        rc, _, err = self.run_main("sum", p)
        self.assertEqual(rc, 2)
        self.assertIn("no 't'", err)

    def test_empty_file(self):
        p = self.write("a", [])
        self.assertEqual(stats.load(p), [])
        rc, _, err = self.run_main("sum", p)
        self.assertEqual(rc, 1)
        self.assertIn("no stats lines", err)
        rc, _, err = self.run_main("check-rate", p, "--rate", "8Mbit",
                                   "--tol", "0.01")
        self.assertEqual(rc, 1)


class TestHelpers(unittest.TestCase):
    def test_get(self):
        o = line(1.0, classes={"af": dict(out_bytes=7)})
        self.assertEqual(stats.get(o, "classes.af.out_bytes"), 7)
        self.assertIsNone(stats.get(o, "classes.xx.out_bytes"))
        self.assertEqual(stats.get(o, "classes.af.out_bytes.x", 3), 3)

    def test_parse_rate(self):
        self.assertEqual(stats.parse_rate("20Mbit"), 20e6)
        self.assertEqual(stats.parse_rate("5mbit"), 5e6)
        self.assertEqual(stats.parse_rate("1.5kbit"), 1500.0)
        self.assertEqual(stats.parse_rate("1e6"), 1e6)
        self.assertEqual(stats.parse_rate(2000000), 2e6)
        # as the daemon reads it (schedlab.units): tc's bytes/s, IEC units
        self.assertEqual(stats.parse_rate("20mbps"), 160e6)
        self.assertEqual(stats.parse_rate("2.5kibit"), 2560.0)
        for bad in ("20MB", "fast", "20M", "0", "-5mbit"):
            with self.assertRaises(argparse.ArgumentTypeError) as cm:
                stats.parse_rate(bad)
            self.assertIn("'%s' is not a rate" % bad, str(cm.exception))
            self.assertIn("(accepted: ", str(cm.exception))

    def test_intervals(self):
        ivs = [(i, a, b) for i, a, b, _ in
               stats.intervals([line(0.5), line(1.0), line(3.0)])]
        # the first interval starts at the daemon's start, t = 0
        self.assertEqual(ivs, [(0, 0.0, 0.5), (1, 0.5, 1.0), (2, 1.0, 3.0)])

    def test_mean_c(self):
        self.assertEqual(stats.mean_c(8e6, None, 3.0, 4.0), 8e6)
        # over a whole period the cosine averages to its mean
        self.assertAlmostEqual(stats.mean_c(None, (10e6, 0.5, 4.0), 1.0, 5.0),
                               10e6, places=3)
        # over [0, 1] of a 4-s period: m (1 + a sin(pi/2) * 4/(2 pi))
        self.assertAlmostEqual(stats.mean_c(None, (10e6, 0.5, 4.0), 0.0, 1.0),
                               10e6 * (1 + 0.5 * 4 / (2 * math.pi)), places=3)

    def test_spans(self):
        self.assertEqual(stats.spans([(2.0, 3.0), (1.0, 2.0), (4.0, 5.0)]),
                         [(1.0, 3.0), (4.0, 5.0)])
        self.assertEqual(stats.spans([]), [])


class TestSum(Files):
    def test_conservation_holds(self):
        p = self.write("a", flood())
        rc, out, _ = self.run_main("sum", p)
        self.assertEqual(rc, 0)
        self.assertIn("conservation ok", out)
        # 6 lines x 1000000 bytes
        self.assertIn("link.out_bytes=6000000 sum(class out_bytes)=6000000",
                      out)

    def test_conservation_violated_names_class_and_diff(self):
        lines = flood()
        lines[2]["classes"]["cs0"]["out_pkts"] -= 1     # one packet vanished
        p = self.write("a", lines)
        rc, _, err = self.run_main("sum", p)
        self.assertEqual(rc, 1)
        self.assertIn("class cs0: in_pkts", err)
        self.assertIn("diff +1", err)

    def test_final_qlen_counts(self):
        # 10 in, 6 out, 4 still queued at the last line: conserved
        p = self.write("a", [line(1.0, classes={"af": dict(
            in_pkts=10, in_bytes=100, out_pkts=6, out_bytes=60,
            qlen_pkts=4, qlen_bytes=40)})])
        self.assertEqual(self.run_main("sum", p)[0], 0)

    def test_missing_class_is_an_error(self):
        ln = line(1.0)
        del ln["classes"]["af"]
        p = self.write("a", [ln])
        rc, _, err = self.run_main("sum", p)
        self.assertEqual(rc, 2)
        self.assertIn("missing key classes.af.in_pkts", err)


class TestRatesField(Files):
    def test_rates_json_uses_each_interval_length(self):
        # a stalled line: written at 3.0 instead of 2.0, so its interval is
        # 2 s long and its 2000000 bytes are 8 Mbit/s, not 16
        lines = [line(1.0, classes={"cs0": dict(out_bytes=1000000)}),
                 line(3.0, classes={"cs0": dict(out_bytes=2000000)})]
        p = self.write("a", lines)
        rc, out, _ = self.run_main("rates", p, "--json")
        self.assertEqual(rc, 0)
        rows = [json.loads(x) for x in out.splitlines()]
        self.assertEqual([r["cs0"] for r in rows], [8e6, 8e6])
        self.assertEqual(rows[1]["t0"], 1.0)
        self.assertEqual(rows[1]["total"], 8e6)
        rc, out, _ = self.run_main("rates", p)
        self.assertEqual(rc, 0)
        self.assertIn("8000000", out)

    def test_field_modes(self):
        lines = [line(1.0, send_error=2), line(2.0, send_error=5),
                 line(3.0, send_error=1)]
        p = self.write("a", lines)
        for mode, want in (("sum", "8"), ("max", "5"), ("min", "1"),
                           ("first", "2"), ("last", "1")):
            rc, out, _ = self.run_main("field", "drops.send_error", p,
                                       "--mode", mode)
            self.assertEqual((rc, out.strip()), (0, want), mode)
        rc, out, _ = self.run_main("field", "drops.send_error", p)
        self.assertEqual(out.strip(), "8")          # default: sum
        rc, out, _ = self.run_main("field", "drops.send_error", p,
                                   "--mode", "each")
        self.assertEqual(out.split(), ["2", "5", "1"])

    def test_field_missing_and_strings(self):
        p = self.write("a", [line(1.0)])
        rc, _, err = self.run_main("field", "drops.nope", p)
        self.assertEqual(rc, 1)
        self.assertIn("no line has drops.nope", err)
        rc, _, err = self.run_main("field", "sched.name", p, "--mode", "sum")
        self.assertEqual(rc, 1)

    def test_sched_counters_restart_after_sighup_swap(self):
        # dwrr's rounds are deltas like every counter; after a SIGHUP swap
        # the new scheduler's start from 0, so the first line after the
        # swap carries only the new one's: the sum is still the run's total
        lines = [line(1.0, sched={"name": "dwrr", "rounds": 10}),
                 line(2.0, sched={"name": "dwrr", "rounds": 12}),
                 line(3.0, sched={"name": "pss", "switches": 3}),
                 line(4.0, sched={"name": "pss", "switches": 4})]
        p = self.write("a", lines)
        self.assertEqual(self.run_main("field", "sched.rounds", p)[1].strip(),
                         "22")
        self.assertEqual(self.run_main("field", "sched.switches", p)[1].strip(),
                         "7")
        rc, out, _ = self.run_main("field", "sched.name", p)   # each
        self.assertEqual(out.split(), ["dwrr", "dwrr", "pss", "pss"])


class TestCheckRate(Files):
    def test_saturated_selection(self):
        lines = flood(n=6)
        sat = [i for i, _, _, _ in stats.saturated(lines)]
        # line 0 (queue empty at its start) and line 5 (queue empty at its
        # end) are out
        self.assertEqual(sat, [1, 2, 3, 4])
        # without drops an interval only counts with --no-require-drops
        for ln in lines:
            ln["classes"]["cs0"]["drop_pkts"] = 0
        self.assertEqual(stats.saturated(lines), [])
        self.assertEqual(len(stats.saturated(lines, require_drops=False)), 4)

    def test_partial_last_interval_left_out(self):
        lines = flood(n=6)
        lines.append(line(6.2, classes={"cs0": dict(
            out_bytes=100000, qlen_pkts=5, drop_pkts=1, in_pkts=1)}))
        lines[5]["classes"]["cs0"]["qlen_pkts"] = 5
        # line 5 is now saturated, line 6 (0.2 s < 0.75 x 1 s) is not
        self.assertEqual([i for i, _, _, _ in stats.saturated(lines)],
                         [1, 2, 3, 4, 5])

    def test_constant_rate_pass_and_fail(self):
        p = self.write("a", flood())
        rc, out, _ = self.run_main("check-rate", p, "--rate", "8Mbit",
                                   "--tol", "0.01")
        self.assertEqual(rc, 0, out)
        self.assertIn("steady_intervals=4", out)
        # 2 % off: fails at 1 %
        rc, _, err = self.run_main("check-rate", p, "--rate", "8.16Mbit",
                                   "--tol", "0.01")
        self.assertEqual(rc, 1)
        self.assertIn("out of tolerance", err)
        rc, _, err = self.run_main("check-rate", p, "--rate", "8Mbit",
                                   "--tol", "0.01", "--min-intervals", "5")
        self.assertEqual(rc, 1)
        self.assertIn("only 4 saturated intervals, need 5", err)

    def test_stalled_interval(self):
        # a line written 1 s late carries 2 s of the link: still 8 Mbit/s
        lines = flood(n=6)
        lines[2]["classes"]["cs0"]["out_bytes"] = 2000000
        for ln in lines[2:]:
            ln["t"] += 1.0
        p = self.write("a", lines)
        rc, out, _ = self.run_main("check-rate", p, "--rate", "8Mbit",
                                   "--tol", "0.001")
        self.assertEqual(rc, 0, out)
        self.assertIn("interval 2.000-4.000 out_bps=8000000", out)

    def test_cosine(self):
        m, a, per = 8e6, 0.5, 4.0
        lines = flood(n=10, dt=0.5)
        for i, ln in enumerate(lines):
            t0, t1 = i * 0.5, (i + 1) * 0.5
            ln["classes"]["cs0"]["out_bytes"] = round(
                stats.mean_c(None, (m, a, per), t0, t1) * 0.5 / 8)
        p = self.write("a", lines)
        rc, out, _ = self.run_main("check-rate", p, "--cosine", "8Mbit", "0.5",
                                   "4", "--tol", "0.001")
        self.assertEqual(rc, 0, out)
        # the same bytes against a constant 8 Mbit/s: off by up to
        # a x 8 Mbit/s x sin... well above 3 %
        rc, _, _ = self.run_main("check-rate", p, "--rate", "8Mbit",
                                 "--tol", "0.03")
        self.assertEqual(rc, 1)


class TestReceiver(Files):
    """Sender A's flood() at 8 Mbit/s; receiver B started 0.3 s before A
    (B's t = A's t + 0.3 + delay 0.01), 1-s lines on its own clock."""

    def pair(self, rx_bytes=1000000, lost=0, shift=0.31):
        tx = flood(n=8)
        rx = []
        for i in range(10):
            t = round((i + 1) * 1.0, 3)
            a0, a1 = t - 1.0 - shift, t - shift
            # bytes the link carried in [a0, a1] while A was saturated
            # (A's queue non-empty from 0 to 7 s, 1000000 bytes a second)
            lo, hi = max(a0, 0.0), min(a1, 7.0)
            b = round(max(0.0, hi - lo) * rx_bytes)
            rx.append(line(t, rx={"cs0": dict(pkts=b // 1000, nbytes=b,
                                              lost=lost)}))
        return tx, rx

    def test_rx_rate_rows_only_inside_saturated_stretch(self):
        tx, rx = self.pair()
        rows = stats.rx_rate_rows(rx, tx, 0.31, rate=8e6)
        # A saturated from 1 to 7 (its lines 1..6), busy from 2 (the first
        # saturated interval is left out: busy_spans); B's (t0, t1] moved
        # by -0.31 must lie inside [2, 7]: B's 3-4 (2.69-3.69) ... 6-7
        # (5.69-6.69); 2-3 (1.69-2.69) and 7-8 (6.69-7.69) stick out
        self.assertEqual(stats.busy_spans(tx), [(2.0, 7.0)])
        self.assertEqual([(r[0], r[1]) for r in rows],
                         [(3.0, 4.0), (4.0, 5.0), (5.0, 6.0), (6.0, 7.0)])
        for r in rows:
            self.assertAlmostEqual(r[4], 8e6, delta=1)
            self.assertEqual(r[5], 8e6)

    def test_check_rx_rate_pass_and_loss(self):
        tx, rx = self.pair()
        ptx = self.write("a", tx, mtime=1000.0)       # origin 1000 - 8
        prx = self.write("b", rx, mtime=1001.7)       # origin 1001.7 - 10
        # shift = 992.0 - 991.7 + delay 0.01 = 0.31
        self.assertAlmostEqual(stats.origin(ptx), 992.0, places=6)
        self.assertAlmostEqual(stats.origin(prx), 991.7, places=6)
        rc, out, err = self.run_main("check-rx-rate", prx, "--sender", ptx,
                                     "--delay", "0.01", "--rate", "8Mbit",
                                     "--tol", "0.01")
        self.assertEqual(rc, 0, out + err)
        self.assertIn("sender clock + 0.3100 s", out)
        self.assertIn("rx_intervals=4", out)
        # the receiver got 2 % less: the sender's own out_bytes still say
        # 8 Mbit/s, the receiver's check fails
        tx, rx = self.pair(rx_bytes=980000)
        ptx = self.write("a2", tx)
        prx = self.write("b2", rx)
        rc, out, err = self.run_main("check-rx-rate", prx, "--sender", ptx,
                                     "--shift", "0.31", "--rate", "8Mbit",
                                     "--tol", "0.01")
        self.assertEqual(rc, 1)
        self.assertIn("out of tolerance: max error 2.000%", err)
        self.assertEqual(self.run_main("check-rate", ptx, "--rate", "8Mbit",
                                       "--tol", "0.01")[0], 0)

    def test_lateness_allowance(self):
        # 10 ms late at 20 Mbit/s moves 200 kbit: 1 % of a 1-s interval
        self.assertAlmostEqual(stats.lateness_allowance(10000, 20e6, 1.0, 20e6),
                               0.01)
        # cosine peak 15 Mbit/s of a 10 Mbit/s mean, 0.5-s interval: 3 %
        self.assertAlmostEqual(stats.lateness_allowance(10000, 15e6, 0.5, 10e6),
                               0.03)
        tx, rx = self.pair()
        # A's line 4-5 released 20 ms late: bytes cross B's boundary at 5.0
        # (A's 4.69), so both of B's intervals around it widen
        tx[4]["link"]["late_us"]["max"] = 20000.0
        self.assertEqual(stats.sender_lateness(tx, 4.2, 4.8), 20000.0)
        self.assertEqual(stats.sender_lateness(tx, 1.2, 1.8), 3.0)
        # B's 4-5 (A 3.69-4.69) lost 1.5 % to a 20-ms late release at A:
        # out at 1 %, in with --lateness (1 % + 2 %)
        # (the 15000 bytes arrive in the next interval: moved, not lost)
        rx[4]["rx"]["cs0"]["bytes"] = 985000
        rx[5]["rx"]["cs0"]["bytes"] = 1015000
        ptx, prx = self.write("a", tx), self.write("b", rx)
        args = ("check-rx-rate", prx, "--sender", ptx, "--shift", "0.31",
                "--rate", "8Mbit", "--tol", "0.01")
        self.assertEqual(self.run_main(*args)[0], 1)
        rc, out, err = self.run_main(*args, "--lateness")
        self.assertEqual(rc, 0, out + err)
        self.assertIn("err=-1.500% tol=3.000% ok", out)
        # the stretch 3-7 as one window: 4 s, base 1 % x 1/4, lateness of
        # its end intervals only (3 us each): nothing lost, err 0;
        # B's 5-6 got the 1.5 % and is inside its widened tolerance too
        self.assertIn("rx stretch 3.000-7.000 (4 intervals): rx 8000000 bit/s, "
                      "expected 8000000, err=+0.000% tol=0.250% ok", out)

    def test_forgiven_allowance(self):
        # the pacer replays 50 ms: a 30-ms stall costs nothing, a 150-ms
        # one forgives 100 ms = 10 % of a 1-s interval at the peak rate
        self.assertEqual(stats.forgiven_allowance(30000, 20e6, 1.0, 20e6), 0.0)
        self.assertAlmostEqual(stats.forgiven_allowance(150000, 20e6, 1.0,
                                                        20e6), 0.1)
        tx, _ = self.pair()
        tx[3]["link"]["late_us"]["max"] = 150000.0
        tx[4]["link"]["late_us"]["max"] = 90000.0
        # A's lines 3-4 and 4-5 overlap [3.2, 4.8]: 100 + 40 ms forgiven
        self.assertAlmostEqual(stats.stall_allowance(tx, 3.2, 4.8, 8e6, 2.0,
                                                     8e6), 0.07)
        self.assertAlmostEqual(stats.stall_allowance(tx, 5.2, 5.8, 8e6, 1.0,
                                                     8e6), 0.0)

    def test_a_stall_the_pacer_forgave(self):
        # A's loop stalled 150 ms in its line 4-5: the pacer replayed 50 ms
        # and forgave 100 ms, so B's 5-6 (A 4.69-5.69) got 10 % less, never
        # made up.  Without --lateness that fails; with it the interval
        # allows 1 % + 150 ms moved + 100 ms forgiven, and the stretch 3-7
        # 1 % x 1/4 + the forgiven 100 ms over 4 s (2.5 %).
        tx, rx = self.pair()
        tx[4]["link"]["late_us"]["max"] = 150000.0
        rx[5]["rx"]["cs0"]["bytes"] = 900000
        ptx, prx = self.write("a", tx), self.write("b", rx)
        args = ("check-rx-rate", prx, "--sender", ptx, "--shift", "0.31",
                "--rate", "8Mbit", "--tol", "0.01")
        self.assertEqual(self.run_main(*args)[0], 1)
        rc, out, err = self.run_main(*args, "--lateness")
        self.assertEqual(rc, 0, out + err)
        self.assertIn("err=-10.000% tol=26.000% ok", out)
        self.assertIn("(4 intervals): rx 7800000 bit/s, expected 8000000, "
                      "err=-2.500% tol=2.750% ok", out)
        # 250 ms lost where only 150 ms of stall was reported: the stretch
        # allows 1 % x 1/4 + 2.5 % and fails at -6.25 %
        rx[5]["rx"]["cs0"]["bytes"] = 750000
        rc, out, err = self.run_main("check-rx-rate", self.write("b2", rx),
                                     *args[2:], "--lateness")
        self.assertEqual(rc, 1, out)
        self.assertIn("error -6.250%, allowed 2.750%", err)

    def test_receiver_lateness_widens(self):
        # B read 20 ms late around its 5.0 boundary (its own late_us.max
        # says so): 15000 bytes moved from its 4-5 into 5-6
        tx, rx = self.pair()
        rx[4]["link"]["late_us"]["max"] = 20000.0
        rx[4]["rx"]["cs0"]["bytes"] = 985000
        rx[5]["rx"]["cs0"]["bytes"] = 1015000
        self.assertEqual(stats.receiver_lateness(rx, 4.5, 4.9), 20000.0)
        ptx, prx = self.write("a", tx), self.write("b", rx)
        args = ("check-rx-rate", prx, "--sender", ptx, "--shift", "0.31",
                "--rate", "8Mbit", "--tol", "0.01")
        self.assertEqual(self.run_main(*args)[0], 1)
        rc, out, err = self.run_main(*args, "--lateness")
        self.assertEqual(rc, 0, out + err)
        self.assertIn("err=-1.500%", out)

    def test_window_catches_a_loss_the_intervals_allow(self):
        # 0.9 % lost in every interval: inside 1 % per interval, but the
        # 5-s stretch allows 0.2 %
        tx, rx = self.pair(rx_bytes=991000)
        ptx, prx = self.write("a", tx), self.write("b", rx)
        rc, out, err = self.run_main("check-rx-rate", prx, "--sender", ptx,
                                     "--shift", "0.31", "--rate", "8Mbit",
                                     "--tol", "0.01")
        self.assertEqual(rc, 1)
        self.assertNotIn("interval(s) out of tolerance", err)
        self.assertIn("check-rx-rate: the receiver's 4.000 s from 3.000 carried "
                      "7928000 bit/s, expected 8000000 (error -0.900%, allowed "
                      "0.250%)", err)

    def test_check_rx_rate_too_few_and_usage(self):
        tx, rx = self.pair()
        ptx, prx = self.write("a", tx), self.write("b", rx)
        rc, _, err = self.run_main("check-rx-rate", prx, "--sender", ptx,
                                   "--shift", "0.31", "--rate", "8Mbit",
                                   "--tol", "0.01", "--min-intervals", "6")
        self.assertEqual(rc, 1)
        self.assertIn("only 4 receiver intervals", err)
        rc, _, _ = self.run_main("check-rx-rate", prx, "--sender", ptx,
                                 "--shift", "0.31", "--tol", "0.01")
        self.assertEqual(rc, 2)
        # a stalled receiver interval: B got nothing in 4-5 while A's
        # link was saturated (the bytes went into 5-6's line, written
        # late would be t = 6 with a 2-s interval; here the link lost them)
        rx[4]["rx"]["cs0"]["bytes"] = 0
        prx = self.write("c", rx)
        rc, out, err = self.run_main("check-rx-rate", prx, "--sender", ptx,
                                     "--shift", "0.31", "--rate", "8Mbit",
                                     "--tol", "0.01")
        self.assertEqual(rc, 1)
        self.assertIn("rx interval 4.000-5.000 (sender 3.690-4.690) rx_bps=0 "
                      "expected_bps=8000000 err=-100.000% tol=1.000% OUT OF TOLERANCE",
                      out)
        # a stalled receiver line (written 1 s late: a 2-s interval with
        # 2 s of bytes) is still the link's rate
        tx, rx = self.pair()
        rx[5]["rx"]["cs0"]["bytes"] += rx[4]["rx"]["cs0"]["bytes"]
        del rx[4]
        prx = self.write("d", rx)
        rc, out, err = self.run_main("check-rx-rate", prx, "--sender", ptx,
                                     "--shift", "0.31", "--rate", "8Mbit",
                                     "--tol", "0.01")
        self.assertEqual(rc, 0, out + err)
        self.assertIn("rx interval 4.000-6.000 (sender 3.690-5.690) "
                      "rx_bps=8000000", out)

    def test_origin_from_wall(self):
        # each line's wall - t is the origin: 1000.25 for three lines, one
        # written 0.2 s late (its wall read late, its t not): the median
        # ignores it; the file's mtime (far off here) is not used
        lines = [line(float(t)) for t in (1, 2, 3, 4)]
        for ln, w in zip(lines, (1001.25, 1002.25, 1003.45, 1004.25)):
            ln["wall"] = w
        p = self.write("a", lines, mtime=5000.0)
        self.assertAlmostEqual(stats.origin(p), 1000.25, places=6)
        # without wall (files older than the key): the mtime rule
        for ln in lines:
            del ln["wall"]
        p = self.write("b", lines, mtime=5000.0)
        self.assertAlmostEqual(stats.origin(p), 4996.0, places=6)

    def test_origin_needs_lines(self):
        p = self.write("a", [])
        with self.assertRaises(stats.StatsError):
            stats.origin(p)


class TestLinkCheck(Files):
    def tx(self, out_pkts=1000, out_bytes=1000000, inflight=0, send_error=0):
        return [line(1.0, classes={"cs0": dict(in_pkts=out_pkts,
                                               in_bytes=out_bytes,
                                               out_pkts=out_pkts,
                                               out_bytes=out_bytes)},
                     inflight=inflight, send_error=send_error)]

    def rx(self, pkts=1000, nbytes=1000000, lost=0, cls="cs0"):
        return [line(1.0, rx={cls: dict(pkts=pkts, nbytes=nbytes, lost=lost)})]

    def test_exact(self):
        f, p = stats.link_account(self.tx(), self.rx())
        self.assertEqual(p, [])
        self.assertEqual((f["out_pkts"], f["rx_pkts"], f["rx_lost"]),
                         (1000, 1000, 0))

    def test_silent_loss(self):
        # 10 packets dequeued, never sent and never numbered: no gap
        _, p = stats.link_account(self.tx(), self.rx(990, 990000))
        self.assertEqual(len(p), 1)
        self.assertIn("(= 990", p[0])
        self.assertIn("diff -10", p[0])

    def test_lost_must_be_explained(self):
        # 5 gaps, nothing to explain them
        _, p = stats.link_account(self.tx(), self.rx(995, 995000, lost=5))
        self.assertEqual(len(p), 1)
        self.assertIn("counted 5 lost, only 0 explained", p[0])
        # 3 send errors + 2 socket drops explain them
        _, p = stats.link_account(self.tx(send_error=3),
                                  self.rx(995, 995000, lost=5), 2)
        self.assertEqual(p, [])
        # one GRO buffer of up to 64 datagrams dropped
        _, p = stats.link_account(self.tx(), self.rx(960, 960000, lost=40),
                                  1, 64)
        self.assertEqual(p, [])
        _, p = stats.link_account(self.tx(), self.rx(960, 960000, lost=40),
                                  1, 1)
        self.assertEqual(len(p), 1)

    def test_inflight_at_end(self):
        _, p = stats.link_account(self.tx(inflight=7), self.rx(993, 993000))
        self.assertEqual(p, [])
        _, p = stats.link_account(self.tx(inflight=7), self.rx())
        self.assertEqual(len(p), 1)

    def test_bytes_when_nothing_lost(self):
        _, p = stats.link_account(self.tx(), self.rx(1000, 999000))
        self.assertEqual(len(p), 1)
        self.assertIn("999000 bytes", p[0])

    def test_classes_summed_and_cli(self):
        rx = [line(1.0, rx={"ef": dict(pkts=400, nbytes=400000),
                            "cs0": dict(pkts=600, nbytes=600000)})]
        ptx, prx = self.write("a", self.tx()), self.write("b", rx)
        rc, out, _ = self.run_main("link-check", ptx, prx)
        self.assertEqual(rc, 0, out)
        prx = self.write("c", self.rx(999, 999000, lost=1))
        rc, out, err = self.run_main("link-check", ptx, prx, "--rcvbuf-errors",
                                     "0")
        self.assertEqual(rc, 1)
        self.assertIn("rx_lost=1", out)
        self.assertIn("link-check: receiver counted 1 lost", err)


class TestOwd(Files):
    def test_summary_weights_and_skips_empty_lines(self):
        lines = [line(1.0, rx={"ef": dict(pkts=1, nbytes=100,
                                          owd=(10.0, 10.0, 10.0))}),
                 line(2.0),                                  # no EF: skipped
                 line(3.0, rx={"ef": dict(pkts=3, nbytes=300,
                                          owd=(20.0, 21.0, 22.0))})]
        n, avg, p99, mx, per = stats.owd_summary(lines, "ef")
        self.assertEqual(n, 4)
        self.assertAlmostEqual(avg, (10.0 + 3 * 20.0) / 4)   # 17.5
        self.assertEqual((p99, mx), (21.0, 22.0))
        self.assertEqual([x[0] for x in per], [1.0, 3.0])
        p = self.write("a", lines)
        rc, out, _ = self.run_main("owd", "ef", p)
        self.assertEqual(rc, 0)
        self.assertIn("pkts=4 avg_ms=17.500 p99_ms=21.000 max_ms=22.000", out)
        rc, _, err = self.run_main("owd", "af", p)
        self.assertEqual(rc, 1)
        self.assertIn("no rx.af packets", err)

    def test_missing_class(self):
        ln = line(1.0)
        del ln["rx"]["ef"]
        with self.assertRaisesRegex(stats.StatsError, "no rx.ef"):
            stats.owd_summary([ln], "ef")


if __name__ == "__main__":
    unittest.main()


# The mix tests' steady rule: 0.5-s lines, AF and CS0 queued in lines 1..6,
# AF empty at line 4's end.
def mix(qaf=(0, 50, 50, 50, 0, 50, 50, 50, 0), qcs0=50, last_dt=0.5):
    out = []
    t = 0.0
    for i, qa in enumerate(qaf):
        t = round(t + (last_dt if i == len(qaf) - 1 else 0.5), 3)
        out.append(line(t, classes={
            "ef": dict(out_pkts=100, out_bytes=125000),          # 2 Mbit/s
            "af": dict(out_pkts=0 if i == 6 else 300,
                       out_bytes=0 if i == 6 else 375000,        # 6 Mbit/s
                       qlen_pkts=qa),
            "cs0": dict(out_pkts=100, out_bytes=125000, qlen_pkts=qcs0)},
            rx={"ef": dict(pkts=100, nbytes=125000),
                "af": dict(pkts=300, nbytes=375000),
                "cs0": dict(pkts=100, nbytes=125000)}))
    return out


class TestSteady(Files):
    def test_rule(self):
        # held (af and cs0 queued) at the ends of lines 1, 2, 3, 5, 6, 7;
        # both ends: intervals 2, 3 (lines 1-2, 2-3) and 6, 7 (5-6, 6-7);
        # without the first (2) and the last (7): 3 and 6.
        st = stats.steady_intervals(mix())
        self.assertEqual([i for i, _, _, _ in st], [3, 6])
        # any class (ef+af+cs0 > 0: cs0 always queued): lines 1..8, minus
        # the first and the last
        st = stats.steady_intervals(mix(), ("ef", "af", "cs0"), True)
        self.assertEqual([i for i, _, _, _ in st], list(range(2, 8)))

    def test_short_last_interval_excluded(self):
        # qlen held to the end; the last line 0.1 s: short, never steady
        st = stats.steady_intervals(mix(qaf=(50,) * 9, last_dt=0.1))
        self.assertEqual([i for i, _, _, _ in st], list(range(2, 7)))

    def test_rates_and_starvation(self):
        tx = mix()
        r = stats.steady_rates(tx)
        # intervals 3 and 6: af sent 375000 B in 3, 0 in 6
        self.assertEqual(r["n"], 2)
        self.assertAlmostEqual(r["tx_s"], 1.0)
        self.assertAlmostEqual(r["tx_ef"], 2e6)
        self.assertAlmostEqual(r["tx_af"], 375000 * 8 / 1.0)
        # af starved in line 6 only (queued at both ends, nothing sent)
        self.assertAlmostEqual(r["starve"]["af"], 0.5)
        self.assertEqual(r["starve"]["cs0"], 0.0)
        self.assertEqual(r["min_qlen"]["af"], 50)

    def test_receiver_inside_stretches(self):
        tx = mix(qaf=(50,) * 9)          # steady: intervals 2..7 = (0.5, 3.5]
        rx = mix(qaf=(50,) * 9)
        # receiver clock 0.2 s later: rx interval (0.5, 1.0] -> (0.3, 0.8],
        # not inside; (1.0, 1.5] .. (3.5, 4.0] -> (0.8, 1.3] .. (3.3, 3.8]:
        # inside up to (2.8, 3.3] (rx interval 6, (3.0, 3.5])
        r = stats.steady_rates(tx, rx, shift=0.2)
        self.assertEqual(r["rx_n"], 5)
        self.assertAlmostEqual(r["rx_s"], 2.5)
        self.assertAlmostEqual(r["rx_af"], 6e6)
        self.assertAlmostEqual(r["rx_total"], 10e6)

    def test_cli(self):
        tx = self.write("a", mix(qaf=(50,) * 9), mtime=1000.0)
        rx = self.write("b", mix(qaf=(50,) * 9), mtime=1000.2)
        rc, out, _ = self.run_main("steady", tx, "--rx", rx, "--delay", "0.0")
        self.assertEqual(rc, 0)
        res = json.loads(out.strip().splitlines()[-1][len("RESULT "):])
        # origins 995.5 and 995.7: shift -0.2 (receiver's t earlier by 0.2)
        self.assertEqual(res["n"], 6)
        self.assertEqual(res["rx_n"], 5)
