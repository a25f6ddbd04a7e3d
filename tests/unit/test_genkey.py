"""test_genkey.py - `schedtun genkey` (docs/security.md): one line of
standard base64 that decodes to 32 bytes, a new key each time, and a
refusal to write into a file that group or others may read.

  SCHEDTUN=... /usr/bin/python3 -m unittest -v test_genkey
(run from tests/unit; ctest's unit.genkey does exactly this).
"""
import base64
import os
import subprocess
import tempfile
import unittest

from pytools import tool


class GenKey(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.st = tool("SCHEDTUN", "schedtun")

    def genkey(self, *extra, stdout=subprocess.PIPE):
        return subprocess.run([self.st, "genkey", *extra], stdout=stdout,
                              stderr=subprocess.PIPE, text=True, timeout=30)

    def test_one_line_of_base64_of_32_bytes(self):
        keys = set()
        for _ in range(20):
            p = self.genkey()
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(p.stderr, "")
            self.assertRegex(p.stdout, r"\A[A-Za-z0-9+/]{43}=\n\Z")
            self.assertEqual(len(base64.b64decode(p.stdout.strip(), validate=True)), 32)
            keys.add(p.stdout)
        self.assertEqual(len(keys), 20)          # random, never the same

    def test_into_a_private_file(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "k")
            fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
            os.fchmod(fd, 0o600)                 # whatever the umask
            with os.fdopen(fd, "w") as f:
                p = self.genkey(stdout=f)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(path) as f:
                self.assertRegex(f.read(), r"\A[A-Za-z0-9+/]{43}=\n\Z")

    def test_refuses_a_file_others_may_read(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "k")
            fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
            os.fchmod(fd, 0o644)
            with os.fdopen(fd, "w") as f:
                p = self.genkey(stdout=f)
            self.assertEqual(p.returncode, 1)
            self.assertIn("group or others may read (mode 0644)", p.stderr)
            self.assertIn("umask 077", p.stderr)
            self.assertEqual(os.path.getsize(path), 0)   # no key written

    def test_no_arguments(self):
        p = self.genkey("extra")
        self.assertEqual(p.returncode, 1)
        self.assertIn("genkey takes no argument", p.stderr)
        self.assertEqual(p.stdout, "")


if __name__ == "__main__":
    unittest.main()
