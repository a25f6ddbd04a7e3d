"""test_instruments_example.py - scripts/instruments-example.py on a
synthetic run directory.

  /usr/bin/python3 -m unittest -v test_instruments_example
(run from tests/unit; ctest's unit.instruments_example does exactly this).

The docs' measured example of issue 21's instruments is written by the
script from an instruments-example.sh run, never by hand.  A small OUT
made here, whose every number is known, checks what summarise() takes
from each file (the TFRC flows' EF/AF split from B's log and their drops
from A's, the marker summed over A's stats lines, the on-off join, the
web users over 120 ms), that the blocks carry them, and that --update
writes between the markers of the real pages (in a scratch copy) and
only there.
"""
import importlib.util
import json
import os
import shutil
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
_spec = importlib.util.spec_from_file_location(
    "instruments_example", os.path.join(ROOT, "scripts", "instruments-example.py"))
ie = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ie)

HEADER = ("t_ns,event,class,dscp,proto,src,sport,dst,dport,len_bytes,seq,sojourn_ns,"
          "start_ns,owd_ns,verdict,reason")
A, B = "10.10.0.1", "10.10.0.2"
MS = 1000000


def arr(t, cls, proto, sport, dport, owd_ms, seq):
    dscp = {"ef": 46, "af": 10, "cs0": 0}[cls]
    return f"{t},arr,{cls},{dscp},{proto},{A},{sport},{B},{dport},348,{seq},,,{owd_ms * MS},,"


def dep(t, cls, proto, sport, dport, seq):
    return f"{t},dep,{cls},46,{proto},{A},{sport},{B},{dport},348,{seq},1000,{t},,conforming,"


KW = {"check_rc": "0", "rate": "2Mbit", "delay": "50ms", "sched": "ticket",
      "sched_params": 'ticket = { d = "50ms"; };',
      "marker": 'marker = { seed = 1; ef = { committed = "267kbit"; window = "1s"; }; };',
      "tfrc_flows": "1", "tfrc_port0": "7000", "onoff_port": "7100", "web_port": "6000",
      "problems": ""}


def fake_run(d):
    """OUT with 1 TFRC flow (port 7001: 3 EF and 2 AF enqueues at A, 3 EF
    and 1 AF arrivals at 60, 70, 80 and 50 ms; 1 out_of_order drop at A), 1 on-off flow (port 40000,
    on half its life, 2 EF arrivals), 2 web users (one burst each, the
    first with a packet at 130 ms), and 7 flows-table rows."""
    def put(name, text):
        with open(os.path.join(d, name), "w") as f:
            f.write(text)

    def jl(name, recs):
        put(name, "".join(json.dumps(r) + "\n" for r in recs))
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump({"date": "2026-11-28 01:00 UTC", "commit": "abc1234", "cpu_model": "Fake CPU",
                   "cores": 2, "kernel": "6.1", "build_type": "Release",
                   "loadavg_at_start": "0.1 0.2 0.3", "busy_at_start": [], "time_s": 60,
                   "forced": False, "args": "--time 60"}, f)
    put("commands.txt", f"ip netns exec st-1-a {d}/x --out {d}/tfrc-send-1.jsonl\n"
        f"{ROOT}/mininet/pktlog.py flows {d}/a.plog.csv\n")
    # enqueued after the marker: 3 EF, 2 AF (one of them dropped)
    enq = [f"{900 + i},enq,{c},{46 if c == 'ef' else 10},17,{A},33333,{B},7001,348,,,,,,"
           for i, c in enumerate(("ef", "ef", "af", "ef", "af"))]
    sent = [dep(1000 + i, "ef", 17, 33333, 7001, i) for i in range(4)]
    put("a.plog.csv", "\n".join([HEADER, *enq, *sent,
        f"2000,drop,af,10,17,{A},33333,{B},7001,348,,,,,excess,out_of_order",
        f"2001,drop,ef,46,17,{A},40000,{B},7100,348,,,,,conforming,late"]) + "\n")
    put("b.plog.csv", "\n".join([
        HEADER, arr(1, "ef", 17, 33333, 7001, 60, 0), arr(2, "ef", 17, 33333, 7001, 70, 1),
        arr(3, "ef", 17, 33333, 7001, 80, 2), arr(4, "af", 17, 33333, 7001, 50, 3),
        arr(5, "ef", 17, 40000, 7100, 55, 4), arr(6, "ef", 17, 40000, 7100, 65, 5),
        arr(7, "ef", 17, 40001, 7100, 99, 6),       # another on-off flow's
        arr(8, "cs0", 6, 50000, 6000, 130, 7), arr(9, "cs0", 6, 50001, 6000, 10, 8)]) + "\n")
    jl("a.stats.jsonl", [
        {"marker": {"ef": {"green": 4, "yellow": 1, "red": 0, "flows": 3}},
         "log": {"records": 4, "lost": 0}},
        {"marker": {"ef": {"green": 2, "yellow": 1, "red": 0, "flows": 3}},
         "log": {"records": 2, "lost": 0}}])
    jl("b.stats.jsonl", [{"log": {"records": 9, "lost": 1}}])
    put("tfrc-send-1.log", "tfrc: not this line\ntfrc: " + json.dumps(
        {"packets": 100, "bytes": 32000, "mean_rate_bps": 348000.0, "p": 0.01,
         "rtt_s": 0.12}) + "\n")
    jl("tfrc-send-1.jsonl", [{"t_ns": 1, "p": 0.01, "rtt_s": 0.12, "rate_bps": 200000.0},
                             {"t_ns": 2, "p": 0.01, "rtt_s": 0.12, "rate_bps": None},
                             {"t_ns": 3, "p": 0.01, "rtt_s": 0.12, "rate_bps": 400000.0}])
    jl("tfrc-recv-1.jsonl", [{"peer_port": 33333, "packets": 4, "lost": 1}])
    jl("onoff-send.jsonl", [{"flow": 0, "run": 0, "local_port": 40000, "birth_ns": 0,
                             "death_ns": 10 * 10**9, "on_ns": 5 * 10**9, "on_periods": 3,
                             "packets": 3, "bytes": 600, "send_errors": 0,
                             "late_max_ns": 0}])
    jl("onoff-recv.jsonl", [{"flow": 0, "run": 0, "packets": 2, "bytes": 400, "lost": 1,
                             "reordered": 0, "delay_mean_ns": 60 * MS,
                             "delay_max_ns": 65 * MS}])
    jl("websess-send.jsonl", [
        {"user": 0, "burst": 0, "size_bytes": 1000, "start_ns": 0, "end_ns": 10**9,
         "acked_bytes": 1000, "local_port": 50000, "status": "ok"},
        {"user": 1, "burst": 0, "size_bytes": 2000, "start_ns": 0, "end_ns": 10**9,
         "acked_bytes": 2000, "local_port": 50001, "status": "ok"}])
    jl("websess-sink.jsonl", [{"user": 0}, {"user": 1}])
    put("flows.txt", "proto  src\n" + "".join(f"   17  row{i}\n" for i in range(7)))
    put("sessions.txt", "user  bursts\n   0  1\n   1  1\n")
    put("check.txt", json.dumps({"missing": 0, "lost": 0}) + "\n")
    put("check.err", "")


class _Run(unittest.TestCase):
    """A fresh synthetic OUT and its summary per test."""
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        fake_run(self.tmp)
        self.s = ie.summarise(self.tmp, KW)

    def tearDown(self):
        shutil.rmtree(self.tmp)


class Summarise(_Run):
    def test_tfrc_split_from_b_and_drops_from_a(self):
        t, = self.s["tfrc"]
        self.assertEqual(t["arrivals"]["ef"], {"n": 3, "owd_mean_ms": 70.0, "owd_max_ms": 80.0})
        self.assertEqual(t["arrivals"]["af"], {"n": 1, "owd_mean_ms": 50.0, "owd_max_ms": 50.0})
        self.assertEqual(t["af_share"], 0.25)
        self.assertEqual(t["marked_af_share"], 0.4)
        self.assertEqual(t["drops_at_a"], {"out_of_order": 1})
        self.assertEqual((t["received"], t["lost"]), (4, 1))
        self.assertEqual((t["rate_bps"], t["p"], t["rtt_s"]), (348000.0, 0.01, 0.12))
        # per second, in IP bits (x 348/320): 217.5k (none above 267k) and
        # 435k (168k above); the record without a rate left out
        self.assertAlmostEqual(t["expected_af_share"], 168000 / 652500)

    def test_marker_and_log_summed_over_lines(self):
        self.assertEqual(self.s["marker"], {"ef": {"green": 6, "yellow": 2, "red": 0}})
        self.assertEqual((self.s["log"]["a"]["records"], self.s["log"]["a"]["lost"]), (6, 0))
        self.assertEqual((self.s["log"]["b"]["records"], self.s["log"]["b"]["lost"]), (9, 1))

    def test_onoff_join(self):
        r, = self.s["onoff"]
        self.assertEqual((r["sent"], r["received"], r["lost"]), (3, 2, 1))
        self.assertEqual(r["on_fraction"], 0.5)
        self.assertEqual(list(r["arrivals"]), ["ef"])
        self.assertEqual(r["arrivals"]["ef"]["n"], 2)      # not the other flow's

    def test_web_users_over_120_ms(self):
        w = self.s["web"]
        self.assertEqual((w["users"], w["users_over"], w["flows_seen"], w["flows_over"]),
                         (2, 1, 2, 1))
        self.assertEqual(w["by_status"], {"ok": 2})
        self.assertEqual(w["session_rate_bps"], 3000 * 8 / 2.0)

    def test_missing_file_named(self):
        os.remove(os.path.join(self.tmp, "onoff-recv.jsonl"))
        with self.assertRaisesRegex(ie.ExampleError, "no onoff-recv.jsonl"):
            ie.summarise(self.tmp, KW)


class Blocks(_Run):
    def test_example_block(self):
        b = ie.example_block(self.s)
        self.assertIn("commit `abc1234`", b)
        self.assertIn("(5 of the 7 rows of the flows table.)", b)
        self.assertIn("   17  row4", b)
        self.assertNotIn("row5", b)
        self.assertIn("ip netns exec st-1-a OUT/x --out OUT/tfrc-send-1.jsonl", b)
        self.assertIn("\nmininet/pktlog.py flows OUT/a.plog.csv", b)
        self.assertIn("| 1 | 348.0 | 0.0100 | 120 | 25.7 % | 40.0 % | 3 | 1 | 25.0 % | 70.0 / 80.0 | "
                      "50.0 / 50.0 | 1 | out_of_order 1 |", b)
        self.assertIn("| 0 | 3 | 2 | 0.500 | 2 / – | 60.0 / 65.0 |", b)
        self.assertIn("EF green 6, yellow 2 (25.0 % re-marked to AF)", b)
        self.assertIn("1 of the 2 users had a packet over 120 ms", b)
        self.assertIn("`pktlog.py check`: passed", b)
        self.s["check"]["rc"] = 1
        self.assertIn("`pktlog.py check`: FAILED (exit 1)", ie.example_block(self.s))

    def test_readme_block_one_line(self):
        b = ie.readme_block(self.s)
        self.assertNotIn("\n", b)
        self.assertIn("15 records, 1 lost", b)
        self.assertIn("25.0 % of EF to AF", b)
        self.assertIn("(docs/instruments.md#all-of-them-through-a-pair-a-measured-example)", b)

    def test_update_between_markers_of_the_real_pages(self):
        root = os.path.join(self.tmp, "repo")
        os.makedirs(os.path.join(root, "docs"))
        for p in ("README.md", "docs/instruments.md"):
            shutil.copy(os.path.join(ROOT, p), os.path.join(root, p))
        blocks = [("docs/instruments.md", "instruments-example", ie.example_block(self.s)),
                  ("README.md", "instruments-readme", ie.readme_block(self.s))]
        ie._pr.update(root, blocks)
        with open(os.path.join(root, "docs/instruments.md")) as f:
            once = f.read()
        ie._pr.update(root, blocks)
        with open(os.path.join(root, "docs/instruments.md")) as f:
            self.assertEqual(f.read(), once)
        with open(os.path.join(ROOT, "docs/instruments.md")) as f:
            before = f.read()
        head = before.split("<!-- instruments-example -->")[0]
        self.assertTrue(once.startswith(head))
        self.assertIn("<!-- instruments-example -->\nMeasured by", once)
        with open(os.path.join(root, "README.md")) as f:
            self.assertIn("  <!-- instruments-readme -->\n  Measured together", f.read())


if __name__ == "__main__":
    unittest.main()
