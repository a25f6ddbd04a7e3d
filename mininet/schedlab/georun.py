"""schedlab/georun.py - one run of the PSS paper's GEO experiment in Mininet.

GeoRun(a, log).run() builds the topology (two hosts h1, h2 joined by a
schedlab.link.SchedtunLink: h1 -> h2 the scheduler under test at C or
C(t) with the one-way delay, h2 -> h1 fifo at 1 Gbit/s with the same
delay; geospec.link_options), starts the traffic (traffic.Traffic: EF,
AF, CS0 from h1 to h2's tunnel address), follows the sender's stats live
(follow.follow), stops everything and writes the results
(results.results); cleanup() takes it all down and is safe to call at
any point (geo.py calls it in `finally`).  `a` is geo.py's checked
command line (geo.check_args).  Mininet is imported only in run(), so
that this module loads without it.
"""
import json
import os

from schedlab import follow, geospec, results, traffic
from schedlab.procs import Procs
from schedlab.runerr import RunError


class GeoRun:
    """One experiment: topology, traffic, live lines, results."""

    def __init__(self, a, log):
        self.a, self.log = a, log
        self.net = None
        self.link = None
        self.procs = None
        self.traffic = None
        self.daemon_pids = []        # for processes.json, also after the link is gone
        self.warnings = []
        self._live = None

    def topology(self):
        """Two hosts, no switch, no controller, joined by the SchedtunLink;
        returns (h1, h2)."""
        try:
            from mininet.log import setLogLevel
            from mininet.net import Mininet
            from schedlab.link import LinkError, SchedtunLink
        except ImportError:
            raise RunError("cannot import mininet: run geo.py with /usr/bin/python3 "
                           "(Debian's python3-mininet; install: scripts/deps.sh)") from None
        setLogLevel("warning")
        self.net = Mininet(topo=None, controller=None, build=False,
                           autoSetMacs=True, waitConnected=False)
        h1 = self.net.addHost("h1", ip=None)
        h2 = self.net.addHost("h2", ip=None)
        for h in (h1, h2):
            self.procs.add("shell-" + h.name, pid=h.pid)
            # no IPv6: no router solicitations through the tunnel
            h.cmd("sysctl -qw net.ipv6.conf.all.disable_ipv6=1 "
                  "net.ipv6.conf.default.disable_ipv6=1")
        try:
            self.link = self.net.addLink(h1, h2, cls=SchedtunLink,
                                         **geospec.link_options(self.a, self.a.schedtun_path))
        except LinkError as e:
            raise RunError(str(e)) from None
        self.daemon_pids = list(zip(("daemon-a", "daemon-b"), self.link.pids()))
        self.net.build()
        return h1, h2

    def run(self):
        """The whole experiment; returns results.results()'s summary."""
        a = self.a
        sched_group = geospec.sched_group_text(a)
        model = geospec.theory_model(a, sched_group)
        self.procs = Procs()
        h1, h2 = self.topology()
        self.log("tunnel up; %g s of traffic: EF %s (%s), AF %d cubic, CS0 %d cubic; "
                 "C %s, delay %g ms each way, scheduler %s" % (
                     a.duration, a.ef, a.ef_tool, a.af_flows, a.cs0_flows, a.capacity,
                     a.delay_s * 1e3, a.sched))
        spec = traffic.TrafficSpec(
            dst_ip=geospec.TUN["h2"], out=a.out, duration_s=a.duration, ef=a.ef_spec,
            ef_tool=a.ef_tool, efgen=a.efgen_path, af_flows=a.af_flows,
            cs0_flows=a.cs0_flows)
        self.traffic = traffic.Traffic(spec, self.procs, error=RunError)
        self.traffic.start_servers(h2, abort=self.link.daemon_died)
        t_traffic = self.traffic.start_clients(h1)
        t_daemon = {"h1": self.link.started_s[0], "h2": self.link.started_s[1]}
        self._live = open(os.path.join(a.out, "live.txt"), "w")
        follower = follow.Follower(self.link.stats_files[0], t_traffic - t_daemon["h1"])
        self.warnings += follow.follow(follower, self._live, a.quiet, self.traffic.done,
                                       self.link.daemon_died, t_traffic + a.duration,
                                       grace_s=60.0, error=RunError)
        self.warnings += self.traffic.client_warnings()
        self.traffic.stop(grace=5)
        # SIGTERM: each daemon writes its last (partial) stats line and exits 0
        self.link.delete()
        for host, tag in (("h1", "daemon-a"), ("h2", "daemon-b")):
            rc = self.link.exit_status.get(host)
            if rc != 0:
                self.warnings.append("%s exited with status %s on SIGTERM" % (tag, rc))
        return results.results(a, model, sched_group, t_daemon, t_traffic,
                               self.traffic.t_sink_s, self.warnings)

    def cleanup(self):
        """Stops every process we started, takes Mininet (and the link) down,
        closes files and writes OUT/processes.json (every process of the run,
        for the checks that nothing is left).  Idempotent."""
        if self.traffic is not None:
            self.traffic.stop(grace=3)
            self.traffic.close()
        if self.net is not None:
            try:
                self.net.stop()          # deletes the link: its daemons stop
            except Exception as e:       # still kill the shells below
                self.log("warning: Mininet stop: %s" % e)
                if self.link is not None:
                    self.link.delete()
            self.net = None
        if self.procs is not None:
            self.procs.stop(grace=2)      # host shells, if net.stop() left one
            self.procs.close()
            try:
                with open(os.path.join(self.a.out, "processes.json"), "w") as f:
                    json.dump([[n, pid] for n, pid in self.daemon_pids if pid] +
                              [[n, pid] for n, _, pid in self.procs.items], f)
            except OSError:
                pass
            self.procs = None
        if self._live is not None:
            self._live.close()
            self._live = None
