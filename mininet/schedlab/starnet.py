"""schedlab/starnet.py - the papers' topology in Mininet: hosts behind access
links, one router, one schedtun bottleneck, one receiver.

    h1 --TCLink bw--\\
    ...               r ==SchedtunLink==> d
    hN --TCLink bw--/

StarNet(out, log) is what the papers' runs (ticketrun, dqrun) share:
build(names, access_mbps, **link) makes the hosts (no IPv6: no router
solicitations through the tunnel), an access link per host (htb through
Mininet's TCLink; a rate of None leaves the veth unshaped; no netem here,
so no delay), host i at 10.0.i.2/24
behind r's 10.0.i.1 (r routes 10.0.0.0/16 back through the tunnel), and
the SchedtunLink r -> d with `link`'s options (its files in OUT: a.conf,
b.conf, a.log, b.log, stats-a.jsonl, stats-b.jsonl); start() runs a
process in a node with its output in OUT/NAME.log and its command line in
OUT/commands.txt; wait_listening(), died(), run_for(), end_senders() and
stop_link() follow the run; cleanup() takes everything down and is safe at
any point.  Mininet is imported in build() only.
"""
import json
import os
import subprocess
import time

from schedlab.procs import Procs, wait_until
from schedlab.runerr import RunError


class StarNet:
    """One run's network, processes and files."""

    def __init__(self, out, log):
        self.out, self.log = out, log
        self.net = self.link = None
        self.procs = Procs()
        self.senders, self.receivers = [], []
        self.warnings = []
        self._files = []

    def path(self, name):
        return os.path.join(self.out, name)

    def build(self, names, access_mbps, **link):
        """Returns (d, [hosts]); RunError naming what failed."""
        try:
            from mininet.link import TCLink
            from mininet.log import setLogLevel
            from mininet.net import Mininet
            from schedlab.link import LinkError, SchedtunLink, node_cmd
        except ImportError:
            raise RunError("cannot import mininet: run with /usr/bin/python3 "
                           "(Debian's python3-mininet; scripts/deps.sh)") from None
        # "critical": htb's "quantum is big" at these rates is printed as an
        # error; a real failure raises
        setLogLevel("critical")
        self.net = Mininet(topo=None, controller=None, build=False, autoSetMacs=True,
                           waitConnected=False)
        r = self.net.addHost("r", ip=None)
        d = self.net.addHost("d", ip=None)
        hosts = [self.net.addHost(n, ip=None) for n in names]
        for h in [r, d] + hosts:
            self.procs.add("shell-" + h.name, pid=h.pid)
            h.cmd("sysctl -qw net.ipv6.conf.all.disable_ipv6=1 "
                  "net.ipv6.conf.default.disable_ipv6=1")
        access = [self.net.addLink(h, r, cls=TCLink, bw=bw)
                  for h, bw in zip(hosts, access_mbps)]
        files = {"stats_files": ("stats-a.jsonl", "stats-b.jsonl"),
                 "conf_files": ("a.conf", "b.conf"), "log_files": ("a.log", "b.log")}
        opts = {k: tuple(self.path(f) for f in v) for k, v in files.items()}
        opts.update(behind1=["10.0.0.0/16"], workdir=self.out)
        opts.update(link)
        try:
            self.link = self.net.addLink(r, d, cls=SchedtunLink, **opts)
            self.net.build()
            # addresses after build(): Mininet's own host set-up would replace them
            for i, (h, ln) in enumerate(zip(hosts, access), 1):
                for node, intf, ip in ((h, ln.intf1, "10.0.%d.2/24" % i),
                                       (r, ln.intf2, "10.0.%d.1/24" % i)):
                    node_cmd(node, "ip addr flush dev %s" % intf.name)
                    node_cmd(node, "ip addr add %s dev %s" % (ip, intf.name))
                node_cmd(h, "ip route replace default via 10.0.%d.1" % i)
        except LinkError as e:
            raise RunError(str(e)) from None
        return d, hosts

    @property
    def dst(self):
        """d's tunnel address: where the receivers listen."""
        return self.link.tun_ips[1]

    def start(self, host, name, argv, group):
        """Runs argv in host; group: self.senders or self.receivers."""
        log = open(self.path(name + ".log"), "wb")
        self._files.append(log)
        p = host.popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        self.procs.add(name, p)
        group.append((name, p))
        with open(self.path("commands.txt"), "a") as f:
            f.write("%s: %s\n" % (host.name, " ".join(argv)))
        return p

    def wait_listening(self, host, proto, port, timeout_s=15):
        flag = "-Hltn" if proto == "tcp" else "-Hlun"
        wait_until("a receiver on %s port %d" % (proto, port), timeout_s,
                   lambda: host.cmd("ss %s 'sport = :%d'" % (flag, port)).strip() != "",
                   abort=self.died, error=RunError)

    def died(self):
        """Why the run cannot go on (a daemon or a receiver exited), or None."""
        msg = self.link.daemon_died() if self.link is not None else None
        if msg:
            return msg
        for name, p in self.receivers:
            if p.poll() is not None:
                return "%s exited with status %s (see %s.log)" % (name, p.returncode, name)
        return None

    def run_for(self, t_mono, duration_s, note_every_s=20):
        """Waits until t_mono + duration_s, a line every note_every_s;
        RunError as soon as died() says so."""
        end = t_mono + duration_s
        next_note = t_mono + note_every_s
        while time.monotonic() < end:
            msg = self.died()
            if msg:
                raise RunError(msg)
            if time.monotonic() >= next_note:
                self.log("  %3.0f of %g s" % (time.monotonic() - t_mono, duration_s))
                next_note += note_every_s
            time.sleep(0.5)

    def end_senders(self, grace_s):
        """Waits up to grace_s for the senders (they stop themselves), noting
        the late and the failed ones, then stops every source."""
        deadline = time.monotonic() + grace_s
        for name, p in self.senders:
            try:
                p.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.warnings.append("%s did not end within %g s of the run" % (name, grace_s))
            if p.returncode not in (0, None):
                self.warnings.append("%s exited with status %s" % (name, p.returncode))
        self.procs.stop([n for n, _ in self.senders + self.receivers], grace=10)

    def stop_link(self):
        """Stops both daemons (SIGTERM: their last stats lines, the packet
        logs' rest), noting a non-zero exit."""
        self.link.delete()
        for host in ("r", "d"):
            rc = self.link.exit_status.get(host)
            if rc != 0:
                self.warnings.append("schedtun on %s exited with status %s" % (host, rc))

    def sender_offset_s(self, t_mono):
        """The sender's stats time at traffic time 0."""
        return t_mono - self.link.started_s[0]

    def write_summary(self, extra, warmup_s, duration_s, t_mono):
        """OUT/summary.json: the window, the sender's offset and the warnings
        (what schedlab.experiment.judge reads) and the run's own `extra`
        keys; returns it."""
        summary = dict(extra, window_s=[warmup_s, duration_s],
                       sender_offset_s=self.sender_offset_s(t_mono), warnings=self.warnings)
        with open(self.path("summary.json"), "w") as f:
            json.dump(summary, f, indent=1, sort_keys=True)
            f.write("\n")
        return summary

    def cleanup(self):
        """Stops every process, takes Mininet down, closes files; idempotent."""
        self.procs.stop([n for n, _ in self.senders + self.receivers], grace=3)
        if self.net is not None:
            try:
                self.net.stop()
            except Exception as e:      # still kill the rest below
                self.log("warning: Mininet stop: %s" % e)
                if self.link is not None:
                    self.link.delete()
            self.net = None
        self.procs.stop(grace=2)          # host shells, if net.stop() left one
        self.procs.close()
        for f in self._files:
            f.close()
        self._files = []
