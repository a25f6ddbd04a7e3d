"""test_schedlab_link.py - the pure parts of mininet/schedlab/{pairconf,link,procs}.py.

  SCHEDTUN=/path/to/schedtun /usr/bin/python3 -m unittest -v test_schedlab_link
(run from tests/unit; ctest's unit.schedlab_link does exactly this).

No Mininet network is built: the configuration texts are handed to
`schedtun --check -f` (SCHEDTUN, else ../../build/schedtun or
../../build-rel/schedtun, as test_theory finds it; the --check tests fail
without one, since they are the point), addresses and tun names are computed, and the commands
the link runs in a node go to a fake node that records them.  The process
bookkeeping runs real `sleep` children in a temporary state directory.
"""
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "mininet"))

from schedlab import pairconf, procs, tools   # noqa: E402
from schedlab.pairconf import End, PairSpec    # noqa: E402
from test_theory import schedtun_path as theory_schedtun_path  # noqa: E402


def schedtun_path():
    """test_theory's choice (pytools.tool), required here."""
    return theory_schedtun_path()


def ends(tmp):
    """The two ends of a pair as the link allocates its first one."""
    return (End("st0", "172.30.0.1/30", "172.31.0.1", os.path.join(tmp, "a.jsonl")),
            End("st1", "172.30.0.2/30", "172.31.0.2", os.path.join(tmp, "b.jsonl")))


class FakeNode:
    """A Mininet node's cmd(): records each command and answers as a shell
    whose commands all succeed, unless `fail` is in the command."""

    def __init__(self, name, links="", fail=None):
        self.name, self.calls, self.links, self.fail = name, [], links, fail

    def cmd(self, c):
        self.calls.append(c)
        if c.startswith("ip -o link show"):
            return self.links
        if self.fail and self.fail in c:
            return "RTNETLINK answers: Invalid argument\n__rc=2\n"
        return "__rc=0\n"


class ConfTexts(unittest.TestCase):
    """pair_texts() output that the daemon itself accepts, with the options
    where they belong."""

    def setUp(self):
        self.bin = schedtun_path()
        self.tmp = tempfile.mkdtemp(prefix="schedlab-test-")

    def check(self, text, name):
        """Writes text and runs `schedtun --check -f` on it: exit 0 expected."""
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(text)
        r = subprocess.run([self.bin, "--check", "-f", path], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)
        self.assertEqual(r.returncode, 0, "schedtun --check refuses %s:\n%s\n%s" % (
            name, r.stdout.decode(errors="replace"), text))
        return path

    def test_dwrr_pair(self):
        e1, e2 = ends(self.tmp)
        fwd, rev = pairconf.pair_texts(PairSpec(
            rate="20Mbit", delay="250ms", sched="dwrr",
            sched_params="dwrr = { quantum = { af = 12600; cs0 = 2800; }; };",
            stats_interval_s=0.5, end1=e1, end2=e2))
        self.check(fwd, "fwd.conf")
        self.check(rev, "rev.conf")
        self.assertIn('listen = "172.31.0.1:5000"; peer = "172.31.0.2:5000"', fwd)
        self.assertIn('listen = "172.31.0.2:5000"; peer = "172.31.0.1:5000"', rev)
        self.assertIn('tun = "st0"; address = "172.30.0.1/30"', fwd)
        self.assertIn('tun = "st1"; address = "172.30.0.2/30"', rev)
        self.assertIn('rate = "20Mbit"; delay = "250ms"', fwd)
        self.assertIn('name = "dwrr"; dwrr = { quantum = { af = 12600', fwd)
        # the return path's defaults: fifo, 1 Gbit/s, the forward delay
        self.assertIn('rate = "1Gbit"; delay = "250ms"', rev)
        self.assertIn('name = "fifo"', rev)
        self.assertIn('interval = 0.5; file = "%s"' % e1.stats_file, fwd)
        self.assertIn('file = "%s"' % e2.stats_file, rev)

    def test_packet_log_on_one_end(self):
        e1, e2 = ends(self.tmp)
        e1.packet_log = os.path.join(self.tmp, "a.plog.csv")
        fwd, rev = pairconf.pair_texts(PairSpec(rate="30Mbit", sched="ticket",
                                                end1=e1, end2=e2))
        self.check(fwd, "fwd.conf")
        self.check(rev, "rev.conf")
        self.assertIn('file = "%s"; packet_log = "%s"; };' % (e1.stats_file,
                                                             e1.packet_log), fwd)
        self.assertNotIn("packet_log", rev)

    def test_numbers_group_text_and_return_path(self):
        e1, e2 = ends(self.tmp)
        group = ('scheduler = {\n  name = "pss";\n  pss = { bw = 0.666666667; lm = 3733; '
                 'lr = 0; };\n};')
        fwd, rev = pairconf.pair_texts(PairSpec(
            rate=20e6, delay=0.1, sched=group, rev_sched="prio", rev_rate=5e9,
            rev_delay="30ms", mtu=1300, port=6000, end1=e1, end2=e2))
        self.check(fwd, "fwd.conf")
        self.check(rev, "rev.conf")
        self.assertIn('rate = "20000000"; delay = "100000us"', fwd)
        self.assertIn(group, fwd)
        self.assertIn('rate = "5000000000"; delay = "30ms"', rev)
        self.assertIn('name = "prio"', rev)
        self.assertIn("mtu = 1300", rev)
        self.assertIn('peer = "172.31.0.1:6000"', rev)

    def test_cosine_profile(self):
        e1, e2 = ends(self.tmp)
        fwd, _ = pairconf.pair_texts(PairSpec(
            rate=None, profile={"kind": "cosine", "mean": "20Mbit", "amplitude": 0.3,
                                "period": "15s"}, delay="250ms", sched="pss", end1=e1,
            end2=e2))
        self.check(fwd, "fwd.conf")
        self.assertIn('profile = { kind = "cosine"; mean = "20Mbit"; amplitude = 0.3; '
                      'period = "15s"; }', fwd)
        self.assertNotIn("rate =", fwd)

    def test_conf_file_keeps_its_groups_and_moves_the_trace_path(self):
        e1, e2 = ends(self.tmp)
        src = os.path.join(ROOT, "conf", "mahimahi-sender.conf")
        fwd, rev = pairconf.pair_texts(PairSpec(rate=None, delay=None, conf=src,
                                                end1=e1, end2=e2))
        path = self.check(fwd, "fwd.conf")      # in another directory than src
        self.check(rev, "rev.conf")
        self.assertIn('file = "%s"' % os.path.join(ROOT, "conf", "traces",
                                                   "12mbit.mahi"), fwd)
        self.assertNotIn("10.10.0.1", fwd)      # the file's own tunnel group is gone
        self.assertEqual(fwd.count("tunnel ="), 1)
        self.assertEqual(fwd.count("stats ="), 1)
        self.assertIn('delay = "20ms"', rev)    # the file's delay on the return path
        self.assertTrue(os.path.isfile(path))

    def test_conf_file_with_explicit_rate_and_delay(self):
        e1, e2 = ends(self.tmp)
        src = os.path.join(ROOT, "conf", "dwrr-sender.conf")
        fwd, rev = pairconf.pair_texts(PairSpec(rate="12Mbit", delay="40ms", conf=src,
                                                end1=e1, end2=e2))
        self.check(fwd, "fwd.conf")
        self.assertIn('rate = "12Mbit";', fwd)
        self.assertIn('delay = "40ms";', fwd)
        self.assertIn('name = "dwrr"', fwd)
        self.assertEqual(fwd.count("delay ="), 1)
        self.assertIn('delay = "40ms"', rev)

    def test_bad_options_are_named(self):
        e1, e2 = ends(self.tmp)
        cases = [
            (dict(sched="wfq"), "sched 'wfq': unknown scheduler (accepted: fifo prio"),
            (dict(rate=-1), "rate '-1': must be above 0"),
            (dict(delay=-0.5), "delay '-0.5': must be >= 0"),
            (dict(rate='20"Mbit'), "contains a quote"),
            (dict(rate=None, profile={"kind": "sine"}), "profile kind 'sine': unknown"),
            (dict(rate="20Mbit", profile={"kind": "cosine"}), "exactly one of a rate"),
            (dict(sched="scheduler = { name = \"fifo\"; };", sched_params="x = 1;"),
             "only with a scheduler name"),
            (dict(mtu=100), "mtu '100': out of range (accepted: 576..9000"),
        ]
        for kw, want in cases:
            with self.subTest(kw=kw):
                with self.assertRaises(pairconf.ConfError) as cm:
                    pairconf.pair_texts(PairSpec(end1=e1, end2=e2, **kw))
                self.assertIn(want, str(cm.exception))

    def test_check_refuses_what_pairconf_passes_through(self):
        """A rate pairconf cannot judge reaches --check, which must refuse it
        (the link's _write_confs relies on that)."""
        from schedlab.link import LinkError, SchedtunLink
        e1, e2 = ends(self.tmp)
        link = SchedtunLink.__new__(SchedtunLink)
        link.schedtun = self.bin
        link.confs = (os.path.join(self.tmp, "x1.conf"), os.path.join(self.tmp, "x2.conf"))
        with self.assertRaises(LinkError) as cm:
            link._write_confs(PairSpec(rate="20Mbitz", end1=e1, end2=e2))
        self.assertIn("schedtun --check refuses %s" % link.confs[0], str(cm.exception))
        self.assertIn("rate", str(cm.exception))


class Plan(unittest.TestCase):
    """Address allocation, tun names, route commands."""

    def test_pair_in_first_and_next(self):
        self.assertEqual(pairconf.pair_in("172.31.0.0/16", 0),
                         ("172.31.0.1/30", "172.31.0.2/30"))
        self.assertEqual(pairconf.pair_in("172.31.0.0/16", 1),
                         ("172.31.0.5/30", "172.31.0.6/30"))
        self.assertEqual(pairconf.pair_in("10.9.0.0/24", 63),
                         ("10.9.0.253/30", "10.9.0.254/30"))

    def test_pair_in_distinct_subnets(self):
        import ipaddress
        nets = set()
        for i in range(300):
            a, b = pairconf.pair_in("172.30.0.0/16", i)
            na = ipaddress.ip_interface(a).network
            self.assertEqual(na, ipaddress.ip_interface(b).network)
            self.assertNotEqual(a, b)
            nets.add(na)
        self.assertEqual(len(nets), 300)

    def test_pair_in_errors(self):
        with self.assertRaises(pairconf.ConfError) as cm:
            pairconf.pair_in("10.9.0.0/24", 64)
        self.assertIn("has 64 /30 subnets", str(cm.exception))
        with self.assertRaises(pairconf.ConfError):
            pairconf.pair_in("10.9.0.300/24", 0)
        with self.assertRaises(pairconf.ConfError):
            pairconf.pair_in("10.9.0.0/31", 0)

    def test_free_tun_name(self):
        self.assertEqual(pairconf.free_tun_name(set()), "st0")
        self.assertEqual(pairconf.free_tun_name({"st0", "st2", "lo"}), "st1")
        self.assertEqual(pairconf.free_tun_name({"st0", "st1"}), "st2")

    def test_taken_reads_the_node_and_its_reservations(self):
        from schedlab.link import SchedtunLink
        node = FakeNode("r1", links="1: lo: <LOOPBACK,UP> mtu 65536\n"
                        "5: r1-eth0@if6: <BROADCAST> mtu 1500\n"
                        "7: st0: <POINTOPOINT> mtu 1400\n")
        node._schedtun_tuns = {"st1"}
        taken = SchedtunLink._taken(node)
        self.assertEqual(taken, {"lo", "r1-eth0", "st0", "st1"})
        self.assertEqual(pairconf.free_tun_name(taken), "st2")

    def test_route_commands_in_a_fake_node(self):
        from schedlab.link import add_routes
        node = FakeNode("r2")
        cmds = add_routes(node, "st1", "172.30.0.1", ["10.1.0.0/16", "192.168.5.0/24"])
        self.assertEqual(cmds, ["ip route replace 10.1.0.0/16 via 172.30.0.1 dev st1",
                                "ip route replace 192.168.5.0/24 via 172.30.0.1 dev st1"])
        self.assertEqual([c.split(" 2>&1")[0] for c in node.calls], cmds)
        self.assertEqual(add_routes(FakeNode("r3"), "st0", "172.30.0.2", []), [])

    def test_route_errors(self):
        from schedlab.link import LinkError, add_routes
        with self.assertRaises(pairconf.ConfError) as cm:
            pairconf.route_cmds("st0", "172.30.0.2", ["10.1.0.1/16"])
        self.assertIn("behind prefix '10.1.0.1/16'", str(cm.exception))
        node = FakeNode("r1", fail="192.168")
        with self.assertRaises(LinkError) as cm:
            add_routes(node, "st0", "172.30.0.2", ["10.2.0.0/24", "192.168.0.0/16"])
        self.assertIn("r1: `ip route replace 192.168.0.0/16", str(cm.exception))
        self.assertIn("Invalid argument", str(cm.exception))

    def test_underlay_intf_adds_rather_than_replaces(self):
        from schedlab.link import UnderlayIntf
        node = FakeNode("r2")
        intf = UnderlayIntf.__new__(UnderlayIntf)
        intf.node, intf.name, intf.ul_cidr = node, "r2-eth0", "172.31.0.2/30"
        intf.setIP("10.0.0.6/8")
        intf.setIP("10.0.0.7", 8)
        self.assertEqual(node.calls, ["ip addr replace 10.0.0.6/8 dev r2-eth0",
                                      "ip addr replace 10.0.0.7/8 dev r2-eth0"])
        self.assertEqual((intf.ip, intf.prefixLen), ("10.0.0.7", "8"))


class FindTool(unittest.TestCase):
    """schedlab.tools.find_tool: given, $SCHEDTUN, ROOT/build-rel, PATH."""

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name
        self.saved = (tools.ROOT, os.environ.get("SCHEDTUN"), os.environ.get("PATH"))
        tools.ROOT = os.path.join(self.tmp, "repo")
        os.environ.pop("SCHEDTUN", None)
        os.environ["PATH"] = os.path.join(self.tmp, "bin")

    def tearDown(self):
        tools.ROOT = self.saved[0]
        for k, v in (("SCHEDTUN", self.saved[1]), ("PATH", self.saved[2])):
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        self._tmp.cleanup()

    def exe(self, rel, mode=0o755):
        path = os.path.join(self.tmp, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write("#!/bin/sh\n")
        os.chmod(path, mode)
        return path

    def test_order_and_refusals(self):
        with self.assertRaisesRegex(tools.ToolError, "no schedtun binary: give its path"):
            tools.find_tool()
        on_path = self.exe("bin/schedtun")
        self.assertEqual(tools.find_tool(), on_path)
        built = self.exe("repo/build-rel/schedtun")
        self.assertEqual(tools.find_tool(), built)          # build-rel before PATH
        env = self.exe("env/schedtun")
        os.environ["SCHEDTUN"] = env
        self.assertEqual(tools.find_tool(), env)            # $SCHEDTUN before both
        given = self.exe("given/schedtun")
        self.assertEqual(tools.find_tool(given), given)     # given before all
        # $SCHEDTUN names only schedtun, not the other tools
        sim = self.exe("bin/schedtun-sim")
        self.assertEqual(tools.find_tool(name="schedtun-sim"), sim)
        # a given path that is not executable is refused, not skipped
        plain = self.exe("plain/schedtun", mode=0o644)
        with self.assertRaisesRegex(tools.ToolError, "'%s': not an executable file" % plain):
            tools.find_tool(plain)
        os.environ["SCHEDTUN"] = plain
        with self.assertRaisesRegex(tools.ToolError, r"\$SCHEDTUN '.*': not an executable"):
            tools.find_tool()


class Bookkeeping(unittest.TestCase):
    """procs.py: the state file, the sweep of a dead owner's processes."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="schedlab-state-")
        self.kids = []

    def tearDown(self):
        for p in self.kids:
            if p.poll() is None:
                p.kill()
            p.wait()

    def sleeper(self):
        p = subprocess.Popen(["sleep", "60"])
        self.kids.append(p)
        return p

    def test_state_file_tagged_and_removed(self):
        p = self.sleeper()
        pr = procs.Procs(self.dir, tag="a-b-0")
        pr.add("daemon-a", p)
        with open(os.path.join(self.dir, "%d-a-b-0.json" % os.getpid())) as f:
            doc = json.load(f)
        self.assertEqual(doc["owner"], os.getpid())
        self.assertEqual(doc["procs"][0][:2], ["daemon-a", p.pid])
        self.assertEqual(doc["procs"][0][2], procs.proc_start_time(p.pid))
        pr.stop(grace=2)
        self.assertIsNotNone(p.poll())
        pr.close()
        self.assertEqual(os.listdir(self.dir), [])

    def test_sweep_kills_a_dead_owners_children_only(self):
        dead, alive_p, recycled = self.sleeper(), self.sleeper(), self.sleeper()
        gone = subprocess.Popen(["true"])
        gone.wait()                        # a pid that no longer runs: the dead owner
        st = procs.proc_start_time
        with open(os.path.join(self.dir, "%d.json" % gone.pid), "w") as f:
            json.dump({"owner": gone.pid, "owner_start": 1,
                       "procs": [["daemon-x", dead.pid, st(dead.pid)],
                                 ["daemon-y", recycled.pid, st(recycled.pid) + 1]]}, f)
        with open(os.path.join(self.dir, "%d-live.json" % os.getpid()), "w") as f:
            json.dump({"owner": os.getpid(), "owner_start": st(os.getpid()),
                       "procs": [["daemon-z", alive_p.pid, st(alive_p.pid)]]}, f)
        said = []
        self.assertEqual(procs.sweep_leftovers(said.append, self.dir), 1)
        dead.wait(timeout=5)
        time.sleep(0.1)
        self.assertIsNone(recycled.poll(), "a recycled pid (other start time) was killed")
        self.assertIsNone(alive_p.poll(), "a live owner's process was killed")
        self.assertEqual(sorted(os.listdir(self.dir)), ["%d-live.json" % os.getpid()])
        self.assertIn("daemon-x (pid %d)" % dead.pid, said[0])

    def test_wait_until_error_class(self):
        from schedlab import runerr
        with self.assertRaises(runerr.RunError) as cm:
            procs.wait_until("nothing", 0.2, lambda: False, error=runerr.RunError)
        self.assertIn("timed out after 0.2s waiting for nothing", str(cm.exception))
        with self.assertRaises(procs.WaitError) as cm:
            procs.wait_until("x", 5, lambda: False, abort=lambda: "daemon died")
        self.assertEqual(str(cm.exception), "daemon died (waiting for x)")


if __name__ == "__main__":
    unittest.main()
