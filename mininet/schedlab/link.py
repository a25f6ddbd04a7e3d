"""schedlab/link.py - a schedtun pair as a Mininet link (docs/mininet-link.md).

    from schedlab.link import SchedtunLink
    link = net.addLink(r1, r2, cls=SchedtunLink, rate="20Mbit", delay="250ms",
                       sched="pss", sched_params="pss = { bw = 0.6; lm = 9000; };",
                       behind1=["10.1.0.0/16"], behind2=["10.2.0.0/24"])
    ...
    net.stop()          # or link.delete(): daemons stopped, veth removed

What a SchedtunLink makes, like TCLink with options in and delete() out:
an underlay veth between the two nodes (a /30 from UL_POOL unless
ul_addrs), a schedtun daemon on each node with its own tun (st0, st1, ...:
the first name free in that node) and tunnel addresses (a /30 from
TUN_POOL unless tun_addrs), ip_forward on both nodes, and routes sending
the prefixes behind the other node into the tun.  node1 -> node2 is the
path under test (sched, rate/profile, delay, or a conf file); node2 ->
node1 the return path (rev_sched, rev_rate, rev_delay).

Each daemon's file is checked with `schedtun --check -f` first; the link
waits for both tuns and a ping through them; any failure raises LinkError
naming the daemon's log, after undoing what was done.  delete() (net.stop()
calls it), atexit, SIGTERM and SIGHUP (when the script has no handler of
its own) stop the daemons; the processes and the nodes' shells are recorded
under LINK_STATE_DIR, so that cleanup_leftovers() kills what a SIGKILLed
script left.  Accessors: stats_files, pids(), tuns, tun_ips, confs, logs,
started_s (the stats files' time origins on time.monotonic()).
"""
import atexit
import itertools
import os
import signal
import subprocess
import tempfile
import threading
import time

from mininet.link import Intf, Link

from schedlab import pairconf
from schedlab.procs import Procs, sweep_leftovers, wait_until
from schedlab.tools import ToolError, find_tool

UL_POOL = "172.31.0.0/16"
TUN_POOL = "172.30.0.0/16"
LINK_STATE_DIR = "/run/schedtun-link"

_index = itertools.count()     # the next /30 of each pool, per process
_live = []                     # links not yet deleted, for atexit / signals
_handlers_installed = False


class LinkError(RuntimeError):
    """The link could not be built, or a daemon failed."""


def find_schedtun(given=None):
    """The schedtun binary (schedlab.tools.find_tool: `given`, $SCHEDTUN,
    the repository's build-rel/, PATH); LinkError when none is usable."""
    try:
        return find_tool(given)
    except ToolError as e:
        raise LinkError(str(e)) from None


def node_cmd(node, cmd):
    """Runs a shell command in a Mininet node; LinkError with its output
    when it exits non-zero (node.cmd alone returns the text only)."""
    out = node.cmd(cmd + " 2>&1; echo __rc=$?")
    text, _, rc = out.rpartition("__rc=")
    if rc.strip() != "0":
        raise LinkError("%s: `%s` failed (status %s): %s" % (
            node.name, cmd, rc.strip(), text.strip()))
    return text


def add_routes(node, tun, via_ip, prefixes):
    """Routes each prefix into `tun` towards the peer's tun address via_ip in
    node (pairconf.route_cmds); returns the commands; LinkError on the
    first one that fails."""
    cmds = pairconf.route_cmds(tun, via_ip, prefixes)
    for c in cmds:
        node_cmd(node, c)
    return cmds


def cleanup_leftovers(log=print):
    """Kills the daemons and node shells of SchedtunLinks whose script died
    without cleaning up (SIGKILL); returns how many processes it killed."""
    return sweep_leftovers(log, LINK_STATE_DIR)


def stop_all():
    """Deletes every live SchedtunLink (atexit and the signal handlers)."""
    for link in list(_live):
        try:
            link.delete()
        except Exception:     # noqa: BLE001 - the others must still go
            pass


def _on_signal(signum, _frame):
    """SIGTERM/SIGHUP: unwind like Ctrl-C, so that `finally: net.stop()`
    and atexit run."""
    raise SystemExit(128 + signum)


def _install_handlers():
    """atexit, plus SIGTERM/SIGHUP handlers where the script left the
    default (which would kill us without running atexit)."""
    global _handlers_installed
    if _handlers_installed:
        return
    _handlers_installed = True
    atexit.register(stop_all)
    if threading.current_thread() is threading.main_thread():
        for s in (signal.SIGTERM, signal.SIGHUP):
            if signal.getsignal(s) == signal.SIG_DFL:
                signal.signal(s, _on_signal)


class UnderlayIntf(Intf):
    """The underlay veth's end.  Mininet's build() gives a host's `ip` to its
    first interface by replacing that interface's address, which would cut
    the daemons' underlay: here setIP adds the address beside the underlay's
    own (set with ul_cidr) instead."""

    ul_cidr = None

    def setIP(self, ipstr, prefixLen=None):
        """As Intf.setIP, but keeps the underlay address."""
        if self.ul_cidr is None:
            return Intf.setIP(self, ipstr, prefixLen)
        cidr = ipstr if "/" in ipstr else "%s/%s" % (ipstr, prefixLen)
        if cidr != self.ul_cidr:
            self.cmd("ip addr replace %s dev %s" % (cidr, self.name))
        self.ip, self.prefixLen = cidr.split("/")
        return ""


class SchedtunLink(Link):
    """Two Mininet nodes joined through a schedtun pair (module docstring;
    the options are listed in docs/mininet-link.md).

    node1 -> node2: sched (name or group text) + sched_params, rate (e.g.
    "20Mbit", or bit/s) or profile (dict), delay ("250ms", or seconds), or
    conf (a schedtun file: its groups but tunnel/stats; rate/profile/delay
    given here override its link group).  node2 -> node1: rev_sched
    ("fifo"), rev_rate ("1Gbit"), rev_delay (None: the same delay).
    behind1/behind2: prefixes reachable through node1/node2, routed into
    the tunnel by the other node.  ul_addrs/tun_addrs: ("a/p", "b/p")
    instead of the pools; tun_names: (name1, name2) instead of free ones;
    port, mtu; stats_interval (s), stats_files, conf_files, log_files
    ((path1, path2) each, instead of names in workdir); packet_logs
    ((path1, path2), None for off: each daemon's stats.packet_log, default
    both off); schedtun (binary);
    workdir (configs, logs, stats; default a new directory under /tmp);
    up_timeout (s).  Other keywords go to mininet.link.Link.
    """

    def __init__(self, node1, node2, rate=None, profile=None, delay=None,
                 sched="prio", sched_params="", conf=None, rev_sched="fifo",
                 rev_rate="1Gbit", rev_delay=None, behind1=(), behind2=(),
                 ul_addrs=None, tun_addrs=None, tun_names=None,
                 port=pairconf.DEFAULT_PORT, mtu=pairconf.DEFAULT_MTU,
                 stats_interval=1.0, stats_files=None, conf_files=None, log_files=None,
                 packet_logs=(None, None), schedtun=None, workdir=None, up_timeout=20.0, **params):
        self.intf1 = self.intf2 = None
        self._procs = None
        self._deleted = False
        self._files = []
        self.exit_status = {}
        self.started_s = [None, None]  # time.monotonic() at each daemon's start
        self.nodes = (node1, node2)
        try:
            self.schedtun = find_schedtun(schedtun)
            idx = next(_index)
            self.ul_cidrs = tuple(ul_addrs) if ul_addrs else pairconf.pair_in(UL_POOL, idx)
            self.tun_cidrs = tuple(tun_addrs) if tun_addrs else pairconf.pair_in(TUN_POOL, idx)
            self.ul_ips = tuple(c.split("/")[0] for c in self.ul_cidrs)
            self.tun_ips = tuple(c.split("/")[0] for c in self.tun_cidrs)
            self.tuns = tuple(tun_names) if tun_names else tuple(
                pairconf.free_tun_name(self._taken(n)) for n in self.nodes)
            for n, t in zip(self.nodes, self.tuns):
                n.__dict__.setdefault("_schedtun_tuns", set()).add(t)
            self.label = "%s-%s-%d" % (node1.name, node2.name, idx)
            self.workdir = os.path.abspath(workdir) if workdir else tempfile.mkdtemp(
                prefix="schedtun-link-")
            os.makedirs(self.workdir, exist_ok=True)
            base = [os.path.join(self.workdir, "%s.%s" % (self.label, n.name))
                    for n in self.nodes]
            self.confs = tuple(os.path.abspath(p) for p in conf_files) if conf_files \
                else tuple(b + ".conf" for b in base)
            self.logs = tuple(os.path.abspath(p) for p in log_files) if log_files \
                else tuple(b + ".log" for b in base)
            self.stats_files = tuple(os.path.abspath(p) for p in stats_files) if stats_files \
                else tuple(b + ".jsonl" for b in base)
            self.behind = (tuple(behind1), tuple(behind2))
            for pfx in self.behind:      # a bad prefix fails before anything starts
                pairconf.route_cmds("x", "0.0.0.0", pfx)
            self.packet_logs = tuple(None if p is None else os.path.abspath(p)
                                     for p in packet_logs)
            ends = [pairconf.End(t, tc, ul, st, pl) for t, tc, ul, st, pl in
                    zip(self.tuns, self.tun_cidrs, self.ul_ips, self.stats_files,
                        self.packet_logs)]
            if conf is None and delay is None:
                delay = 0
            spec = pairconf.PairSpec(
                rate=rate, profile=profile, delay=delay, sched=sched,
                sched_params=sched_params, conf=conf, rev_sched=rev_sched,
                rev_rate=rev_rate, rev_delay=rev_delay, mtu=mtu, port=port,
                stats_interval_s=stats_interval, label=self.label, end1=ends[0], end2=ends[1])
            self._write_confs(spec)
            params.setdefault("cls1", UnderlayIntf)
            params.setdefault("cls2", UnderlayIntf)
            Link.__init__(self, node1, node2, **params)
            _live.append(self)
            _install_handlers()
            self._up(up_timeout)
        except BaseException as e:
            self.delete()
            if isinstance(e, pairconf.ConfError):   # a bad option: the same error class
                raise LinkError(str(e)) from None
            raise

    # -- set-up steps
    @staticmethod
    def _taken(node):
        """Interface names in use in node, and tuns its other links reserved."""
        out = node.cmd("ip -o link show")
        names = {ln.split(":")[1].strip().split("@")[0]
                 for ln in out.splitlines() if ln.count(":") >= 2}
        return names | node.__dict__.get("_schedtun_tuns", set())

    def _write_confs(self, spec):
        """Writes both files and has the daemon check them (LinkError with
        its messages)."""
        for path, text in zip(self.confs, pairconf.pair_texts(spec)):
            with open(path, "w") as f:
                f.write(text)
            chk = subprocess.run([self.schedtun, "--check", "-f", path],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            if chk.returncode != 0:
                raise LinkError("schedtun --check refuses %s:\n%s" % (
                    path, chk.stdout.decode(errors="replace").strip()))

    def _up(self, timeout_s):
        """Underlay addresses, forwarding, both daemons, tuns, ping, routes."""
        for intf, cidr in ((self.intf1, self.ul_cidrs[0]), (self.intf2, self.ul_cidrs[1])):
            node_cmd(intf.node, "ip addr replace %s dev %s" % (cidr, intf.name))
            node_cmd(intf.node, "ip link set dev %s up" % intf.name)
            intf.ul_cidr = cidr
            intf.ip, intf.prefixLen = cidr.split("/")
        self._procs = Procs(LINK_STATE_DIR, tag=self.label)
        for n in self.nodes:
            node_cmd(n, "sysctl -qw net.ipv4.ip_forward=1")
            self._procs.add("shell-" + n.name, pid=n.pid)
        for i in (1, 0):           # the return path first: it answers end 1's ping
            n = self.nodes[i]
            log = open(self.logs[i], "ab")
            self._files.append(log)
            self.started_s[i] = time.monotonic()
            p = n.popen([self.schedtun, "-f", self.confs[i]], stdout=log,
                        stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            self._procs.add("daemon-%s" % n.name, p)
        for i, n in enumerate(self.nodes):
            want = self.tun_cidrs[i]
            wait_until("%s's tun %s up with %s" % (n.name, self.tuns[i], want), timeout_s,
                       lambda n=n, i=i, want=want: want in n.cmd(
                           "ip -o addr show dev %s 2>/dev/null" % self.tuns[i]),
                       abort=self.daemon_died, error=LinkError)
        wait_until("a ping through %s (%s -> %s)" % (self.label, self.tun_ips[0],
                                                     self.tun_ips[1]), timeout_s + 10,
                   lambda: "__rc=0" in self.nodes[0].cmd(
                       "ping -n -c 1 -W 3 %s >/dev/null 2>&1; echo __rc=$?"
                       % self.tun_ips[1]),
                   abort=self.daemon_died, error=LinkError)
        add_routes(self.nodes[0], self.tuns[0], self.tun_ips[1], self.behind[1])
        add_routes(self.nodes[1], self.tuns[1], self.tun_ips[0], self.behind[0])

    # -- state
    def daemon_died(self):
        """A message naming the log when a daemon has exited, else None
        (also before the daemons start)."""
        for name, p, _ in (self._procs.items if self._procs is not None else ()):
            if name.startswith("daemon-") and p.poll() is not None:
                log = next(lg for n, lg in zip(self.nodes, self.logs)
                           if "daemon-" + n.name == name)
                tail = ""
                try:
                    with open(log, errors="replace") as f:
                        tail = "".join(f.readlines()[-5:]).strip()
                except OSError:
                    pass
                return "schedtun on %s exited with status %s (log %s)%s" % (
                    name[len("daemon-"):], p.returncode, log,
                    ": " + tail if tail else "")
        return None

    def pids(self):
        """(pid on node1, pid on node2) of the daemons (None once deleted)."""
        if self._procs is None:
            return (None, None)
        by = {n: pid for n, _, pid in self._procs.items}
        return tuple(by.get("daemon-" + n.name) for n in self.nodes)

    # -- teardown
    def delete(self):
        """Stops both daemons (SIGTERM: each writes its last stats line;
        exit statuses in exit_status), removes the state file and the veth
        (with it the routes).  Idempotent; net.stop() calls it via stop()."""
        if self._deleted:
            return
        self._deleted = True
        if self in _live:
            _live.remove(self)
        if self._procs is not None:
            for name, p, _ in self._procs.stop(["daemon-"], grace=10):
                self.exit_status[name[len("daemon-"):]] = p.returncode
            self._procs.close()
        for f in self._files:
            f.close()
        self._files = []
        for n, t in zip(self.nodes, getattr(self, "tuns", ())):
            n.__dict__.get("_schedtun_tuns", set()).discard(t)
        if self.intf1 is not None and self.intf2 is not None:
            Link.delete(self)
