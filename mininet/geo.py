#!/usr/bin/python3
"""geo.py - the PSS paper's GEO experiment in Mininet, one run.

Two Mininet hosts (controller=None, no switch, one veth link between them),
a schedtun on each: h1 (10.0.0.1, tunnel 10.10.0.1) sends through the
scheduler under test on the emulated bottleneck (C, 250 ms one way); h2
(10.0.0.2, tunnel 10.10.0.2) returns ACKs through a fifo at 1 Gbit/s with
the same one-way delay, so the RTT is 2 x delay.  Traffic h1 -> h2 through
the tunnel: EF one UDP flow (iperf3 CBR, or schedtun-efgen for any rate
profile), AF N cubic flows (DSCP AF11), CS0 N cubic flows.

Run as root with /usr/bin/python3 (Mininet's interpreter); see
mininet/README.md for the options, the outputs and the theory.

Exit status: 0 done, 1 the run failed, 2 bad arguments, 130 interrupted.
"""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import geoio      # noqa: E402
import theory     # noqa: E402

ROOT = os.path.dirname(HERE)
PROG = "geo.py"
SCHEDS = ("fifo", "prio", "pss", "dwrr", "pdrr", "dq", "ticket")
STATE_DIR = "/run/schedtun-geo"
UL = {"h1": "10.0.0.1", "h2": "10.0.0.2"}
TUN = {"h1": "10.10.0.1", "h2": "10.10.0.2"}
DPORT = 5000
PORTS = {"ef": 5201, "af": 5202, "cs0": 5203}
EFGEN_PORT = 5301
TOS = {"ef": "0xb8", "af": "0x28", "cs0": "0x00"}
EF_PAYLOAD = 1200                  # iperf3 -l: IP packet 1228 bytes
EF_IP = EF_PAYLOAD + 28


class UsageError(Exception):
    """A bad command line: printed as `geo.py: MESSAGE`, exit 2."""


class RunError(Exception):
    """The run failed: printed as `geo.py: ERROR: MESSAGE`, exit 1."""


class Interrupted(Exception):
    """SIGINT, SIGTERM or SIGHUP arrived."""


def bad(opt, value, problem):
    """A UsageError in the form `--opt 'value': problem`."""
    return UsageError("%s '%s': %s" % (opt, value, problem))


# ---------------------------------------------------------------- arguments

def parse_args(argv):
    """The command line -> argparse namespace with parsed specs; UsageError."""
    p = argparse.ArgumentParser(
        prog=PROG, description="The PSS paper's GEO experiment in Mininet "
        "(mininet/README.md).")
    p.add_argument("--sched", help="scheduler under test: " + " ".join(SCHEDS)
                   + " (required unless --conf names it)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--conf", help="take the sender's `scheduler = {...};` group "
                   "from this schedtun configuration file")
    g.add_argument("--sched-params", help="members of the scheduler group, e.g. "
                   "'pss = { bw = 0.408163; lm = 71020; lr = 0; };' (default: the "
                   "paper's parameters for --weights, see README)")
    p.add_argument("--capacity", default="20Mbit",
                   help="C: RATE or cosine:MEAN:AMPLITUDE:PERIOD (default 20Mbit)")
    p.add_argument("--ef", default="10Mbit",
                   help="EF rate at the IP level: RATE or cosine:AVG:AMPLITUDE:PERIOD "
                   "(default 10Mbit)")
    p.add_argument("--ef-exp", help="R_EF^exp for the PSS parameters and eq. 7 "
                   "(default: the EF average)")
    p.add_argument("--ef-tool", default="auto", choices=("auto", "iperf", "efgen"),
                   help="EF generator: efgen (schedtun-efgen), iperf (iperf3 -u, "
                   "constant only), auto = efgen when present (default)")
    p.add_argument("--delay", default="250ms", help="one-way delay (default 250ms)")
    p.add_argument("--af-flows", type=int, default=10, help="AF cubic flows (10)")
    p.add_argument("--cs0-flows", type=int, default=10, help="CS0 cubic flows (10)")
    p.add_argument("--duration", type=float, default=100.0,
                   help="traffic seconds (default 100)")
    p.add_argument("--warmup", type=float,
                   help="seconds left out of the means (default 10, or a third "
                   "of the duration below 30 s)")
    p.add_argument("--weights", default="9:2",
                   help="W_AF:W_CS0 for the theory (K_AF, eq. 2) and the default "
                   "PSS/DWRR parameters (default 9:2)")
    p.add_argument("--l-af", type=int, default=1400,
                   help="average AF packet, IP bytes (default 1400 = tunnel MTU)")
    p.add_argument("--l-cs0", type=int, default=1400, help="average CS0 packet (1400)")
    p.add_argument("--out", help="results directory (default "
                   "results-tmp/geo-<sched>-<timestamp>)")
    p.add_argument("--schedtun", help="schedtun binary (default ./build-rel/"
                   "schedtun, else schedtun on PATH); schedtun-efgen is looked "
                   "for beside it")
    p.add_argument("--no-plot", action="store_true", help="no rates.png")
    p.add_argument("--quiet", action="store_true", help="no live lines")
    p.add_argument("--cleanup", action="store_true",
                   help="only remove what killed earlier runs left, then exit")
    try:
        a = p.parse_args(argv)
    except SystemExit as e:
        raise SystemExit(0 if e.code == 0 else 2)
    if a.cleanup:
        return a
    return check_args(a)


def check_args(a):
    """Validates and completes the parsed arguments (specs, defaults)."""
    if a.conf:
        if not os.path.isfile(a.conf):
            raise bad("--conf", a.conf, "no such file")
        a.sched_group = conf_sched_group(a.conf)
        name = sched_group_name(a.sched_group)
        if a.sched and a.sched != name:
            raise bad("--sched", a.sched, "the scheduler of --conf is '%s'" % name)
        a.sched = name
    else:
        a.sched_group = None
    if a.sched not in SCHEDS:
        raise bad("--sched", a.sched, "unknown scheduler (accepted: %s)" % " ".join(SCHEDS))
    for opt in ("capacity", "ef"):
        try:
            setattr(a, opt + "_spec", theory.parse_spec(getattr(a, opt)))
        except ValueError as e:
            raise bad("--" + opt.replace("_", "-"), getattr(a, opt), str(e)) from None
    if a.ef_spec.mean_bps * (1 + a.ef_spec.amplitude) > 1e9:
        raise bad("--ef", a.ef, "above 1 Gbit/s")
    try:
        a.ef_exp_bps = (a.ef_spec.mean_bps if a.ef_exp is None
                        else theory.parse_rate(a.ef_exp))
    except ValueError as e:
        raise bad("--ef-exp", a.ef_exp, str(e)) from None
    if not 0 <= a.ef_exp_bps < a.capacity_spec.mean_bps:
        raise bad("--ef-exp", a.ef_exp, "must be 0 <= R_EF^exp < C's mean (%g bit/s)"
                  % a.capacity_spec.mean_bps)
    try:
        a.delay_s = theory.parse_duration(a.delay)
    except ValueError as e:
        raise bad("--delay", a.delay, str(e)) from None
    if not 0 <= a.delay_s <= 10:
        raise bad("--delay", a.delay, "0..10s")
    for opt in ("af_flows", "cs0_flows"):
        if not 1 <= getattr(a, opt) <= 64:
            raise bad("--" + opt.replace("_", "-"), getattr(a, opt), "1..64 flows")
    if not 5 <= a.duration <= 3600:
        raise bad("--duration", a.duration, "5..3600 seconds")
    if a.warmup is None:
        a.warmup = 10.0 if a.duration >= 30 else a.duration / 3.0
    if not 0 <= a.warmup < a.duration:
        raise bad("--warmup", a.warmup, "0 <= warmup < duration")
    m = re.fullmatch(r"(\d+):(\d+)", a.weights)
    if not m or not (2 <= int(m.group(1)) <= 10000 and 2 <= int(m.group(2)) <= 10000):
        raise bad("--weights", a.weights, "W_AF:W_CS0, each 2..10000 (eq. 4 needs W >= 2)")
    a.w_af, a.w_cs0 = int(m.group(1)), int(m.group(2))
    for opt in ("l_af", "l_cs0"):
        if not 64 <= getattr(a, opt) <= 65535:
            raise bad("--" + opt.replace("_", "-"), getattr(a, opt), "64..65535 bytes")
    a.schedtun_path = find_schedtun(a.schedtun)
    a.efgen_path = os.path.join(os.path.dirname(a.schedtun_path), "schedtun-efgen")
    have_efgen = os.access(a.efgen_path, os.X_OK)
    if a.ef_tool == "auto":
        a.ef_tool = "efgen" if have_efgen else "iperf"
    if a.ef_tool == "efgen" and not have_efgen:
        raise bad("--ef-tool", "efgen", "no %s (build it: cmake --build ... "
                  "--target schedtun-efgen)" % a.efgen_path)
    if a.ef_tool == "iperf" and not a.ef_spec.constant:
        raise bad("--ef", a.ef, "a time-varying EF needs schedtun-efgen, and there is "
                  "no %s (accepted without it: a constant RATE)" % a.efgen_path)
    return a


def find_schedtun(given):
    """--schedtun, else ./build-rel/schedtun (repository), else PATH; UsageError."""
    if given:
        if not (os.path.isfile(given) and os.access(given, os.X_OK)):
            raise bad("--schedtun", given, "not an executable file")
        return os.path.abspath(given)
    for cand in (os.path.join(ROOT, "build-rel", "schedtun"),
                 os.path.join(os.getcwd(), "build-rel", "schedtun")):
        if os.access(cand, os.X_OK):
            return cand
    found = shutil.which("schedtun")
    if not found:
        raise UsageError("no schedtun: give --schedtun PATH, or build build-rel "
                         "(cmake -S . -B build-rel -DCMAKE_BUILD_TYPE=RelWithDebInfo)")
    return found


def conf_sched_group(path):
    """The text `scheduler = { ... };` of a libconfig file (comments kept).

    Braces inside strings and comments (#, //, /* */) are skipped.
    UsageError when there is no top-level scheduler group.
    """
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"(?m)^\s*scheduler\s*[=:]\s*\{", text)
    if not m:
        raise bad("--conf", path, "no top-level `scheduler = { ... };` group")
    i, depth = m.end(), 1
    while i < len(text) and depth:
        ch = text[i]
        if ch == '"':
            i = text.index('"', i + 1) if '"' in text[i + 1:] else len(text)
        elif ch == "#" or text.startswith("//", i):
            i = text.find("\n", i)
            i = len(text) if i < 0 else i
        elif text.startswith("/*", i):
            i = text.find("*/", i)
            i = len(text) if i < 0 else i + 1
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        i += 1
    if depth:
        raise bad("--conf", path, "the scheduler group is not closed")
    end = text.find(";", i)
    return text[m.start():i].strip() + ";" if end < 0 or text[i:end].strip() else \
        text[m.start():end + 1].strip()


def sched_group_name(group):
    """The `name = "..."` of a scheduler group text ('prio' when absent, the
    daemon's default)."""
    m = re.search(r'(?m)^\s*name\s*[=:]\s*"([a-z]+)"', group)
    return m.group(1) if m else "prio"


# ---------------------------------------------------------------- configuration

def default_sched_params(a):
    """The scheduler members geo.py uses when neither --conf nor --sched-params.

    pss: the paper's set (eqs. 3-5) for --weights/--l-af/--l-cs0, C's mean
    and R_EF^exp; LR = 0 for a constant C, T C BW for a cosine C (4.2.1),
    then credit_init = LR (start in the steady state).  dwrr: quanta
    W L (eq. 2).  Other schedulers: their own defaults ("").
    """
    if a.sched == "pss":
        lr_t = None if a.capacity_spec.constant else a.capacity_spec.period_s
        pp = theory.pss_params(a.w_af, a.l_af, a.w_cs0, a.l_cs0,
                               a.capacity_spec.mean_bps, a.ef_exp_bps, lr_t)
        return "pss = { bw = %.9f; lm = %d; lr = %d; credit_init = %d; };" % (
            pp["bw"], pp["lm"], pp["lr"], pp["lr"])
    if a.sched == "dwrr":
        return "dwrr = { quantum = { af = %d; cs0 = %d; }; };" % (
            a.w_af * a.l_af, a.w_cs0 * a.l_cs0)
    return ""


def theory_model(a, sched_text):
    """{"k_af", "ef_exp_bps", "nominal_bps", "k_af_from"} for theory.class_theory.

    K_AF: for dwrr the quanta found in the scheduler text (Q_AF/(Q_AF+Q_CS0),
    eq. 2 with Q = W L), else eq. 2 of --weights and the packet sizes.
    """
    k = theory.k_af(a.w_af, a.l_af, a.w_cs0, a.l_cs0)
    src = "eq. 2, W %d:%d, L %d/%d" % (a.w_af, a.w_cs0, a.l_af, a.l_cs0)
    if a.sched == "dwrr":
        m = re.search(r"quantum\s*[=:]\s*\{\s*af\s*[=:]\s*(\d+)\s*;\s*cs0\s*[=:]\s*(\d+)",
                      sched_text)
        if m:
            qa, qc = int(m.group(1)), int(m.group(2))
            k, src = qa / float(qa + qc), "dwrr quanta %d:%d" % (qa, qc)
    return {"k_af": k, "ef_exp_bps": a.ef_exp_bps,
            "nominal_bps": a.capacity_spec.mean_bps, "k_af_from": src}


def link_text(spec, delay_s):
    """The body of a `link = { ... };` group for a RateSpec."""
    if spec.constant:
        rate = 'rate = "%d";' % round(spec.mean_bps)
    else:
        rate = ('profile = { kind = "cosine"; mean = "%d"; amplitude = %r; '
                'period = "%gs"; };' % (round(spec.mean_bps), spec.amplitude,
                                        spec.period_s))
    return '%s delay = "%dus";' % (rate, round(delay_s * 1e6))


def conf_text(host, link, sched_group, stats_file):
    """A complete schedtun configuration for host h1 (sender) or h2."""
    peer = UL["h2" if host == "h1" else "h1"]
    return "\n".join([
        "# generated by mininet/geo.py for %s" % host,
        "tunnel = {",
        '  tun = "st0"; address = "%s/24"; mtu = 1400;' % TUN[host],
        '  listen = "0.0.0.0:%d"; peer = "%s:%d";' % (DPORT, peer, DPORT),
        "};",
        "link = { %s };" % link,
        sched_group,
        'stats = { interval = 1.0; file = "%s"; };' % stats_file,
        ""])


def sched_group_text(a):
    """The sender's scheduler group: from --conf, or --sched with its params."""
    if a.sched_group:
        return a.sched_group
    params = a.sched_params if a.sched_params is not None else default_sched_params(a)
    return 'scheduler = {\n  name = "%s";\n  %s\n};' % (a.sched, params)


# ---------------------------------------------------------------- processes

def proc_start_time(pid):
    """Field 22 of /proc/PID/stat (start time in clock ticks), or None."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            rest = f.read().rsplit(")", 1)[1].split()
        return int(rest[19])
    except (OSError, IndexError, ValueError):
        return None


class Procs:
    """Every process this run starts, recorded in STATE_DIR/<our pid>.json so
    that a later run (or --cleanup) can stop them if we are SIGKILLed."""

    def __init__(self):
        self.items = []          # (name, Popen or None, pid)
        os.makedirs(STATE_DIR, exist_ok=True)
        self.state = os.path.join(STATE_DIR, "%d.json" % os.getpid())
        self._save()

    def _save(self):
        """Rewrites the state file: our pid and (pid, start time) of each child."""
        doc = {"owner": os.getpid(), "owner_start": proc_start_time(os.getpid()),
               "procs": [[n, pid, proc_start_time(pid)] for n, _, pid in self.items]}
        with open(self.state + ".tmp", "w") as f:
            json.dump(doc, f)
        os.replace(self.state + ".tmp", self.state)

    def add(self, name, popen=None, pid=None):
        """Records a started process (a Popen, or a bare pid such as a host shell)."""
        self.items.append((name, popen, popen.pid if popen else pid))
        self._save()
        return popen

    def stop(self, names=None, grace=5.0):
        """SIGTERM, then after `grace` s SIGKILL, the recorded processes (all,
        or those whose name starts with one of `names`); reaps them."""
        sel = [it for it in self.items
               if names is None or any(it[0].startswith(n) for n in names)]
        for _, p, pid in sel:
            if alive(p, pid):
                try:
                    os.kill(pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + grace
        for _, p, pid in sel:
            while alive(p, pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            if alive(p, pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            if p is not None:
                try:
                    p.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    pass
        return sel

    def close(self):
        """Removes the state file (call after everything is stopped)."""
        try:
            os.unlink(self.state)
        except OSError:
            pass


def alive(popen, pid):
    """True while the process runs (a Popen is polled, a bare pid probed)."""
    if popen is not None:
        return popen.poll() is None
    return proc_start_time(pid) is not None and os.path.exists("/proc/%d" % pid)


def sweep_leftovers(log):
    """Stops what geo.py runs killed without cleanup left behind.

    For each STATE_DIR/<pid>.json whose owner is gone: SIGKILL each recorded
    process still running with the same start time (never a recycled pid),
    which also lets its Mininet namespaces go; then deletes the file.
    Returns the number of processes killed.
    """
    n = 0
    if not os.path.isdir(STATE_DIR):
        return 0
    for fn in sorted(os.listdir(STATE_DIR)):
        path = os.path.join(STATE_DIR, fn)
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError):
            continue
        owner = doc.get("owner")
        if owner == os.getpid() or (proc_start_time(owner) is not None and
                                    proc_start_time(owner) == doc.get("owner_start")):
            continue
        for name, pid, start in doc.get("procs", []):
            if start is not None and proc_start_time(pid) == start:
                try:
                    os.kill(pid, signal.SIGKILL)
                    n += 1
                    log("killed leftover %s (pid %d) of dead run %s" % (name, pid, owner))
                except ProcessLookupError:
                    pass
        try:
            os.unlink(path)
        except OSError:
            pass
    return n


def wait_until(desc, timeout, pred, poll=0.1, abort=None):
    """Polls pred() until true (returns) or `timeout` s pass (RunError);
    abort() returning a message ends the wait early with that error."""
    deadline = time.monotonic() + timeout
    while True:
        if pred():
            return
        if abort:
            msg = abort()
            if msg:
                raise RunError("%s (waiting for %s)" % (msg, desc))
        if time.monotonic() >= deadline:
            raise RunError("timed out after %gs waiting for %s" % (timeout, desc))
        time.sleep(poll)


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
        return self.results()

    # -- results
    def results(self):
        """rates.csv, credit.csv (PSS), summary.json, rates.png; returns the summary."""
        a = self.a
        launch_a = self.t_traffic - self.t_daemon["h1"]   # daemon a's time
        lines_a = geoio.stats_lines(os.path.join(a.out, "stats-a.jsonl"))
        lines_b = geoio.stats_lines(os.path.join(a.out, "stats-b.jsonl"))
        # traffic time 0 = when EF started (iperf3 needs round trips first)
        start = geoio.traffic_start(geoio.stats_rates(lines_a), a.ef_spec.mean_bps)
        shift = 0.0 if start is None else max(start - launch_a, 0.0)
        if start is None:
            self.warnings.append("no EF traffic in the sender's stats")
        off_a = launch_a + shift
        off_b = self.t_traffic - self.t_daemon["h2"] + shift
        rows = geoio.stats_rates(lines_a, off_a)
        # efgen's cosine starts when it is launched, `shift` s before time 0
        th = geoio.theory_rows(a.sched, self.model, a.capacity_spec, a.ef_spec, rows,
                               c_offset_s=off_a,
                               ef_offset_s=shift if a.ef_tool == "efgen" else 0.0)
        csv_rows = []
        for r, t in zip(rows, th):
            for c in geoio.CLASSES:
                csv_rows.append((r["t1"], c, r[c], "daemon"))
                csv_rows.append((t["t1"], c, t[c], "theory"))
            csv_rows.append((r["t1"], "link", r["link"], "daemon"))
            csv_rows.append((t["t1"], "link", t["c"], "theory"))
        iperf, iperf_lag = {}, {}
        for c in geoio.CLASSES:
            path = os.path.join(a.out, "iperf-%s.json" % c)
            if c == "ef" and a.ef_tool == "efgen":
                continue
            # iperf3's intervals count from its test start, about when the
            # first bytes reach the daemon: time 0 (within a second)
            iperf[c] = geoio.iperf_rates(path)
            lag = geoio.best_lag(iperf[c], rows, c)
            iperf_lag[c] = lag
            iperf[c] = [(t + lag, v) for t, v in iperf[c]]
            if not iperf[c]:
                self.warnings.append("no iperf3 intervals for %s: %s"
                                     % (c, geoio.iperf_error(path)))
            csv_rows += [(t, c, v, "iperf") for t, v in iperf[c]]
        efgen_summary = None
        if a.ef_tool == "efgen":
            sink, efgen_summary = geoio.efgen_lines(os.path.join(a.out, "efgen-sink.jsonl"))
            off_s = self.t_traffic - self.t_sink + shift
            iperf["ef"] = [(float(ln["t"]) - off_s, ln["rcvd_bps"] / 1e6)
                           for ln in sink if "rcvd_bps" in ln]
            csv_rows += [(t, "ef", v, "efgen") for t, v in iperf["ef"]]
        geoio.write_rates_csv(os.path.join(a.out, "rates.csv"), csv_rows)
        credit = geoio.stats_credit(lines_a, off_a) if a.sched == "pss" else []
        if a.sched == "pss":
            geoio.write_credit_csv(os.path.join(a.out, "credit.csv"), credit)
        w0, w1 = a.warmup, a.duration
        variable = not (a.capacity_spec.constant and a.ef_spec.constant)
        wth = geoio.window_theory(a.sched, self.model, th, w0, w1, variable)
        classes = {}
        for c in geoio.CLASSES:
            meas = geoio.window_mean(rows, c, w0, w1)
            thv, inst, eq = wth[c]
            classes[c] = {
                "measured_mbps": meas, "theory_mbps": thv,
                "rel_error": theory.rel_error(meas, thv), "theory": eq,
                "theory_instant_mbps": inst,
                # iperf3's receiver goodput (efgen's sink rate for EF with efgen)
                "iperf_mbps": geoio.points_mean(iperf.get(c, []), w0, w1),
            }
        if a.sched == "pss":
            bw = pss_bw_of(self.sched_group)
            if bw is not None:
                c_mean = geoio.window_mean(th, "c", w0, w1)
                ef_mean = geoio.window_mean(th, "ef", w0, w1)
                classes["af"]["algorithm1_bw_c_mbps"] = (
                    None if c_mean is None or ef_mean is None else
                    min(bw * a.capacity_spec.mean_bps / 1e6, c_mean - ef_mean))
        owd = ef_owd(lines_b, off_b, w0, w1)
        if efgen_summary:
            owd["efgen_summary"] = efgen_summary
        n_window = sum(1 for r in rows if geoio.in_window(r, w0, w1))
        summary = {
            "tool": "mininet/geo.py",
            "finished": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
            "window_s": [w0, w1], "window_intervals": n_window,
            "traffic_start_after_launch_s": shift,
            "iperf_lag_s": iperf_lag,
            "classes": classes,
            "link": {"measured_mbps": geoio.window_mean(rows, "link", w0, w1),
                     "capacity_mbps": geoio.window_mean(th, "c", w0, w1)},
            "ef_owd_ms": owd,
            "config": config_dict(a, self.sched_group, self.model),
            "schedtun": {"path": a.schedtun_path, "version": version_of(a.schedtun_path)},
            "machine": machine(),
            "warnings": self.warnings,
        }
        if n_window == 0:
            self.warnings.append("no stats interval inside the window [%g, %g] s" % (w0, w1))
        geoio.write_summary_json(os.path.join(a.out, "summary.json"), summary)
        if not a.no_plot:
            title = "%s: C %s, EF %s (exp %g Mbit/s), AF %dx / CS0 %dx cubic, %g ms one way" % (
                a.sched, a.capacity, a.ef, a.ef_exp_bps / 1e6, a.af_flows, a.cs0_flows,
                a.delay_s * 1e3)
            try:
                geoio.plot(os.path.join(a.out, "rates.png"), rows, th, credit, title, (w0, w1))
            except Exception as e:      # a plot failure must not lose the numbers
                self.warnings.append("rates.png not written: %s" % e)
                geoio.write_summary_json(os.path.join(a.out, "summary.json"), summary)
        return summary

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


def efgen_spec(spec):
    """A RateSpec as schedtun-efgen's --rate (bit/s and seconds, bare numbers)."""
    if spec.constant:
        return "%d" % round(spec.mean_bps)
    return "cosine:%d:%r:%g" % (round(spec.mean_bps), spec.amplitude, spec.period_s)


def pss_bw_of(group):
    """The first `bw = x` of a scheduler group text, or None."""
    m = re.search(r"\bbw\s*[=:]\s*([0-9.eE+-]+)", group)
    try:
        return float(m.group(1)) if m else None
    except ValueError:
        return None


def ef_owd(lines_b, offset, w0, w1):
    """EF one-way delay at the receiver daemon over the window (ms):
    mean of the per-interval averages, max of the per-interval p99 and max."""
    avg, p99, mx = [], [], []
    prev = None
    for ln in lines_b:
        t = float(ln["t"]) - offset
        t0 = t - 1.0 if prev is None else prev
        prev = t
        rx = ln.get("rx", {}).get("ef", {})
        if t0 >= w0 - 0.01 and t <= w1 + 0.01 and rx.get("pkts", 0) > 0:
            o = rx["owd_ms"]
            avg.append(o["avg"])
            p99.append(o["p99"])
            mx.append(o["max"])
    if not avg:
        return {"avg": None, "p99_max": None, "max": None}
    return {"avg": sum(avg) / len(avg), "p99_max": max(p99), "max": max(mx)}


def config_dict(a, sched_group, model):
    """The configuration of the run, for summary.json."""
    return {
        "sched": a.sched, "scheduler_group": sched_group,
        "conf": os.path.abspath(a.conf) if a.conf else None,
        "sched_params": a.sched_params,
        "capacity": a.capacity, "capacity_mean_bps": a.capacity_spec.mean_bps,
        "capacity_amplitude": a.capacity_spec.amplitude,
        "capacity_period_s": a.capacity_spec.period_s,
        "ef": a.ef, "ef_mean_bps": a.ef_spec.mean_bps,
        "ef_amplitude": a.ef_spec.amplitude, "ef_period_s": a.ef_spec.period_s,
        "ef_exp_bps": a.ef_exp_bps, "ef_tool": a.ef_tool,
        "ef_packet_ip_bytes": EF_IP,
        "delay_one_way_s": a.delay_s, "rtt_s": 2 * a.delay_s,
        "af_flows": a.af_flows, "cs0_flows": a.cs0_flows, "tcp": "cubic",
        "duration_s": a.duration, "warmup_s": a.warmup,
        "weights": [a.w_af, a.w_cs0], "l_af": a.l_af, "l_cs0": a.l_cs0,
        "k_af": model["k_af"], "k_af_from": model["k_af_from"],
        "return_path": "fifo, 1 Gbit/s, same one-way delay",
        "tunnel_mtu": 1400,
    }


def version_of(path):
    """`schedtun --version`'s first line, or the error."""
    try:
        out = subprocess.run([path, "--version"], stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, timeout=10).stdout
        return out.decode(errors="replace").strip().splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError) as e:
        return "unknown (%s)" % e


def machine():
    """Host facts for summary.json: name, kernel, CPUs, Python, Mininet, iperf3."""
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((l.split(":", 1)[1].strip() for l in f
                        if l.startswith("model name")), "")
    except OSError:
        pass
    try:
        import mininet.net
        mn = mininet.net.VERSION
    except ImportError:
        mn = None
    try:
        ip3 = subprocess.run(["iperf3", "--version"], stdout=subprocess.PIPE,
                             timeout=10).stdout.decode().split("\n")[0].strip()
    except (OSError, subprocess.SubprocessError):
        ip3 = None
    return {"hostname": socket.gethostname(), "kernel": platform.release(),
            "cpus": os.cpu_count(), "cpu_model": cpu, "python": platform.python_version(),
            "mininet": mn, "iperf3": ip3,
            "tcp_default_cc": read_text("/proc/sys/net/ipv4/tcp_congestion_control")}


def read_text(path):
    """A small file's stripped text, or None."""
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def print_summary(s, log):
    """The per-class table of a summary, to stdout."""
    print("window %g..%g s (%d intervals), sender daemon out rates, Mbit/s:" % (
        s["window_s"][0], s["window_s"][1], s["window_intervals"]))
    print("  class  measured    theory   rel.err   iperf3/efgen (theory)")
    for c in geoio.CLASSES:
        r = s["classes"][c]
        f = (lambda v, w="%9.3f": (w % v) if v is not None else "%9s" % "-")
        print("  %-5s %s %s %s %s   %s" % (
            c.upper(), f(r["measured_mbps"]), f(r["theory_mbps"]),
            f(None if r["rel_error"] is None else 100 * r["rel_error"], "%8.1f%%"),
            f(r["iperf_mbps"]), r["theory"] or "no equation for this scheduler"))
    lk = s["link"]
    print("  link  %s %s" % ("%9.3f" % lk["measured_mbps"] if lk["measured_mbps"] is not None
                             else "        -", "%9.3f" % lk["capacity_mbps"]
                             if lk["capacity_mbps"] is not None else ""))
    if s["classes"]["af"].get("algorithm1_bw_c_mbps") is not None:
        print("  (PSS: Algorithm 1 gives AF about min(BW*C, C - R_EF) = %.3f; README, PSS)"
              % s["classes"]["af"]["algorithm1_bw_c_mbps"])
    o = s["ef_owd_ms"]
    if o.get("avg") is not None:
        print("  EF one-way delay at the receiver: avg %.1f ms, p99 up to %.1f, max %.1f"
              % (o["avg"], o["p99_max"], o["max"]))
    for w in s["warnings"]:
        log("warning: " + w)


def main(argv):
    """Parses, runs, cleans up; returns the exit status."""
    def log(msg):
        print("%s: %s" % (PROG, msg), file=sys.stderr, flush=True)
    try:
        a = parse_args(argv)
    except UsageError as e:
        log(str(e))
        return 2
    if os.geteuid() != 0:
        log("needs root (Mininet, tun): run it as root with /usr/bin/python3")
        return 1
    if a.cleanup:
        log("removed %d leftover processes" % sweep_leftovers(log))
        return 0
    for tool in ("iperf3", "ping", "ss", "mnexec"):
        if not shutil.which(tool):
            log("ERROR: '%s' not found: install the dependencies (scripts/deps.sh)" % tool)
            return 1
    a.out = os.path.abspath(a.out or os.path.join(
        ROOT, "results-tmp", "geo-%s-%s" % (a.sched, time.strftime("%Y%m%d-%H%M%S"))))
    os.makedirs(a.out, exist_ok=True)
    for fn in os.listdir(a.out):      # never mix two runs' files
        if fn.endswith((".jsonl", ".json", ".csv", ".png", ".log", ".conf", ".txt")):
            os.unlink(os.path.join(a.out, fn))
    sweep_leftovers(log)

    def on_signal(signum, _frame):
        raise Interrupted(signal.Signals(signum).name)
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, on_signal)
    run = Run(a, log)
    status = 0
    try:
        summary = run.run()
        print_summary(summary, log)
        log("results in %s" % a.out)
    except Interrupted as e:
        log("interrupted (%s): cleaning up" % e)
        status = 130
    except RunError as e:
        log("ERROR: %s" % e)
        status = 1
    except Exception:                 # a bug or Mininet's own error: still clean up
        import traceback
        traceback.print_exc()
        log("ERROR: unexpected failure (traceback above)")
        status = 1
    finally:
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, signal.SIG_IGN)   # let the cleanup finish
        run.cleanup()
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
