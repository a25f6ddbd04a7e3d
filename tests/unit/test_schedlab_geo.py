"""test_schedlab_geo.py - geo.py's library modules without Mininet.

  SCHEDTUN=/path/to/schedtun /usr/bin/python3 -m unittest -v test_schedlab_geo
(run from tests/unit; ctest's unit.schedlab_geo does exactly this).

  - Traffic: schedlab.traffic's checks (each bad field named with what is
    accepted) and its commands (ports, DSCP, flows, EF's iperf3 rate
    scaled to the IP level, efgen's cosine, the file names of the
    contract);
  - Follow: schedlab.follow's live lines on a growing stats file (a line
    being written waits), follow()'s end, daemon death and deadline;
  - Results: schedlab.results.results() on a synthetic run directory
    (stats lines with known rates, iperf3 files): the window means,
    eqs. 7/8, rates.csv, credit.csv, every summary.json key of the
    contract, the warnings for missing iperf3 output;
  - the geoio re-export for users' scripts.
"""
import io
import json
import os
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "mininet"))

from pytools import tool  # noqa: E402
import geo  # noqa: E402
from schedlab import follow, geospec, outputs, results, theory, traffic  # noqa: E402
from test_theory import stats_line  # noqa: E402

M = 1e6


def spec(**kw):
    """A TrafficSpec with the paper's defaults, fields overridden by kw."""
    base = dict(dst_ip="10.10.0.2", out="/o", duration_s=30.0,
                ef=theory.parse_spec("10Mbit"), ef_tool="efgen", efgen="/b/schedtun-efgen",
                af_flows=10, cs0_flows=3)
    base.update(kw)
    return traffic.TrafficSpec(**base)


class Traffic(unittest.TestCase):
    def test_bad_specs_name_field_and_accepted(self):
        cosine = theory.parse_spec("cosine:10Mbit:0.6:6.1s")
        for kw, start in ((dict(ef_tool="udp"), "ef_tool 'udp': unknown (accepted: efgen, iperf)"),
                          (dict(efgen=None), "efgen 'None': no schedtun-efgen path"),
                          (dict(ef_tool="iperf", ef=cosine),
                           "ef 'cosine:10000000:0.6:6.1': a time-varying EF needs"),
                          (dict(af_flows=0), "af_flows '0': out of range (accepted: 1..64)"),
                          (dict(cs0_flows=65), "cs0_flows '65': out of range"),
                          (dict(cs0_flows=True), "cs0_flows 'True'"),
                          (dict(duration_s=0), "duration_s '0': must be above 0 s")):
            with self.subTest(kw=kw):
                with self.assertRaises(traffic.TrafficError) as cm:
                    traffic.check(spec(**kw))
                self.assertTrue(str(cm.exception).startswith(start), str(cm.exception))
        self.assertIsNotNone(traffic.check(spec(ef_tool="iperf", efgen=None)))

    def test_efgen_commands(self):
        s = spec(ef=theory.parse_spec("cosine:10Mbit:0.6:6.1s"))
        servers = traffic.server_cmds(s)
        self.assertEqual([(n, log) for n, _, log in servers],
                         [("server-af", "iperf-server-af.log"),
                          ("server-cs0", "iperf-server-cs0.log"),
                          ("server-efgen", "efgen-sink.log")])
        self.assertEqual(servers[0][1], ["iperf3", "-s", "-1", "-J", "-B", "10.10.0.2",
                                         "-p", "5202"])
        sink = servers[2][1]
        self.assertEqual(sink[:4], ["/b/schedtun-efgen", "--sink", "--listen", "10.10.0.2:5301"])
        self.assertIn("/o/efgen-sink.jsonl", sink)
        self.assertEqual(sink[sink.index("--duration") + 1], "60")    # 30 s more than the traffic
        c = traffic.client_cmds(s)
        self.assertEqual(list(c), ["ef", "af", "cs0"])
        ef = c["ef"]
        self.assertEqual(ef[ef.index("--rate") + 1], "cosine:10000000:0.6:6.1")
        self.assertEqual(ef[ef.index("--size") + 1], "1228")
        self.assertEqual(ef[ef.index("--tos") + 1], "0xb8")
        self.assertIn("/o/efgen-send.jsonl", ef)
        af, cs0 = c["af"], c["cs0"]
        self.assertEqual((af[af.index("-P") + 1], af[af.index("--tos") + 1],
                          af[af.index("-p") + 1]), ("10", "0x28", "5202"))
        self.assertNotIn("--tos", cs0)
        self.assertEqual((cs0[cs0.index("-P") + 1], cs0[cs0.index("-p") + 1]), ("3", "5203"))
        self.assertEqual(cs0[cs0.index("--logfile") + 1], "/o/iperf-cs0.json")
        self.assertEqual(af[af.index("-t") + 1], "30")

    def test_iperf_ef_rate_is_scaled_to_ip(self):
        s = spec(ef_tool="iperf", ef=theory.parse_spec("8Mbit"))
        self.assertEqual([n for n, _, _ in traffic.server_cmds(s)],
                         ["server-ef", "server-af", "server-cs0"])
        ef = traffic.client_cmds(s)["ef"]
        # iperf3 -b counts the 1200-byte payload: 8e6 * 1200 / 1228
        self.assertEqual(ef[ef.index("-b") + 1], "%d" % round(8e6 * 1200 / 1228))
        self.assertEqual((ef[ef.index("-l") + 1], ef[ef.index("-p") + 1]), ("1200", "5201"))
        self.assertIn("-u", ef)
        self.assertEqual(ef[ef.index("--logfile") + 1], "/o/iperf-ef.json")


class Follow(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, "stats-a.jsonl")
        open(self.path, "w").close()

    def tearDown(self):
        self.tmp.cleanup()

    def append(self, text):
        with open(self.path, "a") as f:
            f.write(text)

    def test_live_lines_as_the_file_grows(self):
        fol = follow.Follower(self.path, offset_s=2.0)
        self.assertEqual(fol.poll(), [])
        # 1250000 B a second = 10 Mbit/s
        self.append(json.dumps(stats_line(3.0, 1250000, 1000000, 250000, 4321.4)) + "\n")
        self.append('{"t": 4.0, "link"')                     # being written
        self.assertEqual(fol.poll(), [
            "t=   1.0 s  EF  10.00  AF   8.00  CS0   2.00  link  20.00 Mbit/s"
            "  AF credit      4321 prio 1"])
        self.assertEqual(fol.poll(), [])
        with open(self.path, "w") as f:     # line 2 complete, then a last 0.5-s line
            f.write(json.dumps(stats_line(3.0, 1250000, 1000000, 250000, 4321.4)) + "\n")
            ln = stats_line(4.0, 1250000, 0, 0)
            f.write(json.dumps(ln) + "\n")
            f.write(json.dumps(stats_line(4.5, 625000, 0, 0)) + "\n")
        self.assertEqual(fol.poll(), [
            "t=   2.0 s  EF  10.00  AF   0.00  CS0   0.00  link  10.00 Mbit/s",
            "t=   2.5 s  EF  10.00  AF   0.00  CS0   0.00  link  10.00 Mbit/s"])

    def test_follow_ends_dies_and_times_out(self):
        self.append(json.dumps(stats_line(1.0, 125000, 0, 0)) + "\n")
        live = io.StringIO()
        left = [2]

        def done():
            left[0] -= 1
            return left[0] <= 0
        warn = follow.follow(follow.Follower(self.path, 0.0), live, True, done,
                             lambda: None, time.monotonic() + 100, poll_s=0.01)
        self.assertEqual(warn, [])
        self.assertEqual(live.getvalue().count("\n"), 1)
        self.assertIn("EF   1.00", live.getvalue())
        with self.assertRaisesRegex(KeyError, "daemon-a exited"):
            follow.follow(follow.Follower(self.path, 0.0), io.StringIO(), True,
                          lambda: False, lambda: "daemon-a exited", time.monotonic() + 3,
                          grace_s=0.0, poll_s=0.01, error=KeyError)
        warn = follow.follow(follow.Follower(self.path, 0.0), io.StringIO(), True,
                             lambda: False, lambda: None, time.monotonic() - 1.0,
                             grace_s=0.5, poll_s=0.01)
        self.assertEqual(warn, ["clients still running 0.5s after the end: stopped"])


# every summary.json key geo.py wrote before the library (the contract;
# mininet/README.md "Outputs"); provenance is added by geo.py itself
SUMMARY_KEYS = {"tool", "finished", "window_s", "window_intervals",
                "traffic_start_after_launch_s", "sender_offset_s", "iperf_lag_s",
                "classes", "link", "ef_owd_ms", "config", "schedtun", "machine", "warnings"}
CLASS_KEYS = {"measured_mbps", "theory_mbps", "rel_error", "theory", "theory_instant_mbps",
              "theory_window_mbps", "iperf_mbps"}
CONFIG_KEYS = {"sched", "scheduler_group", "conf", "sched_params", "capacity",
               "capacity_mean_bps", "capacity_amplitude", "capacity_period_s", "ef",
               "ef_mean_bps", "ef_amplitude", "ef_period_s", "ef_exp_bps", "ef_tool",
               "ef_packet_ip_bytes", "delay_one_way_s", "rtt_s", "af_flows", "cs0_flows",
               "tcp", "duration_s", "warmup_s", "weights", "l_af", "l_cs0", "k_af",
               "k_af_from", "return_path", "tunnel_mtu"}


class Results(unittest.TestCase):
    """results() on a run directory written by hand: the sender daemon
    started 1 s before the traffic, EF 8 Mbit/s from the first second, AF
    9 and CS0 3 Mbit/s, 12 one-second intervals; window 2..10 s."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.out = self.tmp.name
        self.a = geo.parse_args(["--schedtun", tool("SCHEDTUN", "schedtun"),
                                 "--ef-tool", "iperf", "--sched", "pss", "--ef", "8Mbit",
                                 "--duration", "10", "--warmup", "2", "--no-plot",
                                 "--af-flows", "2", "--cs0-flows", "2"])
        self.a.out = self.out
        with open(os.path.join(self.out, "stats-a.jsonl"), "w") as f:
            for t in range(1, 13):
                f.write(json.dumps(stats_line(float(t), 1000000, 1125000, 375000,
                                              1000.0 * t)) + "\n")
        with open(os.path.join(self.out, "stats-b.jsonl"), "w") as f:
            for t in range(1, 13):
                ln = stats_line(float(t), 0, 0, 0)
                ln["rx"] = {"ef": {"pkts": 800, "owd_ms": {"avg": 250.0 + t, "p99": 260.0,
                                                           "max": 270.0 + t}}}
                f.write(json.dumps(ln) + "\n")
        # iperf3's AF receiver intervals: 8 s at 8.5 Mbit/s
        doc = {"intervals": [{"sum": {"end": float(t), "bits_per_second": 8.5e6}}
                             for t in range(1, 9)]}
        with open(os.path.join(self.out, "iperf-af.json"), "w") as f:
            json.dump(doc, f)
        with open(os.path.join(self.out, "iperf-cs0.json"), "w") as f:
            json.dump({"error": "unable to connect to server"}, f)

    def tearDown(self):
        self.tmp.cleanup()

    def run_results(self):
        a = self.a
        sched_group = geospec.sched_group_text(a)
        model = geospec.theory_model(a, sched_group)
        warnings = []
        s = results.results(a, model, sched_group, {"h1": 100.0, "h2": 100.5}, 101.0,
                            None, warnings)
        return s, warnings

    def test_time_zero_by_the_rate_ef_starts_at(self):
        """EF's first interval carries 8 Mbit; a cosine of mean 8, amplitude
        0.5 starts at its peak, 12 Mbit/s: EF began 2/3 s before that
        interval's end, not 1 s (its mean): time 0 = 1/3 s after launch."""
        self.a.ef_spec = theory.RateSpec(8 * M, 0.5, 6.0)
        sched_group = geospec.sched_group_text(self.a)
        s = results.results(self.a, geospec.theory_model(self.a, sched_group), sched_group,
                            {"h1": 100.0, "h2": 100.5}, 100.0, None, [])
        self.assertAlmostEqual(s["sender_offset_s"], 1.0 / 3.0)
        self.assertAlmostEqual(s["traffic_start_after_launch_s"], 1.0 / 3.0)

    def test_summary_and_files(self):
        s, warnings = self.run_results()
        self.assertEqual(set(s), SUMMARY_KEYS)
        for c in ("ef", "af", "cs0"):
            self.assertLessEqual(CLASS_KEYS, set(s["classes"][c]), c)
        self.assertEqual(set(s["config"]), CONFIG_KEYS)
        self.assertEqual(set(s["link"]), {"measured_mbps", "capacity_mbps"})
        # EF from the daemon's first interval: traffic time 0 = launch, offset 1 s
        self.assertEqual((s["traffic_start_after_launch_s"], s["sender_offset_s"]), (0.0, 1.0))
        self.assertEqual((s["window_s"], s["window_intervals"]), ([2.0, 10.0], 8))
        cl = s["classes"]
        self.assertAlmostEqual(cl["ef"]["measured_mbps"], 8.0)
        self.assertAlmostEqual(cl["af"]["measured_mbps"], 9.0)
        self.assertAlmostEqual(cl["cs0"]["measured_mbps"], 3.0)
        self.assertAlmostEqual(s["link"]["measured_mbps"], 20.0)
        # eqs. 7/8 at 9:2, C 20, R_EF = R_EF^exp = 8: AF 9/11 x 12
        self.assertAlmostEqual(cl["af"]["theory_mbps"], 9 / 11 * 12)
        self.assertAlmostEqual(cl["cs0"]["theory_mbps"], 12 - 9 / 11 * 12)
        self.assertAlmostEqual(cl["af"]["rel_error"], 9.0 / (9 / 11 * 12) - 1)
        self.assertEqual(cl["af"]["theory"], "eq. 7")
        self.assertAlmostEqual(cl["af"]["algorithm1_bw_c_mbps"], min(
            theory.pss_params(9, 1400, 2, 1400, 20 * M, 8 * M)["bw"] * 20, 12.0))
        # iperf3 shifted onto the daemon's clock by its lag (any lag fits a
        # constant rate: the first tried, -2 s); 8.5 over the window
        self.assertEqual(s["iperf_lag_s"], {"ef": 0, "af": -2, "cs0": 0})
        self.assertAlmostEqual(cl["af"]["iperf_mbps"], 8.5)
        self.assertIsNone(cl["cs0"]["iperf_mbps"])
        # the receiver: intervals 3..10 of daemon b (offset 0.5 s) in the window
        self.assertEqual(s["ef_owd_ms"]["max"], 280.0)
        self.assertEqual(s["ef_owd_ms"]["p99_max"], 260.0)
        self.assertEqual(warnings, s["warnings"])
        self.assertIn("no iperf3 intervals for cs0: unable to connect to server", warnings)
        self.assertTrue(any(w.startswith("no iperf3 intervals for ef") for w in warnings))
        with open(os.path.join(self.out, "summary.json")) as f:
            self.assertEqual(json.load(f)["classes"]["af"]["theory"], "eq. 7")
        rows = outputs.read_rates_csv(os.path.join(self.out, "rates.csv"))
        kinds = {(c, src) for _, c, _, src in rows}
        self.assertEqual(kinds, {(c, src) for c in ("ef", "af", "cs0", "link")
                                 for src in ("daemon", "theory")} | {("af", "iperf")})
        self.assertIn((1.0, "af", 9.0, "daemon"), rows)
        with open(os.path.join(self.out, "credit.csv")) as f:
            lines = f.read().splitlines()
        self.assertEqual(lines[:2], ["t,credit_bytes,prio", "0.000,1000.0,1"])
        self.assertEqual(len(lines), 13)
        self.assertFalse(os.path.exists(os.path.join(self.out, "rates.png")))   # --no-plot

    def test_geoio_reexports(self):
        import geoio
        from schedlab import measure, plot, runtheory
        self.assertIs(geoio.stats_lines, measure.stats_lines)
        self.assertIs(geoio.read_rates_csv, outputs.read_rates_csv)
        self.assertIs(geoio.window_theory, runtheory.window_theory)
        self.assertIs(geoio.plot, plot.rates_png)


if __name__ == "__main__":
    unittest.main()
