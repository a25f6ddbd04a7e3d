"""test_schedlab_units.py - mininet/schedlab/units.py against src/util/units.c.

  SCHEDTUN=/path/to/schedtun /usr/bin/python3 -m unittest -v test_schedlab_units
(run from tests/unit; ctest's unit.schedlab_units does exactly this).

Two kinds of checks:
  - HandWorked: values and refusals worked out by hand from units.c's
    rules (the table of tests/unit/test_units.c and more), no binary;
  - AgainstBinary: every input of a table plus seeded random texts made of
    the characters that matter, written into `link = { rate = "S"; ... };`
    configs and given to the daemon.  `schedtun --check --json`'s values
    conf.link.rate (bit/s) and conf.link.delay (ns) must equal the
    parser's, and for a refusal its errors hold the parser's very message.
SCHEDTUN must name an executable when set; unset, the build trees'
schedtun is tried (tests/unit/pytools.py); neither fails AgainstBinary
(ctest always sets it).
"""
import json
import os
import random
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "mininet"))

from test_theory import schedtun_path  # noqa: E402
from schedlab import units  # noqa: E402

M = 10 ** 6
G = 10 ** 9
TWO63 = 1 << 63

# (text, bit/s) worked by hand: tc's suffixes, any case; decimals rounded
# half away from zero; 2^63 the largest.
RATES_OK = [
    ("20Mbit", 20 * M), ("20mbit", 20 * M), ("20MBIT", 20 * M), ("1bit", 1),
    ("7", 7), ("64kbit", 64000), ("64Kbit", 64000), ("3gbit", 3 * G),
    ("2Tbit", 2 * 10 ** 12), ("1kibit", 1024), ("1KiBit", 1024),
    ("2mibit", 2 << 20), ("3gibit", 3 << 30), ("1tibit", 1 << 40),
    ("20mbps", 160 * M), ("20MBps", 160 * M), ("1bps", 8), ("100kbps", 800000),
    ("1gbps", 8 * G), ("1tbps", 8 * 10 ** 12), ("1kibps", 8192),
    ("1mibps", 8 << 20), ("1gibps", 8 << 30), ("1tibps", 8 << 40),
    ("1.5Mbit", 1500000), ("0.5kbit", 500), (".25mbit", 250000),
    ("12.032Mbit", 12032000), ("0.1kbit", 100), ("2.5kibit", 2560),
    ("1.5tibps", 12 << 40), ("0000020mbit", 20 * M), ("1e6", M),
    ("2.5e3kbit", 2500000), ("1.5", 2), ("2.5", 3), ("1.4bit", 1),
    ("0.5", 1), ("3.", 3), ("1E+3kbit", M), ("5e-1", 1),
    (" 20 Mbit ", 20 * M), ("\t20mbit\n", 20 * M),
    ("9223372036854775808", TWO63), ("1048576tibps", TWO63),
    ("9223372036854775807.5", TWO63), ("0.9223372036854775808e19", TWO63),
]
# (text, why) refused; why is the part between "is not a rate" and " (".
RATES_BAD = [
    ("9223372036854775809", ": larger than 2^63 bit/s"),
    ("18446744073709551616", ": larger than 2^63 bit/s"),
    ("99999999999999999999999999tbit", ": larger than 2^63 bit/s"),
    ("10000000tbps", ": larger than 2^63 bit/s"),
    ("1e30", ": larger than 2^63 bit/s"), ("1048577tibps", ": larger than 2^63 bit/s"),
    ("0", ": it must be above 0"), ("0mbit", ": it must be above 0"),
    ("0.0001bit", ": it must be above 0"), ("0.49", ": it must be above 0"),
    ("1e-99999", ": it must be above 0"),
    ("20 furlongs", ""), ("-5mbit", ""), ("+5mbit", ""), ("", ""), ("   ", ""),
    ("mbit", ""), (".", ""), ("1..5mbit", ""), ("0x10", ""), ("inf", ""),
    ("nan", ""), ("20mbitx", ""), ("20M", ""), ("20k", ""), ("20 Mbyte", ""),
    ("1e", ""), ("1e+", ""), ("1,5mbit", ""), ("20 m bit", ""),
    ("20\u212a" + "bit", ""),          # the Kelvin sign, not an ASCII k
    ("9223372036854775808.5", ": larger than 2^63 bit/s"),   # the fraction tips it
    ("unlimited", ': "unlimited" is not allowed here'),
]
# (text, ns) by hand: a plain number is seconds.
DURS_OK = [
    ("250ms", 250 * M), ("250MS", 250 * M), ("250msec", 250 * M),
    ("250msecs", 250 * M), ("1s", G), ("2sec", 2 * G), ("3secs", 3 * G),
    ("3SECS", 3 * G), ("100us", 100000), ("100usec", 100000),
    ("100usecs", 100000), ("42ns", 42), ("42nsec", 42), ("42nsecs", 42),
    ("15", 15 * G), ("0.25", 250 * M), ("1.5ms", 1500000), ("0", 0),
    ("0ms", 0), ("1e-3", M), ("0.000000001", 1), ("1.5ns", 2), ("0.4ns", 0),
    (" 250 ms ", 250 * M), ("6.1", 6100000000), ("9223372036854775808ns", TWO63),
]
DURS_BAD = [
    ("5 fortnights", ""), ("-1ms", ""), ("", ""), ("ms", ""), ("10m", ""),
    ("1min", ""), ("1h", ""), ("0x1s", ""), ("inf", ""), ("1e", ""),
    ("9223372036854775809ns", ": larger than 2^63 ns"),
    ("10000000000", ": larger than 2^63 ns"),
    ("9223372036.8547758085", ": larger than 2^63 ns"),     # rounds to 2^63 + 1
]
DURS_OK.append(("9223372036.8547758075", TWO63))            # rounds to 2^63
RATE_TAIL = " (accepted: " + units.RATE_ACCEPTED
DUR_TAIL = " (accepted: " + units.DURATION_ACCEPTED + ")"



class HandWorked(unittest.TestCase):
    """Values and messages without the binary."""

    def test_rates(self):
        for text, want in RATES_OK:
            with self.subTest(text=text):
                self.assertEqual(units.parse_rate_bps(text), want)
                self.assertEqual(units.parse_rate_bps(text, allow_unlimited=True), want)

    def test_rates_refused_with_the_c_message(self):
        for text, why in RATES_BAD:
            with self.subTest(text=text):
                with self.assertRaises(ValueError) as cm:
                    units.parse_rate_bps(text)
                self.assertEqual(str(cm.exception), "'%s' is not a rate%s%s)"
                                 % (text, why, RATE_TAIL))

    def test_unlimited_only_where_allowed(self):
        for text in ("unlimited", "Unlimited", " UNLIMITED\t"):
            self.assertEqual(units.parse_rate_bps(text, True), units.RATE_UNLIMITED)
        with self.assertRaises(ValueError) as cm:
            units.parse_rate_bps("unlimitedx", True)
        self.assertEqual(str(cm.exception), "'unlimitedx' is not a rate%s; or "
                         "\"unlimited\")" % RATE_TAIL)

    def test_durations(self):
        for text, want in DURS_OK:
            with self.subTest(text=text):
                self.assertEqual(units.parse_duration_ns(text), want)
        for text, why in DURS_BAD:
            with self.subTest(text=text):
                with self.assertRaises(ValueError) as cm:
                    units.parse_duration_ns(text)
                self.assertEqual(str(cm.exception), "'%s' is not a duration%s%s"
                                 % (text, why, DUR_TAIL))

    def test_not_a_text(self):
        # what the C cannot receive: a number object, a NUL inside
        for v in (20000000, None, "20\0mbit"):
            with self.assertRaises(ValueError):
                units.parse_rate_bps(v)
        with self.assertRaises(ValueError):
            units.parse_duration_ns(1.5)

    def test_long_value_quoted_short(self):
        text = "9" * 100 + "x"
        with self.assertRaises(ValueError) as cm:
            units.parse_rate_bps(text)
        self.assertTrue(str(cm.exception).startswith("'%s...' is not a rate ("
                                                     % ("9" * 80)))

    def test_format_as_the_c(self):
        # the printed table of test_units.c
        for v, text in ((20 * M, "20Mbit"), (1500000, "1.5Mbit"),
                        (12032000, "12.032Mbit"), (64000, "64Kbit"), (999, "999bit"),
                        (0, "0bit"), (10 * G, "10Gbit"), (2 * 10 ** 12, "2Tbit"),
                        (units.RATE_UNLIMITED, "unlimited"), (TWO63, "9223372.036Tbit")):
            self.assertEqual(units.fmt_rate(v), text)
        for v, text in ((250 * M, "250ms"), (G, "1s"), (1500 * M, "1.5s"),
                        (100000, "100us"), (42, "42ns"), (0, "0s"), (10 * G, "10s"),
                        ((1 << 64) - 1, "never"), (1500000, "1.5ms"),
                        (TWO63, "9223372036.854s")):
            self.assertEqual(units.fmt_duration(v), text)
        for v in (12032000, 1234567, 999, TWO63):
            back = units.parse_rate_bps(units.fmt_rate(v))
            # three decimals of the unit: within half a thousandth of v
            self.assertLessEqual(abs(v - back), v // 2000 + 1, (v, back))


def random_texts(n, seed):
    """n texts from the characters the scanner cares about (seeded, so a
    failure repeats)."""
    rng = random.Random(seed)
    pieces = ["0", "1", "5", "9", "00", "123456789", ".", "e", "E", "-", "+",
              " ", "k", "m", "M", "g", "t", "i", "bit", "bps", "s", "ms", "us",
              "ns", "sec", "x", "9223372036854775808", "e19", "e-3"]
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 5)))
            for _ in range(n)]


class AgainstBinary(unittest.TestCase):
    """The parser against the daemon's configuration check."""

    MAX_DELAY_NS = 10 * G    # link.delay's range in src/conf/conf.c

    @classmethod
    def setUpClass(cls):
        cls.bin = schedtun_path()
        cls.tmp = tempfile.TemporaryDirectory()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    @classmethod
    def check(cls, rate, delay):
        """(the --check --json document, exit code) of the daemon on
        `link = { rate = "RATE"; delay = "DELAY"; };`; a failure when the
        daemon prints no document."""
        path = os.path.join(cls.tmp.name, "u.conf")
        with open(path, "w", encoding="utf-8") as f:
            f.write('link = { rate = "%s"; delay = "%s"; };\n' % (rate, delay))
        r = subprocess.run([cls.bin, "--check", "--json", "-f", path],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=60)
        try:
            doc = json.loads(r.stdout.decode())
        except ValueError:
            raise AssertionError("%s --check --json: not JSON: %r"
                                 % (cls.bin, r.stdout[:200])) from None
        return doc, r.returncode

    @staticmethod
    def mine(kind, text):
        """(value, message): the parser's value or its refusal; a delay
        above the link's 10 s is a refusal by range, message None."""
        try:
            if kind == "rate":
                return units.parse_rate_bps(text, allow_unlimited=True), None
            v = units.parse_duration_ns(text)
        except ValueError as e:
            return None, str(e)
        if v > AgainstBinary.MAX_DELAY_NS:
            return None, None
        return v, None

    def compare(self, kind, text):
        rate, delay = (text, "10ms") if kind == "rate" else ("20Mbit", text)
        want, msg = self.mine(kind, text)
        doc, rc = self.check(rate, delay)
        if want is None:
            self.assertEqual(rc, 1, "the daemon accepted %s %r" % (kind, text))
            self.assertIs(doc["valid"], False)
            if msg is not None:
                self.assertIn("link.%s: %s" % (kind, msg), "\n".join(doc["errors"]))
            return
        self.assertEqual(rc, 0, "the daemon refused %s %r: %s" % (kind, text, doc))
        self.assertIs(doc["valid"], True)
        got = doc["conf"]["link"][kind]
        if want == units.RATE_UNLIMITED and kind == "rate":
            want = "unlimited"      # docs/json-output.md: the string
        self.assertEqual(got, want, "%s %r" % (kind, text))

    def test_tables(self):
        for kind, table in (("rate", RATES_OK + RATES_BAD + [("unlimited", 0)]),
                            ("delay", DURS_OK + DURS_BAD + [("10", 0), ("10.000000001", 0)])):
            for text, _ in table:
                if '"' in text or "\\" in text or "\n" in text:
                    continue        # not a plain libconfig string
                with self.subTest(kind=kind, text=text):
                    self.compare(kind, text)

    def test_random_texts(self):
        for kind, seed in (("rate", 20), ("delay", 21)):
            for text in random_texts(120, seed):
                with self.subTest(kind=kind, text=text):
                    self.compare(kind, text)

    def test_values(self):
        doc, rc = self.check("2.5kibit", "1.5ms")
        self.assertEqual((rc, doc["conf"]["link"]["rate"], doc["conf"]["link"]["delay"]),
                         (0, 2560, 1500000))

if __name__ == "__main__":
    unittest.main()
