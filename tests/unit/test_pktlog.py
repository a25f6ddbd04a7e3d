"""test_pktlog.py - mininet/schedlab/pktlog.py, the per-packet log's reader.

  /usr/bin/python3 -m unittest -v test_pktlog
(run from tests/unit; ctest's unit.pktlog_py does exactly this).

  - The encoder's golden lines (tests/unit/test_plog.c writes exactly
    these) read back field by field: a round trip of the format.
  - A file cut in the middle of a line, a foreign file, an empty file,
    lines with a wrong column count, bad numbers, an unknown event or
    class, a drop without a reason: each is reported (bad line with its
    number, or LogError for the header), never an exception.
  - A seeded mutation test (the reader's fuzzer: 20000 lines with bytes
    flipped, inserted, removed, cut): read() raises nothing but LogError,
    and every line is either a record or a bad line.
  - flows(): a sender's and a receiver's records of two flows worked by
    hand (counts, bytes, drops by reason, sojourn and one-way delay mean
    and max, packets over the bound, verdicts).
  - sessions(): websess bursts joined on the source port.
  - check(): consistent synthetic logs and stats pass; a missing drop
    record, a missing departure, a stray arrival, a wrong loss count and a
    lost record are each reported.
  - The CLI: exit 2 and a message for a file that is not a log.
"""
import io
import json
import os
import random
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
MININET = os.path.join(os.path.dirname(os.path.dirname(HERE)), "mininet")
sys.path.insert(0, MININET)

from schedlab import pktlog  # noqa: E402

HEADER = ("t_ns,event,class,dscp,proto,src,sport,dst,dport,len_bytes,seq,"
          "sojourn_ns,start_ns,owd_ns,verdict,reason\n")
# test_plog.c's golden lines, in its order.
GOLDEN = [
    "1700000000123456789,enq,ef,46,17,10.0.0.1,5001,10.0.0.2,6000,100,,,,,,\n",
    "1700000000123456789,dep,ef,46,17,10.0.0.1,5001,10.0.0.2,6000,100,4294967295,"
    "2500000,1700000000120000000,,pq,\n",
    "1700000000123456789,drop,ef,46,17,10.0.0.1,5001,10.0.0.2,6000,100,,0,,,beta,expired\n",
    "1700000000123456789,arr,af,46,17,10.0.0.1,5001,10.0.0.2,6000,100,0,,,250123456,,\n",
    "5,enq,af,10,6,2001:db8::1,443,2001:db8::2,50000,60,,,,,,\n",
    "5,enq,cs0,0,17,10.0.0.1,,10.0.0.2,,100,,,,,,\n",
    "5,drop,,,,,,,,100,,,,,,tun_bad_checksum\n",
    "5,drop,,,,,,,,,,,,,,pool_empty\n",
]


def write(text):
    f = tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False)
    f.write(text)
    f.close()
    return f.name


class TestRead(unittest.TestCase):
    def tearDown(self):
        for p in getattr(self, "paths", []):
            os.unlink(p)

    def log(self, text):
        p = write(text)
        self.paths = getattr(self, "paths", []) + [p]
        return p

    def test_golden_round_trip(self):
        rd = pktlog.read(self.log(HEADER + "".join(GOLDEN)))
        self.assertEqual(rd.bad, [])
        r = rd.recs
        self.assertEqual(len(r), len(GOLDEN))
        self.assertEqual((r[0].t_ns, r[0].event, r[0].cls, r[0].dscp, r[0].proto),
                         (1700000000123456789, "enq", "ef", 46, 17))
        self.assertEqual(r[0].flow(), (17, "10.0.0.1", 5001, "10.0.0.2", 6000))
        self.assertEqual((r[0].len_bytes, r[0].seq, r[0].sojourn_ns), (100, None, None))
        self.assertEqual((r[1].seq, r[1].sojourn_ns, r[1].start_ns, r[1].verdict),
                         (4294967295, 2500000, 1700000000120000000, "pq"))
        self.assertEqual((r[2].sojourn_ns, r[2].verdict, r[2].reason),
                         (0, "beta", "expired"))
        self.assertEqual((r[3].event, r[3].cls, r[3].seq, r[3].owd_ns),
                         ("arr", "af", 0, 250123456))
        self.assertEqual(r[4].flow(), (6, "2001:db8::1", 443, "2001:db8::2", 50000))
        self.assertEqual(r[5].flow(), (17, "10.0.0.1", None, "10.0.0.2", None))
        self.assertEqual((r[6].flow(), r[6].cls, r[6].len_bytes, r[6].reason),
                         (None, "", 100, "tun_bad_checksum"))
        self.assertEqual((r[7].len_bytes, r[7].reason), (None, "pool_empty"))
        s = pktlog.summary(rd)
        self.assertEqual(s["events"], {"enq": 3, "dep": 1, "drop": 3, "arr": 1})
        self.assertEqual(s["drops"], {"expired": 1, "tun_bad_checksum": 1,
                                      "pool_empty": 1})
        self.assertEqual(s["untupled"], 2)

    def test_truncated_and_bad_lines(self):
        text = (HEADER + GOLDEN[0] + "1,enq,ef,46,17\n" + "x,enq,,,,,,,,,,,,,,\n"
                + "1,sent,,,,,,,,,,,,,,\n" + "1,enq,vip,,,,,,,,,,,,,\n"
                + "1,drop,,,,,,,,,,,,,,\n" + "\n" + GOLDEN[1] + GOLDEN[2][:40])
        rd = pktlog.read(self.log(text))
        self.assertEqual([r.event for r in rd.recs], ["enq", "dep"])
        lines = [n for n, _ in rd.bad]
        self.assertEqual(lines, [3, 4, 5, 6, 7, 8, 10])
        why = dict(rd.bad)
        self.assertIn("5 columns (expected 16)", why[3])
        self.assertIn("t_ns 'x' is not an integer", why[4])
        self.assertIn("event 'sent'", why[5])
        self.assertIn("class 'vip'", why[6])
        self.assertIn("a drop without a reason", why[7])
        self.assertIn("truncated", why[10])

    def test_not_a_log(self):
        for text in ("", "a,b,c\n1,2,3\n", '{"t": 1.0}\n'):
            with self.assertRaises(pktlog.LogError):
                pktlog.read(self.log(text))

    def test_mutations(self):
        """The reader's fuzzer: seeded, deterministic."""
        rng = random.Random(21)
        base = [HEADER] + GOLDEN * 4
        for _ in range(200):
            lines = list(base)
            for _ in range(100):
                i = rng.randrange(1, len(lines))
                ln = lines[i]
                op = rng.randrange(4)
                k = rng.randrange(len(ln) + 1)
                if op == 0:
                    ln = ln[:k] + chr(rng.randrange(32, 127)) + ln[k + 1:]
                elif op == 1:
                    ln = ln[:k] + rng.choice([",", "\n", "-", "9", '"', "\x00"]) + ln[k:]
                elif op == 2:
                    ln = ln[:k] + ln[k + 1:]
                else:
                    ln = ln[:k]
                lines[i] = ln
            text = "".join(lines)
            if rng.random() < 0.5:
                text = text[:rng.randrange(len(HEADER), len(text) + 1)]
            rd = pktlog.read(self.log(text))
            nlines = text[len(HEADER):].count("\n") + (not text.endswith("\n"))
            if text[len(HEADER):] == "":
                nlines = 0
            self.assertEqual(len(rd.recs) + len(rd.bad), nlines)
            for r in rd.recs:      # a record is well-formed whatever it held
                self.assertIn(r.event, pktlog.EVENTS)
                self.assertIsInstance(r.t_ns, int)


def rec(t_ms, event, sport, **kw):
    base = dict(t_ns=int(t_ms * 1e6), event=event, cls="cs0", dscp=0, proto=17,
                src="10.0.0.1", sport=sport, dst="10.0.0.2", dport=9000,
                len_bytes=1000, seq=None, sojourn_ns=None, start_ns=None,
                owd_ns=None, verdict="", reason="")
    base.update(kw)
    return pktlog.Rec(**base)


class TestTables(unittest.TestCase):
    def recs(self):
        # flow 1 (port 1): 3 enqueued, 2 departed (sojourn 10, 30 ms), one
        # dropped (expired); 2 arrived (owd 100, 150 ms).  flow 2 (port 2):
        # 1 enq, 1 dep (sojourn 0), 1 arr (owd 90), 500 bytes.
        return [
            rec(0, "enq", 1), rec(1, "enq", 1), rec(2, "enq", 1),
            rec(10, "dep", 1, seq=0, sojourn_ns=10000000, verdict="flow"),
            rec(31, "dep", 1, seq=1, sojourn_ns=30000000, verdict="pq"),
            rec(40, "drop", 1, sojourn_ns=38000000, reason="expired", verdict="flow"),
            rec(5, "enq", 2, len_bytes=500),
            rec(5, "dep", 2, len_bytes=500, seq=2, sojourn_ns=0),
            rec(110, "arr", 1, seq=0, owd_ns=100000000),
            rec(181, "arr", 1, seq=1, owd_ns=150000000),
            rec(95, "arr", 2, len_bytes=500, seq=2, owd_ns=90000000),
            rec(96, "drop", None, proto=None, src="", dst="", dport=None,
                reason="pool_empty"),
        ]

    def test_flows(self):
        rows = pktlog.flows(self.recs(), delay_over_ms=120)
        self.assertEqual([r["sport"] for r in rows], [1, 2])
        a, b = rows
        self.assertEqual((a["enq_pkts"], a["dep_pkts"], a["arr_pkts"], a["drop_pkts"]),
                         (3, 2, 2, 1))
        self.assertEqual((a["dep_bytes"], a["arr_bytes"]), (2000, 2000))
        self.assertEqual(a["drops"], "expired=1")
        self.assertEqual((a["sojourn_mean_ms"], a["sojourn_max_ms"]), (20.0, 30.0))
        self.assertEqual((a["owd_mean_ms"], a["owd_max_ms"]), (125.0, 150.0))
        self.assertEqual(a["over_pkts"], 1)             # 150 > 120 only
        self.assertEqual(a["verdicts"], "flow=2;pq=1")
        self.assertEqual((a["first_ns"], a["last_ns"]), (0, 181000000))
        self.assertEqual((b["owd_max_ms"], b["over_pkts"], b["arr_bytes"]),
                         (90.0, 0, 500))
        self.assertIsNone(pktlog.flows(self.recs())[0]["over_pkts"])

    def test_sessions(self):
        recs = [dict(r.__dict__) for r in self.recs()]
        recs = [pktlog.Rec(**{**r, "proto": 6 if r["proto"] else None})
                for r in recs]
        rows = pktlog.flows(recs, delay_over_ms=120)
        bursts = [{"user": 7, "burst": 0, "local_port": 1},
                  {"user": 7, "burst": 1, "local_port": 2},
                  {"user": 8, "burst": 0, "local_port": 3}]
        s = pktlog.sessions(rows, bursts)
        self.assertEqual(len(s), 1)
        self.assertEqual((s[0]["user"], s[0]["bursts"], s[0]["flows_seen"]), (7, 2, 2))
        self.assertEqual((s[0]["arr_bytes"], s[0]["drop_pkts"], s[0]["owd_max_ms"],
                          s[0]["flows_over"]), (2500, 1, 150.0, 1))

    def test_fmt_table(self):
        t = pktlog.fmt_table([{"a": 1, "b": None}, {"a": 22.5, "b": "x"}], ("a", "b"))
        self.assertEqual(t.splitlines(), ["     a  b", "     1  -", "22.500  x"])


def stats_line(**over):
    o = {"link": {"out_pkts": 0},
         "classes": {c: {"in_pkts": 0, "out_pkts": 0, "drop_pkts": 0}
                     for c in pktlog.CLASSES},
         "rx": {c: {"pkts": 0, "lost": 0} for c in pktlog.CLASSES},
         "drops": {"class_limit": 0, "expired": 0, "send_error": 0,
                   "pool_empty": 0},
         "log": {"records": 0, "lost": 0}}
    for k, v in over.items():
        d = o
        ks = k.split("__")
        for x in ks[:-1]:
            d = d[x]
        d[ks[-1]] = v
    return json.dumps(o) + "\n"


class TestCheck(unittest.TestCase):
    def setUp(self):
        self.paths = []

    def tearDown(self):
        for p in self.paths:
            os.unlink(p)

    def f(self, text):
        p = write(text)
        self.paths.append(p)
        return p

    def csv(self, recs):
        out = io.StringIO()
        out.write(HEADER)
        for r in recs:
            v = [r.t_ns, r.event, r.cls, r.dscp, r.proto, r.src, r.sport, r.dst,
                 r.dport, r.len_bytes, r.seq, r.sojourn_ns, r.start_ns, r.owd_ns,
                 r.verdict, r.reason]
            out.write(",".join("" if x is None else str(x) for x in v) + "\n")
        return self.f(out.getvalue())

    def world(self):
        """4 packets in: 1 over the class limit, 3 enqueued, 1 expired, 2
        departed (seq 0, 1), of which seq 1 arrived and seq 0 was lost."""
        send = [rec(0, "drop", 1, reason="class_limit"), rec(0, "enq", 1),
                rec(0, "enq", 1), rec(0, "enq", 1),
                rec(1, "drop", 1, reason="expired", sojourn_ns=1),
                rec(2, "dep", 1, seq=0, sojourn_ns=1),
                rec(2, "dep", 1, seq=1, sojourn_ns=1)]
        recv = [rec(3, "arr", 1, seq=1, owd_ns=1)]
        sst = stats_line(classes__cs0__in_pkts=4, link__out_pkts=2,
                         drops__class_limit=1, drops__expired=1)
        rst = stats_line(rx__cs0__pkts=1, rx__cs0__lost=1)
        return send, recv, sst, rst

    def run_check(self, send, recv, sst, rst):
        return pktlog.check(self.csv(send), self.f(sst), self.csv(recv), self.f(rst))[0]

    def test_consistent(self):
        self.assertEqual(self.run_check(*self.world()), [])

    def test_each_inconsistency_is_reported(self):
        send, recv, sst, rst = self.world()
        cases = [
            ("sender drops.expired: stats 1, log 0", send[:4] + send[5:], recv, sst, rst),
            ("dep 1 + send_error 0 != link.out_pkts 2", send[:6], recv, sst, rst),
            ("1 arrivals match no departure", send, recv + [rec(4, "arr", 1, seq=9,
                                                                owd_ns=1)], sst,
             stats_line(rx__cs0__pkts=2, rx__cs0__lost=1)),
            ("departures never arrived: 1; the receiver counted 0 lost", send, recv,
             sst, stats_line(rx__cs0__pkts=1)),
            ("the daemon lost 3 records", send, recv,
             sst + stats_line(log__lost=3), rst),
            ("enq 3 + class_limit 1 != in_pkts 5", send, recv,
             sst + stats_line(classes__cs0__in_pkts=1), rst),
        ]
        for want, s, r, a, b in cases:
            with self.subTest(want=want):
                problems = self.run_check(s, r, a, b)
                self.assertTrue(any(want in p for p in problems), problems)


class TestCli(unittest.TestCase):
    def test_not_a_log_exits_2(self):
        p = write("hello\n")
        try:
            r = subprocess.run([sys.executable, os.path.join(MININET, "pktlog.py"),
                                "flows", p], capture_output=True, text=True)
        finally:
            os.unlink(p)
        self.assertEqual(r.returncode, 2)
        self.assertIn("not a schedtun packet log", r.stderr)

    def test_flows_csv(self):
        p = write(HEADER + "".join(GOLDEN))
        try:
            r = subprocess.run([sys.executable, os.path.join(MININET, "pktlog.py"),
                                "flows", p, "--format", "csv"],
                               capture_output=True, text=True)
        finally:
            os.unlink(p)
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = r.stdout.splitlines()
        self.assertEqual(rows[0], ",".join(pktlog.FLOW_COLS))
        self.assertEqual(len(rows), 1 + 3)     # 3 distinct 5-tuples


if __name__ == "__main__":
    unittest.main()
