"""test_websess.py - mininet/schedlab/dists.py and schedlab/websess.py.

  /usr/bin/python3 -m unittest -v test_websess
(run from tests/unit; ctest's unit.websess does exactly this).

  - Distributions: the exponential's mean, the Pareto's shape (maximum
    likelihood) and scale, the truncated Pareto's CDF at its quantiles and
    its mean, recovered from 10^5 seeded draws within stated tolerances
    (a few standard errors; the draws are fixed, so the test is
    deterministic); seeds repeat, users differ.
  - The specification's refusals, each naming the value and what is
    accepted.
  - A run on loopback (no namespace needed: nothing leaves the host):
    four users against a sink for 1.5 s; every completed burst's bytes
    arrived, sender and sink records agree burst by burst (size, local
    port), times are ordered, Reno was set on the sockets, and the
    summary's eq. 2 is the hand computation over the records.
"""
import math
import os
import random
import socket
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "mininet"))

from schedlab import dists, websess  # noqa: E402

N = 100000


class TestDists(unittest.TestCase):
    def test_exponential_mean(self):
        rng = random.Random(1)
        xs = [dists.exponential(rng, 0.5) for _ in range(N)]
        # standard error 0.5 / sqrt(N) = 0.3 %: 1.5 % is 5 of them
        self.assertAlmostEqual(sum(xs) / N / 0.5, 1.0, delta=0.015)
        self.assertTrue(min(xs) > 0)

    def test_pareto_shape_and_scale(self):
        rng = random.Random(2)
        alpha, mean = 1.3, 30000.0
        k = dists.pareto_scale(alpha, mean)
        self.assertAlmostEqual(k, 6923.0769, places=3)     # Table 1's a = 6923
        xs = [dists.pareto(rng, alpha, mean) for _ in range(N)]
        self.assertGreaterEqual(min(xs), k)
        # P(min > k (1 + 1e-4)) = (1 + 1e-4)^(-alpha N) = e^-13
        self.assertLess(min(xs), k * (1 + 1e-4))
        # the MLE's standard error is alpha / sqrt(N) = 0.4 %
        self.assertAlmostEqual(dists.pareto_alpha_mle(xs, k) / alpha, 1.0, delta=0.02)

    def test_pareto_trunc_cdf_and_mean(self):
        rng = random.Random(3)
        alpha, mean = 1.3, 30000.0
        k = dists.pareto_scale(alpha, mean)
        top = 1000 * k
        xs = sorted(dists.pareto_trunc(rng, alpha, mean, top) for _ in range(N))
        self.assertGreaterEqual(xs[0], k)
        self.assertLessEqual(xs[-1], top)
        for q in (0.1, 0.5, 0.9, 0.99, 0.999):
            x = xs[int(q * N)]
            # the empirical CDF at its own quantile, against the formula:
            # binomial standard error below 0.0016
            self.assertAlmostEqual(dists.pareto_trunc_cdf(x, alpha, mean, top), q,
                                   delta=0.006, msg="quantile %g" % q)
        want = dists.pareto_trunc_mean(alpha, mean, top)
        self.assertLess(want, mean)
        # standard error about 1.3 % of the mean (finite variance once truncated)
        self.assertAlmostEqual(sum(xs) / N / want, 1.0, delta=0.05)

    def test_trunc_mean_closed_form(self):
        # alpha 2, k 1, max 2: CDF (1 - 1/x^2) / (3/4), mean = (4/3) * 2 * (1 - 1/2) = 4/3
        self.assertAlmostEqual(dists.pareto_trunc_mean(2.0, 2.0, 2.0), 4.0 / 3, places=12)
        self.assertEqual(dists.pareto_trunc_cdf(0.5, 2.0, 2.0, 2.0), 0.0)
        self.assertEqual(dists.pareto_trunc_cdf(2.0, 2.0, 2.0, 2.0), 1.0)
        self.assertAlmostEqual(dists.pareto_trunc_cdf(1.5, 2.0, 2.0, 2.0),
                               (1 - 1 / 2.25) / 0.75, places=12)

    def test_refusals(self):
        for args, msg in (((1.0, 30000.0), "alpha '1.0'"), ((1.3, 0), "mean '0'"),
                          ((1.3, 30000.0, 10.0), "max '10.0'")):
            with self.assertRaisesRegex(dists.DistError, msg):
                dists.check_pareto(*args)


def spec(**kw):
    base = dict(dst=("127.0.0.1", 9), users=4, mean_bytes=20000.0, max_bytes=200000.0,
                think_s=0.05, duration_s=1.5, grace_s=10.0, seed=7, cc="reno")
    base.update(kw)
    return websess.WebSpec(**base)


class TestSpec(unittest.TestCase):
    def test_draws_repeat(self):
        a = websess.draws(spec(), 0)
        b = websess.draws(spec(), 0)
        c = websess.draws(spec(), 1)
        d = websess.draws(spec(seed=8), 0)
        first = [next(a) for _ in range(100)]
        self.assertEqual(first, [next(b) for _ in range(100)])
        self.assertNotEqual(first, [next(c) for _ in range(100)])
        self.assertNotEqual(first, [next(d) for _ in range(100)])
        self.assertTrue(all(t > 0 and isinstance(s, int) and s >= 1 for t, s in first))

    def test_refusals(self):
        cases = ((dict(users=0), "users '0'"), (dict(alpha=0.9), "alpha '0.9'"),
                 (dict(think_s=0), "mean '0'"), (dict(dscp=64), "dscp '64'"),
                 (dict(duration_s=-1), "duration_s '-1'"),
                 (dict(cc="nosuchcc"), "cc 'nosuchcc': the kernel refused it"))
        for kw, msg in cases:
            with self.subTest(**kw):
                with self.assertRaisesRegex(websess.WebError, msg):
                    websess.check(spec(**kw))

    def test_parse_addr(self):
        self.assertEqual(websess.parse_addr("10.0.0.2:6000"), ("10.0.0.2", 6000))
        self.assertEqual(websess.parse_addr("[::1]:80"), ("::1", 80))
        for bad in ("10.0.0.2", "10.0.0.2:0", "10.0.0.2:65536", ":80", "h:x"):
            with self.assertRaisesRegex(websess.WebError, "address '%s'" % bad.replace("[", r"\[")):
                websess.parse_addr(bad)

    def test_summarise_by_hand(self):
        recs = [
            {"status": "ok", "size_bytes": 1000, "acked_bytes": 1000, "start_ns": 0,
             "end_ns": 1_000_000_000},
            {"status": "ok", "size_bytes": 3000, "acked_bytes": 3000, "start_ns": 0,
             "end_ns": 2_000_000_000},
            {"status": "cut: timed out", "size_bytes": 5000, "acked_bytes": None,
             "start_ns": 0, "end_ns": None},
        ]
        s = websess.summarise(recs)
        self.assertEqual(s["bursts"], 3)
        self.assertEqual(s["by_status"], {"ok": 2, "cut": 1})
        self.assertEqual(s["bytes"], 4000)
        # eq. 2: (8000 + 24000) bits / (1 + 2) s; throughput mean of 8000 and 12000
        self.assertAlmostEqual(s["session_rate_bps"], 32000 / 3)
        self.assertAlmostEqual(s["mean_throughput_bps"], 10000)


class TestLoopback(unittest.TestCase):
    def test_cc_is_set(self):
        s = socket.socket()
        try:
            websess._set_cc(s, "reno")
            got = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16)
            self.assertEqual(got.rstrip(b"\0"), b"reno")
        finally:
            s.close()

    def test_run(self):
        sink_recs = []
        sink = websess.Sink(("127.0.0.1", 0), sink_recs.append).start()
        try:
            sent = []
            n = websess.run_users(spec(dst=("127.0.0.1", sink.port)), sent.append)
        finally:
            sink.stop()
        self.assertEqual(n, len(sent))
        # 4 users, 1.5 s, think 0.05 s: dozens of bursts on loopback
        self.assertGreaterEqual(len(sent), 8)
        self.assertTrue(all(r["status"] == "ok" for r in sent),
                        [r["status"] for r in sent if r["status"] != "ok"])
        by_key = {(r["user"], r["burst"]): r for r in sink_recs}
        self.assertEqual(len(by_key), len(sink_recs))
        for r in sent:
            k = by_key.get((r["user"], r["burst"]))
            self.assertIsNotNone(k, "burst %s of user %s not at the sink" % (r["burst"], r["user"]))
            self.assertEqual(r["acked_bytes"], r["size_bytes"])
            self.assertEqual(k["bytes"], r["size_bytes"])
            self.assertEqual(k["size_bytes"], r["size_bytes"])
            self.assertEqual(k["peer_port"], r["local_port"])
            self.assertEqual(k["status"], "ok")
            self.assertTrue(r["start_ns"] <= r["connected_ns"] <= r["sent_ns"] <= r["end_ns"])
            self.assertTrue(k["accept_ns"] <= k["last_ns"] <= r["end_ns"])
        # each user's bursts are its seeded sizes, in order
        for u in range(4):
            mine = sorted((r for r in sent if r["user"] == u), key=lambda r: r["burst"])
            want = websess.draws(spec(), u)
            self.assertEqual([r["size_bytes"] for r in mine],
                             [next(want)[1] for _ in mine])
        s = websess.summarise(sent)
        bits = sum(r["acked_bytes"] * 8 for r in sent)
        secs = sum((r["end_ns"] - r["start_ns"]) / 1e9 for r in sent)
        self.assertAlmostEqual(s["session_rate_bps"], bits / secs)


if __name__ == "__main__":
    unittest.main()
