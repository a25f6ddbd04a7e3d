"""schedlab/onoff.py - on-off UDP streams, the PDRR paper's sources.

Kortebi et al. 2005 §4.3: "UDP connections of mean duration 1 minute emit
on-off traffic with 64Kbps peak rate and 500 ms mean, exponentially
distributed burst and silence lengths", arriving so as to make up a
share of the load.  Here:

  flows   `flows` flows exist at the start; more arrive as a Poisson
          process of `arrivals_per_s`; each lives an exponential
          lifetime of mean `lifetime_s` (None: until the run's end),
          sends from its own UDP socket (its own source port, so a
          per-flow scheduler sees one flow) and is numbered in order of
          birth (the initial ones 0..flows-1).
  periods exponential on and off periods of means on_s and off_s.  A
          flow present at the start is in its stationary state: on with
          probability on_s / (on_s + off_s), its first packet's phase
          uniform; an arriving flow starts on, with a packet at birth.
  packets while on, one packet of `size_bytes` (the IP packet, headers
          included, as the scheduler and schedtun-sim count it) each
          packet time size_bytes x 8 / peak_bps, counted on the flow's
          on-time: packet j is due when the flow has been on for
          phase + j packet times, so the on-time left over at the end of
          a period is carried into the next and the flow sends
          peak x its on-time to within one packet (the simulator's
          `onoff`, src/sim/simsrc.c, does the same).

Every draw comes from a random.Random of its own (schedlab.dists):
"SEED:FLOW" for a flow's lifetime, initial state, phase and periods,
"SEED:arrivals" for the arrival times, so a seed repeats the whole
schedule (which flows exist when, and every packet's due time) whatever
the network does.  The sender keeps one timeline of absolute due times
(CLOCK_MONOTONIC from the run's start) for all flows; a packet sent late
does not move the next one, so lateness never accumulates into the rate.

The payload starts with a header (magic, run, flow, seq, send time in ns
of CLOCK_REALTIME, which every network namespace of a host shares); the
receiver timestamps each datagram in the kernel (SO_TIMESTAMPNS, the
same clock) and so gets the one-way delay.

Records (JSON lines, one per flow, times in ns of CLOCK_REALTIME):
  sender    flow, run, local_port, birth_ns, death_ns (its lifetime's end,
            or the run's), first_ns, last_ns (send times), packets, bytes
            (IP packet bytes: packets x size_bytes), on_periods, on_ns
            (time on within its life), late_max_ns (the latest a packet
            went out after its due time), send_errors, status ("ok",
            "error: ...");
  receiver  flow, run, peer, peer_port, first_ns, last_ns (arrivals),
            packets, bytes (as the sender counts them), seq_max, lost
            (sequence gaps: seq_max + 1 - packets; losses after the last
            packet received only the sender's count shows: join()),
            reordered, delay_min_ns, delay_mean_ns, delay_max_ns.
"""
import heapq
import math
import os
import random
import socket
import struct
import threading
import time
from dataclasses import dataclass
from typing import Optional

from schedlab import dists, netutil

MAGIC = b"STOO"
HDR = struct.Struct("!4sIIIQ")          # magic, run, flow, seq, send_ns
IP4_UDP_BYTES = 28                      # IPv4 + UDP headers
IP6_UDP_BYTES = 48
SIZE_MAX = 9000                         # as schedtun-sim's PKT_BYTES
MAX_FLOWS = 100000
SO_TIMESTAMPNS = 35                     # Linux; Python 3.11 lacks the name
RECV_BUF = 65536


class OnOffError(ValueError):
    """A bad specification: `what 'value': problem (accepted: ...)`."""


@dataclass
class OnOffSpec:
    """What the flows send.  dst: (host, port) of the receiver; peak_bps:
    the rate while on; size_bytes: the IP packet; on_s, off_s: the
    exponential periods' means; flows: present at the start;
    arrivals_per_s: the Poisson arrival rate of more (0: none);
    lifetime_s: the exponential lifetime's mean (None: the run);
    dscp: 0..63 or None (the system's default TOS).  Defaults: PDRR §4.3's
    streams (64 kbit/s, 500 ms / 500 ms, 1 min) in 200-byte packets."""
    dst: tuple
    flows: int = 10
    peak_bps: float = 64000.0
    size_bytes: int = 200
    on_s: float = 0.5
    off_s: float = 0.5
    lifetime_s: Optional[float] = 60.0
    arrivals_per_s: float = 0.0
    duration_s: float = 60.0
    seed: int = 1
    dscp: Optional[int] = None


def parse_addr(text, listen=False):
    """("host", port) from "A.B.C.D:PORT" or "[IPv6]:PORT"; OnOffError.
    listen: port 0 is accepted too (the system picks one)."""
    return netutil.parse_addr(text, OnOffError, listen)


def header_bytes(spec):
    """IP and UDP header bytes of the spec's family (counted in size_bytes)."""
    return IP6_UDP_BYTES if netutil.family(spec.dst[0]) == socket.AF_INET6 else IP4_UDP_BYTES


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _positive(name, v, accepted):
    if not (isinstance(v, (int, float)) and not isinstance(v, bool)
            and math.isfinite(v) and v > 0):
        raise OnOffError("%s '%s': not a positive number (accepted: %s)" % (name, v, accepted))


def check(spec):
    """Raises OnOffError for a spec that cannot run; returns spec."""
    if not (_is_int(spec.flows) and 0 <= spec.flows <= MAX_FLOWS):
        raise OnOffError("flows '%s': out of range (accepted: 0..%d)" % (spec.flows, MAX_FLOWS))
    _positive("peak_bps", spec.peak_bps, "bit/s > 0, e.g. 64000")
    lo = header_bytes(spec) + HDR.size
    if not (_is_int(spec.size_bytes) and lo <= spec.size_bytes <= SIZE_MAX):
        raise OnOffError("size_bytes '%s': out of range (accepted: %d..%d, the IP packet "
                         "with its headers)" % (spec.size_bytes, lo, SIZE_MAX))
    _positive("on_s", spec.on_s, "seconds > 0")
    _positive("off_s", spec.off_s, "seconds > 0")
    if spec.lifetime_s is not None:
        _positive("lifetime_s", spec.lifetime_s, "seconds > 0, or none: the run")
    a = spec.arrivals_per_s
    if not (isinstance(a, (int, float)) and math.isfinite(a) and a >= 0):
        raise OnOffError("arrivals_per_s '%s': not a rate (accepted: flows per second >= 0)"
                         % (a,))
    d = spec.duration_s
    if not (isinstance(d, (int, float)) and math.isfinite(d) and d > 0):
        raise OnOffError("duration_s '%s': not a duration (accepted: seconds > 0)" % (d,))
    if spec.flows == 0 and a == 0:
        raise OnOffError("flows '0': no flow at the start and none arriving (accepted: "
                         "flows >= 1 or arrivals_per_s > 0)")
    netutil.check_dscp(spec.dscp, OnOffError)
    return spec


def packet_ns(spec):
    """One packet time at the peak, as a float (the marks are computed
    from it by multiplication, never by summing)."""
    return spec.size_bytes * 8 * 1e9 / spec.peak_bps


def arrivals_ns(spec):
    """The birth times (ns from the run's start) of the arriving flows, in
    order, ending before duration_s: a Poisson process of arrivals_per_s."""
    if spec.arrivals_per_s <= 0:
        return
    rng = random.Random("%d:arrivals" % spec.seed)
    t = 0.0
    end = spec.duration_s
    while True:
        t += dists.exponential(rng, 1.0 / spec.arrivals_per_s)
        if t >= end:
            return
        yield int(t * 1e9)


def flow_plan(spec, flow, initial):
    """(rng, life_ns or None, on, phase_ns) of one flow: its lifetime,
    first state and first packet's phase, the first draws of its own
    stream.  initial: present at the start (stationary) or arriving
    (on, phase 0)."""
    rng = random.Random("%d:%d" % (spec.seed, flow))
    life = None
    if spec.lifetime_s is not None:
        life = int(dists.exponential(rng, spec.lifetime_s) * 1e9)
    on, phase = True, 0.0
    if initial:
        on = rng.random() < spec.on_s / (spec.on_s + spec.off_s)
        phase = rng.random() * packet_ns(spec)
    return rng, life, on, phase


def _alternate(spec, rng, on):
    while True:
        mean = spec.on_s if on else spec.off_s
        yield on, max(1, int(dists.exponential(rng, mean) * 1e9))
        on = not on


def periods(spec, flow, initial=True):
    """The endless sequence of (on, length_ns) of one flow, after the
    draws of flow_plan(): the same for a seed whatever the network does."""
    rng, _, on, _ = flow_plan(spec, flow, initial)
    return _alternate(spec, rng, on)


def packets(spec, flow, initial=True, horizon_ns=None):
    """Yields ("pkt", due_ns, seq) and ("on", start_ns, length_ns) events
    of one flow, due_ns from its birth, in time order, until its life (or
    horizon_ns, whichever ends first; one of them must be given).  Packet
    seq is due when the flow has been on for phase + seq packet times."""
    rng, life, on, phase = flow_plan(spec, flow, initial)
    end = min(x for x in (life, horizon_ns) if x is not None)
    gap = packet_ns(spec)
    t = 0                       # the current period's start
    on_before = 0               # on-time before it
    seq = 0
    for on, length in _alternate(spec, rng, on):
        if t >= end:
            return
        if on:
            yield "on", t, min(length, end - t)
            while True:
                mark = phase + seq * gap - on_before    # into this period
                if mark >= length or t + mark >= end:
                    break
                yield "pkt", t + int(mark), seq
                seq += 1
            on_before += length
        t += length


def _flow_socket(spec):
    s = socket.socket(netutil.family(spec.dst[0]), socket.SOCK_DGRAM)
    netutil.set_dscp(s, spec.dscp)
    # bound, not connected: its source port is fixed from the first
    # packet, and ICMP port-unreachables do not turn into send errors
    s.bind(("::" if s.family == socket.AF_INET6 else "0.0.0.0", 0))
    return s


class _Flow:
    """One live flow of a sender: its socket, its events and its record."""

    def __init__(self, spec, run, flow, initial, birth_mono_ns, birth_ns, horizon_ns):
        self.events = packets(spec, flow, initial, horizon_ns)
        self.birth_mono = birth_mono_ns
        self.payload = bytearray(spec.size_bytes - header_bytes(spec))
        _, life, _, _ = flow_plan(spec, flow, initial)
        death = birth_ns + min(x for x in (life, horizon_ns) if x is not None)
        self.on_start_mono = self.on_end_mono = birth_mono_ns
        self.rec = {"flow": flow, "run": run, "local_port": None,
                    "birth_ns": birth_ns, "death_ns": death, "first_ns": None,
                    "last_ns": None, "packets": 0, "bytes": 0, "on_periods": 0,
                    "on_ns": 0, "late_max_ns": 0, "send_errors": 0, "status": "ok"}
        try:
            self.sock = _flow_socket(spec)
            self.rec["local_port"] = self.sock.getsockname()[1]
        except OSError as e:
            # out of descriptors, say: this flow is recorded as never
            # sending, the others go on
            self.sock = None
            self.events = iter(())
            self.rec["death_ns"] = birth_ns
            self.rec["status"] = "error: no socket: %s" % (e.strerror or e)

    def next_due(self):
        """The monotonic due time of the next packet (on periods are
        counted on the way), or None when the flow is done."""
        for kind, t, x in self.events:
            if kind == "on":
                self.rec["on_periods"] += 1
                self.rec["on_ns"] += x
                self.on_start_mono = self.birth_mono + t
                self.on_end_mono = self.on_start_mono + x
                continue
            self.seq = x
            return self.birth_mono + t
        return None

    def send(self, spec, due_mono):
        now = time.time_ns()
        HDR.pack_into(self.payload, 0, MAGIC, self.rec["run"], self.rec["flow"],
                      self.seq, now)
        try:
            self.sock.sendto(self.payload, spec.dst)
        except OSError as e:
            self.rec["send_errors"] += 1
            self.rec["status"] = "error: %s" % (e.strerror or e)
            return
        late = time.monotonic_ns() - due_mono
        if late > self.rec["late_max_ns"]:
            self.rec["late_max_ns"] = late
        if self.rec["first_ns"] is None:
            self.rec["first_ns"] = now
        self.rec["last_ns"] = now
        self.rec["packets"] += 1
        self.rec["bytes"] += spec.size_bytes

    def cut(self, now_mono, now_ns):
        """Ends the flow early at now: its death, and its on-time without
        what the last on period counted had left after now (all of it if
        it starts later)."""
        self.rec["death_ns"] = min(self.rec["death_ns"], now_ns)
        self.rec["on_ns"] -= max(0, self.on_end_mono - max(now_mono, self.on_start_mono))
        if self.on_start_mono > now_mono:
            self.rec["on_periods"] -= 1

    def close(self):
        if self.sock is not None:
            self.sock.close()


def run_flows(spec, emit, stop=None, run=None):
    """Runs the spec's flows for duration_s on one timeline; emit(record)
    once per flow when it ends (in order of death).  stop: a
    threading.Event that ends the run early (every live flow is recorded
    then, its death_ns the stop).  run: the 32-bit run number written in
    every packet (default random: it keeps two runs apart at a receiver;
    it is not part of the schedule).  Returns the number of flows."""
    check(spec)
    stop = stop or threading.Event()
    run = int.from_bytes(os.urandom(4), "big") if run is None else run
    t0_mono = time.monotonic_ns()
    t0 = time.time_ns()
    dur = int(spec.duration_s * 1e9)
    heap = []                   # (due_mono, order, flow or None for a birth)
    births = [(0, f, True) for f in range(spec.flows)]
    births += [(t, spec.flows + i, False) for i, t in enumerate(arrivals_ns(spec))]
    for t, f, initial in births:
        heapq.heappush(heap, (t0_mono + t, f, ("birth", f, initial)))
    born = 0
    live = {}

    def retire(fl):
        fl.close()
        emit(fl.rec)
        del live[fl.rec["flow"]]

    while heap:
        due, order, what = heap[0]
        wait = (due - time.monotonic_ns()) / 1e9
        if wait > 0 and stop.wait(wait):
            break
        heapq.heappop(heap)
        if what[0] == "birth":
            _, f, initial = what
            fl = _Flow(spec, run, f, initial, due, t0 + (due - t0_mono),
                       t0_mono + dur - due)
            live[f] = fl
            born += 1
        else:
            fl = what[1]
            fl.send(spec, due)
        nxt = fl.next_due()
        if nxt is None:
            retire(fl)
        else:
            heapq.heappush(heap, (nxt, fl.rec["flow"], ("pkt", fl)))
    now_mono, now = time.monotonic_ns(), time.time_ns()
    for fl in sorted(live.values(), key=lambda x: x.rec["flow"]):
        fl.cut(now_mono, now)
        retire(fl)
    return born


def _rx_ns(ancdata):
    """The kernel's receive time from SCM_TIMESTAMPNS, or None."""
    for level, kind, data in ancdata:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(data) >= 16:
            sec, nsec = struct.unpack("@qq", data[:16])
            return sec * 1000000000 + nsec
    return None


class Receiver:
    """The receiving side: Receiver(("0.0.0.0", port)).start() counts in a
    thread until stop(), which returns one record per flow, in (peer,
    run, flow) order.  port 0 picks a free one (self.port).  Datagrams
    without the header are counted in self.bad, not in a flow.  The
    receive time is the kernel's (SO_TIMESTAMPNS) where it gives one,
    else the time the datagram was read."""

    def __init__(self, addr):
        self.family = netutil.family(addr[0])
        self.overhead = IP6_UDP_BYTES if self.family == socket.AF_INET6 else IP4_UDP_BYTES
        self.sock = socket.socket(self.family, socket.SOCK_DGRAM)
        # a deep buffer rides out the moments this thread is not scheduled
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        except OSError:
            pass
        self.sock.bind(addr)
        self.port = self.sock.getsockname()[1]
        self.flows = {}
        self.bad = 0
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def start(self):
        self.thread.start()
        return self

    def _count(self, data, peer, rx_ns):
        if len(data) < HDR.size or data[:4] != MAGIC:
            self.bad += 1
            return
        _, run, flow, seq, sent_ns = HDR.unpack_from(data)
        key = (peer[0], run, flow)
        st = self.flows.get(key)
        if st is None:
            st = self.flows[key] = {
                "flow": flow, "run": run, "peer": peer[0], "peer_port": peer[1],
                "first_ns": rx_ns, "last_ns": rx_ns, "packets": 0, "bytes": 0,
                "seq_max": seq, "lost": 0, "reordered": 0, "delay_min_ns": None,
                "delay_mean_ns": None, "delay_max_ns": None, "_delay_sum": 0}
        elif seq < st["seq_max"]:
            st["reordered"] += 1
        st["seq_max"] = max(st["seq_max"], seq)
        st["last_ns"] = rx_ns
        st["packets"] += 1
        st["bytes"] += len(data) + self.overhead
        d = rx_ns - sent_ns
        st["_delay_sum"] += d
        st["delay_min_ns"] = d if st["delay_min_ns"] is None else min(st["delay_min_ns"], d)
        st["delay_max_ns"] = d if st["delay_max_ns"] is None else max(st["delay_max_ns"], d)

    def _read(self):
        data, anc, _, peer = self.sock.recvmsg(RECV_BUF, socket.CMSG_SPACE(16))
        rx = _rx_ns(anc)
        self._count(data, peer, rx if rx is not None else time.time_ns())

    def _loop(self):
        self.sock.settimeout(0.1)
        while not self._stop.is_set():
            try:
                self._read()
            except socket.timeout:
                pass
        # what the kernel holds already arrived before the stop
        self.sock.setblocking(False)
        try:
            while True:
                self._read()
        except (BlockingIOError, InterruptedError):
            pass

    def stop(self):
        """Ends the counting; returns the per-flow records."""
        self._stop.set()
        self.thread.join()
        self.sock.close()
        out = []
        for key in sorted(self.flows):
            st = dict(self.flows[key])
            st["lost"] = st["seq_max"] + 1 - st["packets"]
            st["delay_mean_ns"] = st.pop("_delay_sum") / st["packets"]
            out.append(st)
        return out


def summarise_sent(records):
    """A sender's records in a few numbers: flows, packets, bytes,
    send_errors, rate_bps (bytes x 8 over the span from the first birth
    to the last death), on_fraction (time on over the flows' lives
    summed) and mean_on_s (on-time over on periods: periods cut by a
    flow's end count whole, so it is slightly below on_s)."""
    life = sum(r["death_ns"] - r["birth_ns"] for r in records)
    span = (max((r["death_ns"] for r in records), default=0)
            - min((r["birth_ns"] for r in records), default=0))
    periods_ = sum(r["on_periods"] for r in records)
    on = sum(r["on_ns"] for r in records)
    nbytes = sum(r["bytes"] for r in records)
    return {"flows": len(records), "packets": sum(r["packets"] for r in records),
            "bytes": nbytes, "send_errors": sum(r["send_errors"] for r in records),
            "rate_bps": nbytes * 8e9 / span if span > 0 else None,
            "on_fraction": on / life if life > 0 else None,
            "mean_on_s": on / periods_ / 1e9 if periods_ else None,
            "late_max_ns": max((r["late_max_ns"] for r in records), default=0)}


def summarise_received(records, bad=0):
    """A receiver's records in a few numbers: flows, packets, bytes, lost
    (sequence gaps), reordered, bad (datagrams without the header), and
    the one-way delay over all packets (mean weighted by packets, max)."""
    n = sum(r["packets"] for r in records)
    return {"flows": len(records), "packets": n, "bytes": sum(r["bytes"] for r in records),
            "lost": sum(r["lost"] for r in records),
            "reordered": sum(r["reordered"] for r in records), "bad": bad,
            "delay_mean_ns": (sum(r["delay_mean_ns"] * r["packets"] for r in records) / n
                              if n else None),
            "delay_max_ns": max((r["delay_max_ns"] for r in records), default=None)}


def join(sent, received):
    """Per flow of the sender, what arrived: flow, sent, received, lost
    (sent - received: the tail losses included), bytes_sent,
    bytes_received, delay_mean_ns, delay_max_ns (None when nothing
    arrived).  Matched on (run, flow)."""
    got = {(r["run"], r["flow"]): r for r in received}
    out = []
    for s in sorted(sent, key=lambda r: (r["run"], r["flow"])):
        r = got.get((s["run"], s["flow"]))
        out.append({"flow": s["flow"], "sent": s["packets"],
                    "received": r["packets"] if r else 0,
                    "lost": s["packets"] - (r["packets"] if r else 0),
                    "bytes_sent": s["bytes"], "bytes_received": r["bytes"] if r else 0,
                    "delay_mean_ns": r["delay_mean_ns"] if r else None,
                    "delay_max_ns": r["delay_max_ns"] if r else None})
    return out

