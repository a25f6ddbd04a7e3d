#!/usr/bin/python3
"""multi_sender.py - three senders behind a router, a GEO hop through schedtun.

    msh1 (EF,  10.1.1.1) --+
    msh2 (AF,  10.1.2.1) --+-- msr1 ==[SchedtunLink: C, delay each way]== msr2 -- msh4 (10.2.0.1)
    msh3 (CS0, 10.1.3.1) --+
    (--terrestrial: the senders on msr0, a fifo schedtun hop msr0 -> msr1 first)

Plain Mininet veth links everywhere but msr1 -> msr2, a SchedtunLink
(schedlab/link.py): 20 Mbit/s, 250 ms each way, PSS with the paper's
parameters for weights 9:2 at 1400-byte packets (eqs. 3-5, LR = 0 for a
constant C; what `schedtun params pss --w-af 9 --w-cs0 2 --l-af 1400
--l-cs0 1400 --capacity 20Mbit --ef-exp 5Mbit` prints), the return path
fifo at 1 Gbit/s with the same delay.  Traffic, one DiffServ class per
sender, all to msh4: EF a constant-rate UDP iperf3 (--tos 0xb8), AF and
CS0 cubic TCP (--tos 0x28 / none, -C cubic).  No switch, no controller, no
netem: the delay is schedtun's delay line.

Run as root with Debian's python3 (Mininet's interpreter), from anywhere:

    sudo /usr/bin/python3 mininet/examples/multi_sender.py --duration 60 \\
        --out /tmp/multi.json
    sudo /usr/bin/python3 mininet/examples/multi_sender.py --sched dwrr \\
        --delay 100ms --ef 8Mbit --flows 2 --duration 30
    sudo /usr/bin/python3 mininet/examples/multi_sender.py --cleanup   # after a kill -9

It prints each class's rate as the receiver measured it: the receiving
daemon's rx counters (msr2, IP bytes per DiffServ class) averaged over the
stats intervals inside [warm-up, duration - 1 s] of the traffic, and iperf3's receiver report (whole run), and
writes them as JSON with --out.  Configs, logs and stats: --workdir
(default a new /tmp/schedtun-link-* directory).  Node names carry --prefix
(default "ms") so that they do not collide with other Mininet runs.

Exit status: 0 done, 1 the run failed, 2 bad arguments, 130 interrupted.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))          # mininet/: schedlab, theory
import theory                                       # noqa: E402

PROG = "multi_sender.py"
PORTS = {"ef": 5201, "af": 5202, "cs0": 5203}
TOS = {"ef": "0xb8", "af": "0x28", "cs0": None}
SENDER = {"ef": "h1", "af": "h2", "cs0": "h3"}
EF_PAYLOAD = 1200                   # iperf3 -l; the IP packet is 28 bytes more
W_AF, W_CS0, L_BYTES = 9, 2, 1400   # the paper's weights and packet size


class UsageError(Exception):
    """A bad command line (exit 2)."""


class Interrupted(Exception):
    """SIGINT, SIGTERM or SIGHUP arrived (exit 130)."""


def parse_args(argv):
    """The command line -> namespace with rates in bit/s, delays in s."""
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n")[0])
    p.add_argument("--duration", type=float, default=60.0, help="traffic seconds (60)")
    p.add_argument("--warmup", type=float, help="seconds left out of the window "
                   "(default: a third of the duration, at most 10)")
    p.add_argument("--rate", default="20Mbit", help="the GEO hop's rate C (20Mbit)")
    p.add_argument("--delay", default="250ms", help="one-way delay each way (250ms)")
    p.add_argument("--ef", default="5Mbit", help="EF rate at the IP level (5Mbit)")
    p.add_argument("--sched", default="pss", choices=("pss", "dwrr", "prio", "fifo"),
                   help="scheduler on msr1 -> msr2 (pss)")
    p.add_argument("--flows", type=int, default=2, help="cubic flows of AF and of CS0 (2)")
    p.add_argument("--terrestrial", metavar="RATE:DELAY",
                   help="put the senders behind msr0 and a terrestrial schedtun hop "
                   "msr0 -> msr1 before the GEO one (fifo at RATE, DELAY each way; "
                   "e.g. 100Mbit:10ms); default: the senders sit on msr1")
    p.add_argument("--prefix", default="ms", help="node name prefix (ms)")
    p.add_argument("--schedtun", help="schedtun binary (default: $SCHEDTUN, "
                   "build-rel/schedtun, PATH)")
    p.add_argument("--workdir", help="configs, logs, stats (default: a new /tmp dir)")
    p.add_argument("--out", help="write the JSON summary here")
    p.add_argument("--cleanup", action="store_true",
                   help="only kill what a SIGKILLed run left, then exit")
    try:
        a = p.parse_args(argv)
    except SystemExit as e:
        raise SystemExit(0 if e.code == 0 else 2)
    if a.cleanup:
        return a
    try:
        a.rate_bps = theory.parse_rate(a.rate)
        a.ef_bps = theory.parse_rate(a.ef)
        a.delay_s = theory.parse_duration(a.delay)
    except ValueError as e:
        raise UsageError(str(e)) from None
    if not 0 < a.ef_bps < a.rate_bps:
        raise UsageError("--ef '%s': must be above 0 and below --rate (%g bit/s)"
                         % (a.ef, a.rate_bps))
    if not 5 <= a.duration <= 3600:
        raise UsageError("--duration '%g': out of range (accepted: 5..3600 s)" % a.duration)
    if a.warmup is None:
        a.warmup = min(10.0, a.duration / 3.0)
    if not 0 <= a.warmup < a.duration - 2:
        raise UsageError("--warmup '%g': out of range (accepted: 0 <= warmup < "
                         "duration - 2)" % a.warmup)
    a.terr = None
    if a.terrestrial:
        rate, _, delay = a.terrestrial.partition(":")
        try:
            a.terr = (theory.parse_rate(rate), theory.parse_duration(delay))
        except ValueError as e:
            raise UsageError("--terrestrial '%s': RATE:DELAY expected, e.g. "
                             "100Mbit:10ms: %s" % (a.terrestrial, e)) from None
    if not 1 <= a.flows <= 32:
        raise UsageError("--flows '%d': out of range (accepted: 1..32)" % a.flows)
    if not (a.prefix.isalnum() and len(a.prefix) <= 6):
        raise UsageError("--prefix '%s': not 1..6 letters/digits" % a.prefix)
    return a


def sched_opts(a):
    """The SchedtunLink's scheduler options for --sched."""
    if a.sched == "pss":
        pp = theory.pss_params(W_AF, L_BYTES, W_CS0, L_BYTES, a.rate_bps, a.ef_bps)
        return {"sched": "pss", "sched_params": "pss = { bw = %.9f; lm = %d; lr = %d; };"
                % (pp["bw"], pp["lm"], pp["lr"])}
    if a.sched == "dwrr":     # quanta W L (eq. 2): the same 9:2 shares
        return {"sched": "dwrr", "sched_params": "dwrr = { quantum = { af = %d; cs0 = %d; }; };"
                % (W_AF * L_BYTES, W_CS0 * L_BYTES)}
    return {"sched": a.sched}   # prio: EF > AF > CS0 strictly; fifo: no classes


def topology(a, net):
    """Adds the six nodes and the plain links; returns the nodes by role."""
    n = {}
    for role in ("h1", "h2", "h3", "h4", "r1", "r2") + (("r0",) if a.terr else ()):
        n[role] = net.addHost(a.prefix + role, ip=None)
    edge = n["r0"] if a.terr else n["r1"]
    for i in (1, 2, 3):
        net.addLink(n["h%d" % i], edge, params1={"ip": "10.1.%d.1/24" % i},
                    params2={"ip": "10.1.%d.254/24" % i})
    net.addLink(n["h4"], n["r2"], params1={"ip": "10.2.0.1/24"},
                params2={"ip": "10.2.0.254/24"})
    return n


def host_cmd(node, cmd):
    """node.cmd with a status check: RuntimeError with the output."""
    out = node.cmd(cmd + " 2>&1; echo __rc=$?")
    text, _, rc = out.rpartition("__rc=")
    if rc.strip() != "0":
        raise RuntimeError("%s: `%s` failed: %s" % (node.name, cmd, text.strip()))
    return text


def wait_listen(node, port, timeout_s=15):
    """Waits until a TCP socket listens on port in node."""
    deadline = time.monotonic() + timeout_s
    while "LISTEN" not in node.cmd("ss -Hltn 'sport = :%d' | sed 's/^/LISTEN /'" % port):
        if time.monotonic() > deadline:
            raise RuntimeError("no iperf3 server on %s port %d after %gs"
                               % (node.name, port, timeout_s))
        time.sleep(0.1)


def rx_window(stats_path, t0_s, t1_s):
    """Mean rx rate per class (bit/s) of the receiving daemon over the stats
    intervals lying inside [t0_s, t1_s] (daemon clock), and their count."""
    lines = []
    with open(stats_path) as f:
        for ln in f:
            try:
                lines.append(json.loads(ln))
            except ValueError:
                pass              # a line cut by the daemon's stop
    tot = {c: 0 for c in PORTS}
    span_s, n, prev = 0.0, 0, 0.0
    for d in lines:
        t = d["t"]
        if prev >= t0_s - 0.05 and t <= t1_s + 0.05:
            for c in tot:
                tot[c] += d["rx"][c]["bytes"]
            span_s += t - prev
            n += 1
        prev = t
    return ({c: (8 * b / span_s if span_s > 0 else None) for c, b in tot.items()}, n)


def iperf_receiver(path):
    """(bits/s, bytes) the receiver reported in an iperf3 client's -J log
    (TCP: sum_received; UDP: the server's sum from --get-server-output),
    or (None, None)."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return None, None
    end = doc.get("end", {})
    s = end.get("sum_received")
    if s is None:             # UDP: the receiver's view is the server's own sum
        srv = doc.get("server_output_json", {}).get("end", {})
        s = srv.get("sum") or srv.get("sum_received")
    if not s:
        return None, None
    return s.get("bits_per_second"), s.get("bytes")


def run(a, net, log, book):
    """Builds the network, runs the traffic, returns the summary dict;
    records the host shells and iperf3s in `book` (a schedlab.procs.Procs)."""
    from schedlab.link import SchedtunLink
    n = topology(a, net)
    for h in net.hosts:
        book.add("shell-" + h.name, pid=h.pid)
    if a.terr:     # a second link in msr1: its tun gets the next free name
        terr = net.addLink(n["r0"], n["r1"], cls=SchedtunLink, rate=a.terr[0],
                           delay=a.terr[1], sched="fifo", behind1=["10.1.0.0/16"],
                           behind2=["10.2.0.0/24"], schedtun=a.schedtun,
                           workdir=a.workdir)
        log("terrestrial link %s up: fifo %s; tuns %s" % (terr.label, a.terrestrial,
                                                          "/".join(terr.tuns)))
    link = net.addLink(n["r1"], n["r2"], cls=SchedtunLink, rate=a.rate, delay=a.delay,
                       behind1=["10.1.0.0/16"], behind2=["10.2.0.0/24"],
                       schedtun=a.schedtun, workdir=a.workdir, **sched_opts(a))
    log("link %s up: %s %s, %s each way; tuns %s, stats %s" % (
        link.label, a.sched, a.rate, a.delay, "/".join(link.tuns), link.workdir))
    net.build()               # after every link, as with any Mininet topology
    for i in (1, 2, 3):
        host_cmd(n["h%d" % i], "ip route replace default via 10.1.%d.254" % i)
    host_cmd(n["h4"], "ip route replace default via 10.2.0.254")
    wd = link.workdir
    for c, port in PORTS.items():
        book.add("iperf-server-" + c, n["h4"].popen(
            ["iperf3", "-s", "-1", "-p", str(port)], stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL))
    for port in PORTS.values():
        wait_listen(n["h4"], port)
    base = ["iperf3", "-c", "10.2.0.1", "-t", "%g" % a.duration, "--connect-timeout",
            "15000", "--get-server-output", "-J"]
    cmds = {
        # iperf3 -b counts UDP payload: scale so that the IP rate is --ef
        "ef": ["-u", "-b", "%d" % round(a.ef_bps * EF_PAYLOAD / (EF_PAYLOAD + 28)),
               "-l", str(EF_PAYLOAD)],
        "af": ["-C", "cubic", "-P", str(a.flows)],
        "cs0": ["-C", "cubic", "-P", str(a.flows)],
    }
    clients = {}
    t_traffic = time.monotonic()
    for c, extra in cmds.items():
        tos = ["--tos", TOS[c]] if TOS[c] else []
        clients[c] = book.add("iperf-client-" + c, n[SENDER[c]].popen(
            base + ["-p", str(PORTS[c]), "--logfile", os.path.join(wd, "iperf-%s.json" % c)]
            + tos + extra, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    deadline = t_traffic + a.duration + 40
    warnings = []
    while any(p.poll() is None for p in clients.values()):
        msg = link.daemon_died()
        if msg:
            raise RuntimeError(msg)
        if time.monotonic() > deadline:
            warnings.append("iperf3 clients still running 40 s after the end: stopped")
            break
        time.sleep(0.25)
    book.stop(["iperf-"], grace=3)
    for c, p in clients.items():
        if p.returncode != 0:
            warnings.append("%s client (%s) exited with status %s (see %s)" % (
                c, SENDER[c], p.returncode, os.path.join(wd, "iperf-%s.json" % c)))
    pids = {"daemons": list(link.pids()) + (list(terr.pids()) if a.terr else []),
            "shells": [pid for name, _, pid in book.items if name.startswith("shell-")],
            "iperf": [pid for name, _, pid in book.items if name.startswith("iperf-")]}
    stats_rx = link.stats_files[1]
    link.delete()             # SIGTERM: the receiver writes its last stats line
    # on the receiving daemon's clock; the last second left out: the
    # clients stop at `duration`, their last packets a delay later
    off = t_traffic - link.started_s[1]
    t0_s, t1_s = off + a.warmup, off + a.duration - 1
    rates, nint = rx_window(stats_rx, t0_s, t1_s)
    classes = {}
    for c in PORTS:
        bps, nbytes = iperf_receiver(os.path.join(wd, "iperf-%s.json" % c))
        classes[c] = {"sender": n[SENDER[c]].name, "tos": TOS[c] or "0x00",
                      "rx_mbps": None if rates[c] is None else rates[c] / 1e6,
                      "iperf_receiver_mbps": None if bps is None else bps / 1e6,
                      "iperf_receiver_bytes": nbytes}
    total = (sum(rates.values()) / 1e6 if all(v is not None for v in rates.values())
             else None)
    return {"config": {"sched": a.sched, "sched_opts": sched_opts(a), "rate": a.rate,
                       "delay": a.delay, "ef": a.ef, "flows": a.flows,
                       "duration_s": a.duration, "warmup_s": a.warmup},
            "window_s": [t0_s, t1_s], "window_intervals": nint,
            "classes": classes, "total_rx_mbps": total,
            "link": {"tuns": list(link.tuns), "stats_files": list(link.stats_files),
                     "confs": list(link.confs), "logs": list(link.logs),
                     "exit_status": link.exit_status, "workdir": wd},
            "pids": pids, "warnings": warnings}


def print_summary(s, log):
    """One line per class and the total."""
    for c, d in s["classes"].items():
        fmt = lambda v: "   n/a" if v is None else "%6.3f" % v      # noqa: E731
        log("%-3s from %-6s (tos %s): receiving daemon %s Mbit/s (IP, window), "
            "iperf3 receiver %s Mbit/s (payload, whole run)"
            % (c.upper(), d["sender"], d["tos"], fmt(d["rx_mbps"]),
               fmt(d["iperf_receiver_mbps"])))
    log("total at the receiver %s Mbit/s over %d intervals (window %.1f..%.1f s)" % (
        "n/a" if s["total_rx_mbps"] is None else "%.3f" % s["total_rx_mbps"],
        s["window_intervals"], s["window_s"][0], s["window_s"][1]))
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
        log("needs root (Mininet, tun): run it with sudo /usr/bin/python3")
        return 1
    try:
        from mininet.net import Mininet
        from mininet.log import setLogLevel
        from schedlab.link import LINK_STATE_DIR, LinkError, cleanup_leftovers, find_schedtun
        from schedlab.procs import Procs
    except ImportError as e:
        log("cannot import Mininet (%s): run it with /usr/bin/python3" % e)
        return 1
    if not a.cleanup:
        try:                  # before any Mininet node exists
            a.schedtun = find_schedtun(a.schedtun)
        except LinkError as e:
            log(str(e))
            return 2 if a.schedtun else 1
    n_left = cleanup_leftovers(log)
    if a.cleanup:
        log("removed %d leftover processes" % n_left)
        return 0

    def on_signal(signum, _frame):
        raise Interrupted(signal.Signals(signum).name)
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, on_signal)
    setLogLevel("warning")
    # the links record their daemons; this records our own processes, so
    # that --cleanup (or the next run) also stops them after a SIGKILL
    book = Procs(LINK_STATE_DIR, tag="multi_sender")
    net = Mininet(topo=None, controller=None, build=False, waitConnected=False)
    status = 0
    try:
        summary = run(a, net, log, book)
        print_summary(summary, log)
        if a.out:
            with open(a.out, "w") as f:
                json.dump(summary, f, indent=1)
            log("summary in %s" % a.out)
    except Interrupted as e:
        log("interrupted (%s): cleaning up" % e)
        status = 130
    except (LinkError, RuntimeError, OSError) as e:
        log("ERROR: %s" % e)
        status = 1
    finally:
        for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(s, signal.SIG_IGN)     # let the cleanup finish
        net.stop()
        book.stop(grace=2)      # whatever net.stop() left (an iperf3 after an error)
        book.close()
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
