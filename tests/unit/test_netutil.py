"""test_netutil.py - mininet/schedlab/netutil.py and mininet/schedlab/cli.py.

  /usr/bin/python3 -m unittest -v test_netutil
(run from tests/unit; ctest's unit.netutil does exactly this).

  - netutil: the family from an address literal; HOST:PORT parsing (IPv4,
    bracketed IPv6, the port's range, port 0 only when listening, digits
    int() refuses) with the caller's error class and the sources' exact
    refusal; the DSCP check (0..63, None, no bools or floats); the DSCP
    read back from IPv4 and IPv6 sockets (TOS / traffic class = dscp << 2),
    None leaving the default.
  - cli: SIGINT and SIGTERM set the stop event; the JSON-lines writer
    (sorted keys, one line per record, on disk before close, stdout
    through a copy of fd 1 that stays open after close); the recorder
    keeps what it writes, from several threads; say() and the summary
    line on stderr with the program's name.
"""
import io
import json
import os
import signal
import socket
import sys
import tempfile
import threading
import unittest
from contextlib import redirect_stderr

HERE = os.path.dirname(os.path.abspath(__file__))
MININET = os.path.join(os.path.dirname(os.path.dirname(HERE)), "mininet")
sys.path.insert(0, MININET)

from schedlab import cli, netutil  # noqa: E402


class Refused(ValueError):
    """A caller's own error class, as WebError or OnOffError."""


ACCEPTED = "(accepted: A.B.C.D:PORT or [IPv6]:PORT, port 1..65535"


class TestNetutil(unittest.TestCase):
    def test_family(self):
        self.assertEqual(netutil.family("10.0.0.2"), socket.AF_INET)
        self.assertEqual(netutil.family("0.0.0.0"), socket.AF_INET)
        self.assertEqual(netutil.family("::1"), socket.AF_INET6)
        self.assertEqual(netutil.family("fd00::2"), socket.AF_INET6)

    def test_parse_addr(self):
        self.assertEqual(netutil.parse_addr("10.0.0.2:6000"), ("10.0.0.2", 6000))
        self.assertEqual(netutil.parse_addr("[::1]:80"), ("::1", 80))
        self.assertEqual(netutil.parse_addr("1.2.3.4:65535"), ("1.2.3.4", 65535))
        self.assertEqual(netutil.parse_addr("1.2.3.4:1"), ("1.2.3.4", 1))
        self.assertEqual(netutil.parse_addr("[::]:0", listen=True), ("::", 0))
        self.assertEqual(netutil.parse_addr("1.2.3.4:7", listen=True), ("1.2.3.4", 7))

    def test_parse_addr_refusals(self):
        for text, listen in (("10.0.0.2", False), ("10.0.0.2:0", False), (":80", False),
                             ("[]:80", False), ("1.2.3.4:65536", True), ("1.2.3.4:x", False),
                             ("1.2.3.4:-1", False), ("1.2.3.4:", True), ("1.2.3.4:00", True),
                             ("1.2.3.4:\u00b2", False), ("", True)):
            with self.subTest(text=text, listen=listen):
                tail = ", or 0 to listen on any)" if listen else ")"
                with self.assertRaises(Refused) as cm:
                    netutil.parse_addr(text, Refused, listen)
                self.assertEqual(str(cm.exception), "address '%s': not HOST:PORT %s%s"
                                 % (text, ACCEPTED, tail))
        with self.assertRaises(ValueError):         # the default class
            netutil.parse_addr("nohost")

    def test_check_dscp(self):
        for ok in (None, 0, 46, 63):
            netutil.check_dscp(ok, Refused)
        for bad in (-1, 64, True, 46.0, "46"):
            with self.subTest(dscp=bad):
                with self.assertRaises(Refused) as cm:
                    netutil.check_dscp(bad, Refused)
                self.assertEqual(str(cm.exception),
                                 "dscp '%s': out of range (accepted: 0..63)" % (bad,))

    def test_set_dscp(self):
        for fam, level, opt in ((socket.AF_INET, socket.IPPROTO_IP, socket.IP_TOS),
                                (socket.AF_INET6, socket.IPPROTO_IPV6, socket.IPV6_TCLASS)):
            for kind in (socket.SOCK_DGRAM, socket.SOCK_STREAM):
                for dscp, byte in ((46, 184), (63, 252), (1, 4), (None, 0)):
                    with self.subTest(family=fam, kind=kind, dscp=dscp):
                        s = socket.socket(fam, kind)
                        try:
                            netutil.set_dscp(s, dscp)
                            self.assertEqual(s.getsockopt(level, opt), byte)
                        finally:
                            s.close()


class TestCli(unittest.TestCase):
    def test_stop_event_on_signals(self):
        old = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            for sig in old:
                with self.subTest(signal=sig):
                    stop = cli.stop_event()
                    self.assertFalse(stop.is_set())
                    os.kill(os.getpid(), sig)
                    # the handler runs in the main thread between bytecodes
                    self.assertTrue(stop.wait(5))
        finally:
            for sig, handler in old.items():
                signal.signal(sig, handler)

    def test_jsonl_writer_file(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "out.jsonl")
            emit, close = cli.jsonl_writer(path)
            emit({"b": 2, "a": 1})
            with open(path) as f:               # flushed before close
                self.assertEqual(f.read(), '{"a": 1, "b": 2}\n')
            emit({"c": None})
            close()
            with open(path) as f:
                self.assertEqual(f.read().splitlines(), ['{"a": 1, "b": 2}', '{"c": null}'])
        with self.assertRaises(OSError):
            cli.jsonl_writer(os.path.join(d, "gone", "out.jsonl"))

    def test_jsonl_writer_stdout(self):
        sys.stdout.flush()
        saved = os.dup(1)
        try:
            with tempfile.TemporaryFile("w+") as f:
                os.dup2(f.fileno(), 1)
                emit, close = cli.jsonl_writer("-")
                emit({"x": 1})
                close()
                os.write(1, b"fd 1 still open\n")  # close() closed its copy only
                f.seek(0)
                self.assertEqual(f.read(), '{"x": 1}\nfd 1 still open\n')
        finally:
            os.dup2(saved, 1)
            os.close(saved)

    def test_recorder(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "out.jsonl")
            emit, records, close = cli.recorder(path)
            threads = [threading.Thread(target=lambda t=t: [emit({"t": t, "i": i})
                                                            for i in range(200)])
                       for t in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            close()
            with open(path) as f:
                lines = [json.loads(line) for line in f]
        self.assertEqual(len(records), 800)
        self.assertEqual(lines, records)        # same records, same order
        self.assertEqual(sorted((r["t"], r["i"]) for r in records),
                         [(t, i) for t in range(4) for i in range(200)])

    def test_say(self):
        err = io.StringIO()
        with redirect_stderr(err):
            cli.say("prog", "sink on 127.0.0.1:9")
            cli.say("prog", OSError(2, "No such file or directory"))
            cli.say_summary("prog", {"packets": 3, "bytes": None})
        self.assertEqual(err.getvalue().splitlines(),
                         ["prog: sink on 127.0.0.1:9", "prog: [Errno 2] No such file or directory",
                          'prog: {"bytes": null, "packets": 3}'])

    def test_parser(self):
        ap, rv, sd = cli.parser("prog", "prog - first paragraph.\n\nmore", "sink")
        rv.add_argument("--idle", type=float, default=1.0)
        sd.add_argument("--out", default="-")
        self.assertEqual(ap.description, "prog - first paragraph.")
        a = ap.parse_args(["sink", "--listen", "h:1"])
        self.assertEqual((a.cmd, a.listen, a.out, a.idle), ("sink", "h:1", "-", 1.0))
        a = ap.parse_args(["send", "--to", "h:2", "--out", "f"])
        self.assertEqual((a.cmd, a.to, a.out), ("send", "h:2", "f"))
        for argv in ([], ["sink"], ["send"], ["recv", "--listen", "h:1"]):
            with self.subTest(argv=argv):
                with redirect_stderr(io.StringIO()), self.assertRaises(SystemExit) as cm:
                    ap.parse_args(argv)
                self.assertEqual(cm.exception.code, 2)


if __name__ == "__main__":
    unittest.main()
