"""test_schedlab_runs.py - mininet/schedlab's run machinery on synthetic data.

  /usr/bin/python3 -m unittest -v test_schedlab_runs
(run from tests/unit; ctest's unit.schedlab_runs does exactly this).

repeats (mean, sd, Student-t half-width against hand-worked values, n = 1
without an interval, errors against theory, grouping), stall (the
invalid-run rule both ways, the warm-up and window edges), cache (the key
changes with every parameter, with a code commit and with a dirty tree,
and not with a results-only commit: a throw-away git repository),
provenance (fields present and typed, from a fake /proc), records (round
trip, malformed and unterminated lines named FILE:LINE, what a point
still needs), lock (two attempts on one file, a fake /proc for the busy
scan) and tables (same records in any order give the same bytes; a
hand-edited table fails the redraw check at its line).  No root, no
Mininet, no network.
"""
import hashlib
import json
import math
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "mininet"))

from schedlab import cache, lock, provenance, records, repeats, stall, tables  # noqa: E402

# t(0.975, 2) = 4.302653 and t(0.975, 1) = 12.706205 (printed t tables)
T_2 = 4.302653
T_1 = 12.706205


class TempDir(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def write(self, rel, text, mode="w"):
        path = os.path.join(self.tmp, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, mode) as f:
            f.write(text)
        return path


# ---------------------------------------------------------------- repeats

class TestRepeats(unittest.TestCase):
    def test_three_values(self):
        # 1, 2, 3: mean 2, sd sqrt((1 + 0 + 1) / 2) = 1,
        # half-width t(0.975, 2) / sqrt(3) = 4.302653 / 1.732051 = 2.484138
        s = repeats.Summary([1, 2, 3])
        self.assertEqual(s.n, 3)
        self.assertAlmostEqual(s.mean, 2.0, places=12)
        self.assertAlmostEqual(s.sd, 1.0, places=12)
        self.assertAlmostEqual(s.half_width, 2.484138, places=5)
        self.assertAlmostEqual(s.lo, 2.0 - 2.484138, places=5)
        self.assertAlmostEqual(s.hi, 2.0 + 2.484138, places=5)
        self.assertIsNone(s.note)

    def test_two_values(self):
        # 10, 12: mean 11, sd sqrt(2) = 1.414214, half-width
        # t(0.975, 1) * sqrt(2) / sqrt(2) = 12.706205
        s = repeats.Summary([10.0, 12.0])
        self.assertAlmostEqual(s.sd, math.sqrt(2.0), places=12)
        self.assertAlmostEqual(s.half_width, T_1, places=5)

    def test_t_quantile(self):
        self.assertAlmostEqual(repeats.t_quantile(2), T_2, places=5)
        self.assertAlmostEqual(repeats.t_quantile(1), T_1, places=5)

    def test_one_value_has_no_interval(self):
        s = repeats.Summary([7.5])
        self.assertEqual((s.n, s.mean), (1, 7.5))
        self.assertIsNone(s.sd)
        self.assertIsNone(s.half_width)
        self.assertIsNone(s.lo)
        self.assertEqual(s.note, "n = 1: no interval")

    def test_bad_values(self):
        with self.assertRaisesRegex(ValueError, "no values"):
            repeats.Summary([])
        with self.assertRaisesRegex(ValueError, "not finite"):
            repeats.Summary([1.0, float("nan")])

    def test_error_against_theory(self):
        # 9, 10, 11 against 10: abs errors -1, 0, 1 (mean 0, sd 1);
        # relative -0.1, 0, 0.1 (mean 0, sd 0.1, half-width 0.2484138)
        e = repeats.error_against_theory([9.0, 10.0, 11.0], [10.0, 10.0, 10.0])
        self.assertAlmostEqual(e["abs"].mean, 0.0, places=12)
        self.assertAlmostEqual(e["abs"].sd, 1.0, places=12)
        self.assertAlmostEqual(e["rel"].sd, 0.1, places=12)
        self.assertAlmostEqual(e["rel"].half_width, 0.2484138, places=6)
        # 5.1, 5.2, 5.3 against 5: abs mean 0.2, rel mean 0.04
        e = repeats.error_against_theory([5.1, 5.2, 5.3], [5.0, 5.0, 5.0])
        self.assertAlmostEqual(e["abs"].mean, 0.2, places=12)
        self.assertAlmostEqual(e["rel"].mean, 0.04, places=12)
        self.assertIsNone(e["rel_note"])

    def test_error_theory_zero_is_absolute_only(self):
        # CS0 under prio: theory 0; measured 0.01, 0.03 -> abs mean 0.02
        e = repeats.error_against_theory([0.01, 0.03], [0.0, 0.0])
        self.assertIsNone(e["rel"])
        self.assertEqual(e["rel_note"], "theory 0: absolute error only")
        self.assertAlmostEqual(e["abs"].mean, 0.02, places=12)

    def test_error_without_theory(self):
        self.assertIsNone(repeats.error_against_theory([1.0], [None]))
        with self.assertRaisesRegex(ValueError, "2 measured values but 1"):
            repeats.error_against_theory([1.0, 2.0], [1.0])

    def test_group_by_key(self):
        recs = [{"key": "b", "rep": 1}, {"key": "a", "rep": 2}, {"key": "b", "rep": 0},
                {"key": "a", "rep": 0}]
        g = repeats.group_by_key(recs)
        self.assertEqual(list(g), ["b", "a"])
        self.assertEqual([r["rep"] for r in g["b"]], [0, 1])
        self.assertEqual([r["rep"] for r in g["a"]], [0, 2])

    def test_point_stats_counts_valid_runs_only(self):
        runs = [run_record("k", 0, {"af": (1.0, 2.0)}),
                run_record("k", 1, {"af": (100.0, 2.0)}, reasons=["stalled"]),
                run_record("k", 2, {"af": (2.0, 2.0)}),
                run_record("k", 3, {"af": (3.0, 2.0)})]
        st = repeats.point_stats(runs, ["af"])
        self.assertEqual(st["n"], 3)
        self.assertEqual(st["discarded"], [(1, ["stalled"])])
        self.assertAlmostEqual(st["classes"]["af"]["measured"].mean, 2.0, places=12)
        self.assertEqual(st["classes"]["af"]["theory_mbps"], 2.0)


# ---------------------------------------------------------------- stall

def stats_line(t, late_max_us=50.0, drops=None, class_drops=None):
    """A sender stats line with only what the stall rule reads."""
    classes = {c: {"drop_pkts": (class_drops or {}).get(c, 0)} for c in ("ef", "af", "cs0")}
    d = {"class_limit": 0, "sched_limit": 0, "pushout": 0, "expired": 0}
    d.update(drops or {})
    return {"t": t, "link": {"late_us": {"p50": 1.0, "p99": 5.0, "max": late_max_us}},
            "classes": classes, "drops": d}


class TestStall(unittest.TestCase):
    def lines(self, n=40, **at):
        """Lines t = 1..n; at = {t: kwargs of stats_line}."""
        return [stats_line(float(t), **at.get(t, {})) for t in range(1, n + 1)]

    def test_clean_run_is_valid(self):
        # 99.9 ms and exactly 100 ms are within the limit (more than 100 is a stall)
        lines = self.lines(40)
        lines[20] = stats_line(21.0, late_max_us=99900.0)
        lines[21] = stats_line(22.0, late_max_us=100000.0)
        self.assertEqual(stall.stall_reasons(lines, warmup_s=10.0, never_full=["ef"]), [])

    def test_late_departure(self):
        lines = self.lines(40)
        lines[30] = stats_line(31.0, late_max_us=512300.0)
        self.assertEqual(stall.stall_reasons(lines, warmup_s=10.0),
                         ["sender departure 512.3 ms late at t=31.0 s (limit 100 ms)"])

    def test_late_in_warmup_or_after_end_is_ignored(self):
        lines = self.lines(40)
        lines[4] = stats_line(5.0, late_max_us=900000.0)     # (4, 5] in the warm-up
        lines[10] = stats_line(11.0, late_max_us=900000.0)   # (10, 11]: after the end (10)
        self.assertEqual(stall.stall_reasons(lines, warmup_s=5.0, end_s=10.0), [])
        # (4, 5] ends at the warm-up's end: still inside it
        self.assertEqual(len(stall.stall_reasons(lines, warmup_s=4.5, end_s=10.0)), 1)

    def test_straddling_interval_counts_with_offset(self):
        # daemon t = 10.5 with offset 0.5: traffic interval (9.0, 10.0]...
        # t = 11.5 -> (10.0, 11.0]; warm-up 10.5 s: that interval straddles it
        lines = [stats_line(t + 0.5) for t in range(1, 30)]
        lines[10] = stats_line(11.5, late_max_us=250000.0)
        r = stall.stall_reasons(lines, warmup_s=10.5, offset_s=0.5)
        self.assertEqual(r, ["sender departure 250.0 ms late at t=11.0 s (limit 100 ms)"])
        self.assertEqual(stall.stall_reasons(lines, warmup_s=11.0, offset_s=0.5), [])

    def test_overflow_in_never_full_class(self):
        lines = self.lines(40)
        lines[24] = stats_line(25.0, drops={"class_limit": 3}, class_drops={"ef": 3})
        r = stall.stall_reasons(lines, warmup_s=10.0, never_full=["ef"])
        self.assertEqual(len(r), 1)
        self.assertIn("class ef dropped 3 packets in (24.0, 25.0] s", r[0])
        self.assertIn("class_limit 3", r[0])
        # the same drops in a class that may fill (AF under PSS) are normal
        lines[24] = stats_line(25.0, drops={"class_limit": 3}, class_drops={"af": 3})
        self.assertEqual(stall.stall_reasons(lines, warmup_s=10.0, never_full=["ef"]), [])

    def test_delay_drops_are_not_overflow(self):
        lines = self.lines(40)
        lines[24] = stats_line(25.0, drops={"expired": 2}, class_drops={"ef": 2})
        self.assertEqual(stall.stall_reasons(lines, warmup_s=10.0, never_full=["ef"]), [])

    def test_no_interval_after_warmup(self):
        r = stall.stall_reasons(self.lines(8), warmup_s=10.0)
        self.assertEqual(r, ["no sender stats interval after the warm-up (t > 10 s)"])

    def test_bad_input(self):
        with self.assertRaisesRegex(ValueError, "line 2: no numeric 't'"):
            stall.stall_reasons([stats_line(1.0), {"x": 1}], warmup_s=0.0)
        with self.assertRaisesRegex(ValueError, "t=1.0 s: no link.late_us.max"):
            stall.stall_reasons([{"t": 1.0, "link": {}}], warmup_s=0.0)
        with self.assertRaisesRegex(ValueError, "no class 'voice'"):
            stall.stall_reasons(self.lines(3), warmup_s=0.0, never_full=["voice"])


# ---------------------------------------------------------------- cache

def git(repo, *args):
    return subprocess.run(["git", "-C", repo] + list(args), check=True,
                          capture_output=True, text=True).stdout


def make_repo(tmp):
    """A small repository shaped like schedtun's, one commit."""
    repo = os.path.join(tmp, "repo")
    files = {"CMakeLists.txt": "project(x)\n", "src/a.c": "int a;\n",
             "include/a.h": "extern int a;\n", "mininet/geo.py": "print(1)\n",
             "mininet/results/fig5.md": "| old |\n", "scripts/reproduce.sh": "#!/bin/sh\n",
             "docs/x.md": "doc\n", ".gitignore": "build/\n"}
    for rel, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(repo, rel)), exist_ok=True)
        with open(os.path.join(repo, rel), "w") as f:
            f.write(text)
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "t@example.invalid")
    git(repo, "config", "user.name", "t")
    commit_all(repo, "one")
    return repo


def commit_all(repo, msg):
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", msg)


def edit(repo, rel, text):
    path = os.path.join(repo, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


PARAMS = {"sched": "pss", "sched_group": "pss = { bw = 0.408163; lm = 66286; lr = 0; };",
          "capacity": "20Mbit", "ef": "10Mbit", "duration_s": 30, "warmup_s": 10,
          "flows": {"af": 10, "cs0": 10}, "delay": "250ms", "seed": 1,
          "tools": {"iperf3": "3.12"}}
CHANGED = {"sched": "dwrr", "sched_group": "pss = { bw = 0.408164; lm = 66286; lr = 0; };",
           "capacity": "cosine:20Mbit:0.3:15s", "ef": "5Mbit", "duration_s": 31,
           "warmup_s": 11, "flows": {"af": 10, "cs0": 9}, "delay": "251ms", "seed": 2,
           "tools": {"iperf3": "3.13"}}


class TestCache(TempDir):
    def setUp(self):
        super().setUp()
        self.repo = make_repo(self.tmp)

    def key(self, params=PARAMS):
        return cache.run_key(params, cache.code_state(self.repo))

    def test_key_changes_with_each_field(self):
        self.assertEqual(set(CHANGED), set(cache.REQUIRED_PARAMS))
        base = self.key()
        seen = {base}
        for f, v in CHANGED.items():
            p = dict(PARAMS, **{f: v})
            k = self.key(p)
            self.assertNotEqual(k, base, f)
            seen.add(k)
        self.assertEqual(len(seen), len(CHANGED) + 1)
        # an extra field the caller adds counts too
        self.assertNotEqual(self.key(dict(PARAMS, ef_exp="10Mbit")), base)

    def test_key_is_stable_and_exact(self):
        self.assertEqual(self.key(), self.key(json.loads(json.dumps(PARAMS))))
        self.assertEqual(len(self.key()), 64)
        # 0.1 + 0.2 is not 0.3: exact float repr
        a = self.key(dict(PARAMS, x=0.1 + 0.2))
        self.assertNotEqual(a, self.key(dict(PARAMS, x=0.3)))

    def test_bad_params(self):
        p = dict(PARAMS)
        del p["warmup_s"]
        with self.assertRaisesRegex(ValueError, "params lack warmup_s"):
            self.key(p)
        with self.assertRaises(ValueError):
            self.key(dict(PARAMS, x=float("nan")))
        with self.assertRaises(TypeError):
            self.key(dict(PARAMS, x={1, 2}))

    def test_results_only_commit_changes_nothing(self):
        before = cache.code_state(self.repo)
        edit(self.repo, "mininet/results/fig5.md", "| new |\n")
        edit(self.repo, "mininet/results/fig6.md", "| added |\n")
        edit(self.repo, "docs/x.md", "doc 2\n")
        st = cache.code_state(self.repo)
        self.assertFalse(st["dirty"], st["dirty_files"])
        commit_all(self.repo, "results")
        after = cache.code_state(self.repo)
        self.assertNotEqual(after["commit"], before["commit"])
        self.assertEqual(after["tree"], before["tree"])
        self.assertEqual(cache.run_key(PARAMS, after), cache.run_key(PARAMS, before))

    def test_markdown_in_code_paths_changes_nothing(self):
        """The READMEs beside the sources are prose: editing one (tracked or
        new, in any code path, at any depth) is neither dirty nor a new key,
        while a non-Markdown file beside it still is."""
        before = cache.code_state(self.repo)
        edit(self.repo, "mininet/README.md", "# new\n")            # untracked
        edit(self.repo, "src/sched/README.md", "# sched\n")
        edit(self.repo, "README.md.py", "x = 1\n")                 # outside the paths
        st = cache.code_state(self.repo)
        self.assertFalse(st["dirty"], st["dirty_files"])
        commit_all(self.repo, "readmes")
        edit(self.repo, "mininet/README.md", "# changed\n")        # tracked, modified
        st = cache.code_state(self.repo)
        self.assertFalse(st["dirty"], st["dirty_files"])
        commit_all(self.repo, "readme edit")
        after = cache.code_state(self.repo)
        self.assertEqual(after["tree"], before["tree"])
        self.assertEqual(cache.run_key(PARAMS, after), cache.run_key(PARAMS, before))
        edit(self.repo, "src/sched/README.mdx", "not markdown\n")  # suffix is exact
        self.assertEqual(cache.code_state(self.repo)["dirty_files"], ["src/sched/README.mdx"])

    def test_code_commit_changes_key(self):
        for rel in ("src/a.c", "include/a.h", "CMakeLists.txt", "mininet/geo.py",
                    "scripts/reproduce.sh"):
            before = self.key()
            edit(self.repo, rel, "changed %s\n" % rel)
            commit_all(self.repo, rel)
            self.assertNotEqual(self.key(), before, rel)

    def test_dirty_tree_changes_key_and_is_flagged(self):
        clean = cache.code_state(self.repo)
        self.assertFalse(clean["dirty"])
        self.assertIsNone(clean["dirty_hash"])
        edit(self.repo, "src/a.c", "int a = 1;\n")
        d1 = cache.code_state(self.repo)
        self.assertTrue(d1["dirty"])
        self.assertEqual(d1["dirty_files"], ["src/a.c"])
        self.assertEqual(d1["tree"], clean["tree"])         # HEAD's tree is HEAD's
        self.assertNotEqual(cache.run_key(PARAMS, d1), cache.run_key(PARAMS, clean))
        edit(self.repo, "src/a.c", "int a = 2;\n")         # another edit, another key
        d2 = cache.code_state(self.repo)
        self.assertNotEqual(d2["dirty_hash"], d1["dirty_hash"])
        git(self.repo, "checkout", "-q", "--", "src/a.c")
        edit(self.repo, "mininet/new.py", "x = 1\n")       # an untracked file counts
        d3 = cache.code_state(self.repo)
        self.assertTrue(d3["dirty"])
        self.assertEqual(d3["dirty_files"], ["mininet/new.py"])
        edit(self.repo, "mininet/new.py", "x = 2\n")       # and its content
        self.assertNotEqual(cache.code_state(self.repo)["dirty_hash"], d3["dirty_hash"])
        os.remove(os.path.join(self.repo, "mininet/new.py"))
        git(self.repo, "mv", "src/a.c", "src/b.c")          # a staged rename
        d4 = cache.code_state(self.repo)
        self.assertEqual(d4["dirty_files"], ["src/b.c"])
        self.assertNotEqual(cache.run_key(PARAMS, d4), cache.run_key(PARAMS, clean))
        git(self.repo, "reset", "-q", "--hard")
        edit(self.repo, "build/schedtun", "binary\n")      # ignored: not dirty
        self.assertEqual(cache.code_state(self.repo)["dirty"], False)

    def test_not_a_repo(self):
        with self.assertRaisesRegex(RuntimeError, "git rev-parse"):
            cache.code_state(self.tmp)

    def test_closure_keys_only_what_a_sweep_runs(self):
        files = {
            "mininet/asweep.py": "import os\nfrom lib import driver\nimport arun\n",
            "mininet/arun.py": "def f():\n    from lib.meas import m\n"
                               "    return ['python3', 'tool.py']\n",
            "mininet/tool.py": "import lib.shared\n",
            "mininet/lib/__init__.py": "",
            "mininet/lib/driver.py": "from . import rel\n",      # relative
            "mininet/lib/rel.py": "",
            "mininet/lib/meas.py": "",
            "mininet/lib/shared.py": "import json\n",
            "mininet/bsweep.py": "from lib import other\n",
            "mininet/lib/other.py": "",
        }
        for rel, text in files.items():
            edit(self.repo, rel, text)
        commit_all(self.repo, "two sweeps")
        got = cache.closure(self.repo, ["mininet/asweep.py"])
        self.assertEqual(got, ["mininet/arun.py", "mininet/asweep.py", "mininet/lib/__init__.py",
                               "mininet/lib/driver.py", "mininet/lib/meas.py",
                               "mininet/lib/rel.py", "mininet/lib/shared.py",
                               "mininet/tool.py"])
        paths = cache.BASE_PATHS + tuple(got)

        def key():
            return cache.run_key(PARAMS, cache.code_state(self.repo, paths=paths))
        before = key()
        edit(self.repo, "mininet/lib/other.py", "x = 1\n")    # the other sweep's
        edit(self.repo, "mininet/geo.py", "print(2)\n")       # not run by this one
        commit_all(self.repo, "elsewhere")
        self.assertEqual(key(), before)
        for rel in ("mininet/tool.py", "mininet/lib/meas.py", "mininet/lib/rel.py", "src/a.c"):
            edit(self.repo, rel, "# changed\n")
            commit_all(self.repo, rel)
            self.assertNotEqual(key(), before, rel)
            before = key()
        edit(self.repo, "mininet/arun.py", "def (\n")
        with self.assertRaises(SyntaxError):
            cache.closure(self.repo, ["mininet/asweep.py"])

    def test_closure_covers_what_the_papers_runs_load(self):
        # each paper's sweep, run script and traffic tools imported in a
        # fresh interpreter: every module they load from mininet/ must be in
        # the sweep's closure (a file left out would let a stale result stand)
        runs = {"dqsweep": ("dq", "websess"),
                "ticketsweep": ("ticket", "websess", "tfrc"),
                "pdrrsweep": ("pdrr", "websess", "onoff")}
        for sweep_mod, scripts in runs.items():
            prog = ("import sys, os; sys.path.insert(0, %r)\n"
                    "import importlib\n"
                    "for m in %r: importlib.import_module(m)\n"
                    "import schedlab.starnet, schedlab.link\n"
                    "print('\\n'.join(sorted(os.path.relpath(f.__file__, %r) for f in "
                    "list(sys.modules.values()) if getattr(f, '__file__', None) and "
                    "os.path.abspath(f.__file__).startswith(%r))))"
                    % (os.path.join(ROOT, "mininet"), (sweep_mod,) + scripts, ROOT,
                       os.path.join(ROOT, "mininet") + os.sep))
            r = subprocess.run([sys.executable, "-c", prog], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            loaded = set(r.stdout.split())
            self.assertIn("mininet/%s.py" % sweep_mod, loaded)
            got = set(cache.closure(ROOT, ["mininet/%s.py" % sweep_mod]))
            self.assertEqual(loaded - got, set(), sweep_mod)
            for s in scripts:
                self.assertIn("mininet/%s.py" % s, got, sweep_mod)


# ---------------------------------------------------------------- provenance

class TestProvenance(TempDir):
    def test_record_fields(self):
        repo = make_repo(self.tmp)
        proc = os.path.join(self.tmp, "proc")
        self.write("proc/loadavg", "0.50 0.40 0.30 1/100 123\n")
        self.write("proc/cpuinfo", "processor\t: 0\nmodel name\t: Test CPU @ 2GHz\n\n"
                                   "processor\t: 1\nmodel name\t: Test CPU @ 2GHz\n\n"
                                   "processor\t: 2\nmodel name\t: Other\n\n")
        binary = self.write("bin/schedtun", b"\x7fELF fake", "wb")
        times = iter(["2026-11-27T10:00:00.000+00:00", "2026-11-27T10:01:00.000+00:00"])

        class U:
            sysname, release, version, machine = "Linux", "6.1.0-x", "#1 SMP", "x86_64"
        rec = provenance.start(["geo.py", "--sched", "pss"], {"a.conf": "link = {};"},
                               binary, repo, proc_root=proc, uname=lambda: U,
                               now=lambda: next(times))
        self.assertEqual(rec["argv"], ["geo.py", "--sched", "pss"])
        self.assertEqual(rec["config_files"], {"a.conf": "link = {};"})
        self.assertEqual(rec["binary"], {"path": binary,
                                         "sha256": hashlib.sha256(b"\x7fELF fake").hexdigest()})
        self.assertRegex(rec["code"]["commit"], "^[0-9a-f]{40}$")
        self.assertEqual(rec["code"]["commit"], git(repo, "rev-parse", "HEAD").strip())
        self.assertIs(rec["code"]["dirty"], False)
        self.assertEqual(rec["kernel"], {"sysname": "Linux", "release": "6.1.0-x",
                                         "version": "#1 SMP", "machine": "x86_64"})
        # 3, not this machine's count: read from the fake cpuinfo
        self.assertEqual(rec["cpu"], {"model": "Test CPU @ 2GHz", "count": 3})
        self.assertEqual(rec["loadavg_before"], [0.5, 0.4, 0.3])
        self.assertIsNone(rec["loadavg_after"])
        self.assertEqual(rec["start_utc"], "2026-11-27T10:00:00.000+00:00")
        self.write("proc/loadavg", "1.25 0.60 0.35 2/100 130\n")
        provenance.finish(rec, proc_root=proc, now=lambda: next(times))
        self.assertEqual(rec["loadavg_after"], [1.25, 0.6, 0.35])
        self.assertEqual(rec["end_utc"], "2026-11-27T10:01:00.000+00:00")
        json.dumps(rec, allow_nan=False)              # JSON-ready as a whole

    def test_real_sources_are_typed(self):
        import datetime
        t = datetime.datetime.fromisoformat(provenance.utc_now())
        self.assertEqual(t.utcoffset(), datetime.timedelta(0))
        la = provenance.loadavg()
        self.assertEqual(len(la), 3)
        self.assertTrue(all(isinstance(x, float) for x in la))
        cpu = provenance.cpu_info()
        self.assertIsInstance(cpu["count"], int)
        self.assertGreaterEqual(cpu["count"], 1)

    def test_bad_loadavg(self):
        self.write("proc/loadavg", "x y z\n")
        with self.assertRaisesRegex(ValueError, "not a load average"):
            provenance.loadavg(os.path.join(self.tmp, "proc"))


# ---------------------------------------------------------------- records

def run_record(key, rep, classes, reasons=(), experiment="fig5", params=None):
    """A record whose classes are {c: (measured, theory)}."""
    res = {"window_s": [10, 30], "link": {"measured_mbps": 20.0, "capacity_mbps": 20.0},
           "classes": {c: {"measured_mbps": m, "theory_mbps": t}
                       for c, (m, t) in classes.items()}}
    return records.make(experiment, params if params is not None else {"point": key}, key,
                        rep, 100 + rep, not reasons, list(reasons), res,
                        {"argv": ["geo.py"], "start_utc": "x"})


class TestRecords(TempDir):
    def test_round_trip(self):
        path = os.path.join(self.tmp, "runs.jsonl")
        a = run_record("k1", 0, {"af": (8.1, 8.1)})
        b = run_record("k1", 1, {"af": (8.3, 8.1)}, reasons=["sender departure ..."])
        records.append(path, a)
        records.append(path, b)
        self.assertEqual(records.load(path), [a, b])
        with open(path) as f:
            lines = f.read().split("\n")
        self.assertEqual(len(lines), 3)                 # two lines and the final ""
        self.assertEqual(lines[2], "")
        self.assertNotIn(" ", lines[0].split('"reasons"')[0][:20])   # compact

    def test_missing_file_is_empty(self):
        self.assertEqual(records.load(os.path.join(self.tmp, "none.jsonl")), [])

    def test_malformed_line_names_file_and_line(self):
        path = os.path.join(self.tmp, "runs.jsonl")
        records.append(path, run_record("k1", 0, {"af": (8.1, 8.1)}))
        with open(path, "a") as f:
            f.write('{"schema": 1, "experiment": \n')
        with self.assertRaisesRegex(records.RecordError, "runs.jsonl:2: not JSON"):
            records.load(path)

    def test_incomplete_record_names_field(self):
        path = os.path.join(self.tmp, "runs.jsonl")
        rec = run_record("k1", 0, {"af": (8.1, 8.1)})
        del rec["seed"]
        self.write("runs.jsonl", "\n".join([json.dumps(run_record("k", 0, {})),
                                            json.dumps(rec)]) + "\n")
        with self.assertRaisesRegex(records.RecordError, r"runs.jsonl:2: missing seed"):
            records.load(path)

    def test_unterminated_line(self):
        path = self.write("runs.jsonl", json.dumps(run_record("k", 0, {})))
        with self.assertRaisesRegex(records.RecordError, "runs.jsonl:1: unterminated"):
            records.load(path)
        with self.assertRaisesRegex(records.RecordError, "runs.jsonl:1: last line unterminated"):
            records.append(path, run_record("k", 1, {}))

    def test_short_write_leaves_no_partial_line(self):
        path = os.path.join(self.tmp, "runs.jsonl")
        first = run_record("k", 0, {"af": (1.0, 1.0)})
        records.append(path, first)
        real_write = records.os.write

        def half_write(fd, data):
            return real_write(fd, data[:len(data) // 2])
        records.os.write = half_write
        try:
            with self.assertRaisesRegex(OSError, "short write"):
                records.append(path, run_record("k", 1, {"af": (1.0, 1.0)}))
        finally:
            records.os.write = real_write
        self.assertEqual(records.load(path), [first])

    def test_inconsistent_record_refused(self):
        with self.assertRaisesRegex(records.RecordError, "valid False with 0 reasons"):
            records.make("fig5", {}, "k", 0, 1, False, [], {}, {})
        with self.assertRaisesRegex(records.RecordError, "reasons .*not all strings"):
            records.make("fig5", {}, "k", 0, 1, False, [3], {}, {})
        with self.assertRaisesRegex(records.RecordError, "rep 'x': not int"):
            records.make("fig5", {}, "k", "x", 1, True, [], {}, {})

    def test_results_from_summary(self):
        summary = {"window_s": [10, 30], "link": {"measured_mbps": 19.9},
                   "classes": {"af": {"measured_mbps": 8.0, "theory_mbps": 8.1,
                                      "theory": "eq. 7", "rel_error": -0.0123,
                                      "iperf_mbps": 7.6}},
                   "config": {"big": 1}, "machine": {}}
        r = records.results(summary)
        self.assertEqual(r["classes"]["af"]["theory"], "eq. 7")
        self.assertEqual(set(r), {"window_s", "classes", "link"})
        with self.assertRaisesRegex(records.RecordError, "missing 'window_s'"):
            records.results({"classes": {}})

    def test_select_and_needs(self):
        recs = [run_record("k1", 0, {}), run_record("k2", 0, {}, experiment="fig6"),
                run_record("k1", 1, {}, reasons=["stall"]), run_record("k1", 2, {})]
        self.assertEqual([r["rep"] for r in records.select(recs, key="k1")], [0, 1, 2])
        self.assertEqual([r["key"] for r in records.select(recs, experiment="fig6")], ["k2"])
        n = records.needs(recs, "k1", n_wanted=5, retry_limit=3)
        self.assertEqual((n["valid"], n["discarded"], n["to_run"], n["next_rep"]),
                         (2, 1, 3, 3))
        self.assertFalse(n["gave_up"])
        n = records.needs(recs, "k1", n_wanted=5, retry_limit=1)
        self.assertEqual((n["to_run"], n["gave_up"]), (0, True))
        self.assertIn("retry limit 1 reached", n["message"])
        n = records.needs(recs, "k1", n_wanted=2, retry_limit=0)    # enough: no give-up
        self.assertEqual((n["to_run"], n["gave_up"]), (0, False))
        n = records.needs(recs, "k3", n_wanted=3, retry_limit=2)
        self.assertEqual((n["to_run"], n["next_rep"]), (3, 0))


# ---------------------------------------------------------------- lock

class TestLock(TempDir):
    def test_second_attempt_is_refused(self):
        path = os.path.join(self.tmp, "exp.lock")
        first = lock.ExperimentLock(["geo.py", "--sched", "pss"], path).acquire()
        try:
            with self.assertRaises(lock.Busy) as cm:
                lock.ExperimentLock(["reproduce.py", "fig5"], path).acquire()
            msg = str(cm.exception)
            self.assertIn("held by pid %d: geo.py --sched pss" % os.getpid(), msg)
            self.assertIn(path, msg)
        finally:
            first.release()
        with lock.ExperimentLock(["reproduce.py", "fig5"], path):    # free again
            with open(path) as f:
                self.assertEqual(f.read(), "pid %d: reproduce.py fig5\n" % os.getpid())

    def test_unopenable_lock(self):
        with self.assertRaisesRegex(lock.Busy, "cannot open"):
            lock.ExperimentLock(["x"], os.path.join(self.tmp, "no", "dir", "l")).acquire()

    def fake_proc(self, procs):
        for pid, (comm, args) in procs.items():
            self.write("proc/%s/comm" % pid, comm + "\n")
            self.write("proc/%s/cmdline" % pid,
                       b"".join(a.encode() + b"\0" for a in args), "wb")
        os.makedirs(os.path.join(self.tmp, "proc", "self"), exist_ok=True)
        return os.path.join(self.tmp, "proc")

    def test_busy_scan(self):
        proc = self.fake_proc({
            100: ("schedtun", ["./build-rel/schedtun", "-f", "a.conf"]),
            101: ("iperf3", ["iperf3", "-s", "-1"]),
            102: ("bash", ["bash", "--norc", "-is", "mininet:h1"]),
            103: ("python3", ["python3", "plot.py"]),
            104: ("schedtun", ["schedtun", "--check"]),          # "our own" pid
            105: ("sshd", ["sshd: user"])})
        found = lock.busy(proc, own_pid=104)
        self.assertEqual([(p, n) for p, n, _ in found],
                         [(100, "schedtun"), (101, "iperf3"), (102, "mininet host")])
        with self.assertRaises(lock.Busy) as cm:
            lock.check_idle(proc, own_pid=104)
        msg = str(cm.exception)
        self.assertIn("schedtun pid 100 (./build-rel/schedtun -f a.conf)", msg)
        self.assertIn("iperf3 pid 101", msg)
        self.assertIn("mininet host pid 102", msg)
        self.assertEqual(len(lock.check_idle(proc, force=True, own_pid=104)), 3)

    def test_take_releases_lock_when_busy(self):
        path = os.path.join(self.tmp, "exp.lock")
        proc = self.fake_proc({300: ("iperf3", ["iperf3", "-s"])})
        with self.assertRaisesRegex(lock.Busy, "iperf3 pid 300"):
            lock.take(["geo.py"], path=path, proc_root=proc)
        held, found = lock.take(["geo.py"], force=True, path=path, proc_root=proc)
        try:
            self.assertEqual([p for p, _, _ in found], [300])
            with self.assertRaisesRegex(lock.Busy, "held by pid"):
                lock.take(["other"], force=True, path=path, proc_root=proc)
        finally:
            held.release()

    def test_idle_machine(self):
        proc = self.fake_proc({200: ("bash", ["bash"]), 201: ("python3", ["python3"])})
        self.assertEqual(lock.check_idle(proc, own_pid=1), [])


class TestCallRun(TempDir):
    """procs.call_run: an interrupted sweep lets its run clean up (the bug:
    subprocess.call SIGKILLed pdrr.py in its cleanup, leaving a daemon)."""

    CHILD = r"""
import os, signal, sys, time
ready, done, ignore = sys.argv[1:4]
def cleanup(signum, frame):
    time.sleep(1.0)                  # stopping daemons takes time
    open(done, "w").write("cleaned up\n")
    sys.exit(130)
signal.signal(signal.SIGINT, signal.SIG_IGN if ignore == "1" else cleanup)
open(ready + ".tmp", "w").write("%d\n" % os.getpid())
os.rename(ready + ".tmp", ready)
time.sleep(60)
"""
    DRIVER = r"""
import sys
sys.path.insert(0, sys.argv[1])
from schedlab import procs
child, ready, done, ignore, cleanup_s, result = sys.argv[2:8]
procs.interruptible()      # also where the shell left SIGINT ignored
try:
    rc = procs.call_run([sys.executable, child, ready, done, ignore], None,
                        cleanup_s=float(cleanup_s))
    open(result, "w").write("rc %d\n" % rc)
except KeyboardInterrupt:
    open(result, "w").write("interrupted\n")
"""

    def interrupt(self, ignore, cleanup_s, sig=signal.SIGINT):
        """Starts driver -> child, waits for the child, signals the driver
        alone (sig); returns (child pid, driver's result, whether the child's
        cleanup finished, seconds from the signal to the driver's exit)."""
        child = self.write("child.py", self.CHILD)
        driver = self.write("driver.py", self.DRIVER)
        ready, done, result = (os.path.join(self.tmp, n) for n in ("ready", "done", "result"))
        d = subprocess.Popen([sys.executable, driver, os.path.join(ROOT, "mininet"), child,
                              ready, done, ignore, str(cleanup_s), result],
                             start_new_session=True)     # a terminal's Ctrl-C must not reach it
        try:
            deadline = time.monotonic() + 30
            while not os.path.exists(ready):
                self.assertIsNone(d.poll(), "the driver died before its child started")
                self.assertLess(time.monotonic(), deadline, "the child never started")
                time.sleep(0.02)
            with open(ready) as f:
                pid = int(f.read())
            t0 = time.monotonic()
            os.kill(d.pid, sig)
            d.wait(timeout=30)
            took = time.monotonic() - t0
        finally:
            if d.poll() is None:
                d.kill()
        with open(result) as f:
            return pid, f.read().strip(), os.path.exists(done), took

    def assert_gone(self, pid):
        # the child was the driver's: reaped by its wait(), so the pid is free
        with self.assertRaises(ProcessLookupError):
            os.kill(pid, 0)

    def test_run_cleans_up_before_the_interrupt_goes_on(self):
        pid, result, cleaned, took = self.interrupt("0", 20)
        self.assertEqual(result, "interrupted")
        self.assertTrue(cleaned, "the run was killed in its cleanup")
        self.assertGreaterEqual(took, 1.0)       # it waited for the cleanup
        self.assert_gone(pid)

    def test_a_run_that_does_not_stop_is_killed_after_the_grace(self):
        # and `kill PID` (SIGTERM) of the driver is an interrupt too
        pid, result, cleaned, took = self.interrupt("1", 1, signal.SIGTERM)
        self.assertEqual(result, "interrupted")
        self.assertFalse(cleaned)
        self.assertGreaterEqual(took, 1.0)
        self.assertLess(took, 20)                # not its 60 s of sleep
        self.assert_gone(pid)


class TestInheritedLock(TempDir):
    """A holder passes the lock to its child runs (lock.child_env): accepted
    only from an ancestor that the lock file names."""

    def fake_tree(self, parents):
        """PROC/PID/stat for {pid: parent pid}."""
        for pid, ppid in parents.items():
            self.write("proc/%d/stat" % pid, "%d (py (x)) S %d 1 1 0 -1\n" % (pid, ppid))
        return os.path.join(self.tmp, "proc")

    def test_inherit_rules(self):
        # 1 -> 50 (reproduce, the holder) -> 60 (sh) -> 70 (geo.py); 80 elsewhere
        proc = self.fake_tree({50: 1, 60: 50, 70: 60, 80: 1})
        path = self.write("exp.lock", "pid 50: reproduce.sh fig5\n")
        refusal = lock.Busy("experiment lock %s: held by pid 50" % path)
        env = {lock.ENV_VAR: "50"}
        got = lock.inherit(refusal, path, env, proc, own_pid=70)
        self.assertTrue(got.inherited)
        self.assertEqual(got.holder_pid, 50)
        self.assertIsNone(lock.inherit(refusal, path, {}, proc, own_pid=70))
        for val, own, why in (("60", 70, "the lock file names pid 50"),
                              ("50", 80, "not an ancestor of pid 80"),
                              ("70", 70, "the lock file names pid 50"),
                              ("x5", 70, "not a pid")):
            with self.subTest(val=val, own=own):
                with self.assertRaises(lock.Busy) as cm:
                    lock.inherit(refusal, path, {lock.ENV_VAR: val}, proc, own_pid=own)
                self.assertIn(why, str(cm.exception))
                self.assertIn("held by pid 50", str(cm.exception))
        # the holder itself is not its own ancestor
        self.write("exp.lock", "pid 70: geo.py\n")
        with self.assertRaisesRegex(lock.Busy, "not an ancestor of pid 70"):
            lock.inherit(refusal, path, {lock.ENV_VAR: "70"}, proc, own_pid=70)

    def test_holder_pid_and_parent(self):
        self.assertEqual(lock.holder_pid("pid 4242: geo.py --sched pss\n"), 4242)
        self.assertIsNone(lock.holder_pid(""))
        self.assertIsNone(lock.holder_pid("pid x: y"))
        self.assertEqual(lock.parent_pid(os.getpid()), os.getppid())
        self.assertTrue(lock.is_ancestor(os.getppid(), os.getpid()))
        self.assertFalse(lock.is_ancestor(os.getpid(), os.getpid()))

    CHILD = ("import sys; sys.path.insert(0, %r)\n"
             "from schedlab import lock\n"
             "try:\n"
             "    held, _ = lock.take(['geo.py'], force=True, path=sys.argv[1])\n"
             "except lock.Busy as e:\n"
             "    print('BUSY', e); sys.exit(3)\n"
             "print('INHERITED' if held.inherited else 'OWN', getattr(held, 'holder_pid', ''))\n"
             "held.release()\n")

    def child(self, path, env):
        import subprocess
        code = self.CHILD % os.path.join(ROOT, "mininet")
        return subprocess.run([sys.executable, "-c", code, path], env=env,
                              capture_output=True, text=True, timeout=60)

    def test_child_run_shares_the_lock(self):
        path = os.path.join(self.tmp, "exp.lock")
        held = lock.ExperimentLock(["reproduce.sh", "fig5"], path).acquire()
        try:
            r = self.child(path, lock.child_env())
            self.assertEqual((r.returncode, r.stdout.strip()),
                             (0, "INHERITED %d" % os.getpid()), r.stderr)
            # its release left our lock alone
            with self.assertRaisesRegex(lock.Busy, "held by pid %d" % os.getpid()):
                lock.ExperimentLock(["x"], path).acquire()
            # without the variable, or naming another pid: refused, no deadlock
            env = dict(os.environ)
            env.pop(lock.ENV_VAR, None)
            r = self.child(path, env)
            self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
            self.assertIn("held by pid %d: reproduce.sh fig5" % os.getpid(), r.stdout)
            r = self.child(path, lock.child_env(pid=os.getppid()))
            self.assertEqual(r.returncode, 3, r.stdout + r.stderr)
            self.assertIn("the lock file names pid %d" % os.getpid(), r.stdout)
        finally:
            held.release()
        r = self.child(path, lock.child_env())     # free: the child takes its own
        self.assertEqual((r.returncode, r.stdout.strip()), (0, "OWN"), r.stderr)


# ---------------------------------------------------------------- tables

COLUMNS = [("scheduler", "sched"), ("R_EF", "ef_mbps")]


def table_records():
    """pss at EF 10: 4 runs (one stalled), AF 1, 2, 3 against 2; prio at
    EF 5: one run, CS0 theory 0."""
    pss = {"sched": "pss", "ef_mbps": 10}
    prio = {"sched": "prio", "ef_mbps": 5}
    recs = [run_record("kp", r, {"af": (af, 2.0), "cs0": (1.0, 1.0), "ef": (10.0, 10.0)},
                       params=pss) for r, af in ((0, 1.0), (1, 2.0), (3, 3.0))]
    recs.append(run_record("kp", 2, {"af": (9.0, 2.0), "cs0": (1.0, 1.0), "ef": (10.0, 10.0)},
                           reasons=["sender departure 512.3 ms late at t=31.0 s "
                                    "(limit 100 ms)"], params=pss))
    recs.append(run_record("kq", 0, {"af": (15.0, 15.0), "cs0": (0.02, 0.0),
                                     "ef": (5.0, 5.0)}, params=prio))
    return recs


class TestTables(TempDir):
    def test_cells(self):
        text = tables.render(table_records(), COLUMNS, title="fig5")
        lines = text.split("\n")
        self.assertEqual(lines[0], "# fig5")
        self.assertTrue(text.endswith("|\n"))
        # rows sort on the columns in order: the scheduler first, prio < pss
        prio, pss = [ln for ln in lines if ln.startswith("| p")]
        self.assertTrue(pss.startswith("| pss | 10 | 3 |"), pss)
        self.assertTrue(prio.startswith("| prio | 5 | 1 |"), prio)
        rows = [pss, prio]
        # AF 1, 2, 3: 2.000 +- 2.484; error (x - 2)/2 = -0.5, 0, 0.5: mean 0,
        # sd 0.5, half-width 4.302653 * 0.5 / sqrt(3) = 1.242 -> +-124.2 %
        self.assertIn("| 2.000 ± 2.484 | 2.000 | +0.0 % [-124.2, +124.2] |", rows[0])
        self.assertIn("1: rep 2: sender departure 512.3 ms late at t=31.0 s "
                      "(limit 100 ms) |", rows[0])
        # one run: no interval, said; CS0 theory 0: absolute error
        self.assertIn("| 15.000 (n = 1: no interval) | 15.000 | +0.0 % (n = 1: no interval) |",
                      rows[1])
        self.assertIn("| 0.020 (n = 1: no interval) | 0.000 | +0.020 Mbit/s (n = 1: no interval) |",
                      rows[1])
        self.assertTrue(rows[1].endswith("| 0 |"))

    def test_deterministic(self):
        recs = table_records()
        first = tables.render(recs, COLUMNS)
        rng = random.Random(1)
        orders = [list(reversed(recs))]            # the other point first, reps backwards
        for _ in range(5):
            orders.append(list(recs))
            rng.shuffle(orders[-1])
        for order in orders:
            self.assertEqual(tables.render(order, COLUMNS).encode(), first.encode())

    def test_sort_is_numeric(self):
        recs = [run_record("k%d" % ef, 0, {"af": (1.0, 1.0)},
                           params={"sched": "dwrr", "ef_mbps": ef}) for ef in (15, 5, 10)]
        text = tables.render(recs, COLUMNS, classes=["af"])
        efs = [ln.split(" | ")[1] for ln in text.split("\n") if ln.startswith("| dwrr")]
        self.assertEqual(efs, ["5", "10", "15"])        # as numbers, not as text

    def test_redraw_check(self):
        recs = table_records()
        path = self.write("fig5.md", tables.render(recs, COLUMNS, title="fig5"))
        self.assertIsNone(tables.redraw_check(recs, path, COLUMNS, title="fig5"))
        with open(path) as f:
            lines = f.read().split("\n")
        row = next(i for i, ln in enumerate(lines) if ln.startswith("| pss"))
        self.assertEqual(row, 7)             # title, blank, note, blank, head, rule, prio
        lines[row] = lines[row].replace("2.000 ± 2.484", "2.000 ± 2.000")    # a hand edit
        with open(path, "w") as f:
            f.write("\n".join(lines))
        msg = tables.redraw_check(recs, path, COLUMNS, title="fig5")
        self.assertIsNotNone(msg)
        self.assertTrue(msg.startswith(path + ":8: committed '"), msg)
        self.assertIn("2.000 ± 2.000", msg)
        # a dropped last line is a difference too
        text = tables.render(recs, COLUMNS, title="fig5")
        self.write("fig5.md", text[:text.rindex("| pss")])
        msg = tables.redraw_check(recs, path, COLUMNS, title="fig5")
        self.assertRegex(msg, r":8: committed '', regenerated '\| pss")

    def test_key_with_two_params_refused(self):
        recs = [run_record("k", 0, {"af": (1.0, 1.0)}, params={"sched": "a"}),
                run_record("k", 1, {"af": (1.0, 1.0)}, params={"sched": "b"})]
        with self.assertRaisesRegex(ValueError, "different params"):
            tables.render(recs, COLUMNS, classes=["af"])


if __name__ == "__main__":
    unittest.main()
