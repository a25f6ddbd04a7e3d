"""geonet.py - one geo.py experiment in Mininet.

Exports Run: brings up the two hosts and their veth (mininet_up), writes
and checks the daemons' configurations (write_confs), starts the daemons
(daemons_up) and the traffic (traffic_up), follows the sender's stats
live (follow), hands over to georesults.results() and takes everything
down (cleanup); and host_out / listening, commands in a Mininet host.
"""
import json
import os
import subprocess
import time

import geoio
import theory
from geoconf import (EFGEN_PORT, EF_IP, EF_PAYLOAD, PORTS, TOS, TUN, UL, conf_text,
                     efgen_spec, link_text, sched_group_text, theory_model)
from geoerr import RunError
from geoproc import Procs, wait_until
from georesults import results


def host_out(host, cmd):
    """Runs cmd (a list) in a Mininet host, returns (status, stdout text)."""
    p = host.popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out, _ = p.communicate(timeout=30)
    return p.returncode, out.decode(errors="replace")


def listening(host, proto, port):
    """True when something in host listens on proto (tcp/udp) port."""
    flag = "-Hltn" if proto == "tcp" else "-Hlun"
    rc, out = host_out(host, ["ss", flag, "sport = :%d" % port])
    return rc == 0 and out.strip() != ""


# ---------------------------------------------------------------- the run

class Run:
    """One experiment: Mininet up, daemons, traffic, live lines, results."""

    def __init__(self, a, log):
        self.a, self.log = a, log
        self.net = None
        self.procs = None
        self.files = []
        self.t_daemon = {}           # host -> monotonic start
        self.t_traffic = None        # monotonic, clients started
        self.clients = {}            # class -> Popen
        self.t_sink = None           # monotonic, efgen sink started
        self.warnings = []

    # -- set-up
    def open_log(self, name):
        """A log file in the output directory, kept open until the end."""
        f = open(os.path.join(self.a.out, name), "ab")
        self.files.append(f)
        return f

    def start(self, host, name, cmd, log_name=None):
        """Starts cmd in a Mininet host (stdout+stderr to OUT/<log_name>)."""
        out = self.open_log(log_name or name + ".log")
        p = host.popen(cmd, stdout=out, stderr=subprocess.STDOUT,
                       stdin=subprocess.DEVNULL)
        return self.procs.add(name, p)

    def mininet_up(self):
        """Two hosts and one veth link; no controller, no switch."""
        try:
            from mininet.net import Mininet
            from mininet.log import setLogLevel
        except ImportError:
            raise RunError("cannot import mininet: run geo.py with /usr/bin/python3 "
                           "(Debian's python3-mininet; install: scripts/deps.sh)") from None
        setLogLevel("warning")
        self.net = Mininet(topo=None, controller=None, build=False,
                           autoSetMacs=True, waitConnected=False)
        h1 = self.net.addHost("h1", ip=UL["h1"] + "/24")
        h2 = self.net.addHost("h2", ip=UL["h2"] + "/24")
        for h in (h1, h2):
            self.procs.add("shell-" + h.name, pid=h.pid)
        self.net.addLink(h1, h2)
        self.net.build()
        for h in (h1, h2):
            # no IPv6 (no router solicitations through the tunnel), cubic on demand
            h.cmd("sysctl -qw net.ipv6.conf.all.disable_ipv6=1 "
                  "net.ipv6.conf.default.disable_ipv6=1")
        rc, out = host_out(h1, ["ping", "-c", "1", "-W", "2", UL["h2"]])
        if rc != 0:
            raise RunError("the veth underlay h1 -> h2 does not ping: %s" % out.strip())
        return h1, h2

    def write_confs(self):
        """Writes a.conf and b.conf; RunError when `schedtun --check` refuses one
        (before Mininet starts)."""
        a = self.a
        link_a = link_text(a.capacity_spec, a.delay_s)
        link_b = link_text(theory.RateSpec(1e9), a.delay_s)
        confs = {
            "h1": conf_text("h1", link_a, self.sched_group,
                            os.path.join(a.out, "stats-a.jsonl")),
            "h2": conf_text("h2", link_b, 'scheduler = { name = "fifo"; };',
                            os.path.join(a.out, "stats-b.jsonl")),
        }
        for host, fn in (("h1", "a.conf"), ("h2", "b.conf")):
            path = os.path.join(a.out, fn)
            with open(path, "w") as f:
                f.write(confs[host])
            chk = subprocess.run([a.schedtun_path, "--check", "-f", path],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            if chk.returncode != 0:
                raise RunError("schedtun rejects the generated %s:\n%s"
                               % (path, chk.stdout.decode(errors="replace").strip()))

    def daemons_up(self, h1, h2):
        """Starts both daemons, waits for the tunnel to carry a ping."""
        a = self.a
        for host, fn, tag in ((h2, "b.conf", "daemon-b"), (h1, "a.conf", "daemon-a")):
            self.t_daemon[host.name] = time.monotonic()
            self.start(host, tag, [a.schedtun_path, "-f", os.path.join(a.out, fn)],
                       tag[-1] + ".log")
        for host in (h1, h2):
            wait_until("%s's tunnel st0 up with %s" % (host.name, TUN[host.name]), 20,
                       lambda h=host: TUN[h.name] + "/24" in host_out(
                           h, ["ip", "-o", "addr", "show", "dev", "st0"])[1],
                       abort=self.daemon_died)
        wait_until("a ping through the tunnel (10.10.0.1 -> 10.10.0.2)", 30,
                   lambda: host_out(h1, ["ping", "-c", "1", "-W", "3",
                                         TUN["h2"]])[0] == 0,
                   abort=self.daemon_died)

    def daemon_died(self):
        """A message when a daemon has exited, else None."""
        for name, p, _ in self.procs.items:
            if name.startswith("daemon-") and p.poll() is not None:
                return "%s exited with status %s (see %s/%s.log)" % (
                    name, p.returncode, self.a.out, name[-1])
        return None

    def traffic_up(self, h1, h2):
        """iperf3 servers (and the efgen sink) on h2, then every client on h1."""
        a = self.a
        classes = ("af", "cs0") if a.ef_tool == "efgen" else ("ef", "af", "cs0")
        for c in classes:
            self.start(h2, "server-" + c, ["iperf3", "-s", "-1", "-J", "-B", TUN["h2"],
                                           "-p", str(PORTS[c])], "iperf-server-%s.log" % c)
        if a.ef_tool == "efgen":
            self.t_sink = time.monotonic()
            self.start(h2, "server-efgen", [
                a.efgen_path, "--sink", "--listen", "%s:%d" % (TUN["h2"], EFGEN_PORT),
                "--report", os.path.join(a.out, "efgen-sink.jsonl"), "--interval", "1",
                "--duration", "%g" % (a.duration + 30)], "efgen-sink.log")
        for c in classes:
            wait_until("the iperf3 server for %s" % c, 15,
                       lambda c=c: listening(h2, "tcp", PORTS[c]),
                       abort=self.daemon_died)
        if a.ef_tool == "efgen":
            wait_until("the efgen sink", 15, lambda: listening(h2, "udp", EFGEN_PORT),
                       abort=self.daemon_died)
        base = ["-c", TUN["h2"], "-t", "%g" % a.duration, "--connect-timeout", "15000",
                "--get-server-output"]
        cmds = {
            "af": ["iperf3"] + base + ["-p", str(PORTS["af"]), "-P", str(a.af_flows),
                                       "-C", "cubic", "--tos", TOS["af"], "-J",
                                       "--logfile", os.path.join(a.out, "iperf-af.json")],
            "cs0": ["iperf3"] + base + ["-p", str(PORTS["cs0"]), "-P", str(a.cs0_flows),
                                        "-C", "cubic", "-J",
                                        "--logfile", os.path.join(a.out, "iperf-cs0.json")],
        }
        if a.ef_tool == "efgen":
            cmds["ef"] = [a.efgen_path, "--dst", "%s:%d" % (TUN["h2"], EFGEN_PORT),
                          "--rate", efgen_spec(a.ef_spec), "--duration", "%g" % a.duration,
                          "--size", str(EF_IP), "--tos", TOS["ef"], "--interval", "1",
                          "--report", os.path.join(a.out, "efgen-send.jsonl")]
        else:
            # iperf3 -b counts UDP payload: scale so that the IP rate is --ef
            b = a.ef_spec.mean_bps * EF_PAYLOAD / EF_IP
            cmds["ef"] = ["iperf3"] + base + ["-p", str(PORTS["ef"]), "-u", "-b",
                                              "%d" % round(b), "-l", str(EF_PAYLOAD),
                                              "--tos", TOS["ef"], "-J", "--logfile",
                                              os.path.join(a.out, "iperf-ef.json")]
        self.t_traffic = time.monotonic()
        for c in ("ef", "af", "cs0"):
            self.clients[c] = self.start(h1, "client-" + c, cmds[c], "client-%s.log" % c)

    def follow(self):
        """Prints one live line per new sender stats line until every client
        has exited (deadline: duration + 60 s); RunError when a daemon dies."""
        a = self.a
        path = os.path.join(a.out, "stats-a.jsonl")
        seen = 0
        deadline = self.t_traffic + a.duration + 60
        live = open(os.path.join(a.out, "live.txt"), "w")
        self.files.append(live)
        offset = self.t_traffic - self.t_daemon["h1"]
        while True:
            lines = geoio.stats_lines(path)
            rows = geoio.stats_rates(lines, offset)
            for ln, r in zip(lines[seen:], rows[seen:]):
                txt = "t=%6.1f s  EF %6.2f  AF %6.2f  CS0 %6.2f  link %6.2f Mbit/s" % (
                    r["t1"], r["ef"], r["af"], r["cs0"], r["link"])
                q = ln.get("sched", {}).get("af")
                if isinstance(q, dict) and "credit" in q:
                    txt += "  AF credit %9.0f prio %s" % (q["credit"], q.get("prio"))
                live.write(txt + "\n")
                live.flush()
                if not a.quiet:
                    print(txt, flush=True)
            seen = len(rows)
            msg = self.daemon_died()
            if msg:
                raise RunError(msg)
            if all(p.poll() is not None for p in self.clients.values()):
                break
            if time.monotonic() > deadline:
                self.warnings.append("clients still running %gs after the end: stopped"
                                     % 60)
                break
            time.sleep(0.25)
        for c, p in self.clients.items():
            if p.poll() is None:
                continue
            if p.returncode != 0:
                self.warnings.append("%s client exited with status %d (see %s)"
                                     % (c, p.returncode, "iperf-%s.json" % c
                                        if c != "ef" or a.ef_tool == "iperf"
                                        else "client-ef.log"))

    def run(self):
        """The whole experiment; results written by results()."""
        a = self.a
        self.sched_group = sched_group_text(a)
        self.model = theory_model(a, self.sched_group)
        self.write_confs()
        self.procs = Procs()
        h1, h2 = self.mininet_up()
        self.daemons_up(h1, h2)
        self.log("tunnel up; %g s of traffic: EF %s (%s), AF %d cubic, CS0 %d cubic; "
                 "C %s, delay %g ms each way, scheduler %s" % (
                     a.duration, a.ef, a.ef_tool, a.af_flows, a.cs0_flows, a.capacity,
                     a.delay_s * 1e3, a.sched))
        self.traffic_up(h1, h2)
        self.follow()
        self.procs.stop(["client-", "server-"], grace=5)
        # SIGTERM: each daemon writes its last (partial) stats line and exits 0
        for name, p, _ in self.procs.stop(["daemon-"], grace=10):
            if p.returncode != 0:
                self.warnings.append("%s exited with status %s on SIGTERM"
                                     % (name, p.returncode))
        return results(a, self.model, self.sched_group, self.t_daemon,
                       self.t_traffic, self.t_sink, self.warnings)

    def cleanup(self):
        """Stops every process we started, takes Mininet down, closes files.
        Idempotent; runs in `finally` and after signals."""
        if self.procs is not None:
            self.procs.stop([n for n in ("client-", "server-", "daemon-")], grace=3)
        if self.net is not None:
            try:
                self.net.stop()
            except Exception as e:       # still kill the shells below
                self.log("warning: Mininet stop: %s" % e)
            self.net = None
        if self.procs is not None:
            self.procs.stop(grace=2)      # host shells, if net.stop() left one
            self.procs.close()
            try:                          # for checks that nothing is left
                with open(os.path.join(self.a.out, "processes.json"), "w") as f:
                    json.dump([[n, pid] for n, _, pid in self.procs.items], f)
            except OSError:
                pass
            self.procs = None
        for f in self.files:
            try:
                f.close()
            except OSError:
                pass
        self.files = []
