"""test_json_cli.py - the C tools' --json outputs (docs/json-output.md).

  SCHEDTUN=... SCHEDTUN_SIM=... /usr/bin/python3 -m unittest -v test_json_cli
(run from tests/unit; ctest's unit.json_cli does exactly this).

Each output is parsed with json.loads and checked against numbers worked by
hand (src/util/units.c's units, the PSS paper's 9:2 example) and against
the same tool's text output, so that the two cannot drift apart.
"""
import json
import os
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CONF = os.path.join(ROOT, "conf")


def tool(var, name):
    """The binary named by environment variable var; else one of the
    usual build trees; else the test is skipped (ctest always sets it)."""
    path = os.environ.get(var)
    if path:
        return path
    for tree in ("build", "build-test", "build-rel"):
        cand = os.path.join(ROOT, tree, name)
        if os.access(cand, os.X_OK):
            return cand
    raise unittest.SkipTest("%s is not set and no %s was built" % (var, name))


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


class CheckJson(unittest.TestCase):
    """schedtun --check --json -f FILE."""

    @classmethod
    def setUpClass(cls):
        cls.st = tool("SCHEDTUN", "schedtun")
        cls.tmp = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

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
            "offload": True, "tun_gro": True, "realtime": 0})
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
        self.assertEqual(c["stats"], {"interval": 250000000, "file": "-"})
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
                for cls in ("ef", "af", "cs0"):
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


if __name__ == "__main__":
    unittest.main()
