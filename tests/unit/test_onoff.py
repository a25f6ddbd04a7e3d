"""test_onoff.py - mininet/schedlab/onoff.py and mininet/onoff.py.

  /usr/bin/python3 -m unittest -v test_onoff
(run from tests/unit; ctest's unit.onoff does exactly this).

  - The specification's refusals: every bad parameter gives its own
    `what 'value': ... (accepted: ...)`, and the CLI exits 2 with it.
  - The schedule, from seeded draws (fixed, so the test is
    deterministic): on and off means recovered from 10^5 periods, the on
    fraction, the lifetimes' mean and the Poisson arrivals' rate within
    stated tolerances (about 5 standard errors each); flows present at the
    start are on with probability on/(on + off), arriving ones start on;
    packets fall only in on periods, one packet time apart on the on-time,
    so that a flow sends its on-time over the packet time to within one
    packet (the carried remainder); seeds repeat, flows and seeds differ.
  - A pair on loopback (no namespace needed): flows at the start and
    Poisson arrivals with short lifetimes for 3 s; per flow, the sender
    sent exactly the packets its schedule has, the receiver got all of
    them with the same byte count, no gap, a one-way delay >= 0, and the
    first and last arrivals lie within 50 ms of their scheduled times;
    the DSCP is on the flows' sockets (IPv4 TOS, IPv6 traffic class); a
    flow that gets no socket is recorded as an error, the others go on;
    the CLI's pair (recv stopped by SIGTERM) writes both sides' lines.
    The receiver's counting by hand (a gap, a reordering, a datagram
    without the header, the delays), and the datagrams queued when the
    stop comes.
"""
import json
import math
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
MININET = os.path.join(os.path.dirname(os.path.dirname(HERE)), "mininet")
sys.path.insert(0, MININET)

from schedlab import onoff  # noqa: E402

N = 100000


def spec(**kw):
    base = dict(dst=("127.0.0.1", 9), flows=4, peak_bps=64000.0, size_bytes=160,
                on_s=0.35, off_s=0.65, lifetime_s=None, arrivals_per_s=0.0,
                duration_s=10.0, seed=5)
    base.update(kw)
    return onoff.OnOffSpec(**base)


class TestSpec(unittest.TestCase):
    def test_defaults_are_the_papers(self):
        d = onoff.check(onoff.OnOffSpec(dst=("10.0.0.2", 7000)))
        self.assertEqual((d.peak_bps, d.on_s, d.off_s, d.lifetime_s), (64000.0, 0.5, 0.5, 60.0))
        self.assertEqual(onoff.packet_ns(d), 25e6)      # 200 bytes at 64 kbit/s

    def test_refusals(self):
        nan = float("nan")
        cases = ((dict(flows=-1), "flows '-1': out of range"),
                 (dict(flows=onoff.MAX_FLOWS + 1), "flows '100001'"),
                 (dict(flows=2.0), "flows '2.0'"), (dict(flows=True), "flows 'True'"),
                 (dict(peak_bps=0), "peak_bps '0': not a positive number"),
                 (dict(peak_bps=nan), "peak_bps 'nan'"),
                 (dict(size_bytes=51), "size_bytes '51': out of range \\(accepted: 52..9000"),
                 (dict(size_bytes=9001), "size_bytes '9001'"),
                 (dict(size_bytes=200.0), "size_bytes '200.0'"),
                 (dict(dst=("::1", 9), size_bytes=71), "size_bytes '71'.*accepted: 72..9000"),
                 (dict(on_s=0), "on_s '0'"), (dict(off_s=-1), "off_s '-1'"),
                 (dict(on_s=float("inf")), "on_s 'inf'"),
                 (dict(lifetime_s=0), "lifetime_s '0'"),
                 (dict(arrivals_per_s=-0.5), "arrivals_per_s '-0.5': not a rate"),
                 (dict(arrivals_per_s=nan), "arrivals_per_s 'nan'"),
                 (dict(duration_s=0), "duration_s '0': not a duration"),
                 (dict(flows=0), "flows '0': no flow at the start and none arriving"),
                 (dict(dscp=64), "dscp '64': out of range"), (dict(dscp=-1), "dscp '-1'"))
        for kw, msg in cases:
            with self.subTest(**{k: str(v) for k, v in kw.items()}):
                with self.assertRaises(onoff.OnOffError) as cm:
                    onoff.check(spec(**kw))
                self.assertRegex(str(cm.exception), "^" + msg)
                self.assertIn("(accepted: ", str(cm.exception))
        # the edges themselves are accepted
        onoff.check(spec(size_bytes=52, dscp=63, flows=0, arrivals_per_s=1.0))
        onoff.check(spec(dst=("::1", 9), size_bytes=72, dscp=0))

    def test_parse_addr(self):
        self.assertEqual(onoff.parse_addr("10.0.0.2:7000"), ("10.0.0.2", 7000))
        self.assertEqual(onoff.parse_addr("[::1]:0", listen=True), ("::1", 0))
        for bad, listen in (("10.0.0.2", False), ("10.0.0.2:0", False), (":0", True),
                            ("10.0.0.2:x", True)):
            with self.assertRaisesRegex(onoff.OnOffError, "^address '%s': not HOST:PORT "
                                        r"\(accepted: " % bad):
                onoff.parse_addr(bad, listen)

    def test_cli_refusals(self):
        prog = os.path.join(MININET, "onoff.py")
        send = ["send", "--to", "127.0.0.1:9"]
        for args, msg in ((send + ["--peak", "64x"], "onoff: peak '64x': not a rate (accepted: "),
                          (send + ["--size", "20"], "onoff: size_bytes '20': out of range"),
                          (send + ["--lifetime", "0"], "onoff: lifetime_s '0.0'"),
                          (["recv", "--listen", "127.0.0.1:0", "--duration", "0"],
                           "onoff: duration '0.0': not a duration (accepted: "),
                          (["recv", "--listen", "127.0.0.1"], "onoff: address '127.0.0.1'")):
            with self.subTest(args=args):
                r = subprocess.run(["/usr/bin/python3", prog] + args, capture_output=True,
                                   text=True, timeout=60)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn(msg, r.stderr)
                self.assertEqual(r.stdout, "")


def take(it, n):
    return [next(it) for _ in range(n)]


class TestSchedule(unittest.TestCase):
    def test_period_means_and_on_fraction(self):
        s = spec()
        ps = take(onoff.periods(s, 0), N)
        on = [x for o, x in ps if o]
        off = [x for o, x in ps if not o]
        self.assertEqual(abs(len(on) - len(off)), 0)        # they alternate
        self.assertTrue(all(o != p for (o, _), (p, _) in zip(ps, ps[1:])))
        # 5 x 10^4 draws each: standard error of the mean 0.45 %; 2.5 % is 5.5 of them
        self.assertAlmostEqual(sum(on) / len(on) / 1e9 / 0.35, 1.0, delta=0.025)
        self.assertAlmostEqual(sum(off) / len(off) / 1e9 / 0.65, 1.0, delta=0.025)
        # the on fraction's standard error: sqrt(2) 0.35 0.65 / sqrt(5 10^4) = 0.0014
        self.assertAlmostEqual(sum(on) / (sum(on) + sum(off)), 0.35, delta=0.007)

    def test_initial_state_and_lifetimes(self):
        s = spec(lifetime_s=60.0)
        gap = onoff.packet_ns(s)
        plans = [onoff.flow_plan(s, f, True) for f in range(N)]
        # binomial standard error sqrt(0.35 0.65 / 10^5) = 0.0015
        self.assertAlmostEqual(sum(p[2] for p in plans) / N, 0.35, delta=0.0075)
        # phases uniform on [0, gap): mean gap / 2, standard error 0.09 % of gap
        self.assertTrue(all(0 <= p[3] < gap for p in plans))
        self.assertAlmostEqual(sum(p[3] for p in plans) / N / gap, 0.5, delta=0.005)
        # exponential lifetimes: standard error 0.3 %
        self.assertAlmostEqual(sum(p[1] for p in plans) / N / 60e9, 1.0, delta=0.015)
        arriving = [onoff.flow_plan(s, f, False) for f in range(200)]
        self.assertTrue(all(p[2] and p[3] == 0 for p in arriving))
        first = next(onoff.packets(s, 3, initial=False, horizon_ns=10**10))
        self.assertEqual(first[:2], ("on", 0))

    def test_arrivals_poisson(self):
        s = spec(arrivals_per_s=5.0, duration_s=N / 5.0)
        ts = list(onoff.arrivals_ns(s))
        # the count is Poisson of mean 10^5: standard deviation 316
        self.assertAlmostEqual(len(ts), N, delta=1600)
        self.assertTrue(all(0 < a < b for a, b in zip(ts, ts[1:])))
        self.assertLess(ts[-1], s.duration_s * 1e9)
        gaps = [b - a for a, b in zip(ts, ts[1:])]
        self.assertAlmostEqual(sum(gaps) / len(gaps) / 0.2e9, 1.0, delta=0.015)
        # exponential gaps: P(gap > mean) = 1/e, binomial standard error 0.0015
        self.assertAlmostEqual(sum(g > 0.2e9 for g in gaps) / len(gaps), math.exp(-1),
                               delta=0.0075)
        self.assertEqual(list(onoff.arrivals_ns(spec())), [])

    def test_packets_follow_the_on_time(self):
        s = spec(size_bytes=200, on_s=0.2, off_s=0.3)      # 25 ms packets: ~8 per period
        gap = onoff.packet_ns(s)
        horizon = 20000 * 10**9                             # 4 x 10^4 on periods
        on_ns, count, cur, prev = 0, 0, None, None
        for kind, t, x in onoff.packets(s, 0, horizon_ns=horizon):
            if kind == "on":
                self.assertTrue(cur is None or t > cur[0] + cur[1], "on periods overlap")
                cur, prev = (t, x), None
                on_ns += x
                continue
            self.assertEqual(x, count, "sequence numbers run in order")
            self.assertTrue(cur[0] <= t < cur[0] + cur[1], "packet %d outside an on period" % x)
            if prev is not None:
                self.assertLessEqual(abs(t - prev - gap), 1)
            prev = t
            count += 1
        # the carried remainder: the flow sends its on-time over the
        # packet time to within one packet, over 3 x 10^5 packets
        self.assertLessEqual(abs(count - on_ns / gap), 1.0)
        self.assertAlmostEqual(count * gap / horizon, 0.4, delta=0.01)

    def test_seeds_repeat(self):
        def sched(sp, flow):
            return list(onoff.packets(sp, flow, horizon_ns=30 * 10**9))
        a = sched(spec(), 0)
        self.assertEqual(a, sched(spec(), 0))
        self.assertNotEqual(a, sched(spec(), 1))
        self.assertNotEqual(a, sched(spec(seed=6), 0))
        self.assertGreater(len(a), 100)
        arr = spec(arrivals_per_s=2.0)
        self.assertEqual(list(onoff.arrivals_ns(arr)), list(onoff.arrivals_ns(arr)))
        self.assertNotEqual(list(onoff.arrivals_ns(arr)),
                            list(onoff.arrivals_ns(spec(arrivals_per_s=2.0, seed=6))))


class TestLoopback(unittest.TestCase):
    def test_dscp_is_set(self):
        for dst, level, opt in ((("127.0.0.1", 9), socket.IPPROTO_IP, socket.IP_TOS),
                                (("::1", 9), socket.IPPROTO_IPV6, socket.IPV6_TCLASS)):
            for dscp, tos in ((46, 184), (None, 0)):
                with self.subTest(dst=dst[0], dscp=dscp):
                    s = onoff._flow_socket(spec(dst=dst, size_bytes=200, dscp=dscp))
                    try:
                        self.assertEqual(s.getsockopt(level, opt), tos)
                        self.assertNotEqual(s.getsockname()[1], 0)
                    finally:
                        s.close()

    def test_pair(self):
        rx = onoff.Receiver(("127.0.0.1", 0)).start()
        sent = []
        try:
            s = spec(dst=("127.0.0.1", rx.port), flows=4, arrivals_per_s=3.0, lifetime_s=1.5,
                     peak_bps=1e6, size_bytes=200, on_s=0.2, off_s=0.2, duration_s=3.0,
                     seed=9, dscp=46)
            born = onoff.run_flows(s, sent.append, run=77)
        finally:
            got = rx.stop()
        self.assertEqual(born, len(sent))
        self.assertEqual(rx.bad, 0)
        self.assertEqual(sorted(r["flow"] for r in sent), list(range(born)))
        self.assertEqual(born, 4 + len(list(onoff.arrivals_ns(s))))
        self.assertGreater(born, 5)
        births = [0] * 4 + list(onoff.arrivals_ns(s))
        by_flow = {r["flow"]: r for r in got}
        gap = onoff.packet_ns(s)
        t0 = min(r["birth_ns"] for r in sent)
        for r in sent:
            f = r["flow"]
            with self.subTest(flow=f):
                self.assertEqual(r["status"], "ok")
                self.assertEqual(r["run"], 77)
                self.assertEqual(r["birth_ns"] - t0, births[f])
                horizon = int(s.duration_s * 1e9) - births[f]
                due = [t for k, t, _ in onoff.packets(s, f, f < 4, horizon) if k == "pkt"]
                self.assertEqual(r["packets"], len(due))
                self.assertEqual(r["bytes"], 200 * len(due))
                self.assertLessEqual(abs(r["packets"] - r["on_ns"] / gap), 1.0)
                if not due:
                    self.assertNotIn(f, by_flow)
                    continue
                g = by_flow[f]
                self.assertEqual((g["packets"], g["bytes"], g["lost"], g["reordered"]),
                                 (r["packets"], r["bytes"], 0, 0))
                self.assertEqual(g["seq_max"], len(due) - 1)
                self.assertEqual(g["peer_port"], r["local_port"])
                self.assertTrue(0 <= g["delay_min_ns"] <= g["delay_mean_ns"] <= g["delay_max_ns"])
                # a thread sleeping to an absolute time wakes within a few ms
                # even on a loaded 2-core machine; 50 ms is ten times that, and
                # far below a drift of one packet time (1.6 ms) per packet
                for got_ns, due_ns in ((g["first_ns"], due[0]), (g["last_ns"], due[-1])):
                    self.assertLess(abs(got_ns - (r["birth_ns"] + due_ns)), 50e6)
        self.assertEqual(len(got), sum(1 for r in sent if r["packets"]))
        j = onoff.join(sent, got)
        self.assertEqual([x["lost"] for x in j], [0] * len(sent))
        ss = onoff.summarise_sent(sent)
        sr = onoff.summarise_received(got, rx.bad)
        self.assertEqual((ss["packets"], ss["bytes"]), (sr["packets"], sr["bytes"]))
        self.assertEqual(sr["lost"], 0)

    def test_cli_pair(self):
        prog = os.path.join(MININET, "onoff.py")
        with tempfile.TemporaryDirectory() as d:
            rx_out, tx_out = os.path.join(d, "rx.jsonl"), os.path.join(d, "tx.jsonl")
            rx = subprocess.Popen(["/usr/bin/python3", prog, "recv", "--listen", "127.0.0.1:0",
                                   "--out", rx_out], stderr=subprocess.PIPE, text=True)
            try:
                line = rx.stderr.readline()
                self.assertRegex(line, r"^onoff: receiving on 127.0.0.1:\d+$")
                port = line.strip().rpartition(":")[2]
                tx = subprocess.run(["/usr/bin/python3", prog, "send", "--to",
                                     "127.0.0.1:" + port, "--flows", "3", "--peak", "500kbit",
                                     "--on", "0.1", "--off", "0.1", "--duration", "1.5",
                                     "--out", tx_out], capture_output=True, text=True,
                                    timeout=60)
            finally:
                rx.send_signal(signal.SIGTERM)
                rx_err = rx.communicate(timeout=60)[1]
            self.assertEqual(tx.returncode, 0, tx.stderr)
            self.assertEqual(rx.returncode, 0, rx_err)
            self.assertRegex(tx.stderr, r'^onoff: \{.*"packets": \d+')
            self.assertIn('"lost": 0', rx_err)
            with open(tx_out) as f:
                sent = [json.loads(x) for x in f]
            with open(rx_out) as f:
                got = [json.loads(x) for x in f]
        self.assertEqual(sorted(r["flow"] for r in sent), [0, 1, 2])
        self.assertEqual([(x["sent"], x["lost"]) for x in onoff.join(sent, got)],
                         [(r["packets"], 0) for r in sorted(sent, key=lambda r: r["flow"])])
        self.assertGreater(sum(r["packets"] for r in sent), 50)

    def test_flow_without_socket(self):
        real = onoff._flow_socket
        calls = []

        def failing(sp):
            calls.append(1)
            if len(calls) == 2:
                raise OSError(24, "Too many open files")
            return real(sp)
        onoff._flow_socket = failing
        try:
            sent = []
            onoff.run_flows(spec(dst=("127.0.0.1", 9), flows=3, duration_s=0.3), sent.append)
        finally:
            onoff._flow_socket = real
        by_flow = {r["flow"]: r for r in sent}
        self.assertEqual(sorted(by_flow), [0, 1, 2])
        bad = by_flow[1]
        self.assertEqual(bad["status"], "error: no socket: Too many open files")
        self.assertEqual((bad["packets"], bad["local_port"], bad["on_ns"]), (0, None, 0))
        self.assertEqual(bad["death_ns"], bad["birth_ns"])
        self.assertEqual([by_flow[f]["status"] for f in (0, 2)], ["ok", "ok"])

    def test_receiver_counts_gaps_and_bad(self):
        rx = onoff.Receiver(("127.0.0.1", 0))
        peer = ("127.0.0.1", 5000)
        for seq in (0, 1, 4, 3):
            data = bytearray(172)
            onoff.HDR.pack_into(data, 0, onoff.MAGIC, 1, 2, seq, 1000)
            rx._count(bytes(data), peer, 1000 + 10 * (seq + 1))
        rx._count(b"junk", peer, 0)
        # datagrams the kernel holds when the stop comes are counted: stop
        # before the thread runs, so that only the final drain reads them
        tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        for seq in range(3):
            data = bytearray(72)
            onoff.HDR.pack_into(data, 0, onoff.MAGIC, 1, 3, seq, time.time_ns())
            tx.sendto(data, ("127.0.0.1", rx.port))
        tx.close()
        rx._stop.set()
        rx.start()
        rec, drained = rx.stop()
        self.assertEqual(rx.bad, 1)
        self.assertEqual((drained["flow"], drained["packets"], drained["bytes"], drained["lost"]),
                         (3, 3, 3 * 100, 0))
        self.assertEqual(drained["peer"], "127.0.0.1")
        self.assertEqual((rec["packets"], rec["bytes"], rec["seq_max"], rec["lost"],
                          rec["reordered"]), (4, 4 * 200, 4, 1, 1))
        self.assertEqual((rec["delay_min_ns"], rec["delay_max_ns"]), (10, 50))
        self.assertEqual(rec["delay_mean_ns"], (10 + 20 + 50 + 40) / 4)


if __name__ == "__main__":
    unittest.main()
