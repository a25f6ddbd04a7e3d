"""test_schedlab_conf.py - mininet/schedlab/conf.py and schedlab/geospec.py's readers.

  SCHEDTUN=/path/to/schedtun /usr/bin/python3 -m unittest -v test_schedlab_conf
(run from tests/unit; ctest's unit.schedlab_conf does exactly this).

  - RegexBugs: the four inputs the old regex scanning of geoconf.py (now schedlab/geospec.py) got
    wrong (a one-line scheduler group read as prio, DWRR quanta written
    cs0 first ignored, a commented-out bw taken, an escaped quote cutting
    the group short), through geospec's functions;
  - Readers: defaults, the two DWRR forms, PSS's per-queue values, link
    rate/delay through schedlab.units, @include, and the messages of bad
    files ("SOURCE: key: problem (accepted: ...)");
  - RealFiles: every conf/*.conf, each read as the daemon reads it: the
    values `schedtun --check --json` reports (scheduler, DWRR quanta, PSS
    bw/lm/lr, link rate and delay), and its group re-emitted by
    conf_sched_group still valid for the daemon.
Readers' valid texts are compared with --check --json the same way.
The daemon's view needs SCHEDTUN (else ../../build/schedtun, ../../build-rel/
schedtun, tests/unit/pytools.py); without one those comparisons fail.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "mininet"))

from schedlab import geospec  # noqa: E402
from schedlab import runerr  # noqa: E402
import theory  # noqa: E402
from test_theory import schedtun_path  # noqa: E402
from schedlab import conf, units  # noqa: E402

LINK = 'link = { rate = "20Mbit"; delay = "10ms"; };\n'

BIN = schedtun_path()


def daemon_sched(path):
    """The scheduler `schedtun --check -f path` names, or None when it
    refuses the file."""
    r = subprocess.run([BIN, "--check", "-f", path], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=60)
    out = r.stdout.decode()
    m = re.search(r": OK \(scheduler ([a-z]+)\)", out)
    if r.returncode == 0 and m:
        return m.group(1)
    return None


def daemon_json(path):
    """`schedtun --check --json -f path`'s document (a failure when the
    binary prints none)."""
    r = subprocess.run([BIN, "--check", "--json", "-f", path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    try:
        return json.loads(r.stdout.decode())
    except ValueError:
        raise AssertionError("%s --check --json -f %s: not JSON: %r"
                             % (BIN, path, r.stdout[:200])) from None


def assert_as_daemon(test, path):
    """What schedlab.conf reads from file `path` equals what the daemon
    reports it runs with: scheduler name, DWRR's effective quanta, PSS's
    bw/lm/lr, link rate and delay."""
    doc = daemon_json(path)
    test.assertIs(doc["valid"], True, doc.get("errors"))
    c, dc = conf.load(path), doc["conf"]
    test.assertEqual(c.sched_name(), dc["scheduler"]["name"])
    rate = c.link_rate_bps()
    test.assertEqual("unlimited" if rate == units.RATE_UNLIMITED else rate,
                     dc["link"]["rate"])
    test.assertEqual(c.link_delay_ns(), dc["link"]["delay"])
    if c.sched_name() == "dwrr":
        test.assertEqual(c.dwrr_quanta_bytes(), dc["scheduler"]["dwrr"]["quantum"])
    if c.sched_name() == "pss":
        pss = dc["scheduler"]["pss"]
        # pss.queues is written as the file gives it (a custom key)
        af = (pss.get("queues") or {}).get("af") or {}
        test.assertEqual(c.pss_af_params(), {k: af.get(k, pss[k])
                                             for k in ("bw", "lm", "lr")})


class TmpFiles(unittest.TestCase):
    """A temporary directory and a writer into it."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, text):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path


def dwrr_args():
    """geo.py's parsed arguments as theory_model reads them: --sched dwrr,
    --weights 9:2 with 1400-byte packets (K_AF 9/11 when the quanta were
    not read)."""
    return types.SimpleNamespace(sched="dwrr", w_af=9, l_af=1400, w_cs0=2,
                                 l_cs0=1400, ef_exp_bps=5e6,
                                 capacity_spec=theory.RateSpec(20e6))


class RegexBugs(TmpFiles):
    """Each input here was read wrong by the regular expressions."""

    def agree(self, path, name):
        """The daemon reads the file as valid, with scheduler `name`."""
        if BIN:
            self.assertEqual(daemon_sched(path), name)

    def test_one_line_group_is_not_prio(self):
        path = self.write("one.conf", LINK + 'scheduler = { name = "dwrr"; '
                          'dwrr = { quantum = { af = 9000; cs0 = 3000; }; }; };\n')
        group = geospec.conf_sched_group(path)
        self.assertEqual(geospec.sched_group_name(group), "dwrr")
        self.agree(path, "dwrr")

    def test_dwrr_quanta_cs0_first(self):
        text = ('scheduler = {\n  name = "dwrr";\n'
                '  dwrr = { quantum = { cs0 = 3000; af = 9000; }; };\n};\n')
        model = geospec.theory_model(dwrr_args(), text)
        self.assertAlmostEqual(model["k_af"], 0.75, places=12)
        self.assertEqual(model["k_af_from"], "dwrr quanta 9000:3000")
        self.agree(self.write("q.conf", LINK + text), "dwrr")

    def test_commented_out_bw_is_not_read(self):
        text = ('scheduler = {\n  name = "pss";\n  pss = {\n'
                '    # bw = 0.9;  an older setting, kept for reference\n'
                '    /* bw = 0.8; */ // bw = 0.7;\n'
                '    bw = 0.3;\n  };\n};\n')
        path = self.write("c.conf", LINK + text)
        self.assertEqual(geospec.pss_bw_of(text), 0.3)
        self.assertEqual(geospec.pss_bw_of(geospec.conf_sched_group(path)), 0.3)
        self.agree(path, "pss")

    def test_escaped_quote_does_not_end_the_group(self):
        text = ('scheduler = {\n  pss = { trace = "/tmp/a\\"}b.csv"; bw = 0.3; };\n'
                '  name = "pss";\n};\n')
        path = self.write("e.conf", LINK + text)
        group = geospec.conf_sched_group(path)
        self.assertEqual(geospec.sched_group_name(group), "pss")
        self.assertEqual(geospec.pss_bw_of(group), 0.3)
        self.assertEqual(conf.loads(group).scheduler()["pss"]["trace"], '/tmp/a"}b.csv')
        self.agree(path, "pss")


class Readers(TmpFiles):
    """schedlab.conf's readers on small texts."""

    def test_defaults_are_the_daemons(self):
        c = conf.loads("")
        self.assertEqual(c.sched_name(), "prio")
        self.assertEqual(c.dwrr_quanta_bytes(), {"af": 4500, "cs0": 3000})
        self.assertEqual(c.pss_af_params(), {"bw": 0.5, "lm": 3000, "lr": 0})
        self.assertEqual(c.link_rate_bps(), 20000000)
        self.assertEqual(c.link_delay_ns(), 0)

    def test_dwrr_forms(self):
        def quanta(body):
            return conf.loads('scheduler = { name = "dwrr"; dwrr = { %s }; };'
                              % body).dwrr_quanta_bytes()
        self.assertEqual(quanta("quantum = { af = 5000; };"), {"af": 5000, "cs0": 3000})
        self.assertEqual(quanta("weights = { af = 9; cs0 = 2; }; packet_size = 1400;"),
                         {"af": 12600, "cs0": 2800})
        self.assertEqual(quanta("weights = { af = 9; }; packet_size = "
                                "{ af = 1500; cs0 = 500; };"), {"af": 13500, "cs0": 1000})
        self.assertEqual(quanta("weights = { af = 4; cs0 = 1; };"), {"af": 6000, "cs0": 1500})
        self.assertEqual(quanta("quantum = { af = 4096.0; cs0 = 64; };"),
                         {"af": 4096, "cs0": 64})

    def test_pss_af_queue_overrides(self):
        c = conf.loads('scheduler = { name = "pss"; pss = { bw = 0.4; lm = 5000; '
                       'queues = { af = { p_high = 1; p_low = 3; lr = 100; }; }; }; };')
        self.assertEqual(c.pss_af_params(), {"bw": 0.4, "lm": 5000, "lr": 100})
        c = conf.loads('scheduler = { pss = { bw = 0.4; queues = { af = { bw = 0.25; '
                       '}; }; }; };')
        self.assertEqual(c.pss_af_params()["bw"], 0.25)

    def test_link_values_as_the_daemon_reads_them(self):
        for body, rate, delay in (
                ('rate = "20mbps"; delay = "250ms";', 160000000, 250000000),
                ('rate = "2.5kibit"; delay = 0.25;', 2560, 250000000),
                ("rate = 15000000; delay = 1;", 15000000, 1000000000),
                ("rate = 1.5e7; delay = 10;", 15000000, 10 ** 10),
                ('rate = "Unlimited";', units.RATE_UNLIMITED, 0),
                ('profile = { kind = "cosine"; mean = "20Mbit"; amplitude = 0.3; '
                 'period = "15s"; }; delay = "1us";', None, 1000)):
            with self.subTest(body=body):
                c = conf.loads("link = { %s };" % body)
                self.assertEqual((c.link_rate_bps(), c.link_delay_ns()), (rate, delay))

    def test_values_as_the_daemon_reports(self):
        for text in (
                "",
                'scheduler = { name = "dwrr"; dwrr = { quantum = { af = 5000; }; }; };',
                'scheduler = { name = "dwrr"; dwrr = { weights = { af = 9; cs0 = 2; }; '
                'packet_size = 1400; }; };',
                'scheduler = { name = "dwrr"; dwrr = { weights = { af = 9; }; '
                'packet_size = { af = 1500; cs0 = 500; }; }; };',
                'scheduler = { name = "dwrr"; dwrr = { weights = { af = 4; cs0 = 1; }; }; };',
                'scheduler = { name = "pss"; pss = { bw = 0.4; lm = 5000; queues = { '
                'af = { p_high = 1; p_low = 3; lr = 100; }; }; }; };',
                'scheduler = { name = "pss"; pss = { bw = 0.4; queues = { af = { '
                'p_high = 1; p_low = 3; bw = 0.25; }; }; }; };',
                'scheduler = { name = "pss"; };',
                'link = { rate = "20mbps"; delay = "250ms"; };',
                'link = { rate = "2.5kibit"; delay = 0.25; };',
                "link = { rate = 15000000; delay = 1; };",
                "link = { rate = 1.5e7; delay = 10; };",
                'link = { rate = "Unlimited"; };',
                'link = { profile = { kind = "cosine"; mean = "20Mbit"; amplitude = 0.3; '
                'period = "15s"; }; delay = "1us"; };'):
            with self.subTest(text=text):
                assert_as_daemon(self, self.write("v.conf", text + "\n"))

    def test_bad_values_name_source_key_and_accepted(self):
        for text, start in (
                ('link = { rate = "20M"; };',
                 "f.conf: link.rate: '20M' is not a rate (accepted: a number > 0"),
                ("link = { rate = true; };", "f.conf: link.rate: true is not a rate "
                 "(accepted: a number > 0"),
                ("link = { rate = -5; };", "f.conf: link.rate: '-5' is not a rate"),
                ('link = { delay = "1min"; };', "f.conf: link.delay: '1min' is not a "
                 "duration (accepted: a number >= 0 with ns"),
                ("link = { delay = 11; };", "f.conf: link.delay: '11' is out of range "
                 "(accepted: 0..10s)"),
                ("link = 5;", "f.conf: link: 5 is not a group (accepted: { ... })"),
                ("scheduler = { name = 3; };", "f.conf: scheduler.name: 3 is not a string"),
                ("scheduler = { dwrr = { quantum = { af = 10; }; }; };",
                 "f.conf: scheduler.dwrr.quantum.af: 10 is out of range (accepted: "
                 "64..1000000)"),
                ("scheduler = { dwrr = { quantum = { af = 100.5; }; }; };",
                 "f.conf: scheduler.dwrr.quantum.af: 100.5 is not an integer"),
                ("scheduler = { dwrr = { weights = { af = 100; }; packet_size = 20000; }; };",
                 "f.conf: scheduler.dwrr.weights.af: weight 100 x packet_size 20000"),
                ("scheduler = { dwrr = { weights = {}; quantum = {}; }; };",
                 "f.conf: scheduler.dwrr.weights: given with quantum (accepted: "),
                ("scheduler = { pss = { bw = 1.0; }; };",
                 "f.conf: scheduler.pss.bw: 1 is out of range (accepted: 0 < bw < 1)"),
                ("scheduler = { pss = { queues = { af = { bw = \"x\"; }; }; }; };",
                 "f.conf: scheduler.pss.queues.af.bw: 'x' is not a number"),
                ("link = { rate = 1; }; link = { rate = 2; };",
                 "f.conf: syntax: line 1: setting 'link' given twice (accepted: "),
                ("link = { rate = ", "f.conf: syntax: ")):
            with self.subTest(text=text):
                with self.assertRaises(conf.ConfError) as cm:
                    c = conf.loads(text, "f.conf")
                    c.link_rate_bps()
                    c.link_delay_ns()
                    c.sched_name()
                    c.dwrr_quanta_bytes()
                    c.pss_af_params()
                self.assertTrue(str(cm.exception).startswith(start), str(cm.exception))
                self.assertIn("(accepted: ", str(cm.exception))

    def test_duplicate_refused_by_the_daemon_too(self):
        path = self.write("dup.conf", LINK + "link = { delay = 1; };\n")
        with self.assertRaises(conf.ConfError):
            conf.load(path)
        if BIN:
            self.assertIsNone(daemon_sched(path))

    def test_include_relative_to_the_file(self):
        os.mkdir(os.path.join(self.tmp.name, "d"))
        self.write("d/sched.inc", 'scheduler = { name = "fifo"; };\n')
        path = self.write("d/main.conf", LINK + '@include "sched.inc"\n')
        c = conf.load(path)
        self.assertEqual(c.sched_name(), "fifo")
        # geo.py runs from anywhere: the include is found from the file
        cwd = os.getcwd()
        try:
            os.chdir("/")
            self.assertEqual(geospec.sched_group_name(geospec.conf_sched_group(path)),
                             "fifo")
        finally:
            os.chdir(cwd)
        if BIN:
            self.assertEqual(daemon_sched(path), "fifo")
        bad = self.write("d/bad.conf", LINK + '@include "nope.inc"\n')
        with self.assertRaisesRegex(conf.ConfError, r"bad.conf: syntax: Could not open "
                                    r"include file .*nope.inc"):
            conf.load(bad)

    def test_missing_file_and_geospec_usage_errors(self):
        missing = os.path.join(self.tmp.name, "missing.conf")
        with self.assertRaisesRegex(conf.ConfError, r"missing.conf: No such file"):
            conf.load(missing)
        with self.assertRaises(runerr.UsageError) as cm:
            geospec.conf_sched_group(missing)
        self.assertTrue(str(cm.exception).startswith("--conf: %s: " % missing))
        path = self.write("nosched.conf", LINK)
        with self.assertRaises(runerr.UsageError) as cm:
            geospec.conf_sched_group(path)
        self.assertIn("no top-level `scheduler = { ... };` group", str(cm.exception))
        with self.assertRaises(runerr.UsageError) as cm:
            geospec.theory_model(dwrr_args(), 'scheduler = { name = "dwrr"; dwrr = { '
                                 'quantum = { af = 1; }; }; };')
        self.assertIn("scheduler.dwrr.quantum.af: 1 is out of range", str(cm.exception))
        self.assertIsNone(geospec.pss_bw_of('scheduler = { name = "dwrr"; };'))


class RealFiles(TmpFiles):
    """conf/*.conf as shipped."""

    FILES = sorted(f for f in os.listdir(os.path.join(ROOT, "conf")) if f.endswith(".conf"))

    def test_there_are_files(self):
        self.assertGreaterEqual(len(self.FILES), 20)

    def test_each_file_reads(self):
        for name in self.FILES:
            with self.subTest(file=name):
                c = conf.load(os.path.join(ROOT, "conf", name))
                sched = c.sched_name()
                # the file name says the scheduler where it names one
                if name.split("-")[0] in ("dq", "dwrr", "fifo", "pdrr", "prio", "pss",
                                          "ticket"):
                    self.assertEqual(sched, name.split("-")[0])
                rate = c.link_rate_bps()
                self.assertTrue(rate is None or 0 < rate <= units.UNITS_MAX)
                self.assertTrue(0 <= c.link_delay_ns() <= conf.LINK_MAX_DELAY_NS)
                if sched == "dwrr":   # weights 9:2 of 1500-byte packets
                    self.assertEqual(c.dwrr_quanta_bytes(), {"af": 13500, "cs0": 3000})
                if sched == "pss":    # the paper's set, see the files' comment
                    self.assertEqual(c.pss_af_params(), {"bw": 0.444444, "lm": 6222,
                                                         "lr": 0})

    def test_the_daemon_agrees_and_the_group_text_is_valid(self):
        for name in self.FILES:
            with self.subTest(file=name):
                path = os.path.join(ROOT, "conf", name)
                assert_as_daemon(self, path)
                sched = conf.load(path).sched_name()
                self.assertEqual(daemon_sched(path), sched)
                group = geospec.conf_sched_group(path)
                self.assertEqual(geospec.sched_group_name(group), sched)
                self.assertEqual(daemon_sched(self.write("g.conf", LINK + group)), sched)


if __name__ == "__main__":
    unittest.main()
