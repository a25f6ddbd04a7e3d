"""test_json_cli.py - the C tools' --json outputs (docs/json-output.md).

  SCHEDTUN=... SCHEDTUN_SIM=... /usr/bin/python3 -m unittest -v test_json_cli
(run from tests/unit; ctest's unit.json_cli does exactly this).

Each output is parsed with json.loads and checked against numbers worked by
hand (src/util/units.c's units, the PSS paper's 9:2 example) and against
the same tool's text output, so that the two cannot drift apart.
"""
import json
import os
import re
import subprocess
import tempfile
import unittest

from pytools import tool

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CONF = os.path.join(ROOT, "conf")


def run(argv, code=0):
    """(stdout, stderr) of argv, which must exit with `code`."""
    p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    if p.returncode != code:
        raise AssertionError("%s: exit %d, not %d\nstdout: %s\nstderr: %s"
                             % (" ".join(argv), p.returncode, code,
                                p.stdout, p.stderr))
    return p.stdout, p.stderr


def one_json_line(out):
    """The single JSON object that makes up out, on one line."""
    lines = out.splitlines()
    if len(lines) != 1:
        raise AssertionError("not one line: %r" % out[:300])
    return json.loads(lines[0])


class WithTmp(unittest.TestCase):
    """A class of tests with a scratch directory, self.tmp.name."""

    @classmethod
    def setUpClass(cls):
        cls.st = tool("SCHEDTUN", "schedtun")
        cls.tmp = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()


class CheckJson(WithTmp):
    """schedtun --check --json -f FILE."""

    def write(self, name, text):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def check(self, path, code=0):
        out, err = run([self.st, "--check", "--json", "-f", path], code)
        return one_json_line(out), err

    # Rates and durations as src/util/units.c reads them, worked by hand:
    # SI and binary prefixes, tc's bytes-per-second "bps", plain numbers.
    UNITS = [
        ("12.5Mbit", "1.5ms", 12500000, 1500000),
        ("20mbps", "250ms", 160000000, 250000000),
        ("1kibit", "2us", 1024, 2000),
        ("3Gbit", "0.25", 3000000000, 250000000),
        ("100000", "7ns", 100000, 7),
        ("1.5Mibit", "10s", 1572864, 10000000000),
    ]

    def test_link_rate_and_delay_in_base_units(self):
        for rate, delay, bps, ns in self.UNITS:
            path = self.write("u.conf", 'link = { rate = "%s"; delay = "%s"; };\n'
                              % (rate, delay))
            doc, err = self.check(path)
            self.assertEqual(err, "")
            link = doc["conf"]["link"]
            self.assertEqual((link["rate"], link["delay"]), (bps, ns),
                             (rate, delay))
            self.assertIsInstance(link["rate"], int)
            self.assertIsNone(link["profile"])

    def test_valid_file_shape_and_defaults(self):
        path = self.write("d.conf", 'tunnel = { address = "10.1.0.1/24"; '
                          'peer = "[::1]:4000"; listen = "[::]:5001"; };\n'
                          'classes = { ef = { dscp = [46]; limit = 7; }; };\n'
                          'stats = { interval = "250ms"; };\n')
        out, err = run([self.st, "--check", "--json", "-f", path])
        self.assertEqual(err, "")
        self.assertNotIn(": OK", out)
        doc = one_json_line(out)
        self.assertEqual(list(doc), ["file", "valid", "scheduler", "conf"])
        self.assertEqual((doc["file"], doc["valid"], doc["scheduler"]),
                         (path, True, "prio"))
        c = doc["conf"]
        self.assertEqual(c["tunnel"], {
            "tun": "tun0", "address": "10.1.0.1/24", "mtu": 1400,
            "listen": "[::]:5001", "peer": "[::1]:4000", "pool": 16384,
            "offload": True, "tun_gro": True, "realtime": 0, "allow": None,
            "key_file": None, "encrypt": False, "key_grace": 60000000000,
            "user": None, "group": None, "sandbox": True})
        self.assertEqual(c["link"], {"rate": 20000000, "profile": None,
                                     "delay": 0, "slack": 0, "spin": 20000})
        # a list replaces the class's defaults; 44 falls back to cs0
        self.assertEqual(c["classes"]["ef"], {"dscp": [46], "limit": 7})
        self.assertIn(44, c["classes"]["cs0"]["dscp"])
        self.assertEqual(c["classes"]["af"]["limit"], 1000)
        self.assertEqual(sorted(sum((c["classes"][k]["dscp"] for k in
                                     ("ef", "af", "cs0")), [])),
                         list(range(64)))
        self.assertEqual(c["scheduler"], {"name": "prio", "prio": {}})
        self.assertEqual(c["stats"], {"interval": 250000000, "file": "-",
                                      "packet_log": ""})
        # the text check still says OK on stdout without --json
        out, _ = run([self.st, "--check", "-f", path])
        self.assertEqual(out, "%s: OK (scheduler prio)\n" % path)

    def test_unlimited_and_profiles(self):
        path = self.write("n.conf", 'link = { rate = "unlimited"; };\n'
                          'scheduler = { name = "pss"; pss = { capacity = '
                          '"10Mbit"; }; };\n')
        doc, _ = self.check(path)
        self.assertEqual(doc["conf"]["link"]["rate"], "unlimited")
        self.assertEqual(doc["conf"]["scheduler"]["pss"]["capacity"],
                         10000000)
        doc, _ = self.check(os.path.join(CONF, "cosine.conf"))
        self.assertIsNone(doc["conf"]["link"]["rate"])
        self.assertEqual(doc["conf"]["link"]["profile"], {
            "kind": "cosine", "mean": 20000000, "amplitude": 0.3,
            "period": 15000000000})
        doc, _ = self.check(os.path.join(CONF, "mahimahi-sender.conf"))
        prof = doc["conf"]["link"]["profile"]
        self.assertEqual(prof["kind"], "mahimahi")
        self.assertTrue(prof["file"].endswith("traces/12mbit.mahi"), prof)

    def test_scheduler_values(self):
        path = self.write("s.conf", 'scheduler = { name = "dwrr"; dwrr = { '
                          'weights = { af = 9; cs0 = 2; }; packet_size = '
                          '1000; }; };\n')
        doc, _ = self.check(path)
        d = doc["conf"]["scheduler"]["dwrr"]
        # quantum = weight x packet_size (eq. 2); the custom key as written
        self.assertEqual(d["quantum"], {"af": 9000, "cs0": 2000})
        self.assertEqual(d["weights"], {"af": 9, "cs0": 2})
        self.assertEqual(d["packet_size"], 1000)
        path = self.write("p.conf", 'scheduler = { name = "pss"; pss = { '
                          'bw = 0.3; lm = 5000; queues = { af = { p_high = 1;'
                          ' p_low = 3; lr = 10; }; }; }; };\n')
        doc, _ = self.check(path)
        p = doc["conf"]["scheduler"]["pss"]
        self.assertEqual((p["bw"], p["lm"], p["idle_credit"]),
                         (0.3, 5000, True))
        self.assertEqual(p["queues"], {"af": {"p_high": 1, "p_low": 3,
                                              "lr": 10}})
        path = self.write("t.conf", 'scheduler = { name = "ticket"; ticket = {'
                          ' d = "20ms"; order = "flow"; }; };\n')
        doc, _ = self.check(path)
        t = doc["conf"]["scheduler"]["ticket"]
        self.assertEqual((t["d"], t["order"], t["variant"]),
                         (20000000, "flow", None))
        # defaults derived at start-up keep their documented placeholder
        self.assertEqual((t["capacity"], t["n_q"], t["n_eb"]), (0, 0, 256))

    def test_invalid_file(self):
        path = self.write("bad.conf", 'link = { rate = "fast"; bogus = 1; };\n'
                          'scheduler = { name = "nope"; };\n')
        out, err = run([self.st, "--check", "--json", "-f", path], 1)
        doc = one_json_line(out)
        self.assertEqual(list(doc), ["file", "valid", "errors"])
        self.assertEqual((doc["file"], doc["valid"]), (path, False))
        # the same lines as the text check prints, in its order
        _, text_err = run([self.st, "--check", "-f", path], 1)
        self.assertEqual(err, text_err)
        lines = text_err.splitlines()
        self.assertEqual(lines[-1], "schedtun: %s: 3 errors" % path)
        self.assertEqual(doc["errors"], lines[:-1])
        self.assertTrue(doc["errors"][0].startswith(path + ":1: link.bogus: "),
                        doc["errors"])
        self.assertTrue(any("link.rate: 'fast'" in e and "(accepted:" in e
                            for e in doc["errors"]), doc["errors"])
        # a file that cannot be read: same shape, message without a line
        out, _ = run([self.st, "--check", "--json", "-f",
                      os.path.join(self.tmp.name, "absent.conf")], 1)
        doc = one_json_line(out)
        self.assertFalse(doc["valid"])
        self.assertEqual(len(doc["errors"]), 1)
        self.assertIn("cannot read", doc["errors"][0])

    def test_json_needs_check(self):
        path = self.write("x.conf", "")
        _, err = run([self.st, "--json", "-f", path], 1)
        self.assertIn("--json without --check", err)

    def reference(self):
        out, _ = run([self.st, "--help-conf-json"])
        return one_json_line(out)

    def test_every_key_of_the_tables_is_in_conf(self):
        """Every key --help-conf-tsv lists is a member of --check --json's
        conf, for a file of each scheduler and of each profile kind.  A
        member may be null only where the reference calls the key custom
        (a scheduler's own parse, written as given)."""
        out, _ = run([self.st, "--help-conf-tsv"])
        sections, title = [], None
        for row in (ln.split("\t") for ln in out.splitlines()):
            if row[0] == "@section":
                title = row[2]
            else:
                sections.append((title, row[0]))
        types = {k["key"]: k["type"] for s in self.reference()["sections"]
                 for k in s["keys"]}
        files = ["cosine.conf", "mahimahi-sender.conf", "fifo-sender.conf",
                 "prio-sender.conf", "pss-sender.conf", "dwrr-sender.conf",
                 "pdrr-sender.conf", "dq-sender.conf", "ticket-sender.conf"]
        checked = set()
        for f in files:
            doc, _ = self.check(os.path.join(CONF, f))
            conf, sched = doc["conf"], doc["scheduler"]
            prof = conf["link"]["profile"]
            for title, key in sections:
                parts = key.split(".")
                if parts[0] == "scheduler" and len(parts) > 2 and \
                        parts[1] != sched:
                    continue            # another scheduler's group
                if key.startswith("link.profile.") and (prof is None or
                                                        prof["kind"] not in title):
                    continue            # another profile kind
                # the marker has no group for cs0: nothing is below it
                marked = key.startswith("marker.")
                for cls in ("ef", "af") if marked else ("ef", "af", "cs0"):
                    self.walk(conf, key, key.replace("<class>", cls)
                              .replace("<scheduler>", sched), types, f)
                checked.add(key)
        every = {k for _, k in sections}
        self.assertEqual(every - checked, set())

    def walk(self, conf, key, path, types, f):
        node, done = conf, []
        for part in path.split("."):
            self.assertIsInstance(node, dict, "%s: %s" % (f, path))
            self.assertIn(part, node, "%s: %s missing" % (f, path))
            node = node[part]
            done.append(part)
            if node is None or not isinstance(node, dict):
                break
        # stopped early: only at a null or a custom key's value as written
        if len(done) < len(path.split(".")):
            typed = ".".join(done)
            gen = ".".join(key.split(".")[:len(done)])
            self.assertEqual(types.get(gen, types.get(typed)), "custom",
                             "%s: %s stops at %s = %r" % (f, path, typed, node))


class HelpJson(unittest.TestCase):
    """--help-conf-json and --help-sched-json against the TSV and the
    text reference."""

    @classmethod
    def setUpClass(cls):
        cls.st = tool("SCHEDTUN", "schedtun")

    def test_conf_reference_matches_tsv(self):
        out, _ = run([self.st, "--help-conf-tsv"])
        rows = [ln.split("\t") for ln in out.splitlines()]
        out, _ = run([self.st, "--help-conf-json"])
        doc = one_json_line(out)
        flat = []
        for s in doc["sections"]:
            flat.append(["@section", s["section"], s["title"]])
            for k in s["keys"]:
                flat.append([k["key"], k["range"], k["default"] or "",
                             k["help"]])
        self.assertEqual(flat, rows)

    def test_sched_reference(self):
        out, _ = run([self.st, "--help-sched-json", "pss"])
        doc = one_json_line(out)
        self.assertEqual(doc["scheduler"], "pss")
        keys = {k["key"]: k for k in doc["keys"]}
        bw = keys["scheduler.pss.bw"]
        self.assertEqual((bw["type"], bw["min"], bw["max"], bw["min_open"],
                          bw["max_open"], bw["default"]),
                         ("number", 0, 1, True, True, "0.5"))
        lm = keys["scheduler.pss.lm"]
        self.assertEqual((lm["type"], lm["min"], lm["unit"]),
                         ("bytes", 1, "bytes"))
        self.assertEqual(keys["scheduler.pss.capacity"]["type"], "rate")
        self.assertIn("scheduler.pss.queues.<class>.p_high", keys)
        # the text reference names the same keys, in the same order
        out, _ = run([self.st, "--help-sched", "pss"])
        text_keys = [ln.split(":")[0].strip() for ln in out.splitlines()
                     if ln.startswith("  scheduler.pss.")]
        self.assertEqual(text_keys, [k["key"] for k in doc["keys"]])
        d = one_json_line(run([self.st, "--help-sched-json", "ticket"])[0])
        dk = {k["key"]: k for k in d["keys"]}
        self.assertEqual((dk["scheduler.ticket.d"]["type"],
                          dk["scheduler.ticket.d"]["max"] > 0), ("duration", True))
        _, err = run([self.st, "--help-sched-json", "nope"], 1)
        self.assertIn("'nope' is not a scheduler (accepted:", err)


PARAMS_92 = ["params", "pss", "--w-af", "9", "--w-cs0", "2", "--l-af", "1500",
             "--l-cs0", "1500", "--capacity", "20Mbit", "--ef-exp", "10Mbit"]
PARAMS_32 = ["params", "pss", "--w-af", "3", "--w-cs0", "2", "--l-af", "1000",
             "--l-cs0", "500", "--capacity", "10Mbit", "--ef-exp", "2Mbit",
             "--lr", "bound"]


def text_number(text, label):
    """The number after "LABEL = " at the start of a line of text."""
    m = re.search(r"^%s = ([0-9.]+)" % re.escape(label), text, re.M)
    if not m:
        raise AssertionError("no line %r in the report" % label)
    return float(m.group(1))


class ParamsJson(unittest.TestCase):
    """schedtun params pss ... --json."""

    @classmethod
    def setUpClass(cls):
        cls.st = tool("SCHEDTUN", "schedtun")

    def params(self, args):
        out, _ = run([self.st] + args + ["--json"])
        return one_json_line(out)

    def test_paper_example_9_2(self):
        """The paper's 9:2 at equal sizes, C = 20 Mbit/s, R_EF^exp =
        10 Mbit/s, worked by hand."""
        d = self.params(PARAMS_92 + ["--no-sim"])
        self.assertAlmostEqual(d["k_af"], 9 / 11, places=15)      # eq. 2
        self.assertAlmostEqual(d["b"], 8 / 9, places=15)          # eq. 4
        self.assertAlmostEqual(d["bw"], 4 / 9, places=15)         # eq. 3
        self.assertEqual(d["lm_bytes"], 6667)     # 1500*8*(5/9) = 6666.67
        self.assertEqual(d["lr_bytes"], 0)
        self.assertAlmostEqual(d["lr_bound_bytes"], 1500 * 4 / 9, places=9)
        self.assertEqual(d["dwrr"], {"quantum_af_bytes": 13500,
                                     "quantum_cs0_bytes": 3000})
        t = d["theory"]
        self.assertAlmostEqual(t["wrr_af_bps"], 9 / 11 * 10e6, places=4)
        self.assertAlmostEqual(t["wrr_cs0_bps"], 2 / 11 * 10e6, places=4)
        self.assertAlmostEqual(t["pss_af_bps"], 9 / 11 * 10e6, places=4)
        self.assertAlmostEqual(t["pss_cs0_bps"], 2 / 11 * 10e6, places=4)
        self.assertFalse(t["eq7_limited"])
        cal = d["calibrated"]
        self.assertAlmostEqual(cal["bw"], 9 / 22, places=15)
        # LR = ceil(2*1500*9/22) = ceil(1227.27) = 1228;
        # LM = LR + max(round(1500*8*(13/22)) = 7091, ceil(16*1500*2/11))
        self.assertEqual((cal["lr_bytes"], cal["lm_bytes"]), (1228, 1228 + 7091))
        self.assertTrue(cal["lr_raised"])
        self.assertEqual(d["inputs"]["capacity_bps"], 20000000)
        self.assertEqual((d["inputs"]["ef_bps"], d["inputs"]["ef_given"]),
                         (10000000, False))
        self.assertIsNone(d["sim"])
        self.assertIsNone(d["paper"]["startup_s"])      # LR = 0: none

    def test_lr_bound_example_3_2(self):
        """3:2 with L_AF = 1000, L_CS0 = 500, C = 10 Mbit/s, R_EF^exp =
        2 Mbit/s, LR at the 2.1 bound, worked by hand."""
        d = self.params(PARAMS_32 + ["--no-sim"])
        self.assertAlmostEqual(d["k_af"], 0.75, places=15)  # 3000/4000
        self.assertAlmostEqual(d["b"], 0.8, places=15)      # 2000/2500
        self.assertAlmostEqual(d["bw"], 0.64, places=15)    # 0.8*8/10
        self.assertEqual(d["lr_bytes"], 640)                # 1000*0.64
        self.assertEqual(d["lm_bytes"], 720 + 640)          # 1000*2*0.36 + LR
        self.assertEqual(d["inputs"]["l_max_bytes"], 1000)
        self.assertEqual(d["inputs"]["lr_mode"], "bound")
        p = d["paper"]
        # each AF packet nets 1000*(1 - 0.64*10/8) = 200 bytes: 720/200
        self.assertAlmostEqual(p["window_pkts"], 3.6, places=9)
        # 1360*8 / ((10e6 - 2e6)*0.36 - 2e6*0.64) = 10880/1.6e6
        self.assertAlmostEqual(p["startup_s"], 0.0068, places=12)
        self.assertAlmostEqual(p["lm_eq5_bytes"], 720, places=9)

    def test_matches_the_text_report(self):
        for args in (PARAMS_92, PARAMS_32):
            args = args + ["--sim-time", "10s"]
            d = self.params(args)
            text, _ = run([self.st] + args)
            self.assertEqual(round(d["k_af"], 6), text_number(text, "K_AF"))
            self.assertEqual(round(d["b"], 6), text_number(text, "B"))
            self.assertEqual(round(d["bw"], 6), text_number(text, "BW"))
            self.assertEqual(d["lm_bytes"], text_number(text, "LM"))
            self.assertEqual(d["lr_bytes"], text_number(text, "LR"))
            self.assertEqual(round(d["lr_bound_bytes"], 2),
                             text_number(text, "LR lower bound"))
            self.assertEqual(d["dwrr"]["quantum_af_bytes"],
                             text_number(text, "DWRR quantum AF"))
            for key, label in (("wrr_af_bps", "DWRR AF"),
                               ("pss_cs0_bps", "PSS CS0")):
                self.assertEqual(round(d["theory"][key] / 1e6, 3),
                                 text_number(text, label))
            # both blocks verbatim, and both load in this build
            for rule in ("paper", "calibrated"):
                block = d["blocks"][rule]["text"]
                self.assertIn(block, text)
                self.assertIn("lm = %d; lr = %d;" % (d[rule]["lm_bytes"],
                                                     d[rule]["lr_bytes"]),
                              block)
                self.assertEqual(d["blocks"][rule]["errors"], 0)
            self.assertEqual(d["blocks"]["main"], "paper")
            # the simulator's AF and CS0 rates of each set
            sims = re.findall(r"^simulated \(Algorithm 1, faithful\), "
                              r"[^:]*: ([0-9.]+) Mbit/s.*\n\s+CS0 ([0-9.]+)",
                              text, re.M)
            self.assertEqual(len(sims), 2, text)
            for rule, (af, cs0) in zip(("paper", "calibrated"), sims):
                got = d["sim"][rule]
                self.assertEqual(round(got["af_bps"] / 1e6, 3), float(af))
                self.assertEqual(round(got["cs0_bps"] / 1e6, 3), float(cs0))
            self.assertEqual(d["sim"]["duration_ns"], 10 * 10**9)

    def test_bad_input_is_not_json(self):
        _, err = run([self.st] + PARAMS_92[:-2] + ["--json"], 1)
        self.assertIn("--ef-exp is required", err)


class SimJson(WithTmp):
    """schedtun-sim ... --json FILE against its summary table."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.sim = tool("SCHEDTUN_SIM", "schedtun-sim")

    def simulate(self, conf, *srcs, code=0):
        path = os.path.join(self.tmp.name, "sim.json")
        if os.path.exists(path):
            os.unlink(path)
        _, err = run([self.sim, "-f", os.path.join(CONF, conf), "-d", "20",
                      "-w", "2", "-s", "0", "--json", path] + list(srcs),
                     code)
        with open(path) as f:
            return one_json_line(f.read()), err

    def table(self, err):
        """{class: (mean Mbit/s, share %, drops)} from the summary."""
        rows = {}
        for ln in err.splitlines():
            m = re.match(r"^(ef|af|cs0)\s+.*?\s+([0-9.]+)\s+([0-9.]+)%\s+"
                         r"([0-9]+)$", ln)
            if m:
                rows[m.group(1)] = (float(m.group(2)), float(m.group(3)),
                                    int(m.group(4)))
        return rows

    def test_summary_matches_table(self):
        d, err = self.simulate("pss-sender.conf", "--ef", "cbr:10Mbit:1500",
                               "--af", "greedy", "--cs0", "greedy")
        rows = self.table(err)
        self.assertEqual(set(rows), {"ef", "af", "cs0"})
        for k, (mbit, share, drops) in rows.items():
            c = d["classes"][k]
            self.assertEqual(round(c["mean_bps"] / 1e6, 4), mbit, k)
            self.assertEqual(round(c["share_of_c"] * 100, 2), share, k)
            self.assertEqual(c["drop_pkts"], drops, k)
        self.assertEqual((d["scheduler"], d["duration_ns"], d["warmup_ns"]),
                         ("pss", 20 * 10**9, 2 * 10**9))
        self.assertEqual(d["link"]["mean_bps"], 20000000)
        # CBR at 10 Mbit/s of 1500-byte packets over 18 s: exactly 10e6
        self.assertAlmostEqual(d["classes"]["ef"]["mean_bps"], 10e6, delta=1)
        self.assertEqual(d["classes"]["ef"]["source"], "cbr 10Mbit 1500B")
        total = sum(d["classes"][k]["mean_bps"] for k in ("ef", "af", "cs0"))
        self.assertAlmostEqual(d["link_mean_bps"], total, places=3)
        self.assertEqual(d["sched"]["name"], "pss")
        self.assertGreater(d["sched"]["af"]["switches"], 0)
        self.assertIsNone(d["cost"])

    def test_drops_by_reason(self):
        """EF at 30 Mbit/s into a 20 Mbit/s link: its class limit drops
        a third of it; packets are conserved."""
        d, err = self.simulate("prio-sender.conf", "--ef", "cbr:30Mbit:1500")
        ef = d["classes"]["ef"]
        self.assertGreater(ef["drops"]["class_limit"], 0)
        self.assertEqual(sum(ef["drops"].values()), ef["drop_pkts"])
        self.assertEqual(ef["in_pkts"], ef["out_pkts"] + ef["drop_pkts"] +
                         ef["queued_pkts"])
        # 30 Mbit/s of 1500 B for 20 s = 50000 packets, 20 Mbit/s leave
        self.assertEqual(ef["in_pkts"], 50000)
        self.assertAlmostEqual(ef["drop_pkts"] / ef["in_pkts"], 1 / 3,
                               delta=0.01)
        self.assertAlmostEqual(ef["mean_bps"], 20e6, delta=2e4)
        self.assertEqual(self.table(err)["ef"][2], ef["drop_pkts"])
        self.assertGreater(ef["sched_delay"]["p99_ns"], 0)
        self.assertLessEqual(ef["sched_delay"]["p50_ns"],
                             ef["sched_delay"]["max_ns"])

    def test_json_to_stdout_needs_it_alone(self):
        _, err = run([self.sim, "-f", os.path.join(CONF, "prio-sender.conf"),
                      "-d", "5", "-w", "1", "--json", "-"], 1)
        self.assertIn("--json -: standard output already carries the CSV",
                      err)
        out, _ = run([self.sim, "-f", os.path.join(CONF, "prio-sender.conf"),
                      "-d", "5", "-w", "1", "-s", "0", "-q", "--json", "-",
                      "--af", "greedy"])
        d = one_json_line(out)
        self.assertGreater(d["classes"]["af"]["mean_bps"], 19e6)
        bad = os.path.join(self.tmp.name, "no", "such.json")
        _, err = run([self.sim, "-f", os.path.join(CONF, "prio-sender.conf"),
                      "-d", "5", "-w", "1", "-s", "0", "-q", "--json", bad], 2)
        self.assertIn("--json %s: No such file or directory" % bad, err)


if __name__ == "__main__":
    unittest.main()
