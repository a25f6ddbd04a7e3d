"""test_pdrrexp.py - the PDRR paper's Mininet experiments' pure parts.

  /usr/bin/python3 -m unittest -v test_pdrrexp   (from tests/unit; ctest's
  unit.pdrrexp)

schedlab.pdrrlog on a packet log, stats lines and transfer records
written by hand (every number worked here), the four cases' configuration
texts against `schedtun --check -f`, the load arithmetic of
schedlab.pdrrrun, websess's open-loop transfers on loopback (the Poisson
schedule, the cap on open transfers, the port known before connect), and
mininet/pdrrsweep.py's points, tables and --redraw --check on synthetic
records.  No Mininet, no root.
"""
import json
import math
import os
import socket
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "mininet"))

import pdrrsweep  # noqa: E402
from schedlab import pdrrlog, records, sweep, websess  # noqa: E402
from schedlab.pdrrrun import CASES, PdrrSpec, pkts_mean  # noqa: E402
from schedlab.pktlog import HEADER  # noqa: E402
from test_theory import schedtun_path  # noqa: E402

S = 1_000_000_000
MS = 1_000_000
C = 10e6


def row(t, ev, proto, src, sport, dport, ln, soj="", cls="cs0", verdict="", reason=""):
    return ",".join(str(x) for x in (t, ev, cls, 0, proto, src, sport, "172.30.0.2", dport,
                                     ln, "", soj, "", "", verdict, reason))


class SenderLog(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="pdrrexp-")
        self.log = os.path.join(self.tmp, "a.csv")

    def write(self, lines):
        with open(self.log, "w") as f:
            f.write(",".join(HEADER) + "\n" + "".join(ln + "\n" for ln in lines))

    def test_by_hand(self):
        u, t = "10.0.7.2", "10.0.1.2"
        self.write([
            row(1 * S, "enq", 6, t, 40001, 6000, 60),
            row(1 * S, "drop", 6, t, 40001, 6000, 60, soj=0, reason="admission"),  # before
            row(9 * S, "dep", 17, u, 5000, 7000, 200, soj=50 * MS, cls="af"),  # before the window
            row(10 * S, "enq", 17, u, 5000, 7000, 200, cls="af"),
            row(10 * S, "dep", 17, u, 5000, 7000, 200, soj=0, cls="af", verdict="pq"),
            row(10 * S + 1, "dep", 17, u, 5000, 7000, 200, soj=1 * MS, cls="af", verdict="pq"),
            row(10 * S + 2, "dep", 17, u, 5001, 7000, 200, soj=3 * MS, cls="af", verdict="flow"),
            row(10 * S + 3, "dep", 17, u, 5001, 53, 200, soj=900 * MS, cls="af"),  # not ours
            row(11 * S, "enq", 6, t, 40002, 6000, 1000),
            row(11 * S, "dep", 6, t, 40002, 6000, 1000, soj=2 * MS, verdict="flow"),
            row(11 * S + 1, "dep", 6, t, 40002, 6000, 1000, soj=2 * MS, verdict="flow"),
            row(11 * S + 2, "dep", 6, t, 40002, 6000, 60, soj=0, verdict="pq"),   # a SYN
            # admission: logged `enq`, then refused with a sojourn of 0
            row(12 * S, "enq", 6, t, 40003, 6000, 60),
            row(12 * S, "drop", 6, t, 40003, 6000, 60, soj=0, reason="admission"),
            row(12 * S + 1, "drop", 6, t, 40002, 6000, 1000, soj=5 * MS, reason="pushout"),
            row(12 * S + 2, "drop", 6, t, 40004, 6000, 1000, reason="class_limit"),  # no enq
            ",".join(["%d" % (12 * S + 3), "drop"] + [""] * 13 + ["pool_empty"]),  # no packet
            row(15 * S, "dep", 17, u, 5000, 7000, 200, soj=7 * MS, cls="af"),   # after it
            row(16 * S, "drop", 6, t, 40001, 6000, 60, soj=0, reason="admission"),  # after
        ])
        m, refused = pdrrlog.sender(self.log, 10 * S, 12 * S + 5, 7000, 6000, C)
        self.assertEqual(refused, {(t, 40001): [1 * S, 16 * S], (t, 40003): [12 * S]})
        ud = m["udp"]
        self.assertEqual(ud["pkts"], 3)
        self.assertAlmostEqual(ud["pq_share"], 2 / 3)
        self.assertAlmostEqual(ud["wait_mean_ms"], 4 / 3)
        self.assertEqual((ud["wait_p50_ms"], ud["wait_p99_ms"], ud["wait_max_ms"]),
                         (1.0, 3.0, 3.0))
        g = list(pdrrlog.GRID_MS)
        # waits 0, 1, 3 ms: P(W > 0) = 2/3, P(W > 1 ms) = 1/3 (not 1 itself), P(W > 3) = 0
        self.assertAlmostEqual(ud["ccdf"][g.index(0)], 2 / 3)
        self.assertAlmostEqual(ud["ccdf"][g.index(0.8)], 2 / 3)
        self.assertAlmostEqual(ud["ccdf"][g.index(1)], 1 / 3)
        self.assertAlmostEqual(ud["ccdf"][g.index(2)], 1 / 3)
        self.assertEqual(ud["ccdf"][g.index(3)], 0)
        lk = m["link"]
        span = 2 + 5e-9
        self.assertEqual((lk["dep_pkts"], lk["dep_bytes"]), (7, 4 * 200 + 2060))
        self.assertAlmostEqual(lk["utilisation"], 2860 * 8 / (C * span))
        # offered: enq 200 + 1000 + 60 (the refused one was enqueued first) and
        # the class-limit drop's 1000; the push-out's packet was enqueued already
        self.assertAlmostEqual(lk["offered_bps"], 2260 * 8 / span)
        self.assertAlmostEqual(lk["pq_load_log"], 460 * 8 / (C * span))
        tx2 = 4 * (1600 / C) ** 2 + 2 * (8000 / C) ** 2 + (480 / C) ** 2
        self.assertAlmostEqual(lk["cobham_r_ms"], tx2 / 2 / span * 1e3)
        self.assertEqual(lk["class_bps"], {"af": 800 * 8 / span, "cs0": 2060 * 8 / span})
        self.assertEqual((m["tcp_data_len_bytes"], m["tcp_data_len_share"]), (1000, 1.0))
        self.assertEqual(m["drops"], {"cs0": {"admission": 1, "pushout": 1, "class_limit": 1},
                                      "": {"pool_empty": 1}})
        self.assertTrue(pdrrlog.refused_between(refused, (t, 40001), 0, 2 * S))
        self.assertFalse(pdrrlog.refused_between(refused, (t, 40001), 2 * S, 15 * S))
        self.assertTrue(pdrrlog.refused_between(refused, (t, 40001), 2 * S, None))
        self.assertFalse(pdrrlog.refused_between(refused, (u, 5000), 0, None))

    def test_bad_line(self):
        self.write([row(1, "dep", 17, "x", 1, 7000, "big", soj=0)])
        with self.assertRaisesRegex(pdrrlog.PdrrLogError, r"a\.csv:2: len_bytes 'big'"):
            pdrrlog.sender(self.log, 0, S, 7000, 6000, C)
        with self.assertRaisesRegex(pdrrlog.PdrrLogError, "No such file"):
            pdrrlog.sender(self.log + ".gone", 0, S, 7000, 6000, C)


def stats_line(t, flows, fair, pq_bytes, pq_pkts=0, pushout=0, admission=0):
    return json.dumps({"t": t, "sched": {
        "flows": flows, "pq_pkts": pq_pkts, "fair_rate_bps": fair, "fair_sample_bps": fair,
        "prio_load": 0.1, "rounds": 1, "pq_out_pkts": pq_bytes // 200,
        "pq_out_bytes": pq_bytes, "afl_full_pkts": 0, "rejected_flows": admission and 1,
        "refused_by": {"fair_rate": admission, "prio_load": 0}, "examined": 1,
        "drops": {"sched_limit": 0, "pushout": pushout, "admission": admission,
                  "expired": 0}}})


class Stats(unittest.TestCase):
    def test_by_hand(self):
        tmp = tempfile.mkdtemp(prefix="pdrrexp-")
        p = os.path.join(tmp, "stats-a.jsonl")
        # the daemon started 2 s before the traffic: its t = traffic time + 2
        lines = [stats_line(2 + k, 100 * k, 1e6 // k, 250000, pq_pkts=k, pushout=k,
                            admission=k % 2) for k in range(1, 11)]
        with open(p, "w") as f:
            f.write("\n".join(lines) + "\n" + '{"t": 13, "sched"')     # a cut last line
        st = pdrrlog.stats(p, 2.0, 4.0, 8.0, C, 500, 150000, bin_s=5.0, end_s=10.0)
        # window (4, 8]: k = 5..8
        self.assertEqual(st["lines"], 4)
        self.assertEqual((st["afl_mean"], st["afl_max"]), (650, 800))
        self.assertAlmostEqual(st["fair_mean_bps"], sum(1e6 // k for k in range(5, 9)) / 4)
        self.assertEqual(st["fair_min_bps"], 1e6 // 8)
        self.assertAlmostEqual(st["pq_load"], 4 * 250000 * 8 / (C * 4))
        self.assertEqual(st["pq_mean_bytes"], 200)
        self.assertEqual((st["pushout"], st["admission_drops"]), (5 + 6 + 7 + 8, 2))
        # AFL first >= 500 at k = 5; fair first < 150 kbit/s at k = 7 (142857)
        self.assertEqual((st["afl_saturated_s"], st["fair_under_admit_s"]), (5.0, 7.0))
        # bins (0, 5], (5, 10]: k = 1..5 and 6..10
        self.assertEqual(st["series"][0], [5.0, 300.0, 500, round(sum(
            1e6 // k for k in range(1, 6)) / 5), round(5 * 250000 * 8 / (C * 5), 4), 5])
        self.assertEqual(st["series"][1][:3], [10.0, 800.0, 1000])
        # the series ends at end_s (default: the window's end, 8 s)
        self.assertEqual(pdrrlog.stats(p, 2.0, 4.0, 8.0, C, 500, 1.0)["series"][1][:3],
                         [10.0, 700.0, 800])
        with self.assertRaisesRegex(pdrrlog.PdrrLogError, "no PDRR stats line"):
            pdrrlog.stats(p, 2.0, 100.0, 200.0, C, 500, 1.0)


class Transfers(unittest.TestCase):
    def test_by_hand(self):
        a, b = "10.0.1.2", "10.0.2.2"

        def rec(src, port, burst, status, size, start, end=None, conn=None, closed=None):
            return {"src": src, "user": 0, "burst": burst, "local_port": port,
                    "status": status, "size_bytes": size, "start_ns": start * S,
                    "connected_ns": None if conn is None else conn * S,
                    "end_ns": None if end is None else end * S,
                    "closed_ns": (closed if closed is not None else end) * S
                    if (closed or end) else None}
        recs = [
            rec(a, 1, 0, "ok", 1000, 10, end=11, conn=10.1),          # 8 kbit/s (payload)
            rec(b, 1, 0, "ok", 3000, 12, end=13, conn=12.5),          # 24 kbit/s, refused
            rec(a, 2, 1, "cut: the run's end came first", 5000, 14, conn=14.1, closed=18),
            rec(a, None, 2, "refused: 9 transfers open (max_open)", 5000, 14, closed=14),
            rec(a, 3, 3, "ok", 1, 9, end=10, conn=9.1),                # before the window
            rec(a, 4, 4, "error: Connection timed out", 100, 15, closed=19),
        ]
        sink = [{"peer": a, "user": 0, "burst": 1, "bytes": 2000},   # the cut one's bytes
                {"peer": b, "user": 0, "burst": 1, "bytes": 999}]    # another host's
        refused = {(b, 1): [12 * S + S // 10], (a, 3): [9 * S + 1], (a, 4): [15 * S + 1],
                   (a, 2): [19 * S]}                                  # after a's close
        t = pdrrlog.transfers(recs, sink, 10 * S, 20 * S, refused, bytes_scale=2.0)
        self.assertEqual(t["arrived"], 5)
        self.assertEqual(t["by_status"], {"ok": 2, "cut": 1, "refused": 1, "error": 1})
        # 4 sent: 2 completed
        self.assertEqual((t["completed"], t["completed_share"]), (2, 0.5))
        # at scale 2: 16 and 48 kbit/s completed; all: 16, 48, 2000 B x 2 x 8 / 4 s =
        # 8 kbit/s, and 0 for the failed one (no sink record)
        self.assertAlmostEqual(t["throughput_mean_bps"], 32000)
        self.assertAlmostEqual(t["throughput_all_mean_bps"], (16000 + 48000 + 8000) / 4)
        # blocked: b's refusal at 12.1 s (before it connected at 12.5: at set-up too),
        # a:4's at 15 s (never connected); a:2's came after its close
        self.assertEqual((t["blocked"], t["blocking"]), (2, 0.5))
        self.assertEqual((t["blocked_setup"], t["blocking_setup"]), (2, 0.5))
        u = pdrrlog.udp_flows([{"src": a, "local_port": 3, "birth_ns": 0, "death_ns": 10 * S},
                               {"src": a, "local_port": 4, "birth_ns": 0, "death_ns": S}],
                              refused)
        self.assertEqual(u, {"flows": 2, "refused_flows": 1})

    def test_theory(self):
        st = {"pq_load": 0.2, "pq_mean_bytes": 250}
        th = pdrrlog.theory({"wait_mean_ms": 0.4}, {"cobham_r_ms": 0.3}, st, C)
        self.assertAlmostEqual(th["cobham_mean_ms"], 0.3 / 0.8)
        mu = C / 2000                                         # 5000 PQ packets a second
        self.assertAlmostEqual(th["mm1_mean_ms"], 0.2 / (0.8 * mu) * 1e3)
        g = list(pdrrlog.GRID_MS)
        self.assertAlmostEqual(th["mm1_ccdf"][g.index(0)], 0.2)
        self.assertAlmostEqual(th["mm1_ccdf"][g.index(1)], 0.2 * math.exp(-0.8 * 5))
        # no PQ (plain DRR): every key, none of them a number but the wait
        none = pdrrlog.theory({"wait_mean_ms": 5.0}, {}, {"pq_load": 0.0, "pq_mean_bytes": None},
                              C)
        self.assertEqual(set(none), set(th))
        self.assertEqual([k for k, v in none.items() if v is not None],
                         ["rho", "udp_wait_mean_ms"])


class Setup(unittest.TestCase):
    def test_load_arithmetic(self):
        # k = 8, alpha 1.5: untruncated mean 24; truncated at 1000 packets
        self.assertAlmostEqual(pkts_mean(), 21.87, delta=0.01)
        s = PdrrSpec("fig3-pdrr", 300, 60, "/", "x")
        self.assertAlmostEqual(s.tcp_arrivals_per_s() * 8000 * pkts_mean(), 7.2e6)
        self.assertAlmostEqual(s.udp_flows(), 56.25)
        s5 = PdrrSpec("s5-none", 300, 60, "/", "x")
        self.assertAlmostEqual(s5.tcp_arrivals_per_s() * 8000 * pkts_mean(), 8.8e6)
        self.assertAlmostEqual(s5.udp_flows(), 68.75)

    def test_each_case_accepted(self):
        tmp = tempfile.mkdtemp(prefix="pdrrexp-")
        for case in CASES:
            text = PdrrSpec(case, 300, 60, tmp, "x").conf_text()
            path = os.path.join(tmp, case + ".conf")
            with open(path, "w") as f:
                f.write(text)
            r = subprocess.run([schedtun_path(), "--check", "-f", path],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            self.assertEqual(r.returncode, 0, r.stdout.decode() + text)
        self.assertIn("priority = false;", PdrrSpec("fig3-drr", 9, 1, "/", "x").conf_text())
        adm = PdrrSpec("s5-admission", 9, 1, "/", "x").conf_text()
        self.assertIn('buffer = 1000; max_flows = 500; admission = true; admit_rate = '
                      '"100kbit";', adm)
        self.assertNotIn("admission", PdrrSpec("s5-none", 9, 1, "/", "x").conf_text())


def open_spec(port, **kw):
    base = dict(dst=("127.0.0.1", port), arrivals_per_s=40.0, mean_bytes=3000.0,
                max_bytes=100000.0, alpha=1.5, duration_s=0.5, grace_s=5.0, seed=3)
    base.update(kw)
    return websess.WebSpec(**base)


class OpenLoop(unittest.TestCase):
    def test_schedule_repeats_and_rate(self):
        a = websess.transfers(open_spec(9))
        first = [next(a) for _ in range(20000)]
        self.assertEqual(first[:50], [x for x, _ in zip(websess.transfers(open_spec(9)),
                                                        range(50))])
        other = websess.transfers(open_spec(9, seed=4))
        self.assertNotEqual(first[:50], [next(other) for _ in range(50)])
        # 20000 Poisson arrivals at 40/s: the last at 500 s, standard error 0.7 %
        self.assertAlmostEqual(first[-1][0] / 500.0, 1.0, delta=0.03)
        self.assertTrue(all(b[0] > a_[0] for a_, b in zip(first, first[1:])))
        # the sizes do not depend on the rate: their own stream
        fast = websess.transfers(open_spec(9, arrivals_per_s=400.0))
        self.assertEqual([s for _, s in first[:50]], [next(fast)[1] for _ in range(50)])

    def test_refusals(self):
        for kw, msg in ((dict(arrivals_per_s=-1.0), "arrivals_per_s '-1.0'"),
                        (dict(max_open=0), "max_open '0'"),
                        (dict(mss_bytes=10), "mss_bytes '10'")):
            with self.subTest(**kw):
                with self.assertRaisesRegex(websess.WebError, msg):
                    websess.check(open_spec(9, **kw))
        with self.assertRaisesRegex(websess.WebError, "run_open needs"):
            websess.run_open(open_spec(9, arrivals_per_s=0.0), print)

    def test_loopback(self):
        sink_recs = []
        sink = websess.Sink(("127.0.0.1", 0), sink_recs.append).start()
        try:
            sent = []
            n = websess.run(open_spec(sink.port, mss_bytes=536), sent.append)
        finally:
            sink.stop()
        sched = []
        for at, size in websess.transfers(open_spec(sink.port)):
            if at >= 0.5:
                break
            sched.append(size)
        self.assertEqual(n, len(sched))
        self.assertEqual(len(sent), len(sched))
        self.assertTrue(all(r["status"] == "ok" for r in sent),
                        [r["status"] for r in sent])
        self.assertEqual(sorted((r["burst"], r["size_bytes"]) for r in sent),
                         list(enumerate(sched)))
        by_port = {r["peer_port"]: r for r in sink_recs}
        for r in sent:
            self.assertEqual(by_port[r["local_port"]]["bytes"], r["size_bytes"])

    def test_cap_and_port_before_connect(self):
        # a listener that never accepts: transfers hang until the grace ends
        lst = socket.socket()
        lst.bind(("127.0.0.1", 0))
        lst.listen(64)
        try:
            sent = []
            websess.run_open(open_spec(lst.getsockname()[1], max_open=2, grace_s=0.3,
                                       arrivals_per_s=60.0), sent.append)
        finally:
            lst.close()
        by = {}
        for r in sent:
            by.setdefault(r["status"].split(":")[0], []).append(r)
        self.assertEqual(len(by["cut"]), 2, sorted(by))
        self.assertGreaterEqual(len(by["refused"]), 10)
        self.assertTrue(all(r["local_port"] for r in by["cut"]))
        # nobody listening: refused by the kernel, its port still on record
        free = socket.socket()
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
        free.close()
        rec = websess.one_burst(open_spec(port), 0, 0, 10, time.time_ns() + 5 * S)
        self.assertTrue(rec["status"].startswith("error"), rec["status"])
        self.assertIsInstance(rec["local_port"], int)


def fake(case, rep, udp_ms, tcp_bps, valid=True):
    grid = len(pdrrlog.GRID_MS)
    m = {"sender": {"udp": {"wait_mean_ms": udp_ms, "wait_p99_ms": 3 * udp_ms,
                            "wait_max_ms": 9 * udp_ms, "pq_share": 0.9, "pkts": 1000,
                            "ccdf": [0.5 / (i + 1) for i in range(grid)]},
                    "link": {"utilisation": 0.9, "offered_bps": 9e6},
                    "drops": {"cs0": {"pushout": 2}}},
         "stats": {"fair_mean_bps": 2e5, "fair_min_bps": 1e5, "afl_mean": 40, "afl_max": 90,
                   "pq_load": 0.2, "pushout": 2, "afl_saturated_s": None,
                   "fair_under_admit_s": 30.0,
                   "series_cols": ["t_s", "afl_mean", "afl_max", "fair_bps", "pq_load",
                                   "pq_pkts_max"],
                   "series": [[5.0, 10, 20, 3e5, 0.2, 3], [10.0, 30, 40, 2e5, 0.25, 4]]},
         "tcp": {"throughput_mean_bps": tcp_bps, "completed_share": 0.95, "blocking": 0.1,
                 "throughput_all_mean_bps": tcp_bps / 2, "blocking_setup": 0.05},
         "udp_flows": {"flows": 80, "refused_flows": 8},
         "theory": {"cobham_mean_ms": udp_ms, "mm1_mean_ms": udp_ms / 4,
                    "mm1_ccdf": [0.2 / (i + 1) for i in range(grid)]}}
    if case.startswith("s5"):           # refusals and push-outs of UDP (af) packets
        m["sender"]["drops"]["af"] = {"admission": 60 + rep, "pushout": 40}
    if case == "fig3-drr":              # no priority queue: no theory to draw
        m["theory"] = {"rho": 0.0, "pq_mean_bytes": None, "cobham_mean_ms": None,
                       "mm1_mean_ms": None, "mm1_ccdf": None, "udp_wait_mean_ms": udp_ms}
    res = {"window_s": [60, 300], "classes": {}, "link": {},
           "extra": {"warnings": [], "pdrr": m}}
    return records.make("pdrr", pdrrsweep.params_of(pdrrsweep.Pt(case), pdrrsweep.FULL, {}),
                        "p" * 64, rep, None, valid, [] if valid else ["stalled"], res,
                        {"code": {"commit": "abc"}})


class Sweep(unittest.TestCase):
    def test_points(self):
        self.assertEqual([p.key for p in pdrrsweep.points("core")], list(CASES))
        self.assertEqual([p.key for p in pdrrsweep.points("all")], list(CASES))
        argv = pdrrsweep.argv_of(pdrrsweep.Pt("s5-none"), pdrrsweep.FULL, "/b", "/o/x-rep2", 2)
        self.assertEqual(argv[argv.index("--seed") + 1], "2")
        self.assertEqual(argv[argv.index("--case") + 1], "s5-none")

    def test_tables_and_check(self):
        recs = [fake("fig3-pdrr", 0, 0.3, 1e5), fake("fig3-pdrr", 1, 0.4, 2e5),
                fake("fig3-pdrr", 2, 0.5, 3e5), fake("fig3-pdrr", 3, 9.0, 0, valid=False),
                fake("s5-admission", 0, 0.6, 1.2e5), fake("s5-admission", 1, 0.8, 1.4e5)]
        pts = pdrrsweep.points("all")
        text = pdrrsweep.table_text(recs, pdrrsweep.FULL, pts)
        line = next(ln for ln in text.splitlines() if ln.startswith("| Fig. 3, PDRR |"))
        cells = [c.strip() for c in line.strip("|").split("|")]
        # 0.3, 0.4, 0.5 ms: sd 0.1, t(0.975, 2) 4.303: ± 0.248
        self.assertEqual(cells[1:3], ["3 (1)", "0.400 ± 0.248"])
        self.assertEqual(cells[-1], "200 ± 248")
        self.assertIn("| §5, admission | 30, 30 | -, - |", text)
        # UDP lost: af drops over UDP sent + dropped: 100/1100, 101/1101
        head = next(ln for ln in text.splitlines() if ln.startswith("| case |")
                    and "UDP lost %" in ln)
        col = [c.strip() for c in head.strip("|").split("|")].index("UDP lost %")
        s5 = next(ln for ln in text.splitlines() if ln.startswith("| §5, admission | 2 "))
        lost = [c.strip() for c in s5.strip("|").split("|")][col]
        self.assertEqual(lost, "9.1 ± 0.5")      # t(0.975, 1) 12.706 × 0.041
        self.assertIn("| Fig. 3, PDRR | cs0 pushout 6 |", text)
        self.assertIn("| Fig. 3, PDRR, M/M/1 | 0.2000 |", text)
        self.assertNotIn("Paired by seed", text)             # no DRR run to pair with
        paired = pdrrsweep.table_text(recs + [fake("fig3-drr", 1, 4.4, 1e5),
                                              fake("fig3-drr", 2, 2.5, 1e5)],
                                      pdrrsweep.FULL, pts)
        # reps 1 and 2: DRR - PDRR = 4.0 and 2.0 ms: mean 3, sd sqrt(2), t(1) 12.706
        self.assertIn("| Fig. 3, DRR − Fig. 3, PDRR | UDP wait mean ms | 3.000 ± 12.706 | "
                      "2 of 2 |", paired)
        drr = next(ln for ln in paired.splitlines() if ln.startswith("| Fig. 3, DRR |"))
        self.assertEqual([c.strip() for c in drr.strip("|").split("|")][2:5],
                         ["3.450 ± 12.071", "-", "-"])
        pdrrsweep.draw(recs + [fake("fig3-drr", 1, 4.4, 1e5)], pdrrsweep.FULL, pts,
                       tempfile.mkdtemp(prefix="pdrrexp-"))
        tmp = tempfile.mkdtemp(prefix="pdrrexp-")
        paths = pdrrsweep.draw(recs, pdrrsweep.FULL, pts, tmp)
        self.assertEqual(sorted(os.path.basename(p) for p in paths),
                         ["pdrr-runs.md", "pdrr.md", "pdrr.png"])
        block = pdrrsweep.readme_text(recs, pdrrsweep.FULL, pts)
        self.assertIn("  - Fig. 3, load 0.9, UDP wait mean: PDRR 0.400 ± 0.248 ms", block)
        self.assertIn("  - §5, admission: fair rate 200 ± 0 kbit/s", block)
        readme = os.path.join(tmp, "README.md")
        with open(readme, "w") as f:
            f.write(sweep.splice("x\n  %s\n  %s\n" % pdrrsweep.MARK, pdrrsweep.MARK, block))
        logs = []
        self.assertEqual(sweep.check(pdrrsweep.SPEC, recs, pdrrsweep.FULL, pts, tmp,
                                     logs.append, readme), 0, logs)
        recs.append(fake("s5-none", 0, 400.0, 1e3))
        self.assertEqual(sweep.check(pdrrsweep.SPEC, recs, pdrrsweep.FULL, pts, tmp,
                                     logs.append, readme), 3)

    def test_no_records(self):
        pts = pdrrsweep.points("all")
        self.assertIn("No runs recorded yet.", pdrrsweep.table_text([], pdrrsweep.FULL, pts))
        self.assertIn("no runs recorded yet", pdrrsweep.readme_text([], pdrrsweep.FULL, pts))


if __name__ == "__main__":
    unittest.main()
