"""schedlab/pdrrrun.py - one run of the PDRR paper's experiments in Mininet.

Kortebi, Oueslati and Roberts (2005), §4.3 (Fig. 3 left) and §5: a
10 Mbit/s link; TCP transfers of 1000-byte packets whose sizes follow a
Pareto of shape 1.5 truncated to 8-1000 packets make 80 % of the load;
UDP flows of mean lifetime 1 minute, on-off at 64 kbit/s with exponential
500-ms bursts and silences, make the rest.  Fig. 3: load 0.9, PDRR
against DRR, the UDP packets' delay.  §5: 11 Mbit/s offered, a
1000-packet buffer, an AFL of 500, with and without admission control at
a fair rate of 100 kbit/s.  Here (docs/pdrr-mininet.md states every
difference):

  t1..t6 --veth--\\
                   r ==schedtun 10 Mbit/s, DELAY==> d
  u1..u2 --veth--/      return: fifo 1 Gbit/s, DELAY
  (the paper states no access links: the hosts' veths are not shaped)
  t1..t6: open-loop TCP transfers (mininet/websess.py --arrivals: a
          Poisson process, each transfer a new Linux TCP connection, MSS
          960 so that a full segment is a 1000-byte IP packet), CS0;
  u1..u2: on-off UDP flows (mininet/onoff.py: Poisson arrivals, 200-byte
          packets), DSCP 10 (AF);
  r:      schedtun's sender end, PDRR (or plain DRR: priority = false),
          quantum 1000 bytes, writing a packet log (OUT/a.plog.csv).
Both classes are plain flows to PDRR (no EF).  The numbers
(schedlab.pdrrlog) over [warm-up, duration) of traffic time.

PdrrRun(spec, log).run() returns the summary (also OUT/summary.json);
cleanup() is safe at any point.
"""
import json
import os
import time

from schedlab import dists, pdrrlog
from schedlab.runerr import RunError
from schedlab.starnet import StarNet

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PY = "/usr/bin/python3"
TCP_PORT = 6000
UDP_PORT = 7000
TCP_HOSTS = 6
UDP_HOSTS = 2
ACCESS_MBPS = None           # TCLink without bw: no htb, the veth's own rate
LINK_BPS = 10e6
PKT_BYTES = 1000            # the paper's TCP packet (IP)
MSS_BYTES = 960             # TCP_MAXSEG: 1000 - 20 (IP) - 20 (TCP)
PAYLOAD_BYTES = 948         # a full segment's data: the MSS less 12 of timestamps
PKTS_ALPHA, PKTS_MIN, PKTS_MAX = 1.5, 8, 1000
UDP_MEAN_BPS = 32000.0      # 64 kbit/s on half the time
UDP_SIZE_BYTES = 200
UDP_LIFETIME_S = 60.0
UDP_DSCP = 10               # AF11: the af class
ADMIT = "100kbit"
ADMIT_BPS = 100e3
STATS_BIN_S = 5.0
# case -> (PDRR's priority queue, offered Mbit/s, buffer (Fig. 3: ample, the
# paper's runs lose nothing at load 0.9), AFL or None for the default,
# admission)
CASES = {
    "fig3-pdrr": (True, 9.0, 2000, None, False),
    "fig3-drr": (False, 9.0, 2000, None, False),
    "s5-admission": (True, 11.0, 1000, 500, True),
    "s5-none": (True, 11.0, 1000, 500, False),
}
DEFAULT_MAX_FLOWS = 1024
CLASS_LIMIT = 10000         # above any buffer: PDRR's own push-out is the only drop rule
GRACE_S = 30                # a transfer still running at the end: this long to finish
TCP_TAIL_S = 60             # transfers measured arrive by duration - this: the largest
#                             (1000 packets) needs 80 s at a 100 kbit/s fair rate
MAX_OPEN = 2000             # open transfers a host: 6 hosts x 2 threads each stay
#                             well under kernel.pid_max's 32768


def pkts_mean():
    """E[transfer size] in packets: the truncated Pareto's (k = 8 packets,
    so its untruncated mean is alpha k / (alpha - 1) = 24)."""
    untrunc = PKTS_ALPHA * PKTS_MIN / (PKTS_ALPHA - 1)
    return dists.pareto_trunc_mean(PKTS_ALPHA, untrunc, PKTS_MAX)


class PdrrSpec:
    """One run's parameters (checked by mininet/pdrr.py)."""

    def __init__(self, case, duration_s, warmup_s, out, schedtun, seed=1, delay_ms=20.0,
                 tcp_share=0.8, cc="reno"):
        self.case, self.duration_s, self.warmup_s = case, duration_s, warmup_s
        self.out, self.schedtun, self.seed, self.delay_ms = out, schedtun, seed, delay_ms
        self.tcp_share, self.cc = tcp_share, cc
        self.priority, self.offered_mbps, self.buffer, self.max_flows, self.admission = \
            CASES[case]

    def tcp_arrivals_per_s(self):
        """Transfers a second making tcp_share of the offered load."""
        return self.offered_mbps * 1e6 * self.tcp_share / (8 * PKT_BYTES * pkts_mean())

    def udp_flows(self):
        """The mean number of UDP flows making the rest (each 32 kbit/s)."""
        return self.offered_mbps * 1e6 * (1 - self.tcp_share) / UDP_MEAN_BPS

    def conf_text(self):
        """The sender's configuration body (SchedtunLink adds tunnel and stats)."""
        members = ["quantum = %d;" % PKT_BYTES,
                   "priority = %s;" % ("true" if self.priority else "false")]
        if self.buffer is not None:
            members.append("buffer = %d;" % self.buffer)
        if self.max_flows is not None:
            members.append("max_flows = %d;" % self.max_flows)
        if self.admission:
            members.append('admission = true; admit_rate = "%s";' % ADMIT)
        return "\n".join([
            "# PDRR %s (docs/pdrr-mininet.md): generated by mininet/pdrr.py" % self.case,
            'link = { rate = "10Mbit"; delay = "%gms"; };' % self.delay_ms,
            "classes = { af = { limit = %d; }; cs0 = { limit = %d; }; };"
            % (CLASS_LIMIT, CLASS_LIMIT),
            'scheduler = { name = "pdrr"; pdrr = { %s }; };' % " ".join(members), ""])

    def udp_initial(self):
        """UDP flows present at the start: none in §5 ("the system starts
        empty"), the stationary number for Fig. 3's steady state."""
        return 0 if self.case.startswith("s5") else self.udp_flows()

    def tcp_window_end_s(self):
        """The last arrival time (s) of the transfers measured."""
        return self.duration_s - min(TCP_TAIL_S, (self.duration_s - self.warmup_s) / 2)


def _limits():
    """The host limits an overloaded run can meet (a thread per open
    transfer on each side): kernel.pid_max, threads-max."""
    out = {}
    for k in ("pid_max", "threads-max"):
        try:
            with open("/proc/sys/kernel/" + k) as f:
                out[k] = int(f.read())
        except (OSError, ValueError):
            out[k] = None
    return out


class PdrrRun:
    """Topology, sources, stop, measurement (on a schedlab.starnet.StarNet)."""

    def __init__(self, spec, log):
        self.s, self.log = spec, log
        self.net = StarNet(spec.out, log)

    def run(self):
        s, n = self.s, self.net
        body = n.path("sender-body.conf")
        with open(body, "w") as f:
            f.write(s.conf_text())
        names = ["t%d" % i for i in range(1, TCP_HOSTS + 1)] + \
            ["u%d" % i for i in range(1, UDP_HOSTS + 1)]
        d, hosts = n.build(names, [ACCESS_MBPS] * len(names), conf=body, rev_sched="fifo",
                           rev_rate="1Gbit", rev_delay="%gms" % s.delay_ms,
                           schedtun=s.schedtun, packet_logs=(n.path("a.plog.csv"), None))
        dst = n.dst
        n.start(d, "web-sink", [PY, os.path.join(HERE, "websess.py"), "sink", "--listen",
                                "%s:%d" % (dst, TCP_PORT), "--out",
                                n.path("web-sink.jsonl")], n.receivers)
        n.start(d, "udp-recv", [PY, os.path.join(HERE, "onoff.py"), "recv", "--listen",
                                "%s:%d" % (dst, UDP_PORT), "--out",
                                n.path("udp-recv.jsonl")], n.receivers)
        n.wait_listening(d, "tcp", TCP_PORT)
        n.wait_listening(d, "udp", UDP_PORT)
        t_mono = time.monotonic()
        t0_ns = time.time_ns()
        self.start_sources(hosts[:TCP_HOSTS], hosts[TCP_HOSTS:])
        self.log("%s: TCP %.2f transfers/s, %.1f UDP flows, %g s"
                 % (s.case, s.tcp_arrivals_per_s(), s.udp_flows(), s.duration_s))
        n.run_for(t_mono, s.duration_s)
        n.end_senders(GRACE_S + 15)
        n.stop_link()
        return self.summary(self.measure(t0_ns, t_mono), t_mono)

    def start_sources(self, tcp_hosts, udp_hosts):
        """Every source, seeded (host i: seed * 1000 + i)."""
        s, n, dst = self.s, self.net, self.net.dst
        lam = s.tcp_arrivals_per_s() / len(tcp_hosts)
        untrunc = PKTS_ALPHA * PKTS_MIN / (PKTS_ALPHA - 1)
        for i, h in enumerate(tcp_hosts, 1):
            n.start(h, "web-send-%d" % i, [
                PY, os.path.join(HERE, "websess.py"), "send", "--to",
                "%s:%d" % (dst, TCP_PORT), "--arrivals", "%.6g" % lam,
                "--alpha", "%g" % PKTS_ALPHA, "--mean", "%d" % (untrunc * PAYLOAD_BYTES),
                "--max", "%d" % (PKTS_MAX * PAYLOAD_BYTES), "--mss", str(MSS_BYTES),
                "--cc", s.cc, "--dscp", "0", "--duration", "%g" % s.duration_s,
                "--grace", "%d" % GRACE_S, "--max-open", str(MAX_OPEN),
                "--seed", str(s.seed * 1000 + i),
                "--out", n.path("web-send-%d.jsonl" % i)], n.senders)
        flows = s.udp_flows() / len(udp_hosts)
        for i, h in enumerate(udp_hosts, 1):
            n.start(h, "udp-send-%d" % i, [
                PY, os.path.join(HERE, "onoff.py"), "send", "--to",
                "%s:%d" % (dst, UDP_PORT),
                "--flows", str(int(round(s.udp_initial() / len(udp_hosts)))),
                "--arrivals", "%.6g" % (flows / UDP_LIFETIME_S),
                "--lifetime", "%g" % UDP_LIFETIME_S, "--size", str(UDP_SIZE_BYTES),
                "--dscp", str(UDP_DSCP), "--duration", "%g" % s.duration_s,
                "--seed", str(s.seed * 1000 + 100 + i),
                "--out", n.path("udp-send-%d.jsonl" % i)], n.senders)

    def _records(self, prefix, count, hosts_from):
        """The JSON lines of OUT/PREFIX-i.jsonl, i = 1..count, each with
        "src": host i's address (10.0.(hosts_from + i).2)."""
        out = []
        for i in range(1, count + 1):
            with open(self.net.path("%s-%d.jsonl" % (prefix, i))) as f:
                for ln in f:
                    if ln.endswith("\n") and ln.strip():
                        r = json.loads(ln)
                        r["src"] = "10.0.%d.2" % (hosts_from + i)
                        out.append(r)
        return out

    def _plain(self, name):
        """The JSON lines of OUT/NAME."""
        with open(self.net.path(name)) as f:
            return [json.loads(ln) for ln in f if ln.endswith("\n") and ln.strip()]

    def measure(self, t0_ns, t_mono):
        s, n = self.s, self.net
        w0 = t0_ns + int(s.warmup_s * 1e9)
        w1 = t0_ns + int(s.duration_s * 1e9)
        max_flows = s.max_flows or DEFAULT_MAX_FLOWS
        try:
            snd, refused = pdrrlog.sender(n.path("a.plog.csv"), w0, w1, UDP_PORT, TCP_PORT,
                                          LINK_BPS)
            st = pdrrlog.stats(n.path("stats-a.jsonl"), n.sender_offset_s(t_mono), s.warmup_s,
                               s.duration_s, LINK_BPS, max_flows, ADMIT_BPS, STATS_BIN_S)
            sink = self._plain("web-sink.jsonl")
            tcp = pdrrlog.transfers(self._records("web-send", TCP_HOSTS, 0), sink, w0,
                                    t0_ns + int(s.tcp_window_end_s() * 1e9), refused,
                                    PKT_BYTES / PAYLOAD_BYTES)
            tcp["window_s"] = [s.warmup_s, s.tcp_window_end_s()]
            udp = pdrrlog.udp_flows(self._records("udp-send", UDP_HOSTS, TCP_HOSTS), refused)
        except (OSError, ValueError, KeyError) as e:
            raise RunError("the run's records cannot be measured: %s" % e) from None
        if snd["tcp_data_len_bytes"] != PKT_BYTES:
            n.warnings.append("TCP data packets are mostly %s bytes, not %d: the MSS did not "
                              "take (TCP timestamps off?)" % (snd["tcp_data_len_bytes"],
                                                              PKT_BYTES))
        return {"sender": snd, "stats": st, "tcp": tcp, "udp_flows": udp,
                "theory": pdrrlog.theory(snd["udp"], snd["link"], st, LINK_BPS),
                "grid_ms": list(pdrrlog.GRID_MS), "limits": _limits()}

    def summary(self, m, t_mono):
        s = self.s
        return self.net.write_summary({
            "experiment": "pdrr",
            "classes": {c: {"measured_mbps": bps / 1e6}
                        for c, bps in m["sender"]["link"]["class_bps"].items()},
            "link": {"rate": "10Mbit", "delay_ms": s.delay_ms, "sched": "pdrr",
                     "case": s.case, "priority": s.priority, "admission": s.admission,
                     "offered_mbps": s.offered_mbps, "buffer": s.buffer,
                     "max_flows": s.max_flows},
            "pdrr": m}, s.warmup_s, s.duration_s, t_mono)

    def cleanup(self):
        self.net.cleanup()
