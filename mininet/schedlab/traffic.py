"""schedlab/traffic.py - the PSS paper's traffic mix between two Mininet hosts.

EF one UDP flow (schedtun-efgen for any rate profile, or a constant-rate
iperf3 -u), AF N cubic TCP flows (DSCP AF11), CS0 N cubic TCP flows, all
from a sender host to a receiver's address (through the link under
test).  TrafficSpec says what; server_cmds / client_cmds are the commands
(pure, testable without Mininet); Traffic starts them in Mininet hosts,
records every process in a schedlab.procs.Procs (so a later run's sweep
stops them after a SIGKILL) and reports how the clients ended.  Each
tool's JSON and log go to spec.out (the names are geo.py's contract:
iperf-af.json, iperf-cs0.json, iperf-ef.json, efgen-send.jsonl,
efgen-sink.jsonl, iperf-server-<class>.log, client-<class>.log,
efgen-sink.log).
"""
import os
import subprocess
import time
from dataclasses import dataclass
from typing import Optional

from schedlab.procs import wait_until

CLASSES = ("ef", "af", "cs0")
PORTS = {"ef": 5201, "af": 5202, "cs0": 5203}     # iperf3 servers
EFGEN_PORT = 5301
TOS = {"ef": "0xb8", "af": "0x28", "cs0": "0x00"}
EF_PAYLOAD = 1200                  # iperf3 -l and efgen --size: see EF_IP
EF_IP = EF_PAYLOAD + 28            # the EF packet at the IP level (UDP + IPv4 headers)
EF_TOOLS = ("efgen", "iperf")
MAX_FLOWS = 64


class TrafficError(ValueError):
    """A bad traffic specification: `what 'value': problem (accepted: ...)`."""


@dataclass
class TrafficSpec:
    """What to send.  dst_ip: the receiver's address (the far side of the
    link); out: the directory for the tools' outputs; duration_s; ef: a
    schedlab.theory.RateSpec (EF at the IP level; a cosine needs efgen);
    ef_tool: "efgen" or "iperf"; efgen: schedtun-efgen's path (with
    ef_tool efgen); af_flows / cs0_flows: cubic flows per class."""
    dst_ip: str
    out: str
    duration_s: float
    ef: object
    ef_tool: str = "efgen"
    efgen: Optional[str] = None
    af_flows: int = 10
    cs0_flows: int = 10


def check(spec):
    """Raises TrafficError for a spec the tools cannot run; returns spec."""
    if spec.ef_tool not in EF_TOOLS:
        raise TrafficError("ef_tool '%s': unknown (accepted: %s)"
                           % (spec.ef_tool, ", ".join(EF_TOOLS)))
    if spec.ef_tool == "efgen" and not spec.efgen:
        raise TrafficError("efgen '%s': no schedtun-efgen path (accepted: the "
                           "binary's path, or ef_tool iperf)" % spec.efgen)
    if spec.ef_tool == "iperf" and not spec.ef.constant:
        raise TrafficError("ef '%s': a time-varying EF needs schedtun-efgen "
                           "(accepted with iperf: a constant rate)" % efgen_rate(spec.ef))
    for name in ("af_flows", "cs0_flows"):
        n = getattr(spec, name)
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_FLOWS:
            raise TrafficError("%s '%s': out of range (accepted: 1..%d)"
                               % (name, n, MAX_FLOWS))
    if not spec.duration_s > 0:
        raise TrafficError("duration_s '%s': must be above 0 s" % spec.duration_s)
    return spec


def efgen_rate(ef):
    """A RateSpec (or an efstep.StepSpec) as schedtun-efgen's --rate (bit/s
    and seconds, bare numbers)."""
    if hasattr(ef, "efgen_rate"):
        return ef.efgen_rate()
    if ef.constant:
        return "%d" % round(ef.mean_bps)
    return "cosine:%d:%r:%g" % (round(ef.mean_bps), ef.amplitude, ef.period_s)


def tcp_classes(spec):
    """The classes iperf3 serves: AF and CS0, and EF when iperf3 sends it."""
    return ("af", "cs0") if spec.ef_tool == "efgen" else CLASSES


def server_cmds(spec):
    """[(process name, argv, log file name)] for the receiver: one iperf3
    server per iperf3 class (one test each, -1), and efgen's sink."""
    out = [("server-" + c, ["iperf3", "-s", "-1", "-J", "-B", spec.dst_ip,
                            "-p", str(PORTS[c])], "iperf-server-%s.log" % c)
           for c in tcp_classes(spec)]
    if spec.ef_tool == "efgen":
        # the sink outlives the sender by 30 s: the last reports arrive a delay later
        out.append(("server-efgen", [
            spec.efgen, "--sink", "--listen", "%s:%d" % (spec.dst_ip, EFGEN_PORT),
            "--report", os.path.join(spec.out, "efgen-sink.jsonl"), "--interval", "1",
            "--duration", "%g" % (spec.duration_s + 30)], "efgen-sink.log"))
    return out


def client_cmds(spec):
    """{class: argv} for the sender: EF, AF, CS0."""
    base = ["-c", spec.dst_ip, "-t", "%g" % spec.duration_s, "--connect-timeout", "15000",
            "--get-server-output"]
    cmds = {
        "af": ["iperf3"] + base + ["-p", str(PORTS["af"]), "-P", str(spec.af_flows),
                                   "-C", "cubic", "--tos", TOS["af"], "-J",
                                   "--logfile", os.path.join(spec.out, "iperf-af.json")],
        "cs0": ["iperf3"] + base + ["-p", str(PORTS["cs0"]), "-P", str(spec.cs0_flows),
                                    "-C", "cubic", "-J",
                                    "--logfile", os.path.join(spec.out, "iperf-cs0.json")],
    }
    if spec.ef_tool == "efgen":
        cmds["ef"] = [spec.efgen, "--dst", "%s:%d" % (spec.dst_ip, EFGEN_PORT),
                      "--rate", efgen_rate(spec.ef), "--duration", "%g" % spec.duration_s,
                      "--size", str(EF_IP), "--tos", TOS["ef"], "--interval", "1",
                      "--report", os.path.join(spec.out, "efgen-send.jsonl")]
    else:
        # iperf3 -b counts UDP payload: scale so that the IP rate is spec.ef
        b = spec.ef.mean_bps * EF_PAYLOAD / EF_IP
        cmds["ef"] = ["iperf3"] + base + ["-p", str(PORTS["ef"]), "-u", "-b",
                                          "%d" % round(b), "-l", str(EF_PAYLOAD),
                                          "--tos", TOS["ef"], "-J", "--logfile",
                                          os.path.join(spec.out, "iperf-ef.json")]
    return {c: cmds[c] for c in CLASSES}


def host_out(host, cmd):
    """Runs cmd (a list) in a Mininet host; returns (status, stdout text)."""
    p = host.popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out, _ = p.communicate(timeout=30)
    return p.returncode, out.decode(errors="replace")


def listening(host, proto, port):
    """True when something in host listens on proto (tcp/udp) port."""
    flag = "-Hltn" if proto == "tcp" else "-Hlun"
    rc, out = host_out(host, ["ss", flag, "sport = :%d" % port])
    return rc == 0 and out.strip() != ""


class Traffic:
    """One run's traffic: start_servers(receiver), start_clients(sender),
    then done() / client_warnings(); stop() and close() at the end.

    procs: a schedlab.procs.Procs that records every process; error: the
    exception class a failed wait raises (geo.py's RunError)."""

    def __init__(self, spec, procs, error=RuntimeError):
        self.spec = check(spec)
        self.procs, self.error = procs, error
        self.clients = {}            # class -> Popen
        self.t_start_s = None        # time.monotonic() when the clients started
        self.t_sink_s = None         # time.monotonic() when efgen's sink started
        self._files = []

    def _start(self, host, name, argv, log_name):
        """Starts argv in host, stdout and stderr to OUT/log_name."""
        log = open(os.path.join(self.spec.out, log_name), "ab")
        self._files.append(log)
        p = host.popen(argv, stdout=log, stderr=subprocess.STDOUT,
                       stdin=subprocess.DEVNULL)
        return self.procs.add(name, p)

    def start_servers(self, host, abort=None, timeout_s=15):
        """Starts the servers in host and waits until each listens; abort()
        returning a message (a daemon died) ends the wait with error."""
        for name, argv, log_name in server_cmds(self.spec):
            if name == "server-efgen":
                self.t_sink_s = time.monotonic()
            self._start(host, name, argv, log_name)
        for c in tcp_classes(self.spec):
            wait_until("the iperf3 server for %s" % c, timeout_s,
                       lambda c=c: listening(host, "tcp", PORTS[c]),
                       abort=abort, error=self.error)
        if self.spec.ef_tool == "efgen":
            wait_until("the efgen sink", timeout_s,
                       lambda: listening(host, "udp", EFGEN_PORT),
                       abort=abort, error=self.error)

    def start_clients(self, host):
        """Starts every client in host; returns t_start_s."""
        self.t_start_s = time.monotonic()
        for c, argv in client_cmds(self.spec).items():
            self.clients[c] = self._start(host, "client-" + c, argv, "client-%s.log" % c)
        return self.t_start_s

    def done(self):
        """True when every client has exited."""
        return all(p.poll() is not None for p in self.clients.values())

    def client_warnings(self):
        """One sentence per client that exited with a non-zero status,
        naming the file that says why."""
        out = []
        for c, p in self.clients.items():
            if p.poll() is None or p.returncode == 0:
                continue
            where = ("client-ef.log" if c == "ef" and self.spec.ef_tool == "efgen"
                     else "iperf-%s.json" % c)
            out.append("%s client exited with status %d (see %s)" % (c, p.returncode, where))
        return out

    def stop(self, grace=5):
        """Stops the clients and servers still running (SIGTERM, then SIGKILL)."""
        self.procs.stop(["client-", "server-"], grace=grace)

    def close(self):
        """Closes the log files (after stop())."""
        for f in self._files:
            try:
                f.close()
            except OSError:
                pass
        self._files = []
