"""schedlab/tfrcnet.py - TFRC over UDP: the sender's and receiver's loops.

The state machines are schedlab.tfrc's (RFC 5348); this module puts them
on sockets and the clock.  Times are CLOCK_REALTIME ns (time.time_ns()),
which every network namespace of a host shares, so one-way delays are
arrival minus send time and the records line up with the daemons' logs.

Wire formats (network byte order):
  data      DATA: magic "STTD", flags (1: end of flow), 3 pad bytes,
            seq, send_ns, rtt_ns (the sender's R, 0 before it has one);
            zero padding up to size_bytes (the UDP payload, RFC 5348's s)
  feedback  FEEDBACK: magic "STTF", t_recvdata_ns (the echoed send time),
            t_delay_ns (the receiver's hold time), x_recv_Bps, p (doubles)
A flow ends with END_COPIES end packets (seq = the number of data packets
sent), so the receiver writes its record when the flow ends.

run_sender(spec, emit, stop) sends one flow and returns its summary;
emit(record) gets one record every spec.every_s seconds (0: one per
feedback).  TfrcReceiver(addr, emit) serves any number of flows, told
apart by the sender's address and port, and emits one record per flow
when it ends (or when the receiver stops).  Its two test hooks:
drop_every=K discards every K-th data packet on arrival (seq % K ==
K - 1) as if the network had lost it; hold_feedback_s delays each
feedback packet by that time without counting it in t_delay, which adds
it to the sender's RTT (loopback has almost none).
"""
import math
import random
import select
import socket
import struct
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Optional

from schedlab import netutil, tfrc

DATA = struct.Struct("!4sB3xQQQ")
FEEDBACK = struct.Struct("!4sQQdd")
MAGIC_DATA = b"STTD"
MAGIC_FEEDBACK = b"STTF"
FLAG_END = 1
END_COPIES = 3
MIN_SIZE = DATA.size
MAX_SIZE = 65507                # the largest UDP payload over IPv4
NS = tfrc.NS
POLL_S = 0.2                    # how often an idle loop looks at `stop`


class TfrcError(ValueError):
    """A bad specification: `what 'value': problem (accepted: ...)`."""


@dataclass
class SendSpec:
    """One TFRC flow.  dst: (host, port) of the receiver; size_bytes: the
    UDP payload (the TICKET paper's 320: 40 ms of 64 kbit/s PCM);
    max_rate_bps: the application's cap, None for a greedy sender (the
    TICKET paper's flows); start_max_s: the flow starts after a uniform
    offset in [0, start_max_s] drawn from the seed; every_s: the report
    period, 0 for one record per feedback; dscp: 0..63 or None."""
    dst: tuple
    size_bytes: int = 320
    max_rate_bps: Optional[float] = None
    duration_s: float = 30.0
    dscp: Optional[int] = None
    seed: int = 1
    start_max_s: float = 0.0
    every_s: float = 1.0


def _seconds_ok(v):
    return isinstance(v, (int, float)) and math.isfinite(v) and v >= 0


def check(spec):
    """Raises TfrcError for a spec that cannot run; returns spec."""
    if not (isinstance(spec.size_bytes, int) and MIN_SIZE <= spec.size_bytes <= MAX_SIZE):
        raise TfrcError("size '%s': out of range (accepted: %d..%d bytes of UDP payload)"
                        % (spec.size_bytes, MIN_SIZE, MAX_SIZE))
    if spec.max_rate_bps is not None and not (
            isinstance(spec.max_rate_bps, (int, float)) and math.isfinite(spec.max_rate_bps)
            and spec.max_rate_bps > 0):
        raise TfrcError("max_rate '%s': not a rate (accepted: bit/s > 0, or none)"
                        % (spec.max_rate_bps,))
    for name in ("duration_s", "start_max_s", "every_s"):
        if not _seconds_ok(getattr(spec, name)):
            raise TfrcError("%s '%s': not a duration (accepted: seconds >= 0)"
                            % (name, getattr(spec, name)))
    netutil.check_dscp(spec.dscp, TfrcError)
    if not isinstance(spec.seed, int):
        raise TfrcError("seed '%s': not an integer (accepted: any integer)" % (spec.seed,))
    return spec


def _state(snd, now_ns, sent, rate_bps):
    x_recv = snd.x_recv_max_Bps()
    return {"t_ns": now_ns, "x_bps": snd.x_Bps * 8, "send_rate_bps": snd.send_rate_Bps() * 8,
            "x_recv_bps": None if x_recv is None else x_recv * 8, "p": snd.p,
            "rtt_s": snd.rtt_s, "sent": sent, "rate_bps": rate_bps,
            "feedbacks": snd.feedbacks}


def run_sender(spec, emit, stop=None):
    """Sends one flow for spec.duration_s (or until stop, a threading.Event,
    is set); emit(record) per report (see SendSpec.every_s):
      t_ns, x_bps (TFRC's allowed rate), send_rate_bps (min(X, cap)),
      x_recv_bps (the largest X_recv of the last two RTTs), p, rtt_s (None
      before feedback), sent (packets so far), rate_bps (bits sent since
      the previous record over the time since it; None per feedback),
      feedbacks.
    Returns the summary: packets, bytes, first_ns/last_ns (the first and
    last data packets), mean_rate_bps (bits after the first packet over
    the time between the first and last: exact for an evenly paced flow),
    p, rtt_s, x_bps, feedbacks, nofeedback_expiries, send_errors (sends
    the kernel refused, e.g. no receiver yet), start_offset_s."""
    check(spec)
    stop = stop or threading.Event()
    offset_s = random.Random(spec.seed).uniform(0.0, spec.start_max_s)
    if stop.wait(offset_s):
        offset_s = None
    sock = socket.socket(netutil.family(spec.dst[0]), socket.SOCK_DGRAM)
    s = spec.size_bytes
    packet = bytearray(s)
    sent = sent_bytes = send_errors = 0
    first_ns = last_ns = None
    try:
        netutil.set_dscp(sock, spec.dscp)
        sock.connect(spec.dst)
        sock.setblocking(False)
        now = time.time_ns()
        end_ns = now + int(spec.duration_s * NS)
        cap = None if spec.max_rate_bps is None else spec.max_rate_bps / 8.0
        snd = tfrc.Sender(s, now, max_rate_Bps=cap)
        pacer = tfrc.Pacer(s, snd.send_rate_Bps(), now)
        every_ns = int(spec.every_s * NS)
        next_report = now + every_ns if every_ns else None
        report_mark = (now, 0)
        while offset_s is not None and not stop.is_set() and now < end_ns:
            wake = min(pacer.next_ns, snd.nofeedback_ns, end_ns, now + int(POLL_S * NS))
            if next_report is not None:
                wake = min(wake, next_report)
            if wake > now:
                select.select([sock], [], [], (wake - now) / NS)
            now = time.time_ns()
            for fb in _drain_feedback(sock):
                snd.on_feedback(now, *fb)
                pacer.set_rate(snd.send_rate_Bps(), now)
                if not every_ns:
                    emit(_state(snd, now, sent, None))
            if now >= snd.nofeedback_ns:
                snd.on_nofeedback(now)
                pacer.set_rate(snd.send_rate_Bps(), now)
            if now < end_ns and pacer.may_send(now):
                DATA.pack_into(packet, 0, MAGIC_DATA, 0, sent, now,
                               0 if snd.rtt_s is None else int(snd.rtt_s * NS))
                try:
                    sock.send(packet)
                    sent += 1
                    sent_bytes += s
                    first_ns = first_ns or now
                    last_ns = now
                except OSError:
                    send_errors += 1
                pacer.sent(now)
            if next_report is not None and now >= next_report:
                span_ns = now - report_mark[0]
                emit(_state(snd, now, sent, (sent - report_mark[1]) * s * 8 * NS / span_ns))
                report_mark = (now, sent)
                next_report += every_ns
        end = DATA.pack(MAGIC_DATA, FLAG_END, sent, time.time_ns(), 0)
        for _ in range(END_COPIES):
            try:
                sock.send(end)
            except OSError:
                pass
    finally:
        sock.close()
    span = (last_ns - first_ns) / NS if sent > 1 else 0.0
    return {"packets": sent, "bytes": sent_bytes, "first_ns": first_ns, "last_ns": last_ns,
            "mean_rate_bps": (sent - 1) * s * 8 / span if span > 0 else None,
            "p": snd.p, "rtt_s": snd.rtt_s, "x_bps": snd.x_Bps * 8, "feedbacks": snd.feedbacks,
            "nofeedback_expiries": snd.nofeedback_expiries,
            "send_errors": send_errors, "start_offset_s": offset_s}


def _drain_feedback(sock):
    """The feedback packets waiting on sock, as (t_recvdata_ns, t_delay_ns,
    x_recv_Bps, p); anything else is dropped (a refused send's error too)."""
    out = []
    while True:
        try:
            data = sock.recv(256)
        except BlockingIOError:
            return out
        except OSError:
            continue            # ICMP port unreachable for an earlier send
        if len(data) == FEEDBACK.size and data[:4] == MAGIC_FEEDBACK:
            fb = FEEDBACK.unpack(data)[1:]
            if math.isfinite(fb[2]) and math.isfinite(fb[3]) and 0 <= fb[3] <= 1:
                out.append(fb)


class _Flow:
    """One sender's flow at the receiver: tfrc.Receiver plus the counts the
    protocol does not need."""

    def __init__(self, peer, now_ns):
        self.peer = peer
        self.rx = tfrc.Receiver()
        self.dropped_hook = 0
        self.sent = None                # from the end packet
        self.first_ns = now_ns
        self.last_ns = now_ns

    def record(self):
        rx = self.rx
        h = rx.history
        expected = self.sent if self.sent is not None else (
            0 if h.max_seq is None else h.max_seq + 1)
        return {"peer": self.peer[0], "peer_port": self.peer[1], "sent": self.sent,
                "packets": rx.received, "bytes": rx.bytes, "dropped_hook": self.dropped_hook,
                "lost": max(0, expected - rx.received), "late": h.late,
                "loss_events": h.events, "p": h.p(), "feedbacks": rx.feedbacks,
                "owd_mean_s": rx.owd_sum_ns / rx.received / NS if rx.received else None,
                "owd_max_s": rx.owd_max_ns / NS if rx.owd_max_ns is not None else None,
                "first_ns": self.first_ns, "last_ns": self.last_ns,
                "ended": self.sent is not None}


class TfrcReceiver:
    """The receiving side: TfrcReceiver(("0.0.0.0", port), emit).start()
    serves in a thread until stop(); emit(record) once per flow (see
    _Flow.record: peer, sent (from the end packet, None if none came),
    packets, bytes, dropped_hook, lost (numbers up to the end packet's
    count, or the highest seen, never received: hook drops included; a
    duplicate, which one UDP path does not make, would hide one), late,
    loss_events, p, feedbacks, owd_mean_s, owd_max_s, first_ns, last_ns,
    ended).  port 0 picks a
    free one (self.port).  A sender's address and port, once ended, are
    not served again by this receiver."""

    def __init__(self, addr, emit, drop_every=0, hold_feedback_s=0.0):
        if not (isinstance(drop_every, int) and drop_every >= 0):
            raise TfrcError("drop_every '%s': not a count (accepted: 0 (off) or K >= 1)"
                            % (drop_every,))
        if not _seconds_ok(hold_feedback_s):
            raise TfrcError("hold_feedback '%s': not a duration (accepted: seconds >= 0)"
                            % (hold_feedback_s,))
        self.sock = socket.socket(netutil.family(addr[0]), socket.SOCK_DGRAM)
        self.sock.bind(addr)
        self.sock.setblocking(False)
        self.port = self.sock.getsockname()[1]
        self.emit = emit
        self.drop_every = drop_every
        self.hold_ns = int(hold_feedback_s * NS)
        self.flows = {}
        self.ended = set()
        self.held = deque()             # (due_ns, payload, peer)
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        """Ends the loop, emits the flows still open, closes the socket."""
        self.stop_event.set()
        self.thread.join()
        for flow in list(self.flows.values()):
            self.emit(flow.record())
        self.flows.clear()
        self.sock.close()

    def _feedback(self, flow, now):
        fb = flow.rx.feedback(now)
        payload = FEEDBACK.pack(MAGIC_FEEDBACK, fb["t_recvdata_ns"], fb["t_delay_ns"],
                                fb["x_recv_Bps"], fb["p"])
        self.held.append((now + self.hold_ns, payload, flow.peer))

    def _flush_held(self, now):
        while self.held and self.held[0][0] <= now:
            _, payload, peer = self.held.popleft()
            try:
                self.sock.sendto(payload, peer)
            except OSError:
                pass            # the sender is gone: its flow ends without it

    def _on_packet(self, data, peer, now):
        if len(data) < MIN_SIZE or data[:4] != MAGIC_DATA or peer in self.ended:
            return
        _, flags, seq, send_ns, rtt_ns = DATA.unpack_from(data)
        flow = self.flows.get(peer)
        if flags & FLAG_END:
            if flow is not None:
                flow.sent = seq
                self.emit(flow.record())
                del self.flows[peer]
            self.ended.add(peer)
            return
        if flow is None:
            flow = self.flows[peer] = _Flow(peer, now)
        flow.last_ns = now
        if self.drop_every and seq % self.drop_every == self.drop_every - 1:
            flow.dropped_hook += 1
            return
        if flow.rx.on_data(seq, send_ns, rtt_ns, len(data), now):
            self._feedback(flow, now)

    def _loop(self):
        buf = bytearray(MAX_SIZE)
        while not self.stop_event.is_set():
            now = time.time_ns()
            wake = now + int(POLL_S * NS)
            for flow in self.flows.values():
                if flow.rx.next_fb_ns is not None:
                    wake = min(wake, flow.rx.next_fb_ns)
            if self.held:
                wake = min(wake, self.held[0][0])
            if wake > now:
                select.select([self.sock], [], [], (wake - now) / NS)
            while True:
                try:
                    n, peer = self.sock.recvfrom_into(buf)
                except (BlockingIOError, InterruptedError):
                    break
                except OSError:
                    break       # an ICMP error for an earlier feedback: reported once
                self._on_packet(bytes(buf[:n]), peer[:2], time.time_ns())
            now = time.time_ns()
            for flow in self.flows.values():
                if flow.rx.feedback_due(now):
                    self._feedback(flow, now)
            self._flush_held(now)


def summarise_receiver(records):
    """Totals over a receiver's flow records: flows, packets, lost, bytes."""
    return {"flows": len(records), "packets": sum(r["packets"] for r in records),
            "lost": sum(r["lost"] for r in records), "bytes": sum(r["bytes"] for r in records)}
