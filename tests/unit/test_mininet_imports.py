"""test_mininet_imports.py - every module of mininet/ imports on its own.

  /usr/bin/python3 -m unittest -v test_mininet_imports
(run from tests/unit; ctest's unit.mininet_imports does exactly this).

Each module under mininet/ (and mininet/schedlab/) is imported in a fresh
interpreter, alone: a circle of imports (figures -> figplot -> figures,
issue 20) fails there with "partially initialized module", whatever
order a script happens to import them in.  Scripts that run on import
(geo.py's main is guarded, examples are not imported) are covered by
their own tests.
"""
import glob
import os
import subprocess
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
MININET = os.path.join(os.path.dirname(os.path.dirname(HERE)), "mininet")


def modules():
    names = [os.path.splitext(os.path.basename(p))[0]
             for p in glob.glob(os.path.join(MININET, "*.py"))]
    names += ["schedlab." + os.path.splitext(os.path.basename(p))[0]
              for p in glob.glob(os.path.join(MININET, "schedlab", "*.py"))
              if not p.endswith("__init__.py")]
    return sorted(names)


class TestImports(unittest.TestCase):
    def test_each_alone(self):
        found = modules()
        self.assertIn("figures", found)
        self.assertIn("figlist", found)
        for name in found:
            with self.subTest(module=name):
                r = subprocess.run(["/usr/bin/python3", "-c", "import " + name],
                                   cwd=MININET, capture_output=True, text=True,
                                   timeout=60)
                self.assertEqual(r.returncode, 0, "import %s alone: %s"
                                 % (name, r.stderr.strip().splitlines()[-1:]))


if __name__ == "__main__":
    unittest.main()
