"""schedlab/websess.py - web-like TCP sessions, the DQ paper's sources.

Hayes 1999 §4.1: each user sends a sequence of bursts whose sizes follow
a Pareto distribution (Table 1: shape 1.3, mean 30 kB), with an
exponential think time between the end of one burst and the start of the
next, "each burst a separate TCP session, complete with slow start".
Here each burst is one real TCP connection from the sender to a sink:

  sender (one thread per user):  think; connect; send the header (magic,
      user, burst, size) and `size` bytes; shut down its write side; wait
      for the sink's reply (the payload bytes it received); close.
  sink (one thread per connection):  read the header, then the payload to
      EOF; reply with the count; close.

The users' think times and burst sizes come from random.Random seeded
with "SEED:USER" (schedlab.dists), drawn in pairs before each burst, so a
seed gives every user the same sequence in every run (how far a run gets
into it depends on the network).  The think time comes before every
burst, the first one included, so users start staggered (as the
simulator's `web` source, src/sim/simweb.c).  No burst starts after
`duration_s`; one still running then has `grace_s` to finish, after which
it is cut and recorded as such.

Records (JSON lines, one per burst, times in ns of CLOCK_REALTIME, which
every network namespace of a host shares, so sender, sink and the
daemons' logs line up):
  sender  user, burst, size_bytes, start_ns (connect called), connected_ns,
          sent_ns (last byte handed to the kernel), end_ns (the reply
          read), closed_ns (the socket closed, whatever happened),
          acked_bytes (the sink's count), local_port (joins the burst to
          the per-packet log's 5-tuple), status ("ok", "cut: ...",
          "error: ...", "short: ...", open loop: "refused: ...");
  sink    user, burst, size_bytes (from the header), peer, peer_port,
          accept_ns, last_ns (EOF), bytes.
summarise() turns sender records into the DQ paper's eq. 2 (valid bits
received over session time, summed over the sessions) and the PDRR
paper's TCP throughput (per transfer size x 8 / time, averaged).

Open loop (arrivals_per_s > 0, the PDRR paper's §4.3 and §5 TCP flows):
instead of `users` closed-loop users, transfers arrive as a Poisson
process of arrivals_per_s whatever the network does, each one TCP
connection of a Pareto size (the gaps from "SEED:arrivals", the sizes
from "SEED:sizes", so a seed repeats the schedule), recorded as user 0,
burst = its number.  An overloaded link makes them pile up: at most
max_open run at once, an arrival beyond that is recorded as "refused:
..." and not sent (counted, never silent).  mss_bytes sets TCP_MAXSEG
(the paper's 1000-byte packets: 960, then 12 bytes of timestamps leave
948 of payload a segment).  Every socket is bound before connect(), so
local_port is known even for a transfer whose SYNs never got through
(the per-packet log's refused SYNs join to it).

Congestion control is the socket's TCP_CONGESTION ("reno", "cubic", ...:
what /proc/sys/net/ipv4/tcp_allowed_congestion_control lets a user pick;
root may pick any of tcp_available_congestion_control).  The papers used
ns-2 Reno/SACK: offer "reno".
"""
import math
import random
import resource
import socket
import socketserver
import struct
import threading
import time
from dataclasses import dataclass
from typing import Optional

from schedlab import dists, netutil

MAGIC = b"STWB"
HDR = struct.Struct("!4sIIQ")           # magic, user, burst, size
REPLY = struct.Struct("!Q")             # payload bytes received
CHUNK = 65536
_ZEROS = memoryview(bytes(CHUNK))
MAX_USERS = 4096
MAX_OPEN = 65536
MSS_RANGE = (88, 9000)           # Linux's TCP_MIN_MSS .. a jumbo frame's
OPEN_STACK_BYTES = 512 * 1024    # a transfer's thread: thousands may run
CC_AVAILABLE = "/proc/sys/net/ipv4/tcp_available_congestion_control"


class WebError(ValueError):
    """A bad specification: `what 'value': problem (accepted: ...)`."""


@dataclass
class WebSpec:
    """What the users send.  dst: (host, port) of the sink; mean_bytes and
    max_bytes: the Pareto's untruncated mean and its truncation; think_s:
    the exponential think time's mean; cc: TCP_CONGESTION; dscp: 0..63 or
    None (the system's default TOS)."""
    dst: tuple
    users: int = 50
    alpha: float = 1.3
    mean_bytes: float = 30000.0
    max_bytes: float = 100e6
    think_s: float = 0.5
    duration_s: float = 60.0
    grace_s: float = 30.0
    seed: int = 1
    cc: str = "reno"
    dscp: Optional[int] = None
    arrivals_per_s: float = 0.0
    max_open: int = 4096
    mss_bytes: Optional[int] = None


def parse_addr(text):
    """("host", port) from "A.B.C.D:PORT" or "[IPv6]:PORT"; WebError."""
    return netutil.parse_addr(text, WebError)


def available_cc():
    """The congestion controls the kernel has, from /proc (empty if unreadable)."""
    try:
        with open(CC_AVAILABLE) as f:
            return f.read().split()
    except OSError:
        return []


def _set_cc(sock, cc):
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
    except OSError as e:
        raise WebError("cc '%s': the kernel refused it (%s) (accepted: one of %s; "
                       "a non-root user only those in tcp_allowed_congestion_control)"
                       % (cc, e.strerror, " ".join(available_cc()) or "?")) from None


def check(spec):
    """Raises WebError for a spec that cannot run; returns spec."""
    if not (isinstance(spec.users, int) and 1 <= spec.users <= MAX_USERS):
        raise WebError("users '%s': out of range (accepted: 1..%d)" % (spec.users, MAX_USERS))
    try:
        dists.check_pareto(spec.alpha, spec.mean_bytes, spec.max_bytes)
        dists.check_exponential(spec.think_s)
    except dists.DistError as e:
        raise WebError(str(e)) from None
    for name in ("duration_s", "grace_s"):
        v = getattr(spec, name)
        if not (isinstance(v, (int, float)) and math.isfinite(v) and v >= 0):
            raise WebError("%s '%s': not a duration (accepted: seconds >= 0)" % (name, v))
    a = spec.arrivals_per_s
    if not (isinstance(a, (int, float)) and math.isfinite(a) and a >= 0):
        raise WebError("arrivals_per_s '%s': not a rate (accepted: transfers per second "
                       ">= 0; 0: closed-loop users)" % (a,))
    if not (isinstance(spec.max_open, int) and 1 <= spec.max_open <= MAX_OPEN):
        raise WebError("max_open '%s': out of range (accepted: 1..%d)"
                       % (spec.max_open, MAX_OPEN))
    m = spec.mss_bytes
    if m is not None and not (isinstance(m, int) and MSS_RANGE[0] <= m <= MSS_RANGE[1]):
        raise WebError("mss_bytes '%s': out of range (accepted: %d..%d, or none: the "
                       "route's)" % (m, MSS_RANGE[0], MSS_RANGE[1]))
    netutil.check_dscp(spec.dscp, WebError)
    s = socket.socket(netutil.family(spec.dst[0]), socket.SOCK_STREAM)
    try:
        _set_cc(s, spec.cc)
    finally:
        s.close()
    return spec


def draws(spec, user):
    """The endless sequence of (think_s, size_bytes) of one user: the
    same for a seed whatever the network does."""
    rng = random.Random("%d:%d" % (spec.seed, user))
    while True:
        think = dists.exponential(rng, spec.think_s)
        size = dists.pareto_trunc(rng, spec.alpha, spec.mean_bytes, spec.max_bytes)
        yield think, max(1, int(round(size)))


def transfers(spec):
    """The endless open-loop schedule: (arrival_s from the start, size_bytes),
    a Poisson process of spec.arrivals_per_s (> 0) with Pareto sizes; the
    same for a seed whatever the network does."""
    gaps = random.Random("%d:arrivals" % spec.seed)
    sizes = random.Random("%d:sizes" % spec.seed)
    t = 0.0
    while True:
        t += dists.exponential(gaps, 1.0 / spec.arrivals_per_s)
        size = dists.pareto_trunc(sizes, spec.alpha, spec.mean_bytes, spec.max_bytes)
        yield t, max(1, int(round(size)))


def _recv_exact(sock, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            break
        buf += chunk
    return bytes(buf)


def _timeout_until(sock, deadline_ns):
    left = (deadline_ns - time.time_ns()) / 1e9
    if left <= 0:
        raise socket.timeout("the run's end came first")
    sock.settimeout(left)


def one_burst(spec, user, burst, size, deadline_ns):
    """Sends one burst as its own TCP connection; returns its record."""
    rec = {"user": user, "burst": burst, "size_bytes": size, "start_ns": time.time_ns(),
           "connected_ns": None, "sent_ns": None, "end_ns": None, "acked_bytes": None,
           "local_port": None, "closed_ns": None, "status": "ok"}
    fam = netutil.family(spec.dst[0])
    s = None
    try:
        s = socket.socket(fam, socket.SOCK_STREAM)
        _set_cc(s, spec.cc)
        netutil.set_dscp(s, spec.dscp)
        if spec.mss_bytes is not None:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, spec.mss_bytes)
        # bound first: the port is on record even if no SYN gets through
        s.bind(("::" if fam == socket.AF_INET6 else "0.0.0.0", 0))
        rec["local_port"] = s.getsockname()[1]
        _timeout_until(s, deadline_ns)
        s.connect(spec.dst)
        rec["connected_ns"] = time.time_ns()
        s.sendall(HDR.pack(MAGIC, user, burst, size))
        left = size
        while left:
            n = min(left, CHUNK)
            _timeout_until(s, deadline_ns)
            s.sendall(_ZEROS[:n])
            left -= n
        rec["sent_ns"] = time.time_ns()
        s.shutdown(socket.SHUT_WR)
        _timeout_until(s, deadline_ns)
        reply = _recv_exact(s, REPLY.size)
        if len(reply) != REPLY.size:
            rec["status"] = "error: the sink closed without its reply"
        else:
            rec["end_ns"] = time.time_ns()
            rec["acked_bytes"] = REPLY.unpack(reply)[0]
            if rec["acked_bytes"] != size:
                rec["status"] = "short: the sink got %d of %d bytes" % (rec["acked_bytes"], size)
    except WebError:
        raise
    except socket.timeout as e:
        rec["status"] = "cut: %s" % (str(e) or "the run's end came first")
    except OSError as e:
        rec["status"] = "error: %s" % (e.strerror or e)
    finally:
        if s is not None:
            s.close()
        rec["closed_ns"] = time.time_ns()
    return rec


def run_users(spec, emit, stop=None):
    """Runs spec.users users until duration_s (and grace_s for the bursts
    still running); emit(record) is called once per burst, from the user
    threads, under a lock.  stop: a threading.Event that ends the run
    early: no new burst starts (running ones finish, or are cut at the
    grace deadline).  Returns the number of bursts."""
    check(spec)
    stop = stop or threading.Event()
    lock = threading.Lock()
    t0 = time.time_ns()
    end_ns = t0 + int(spec.duration_s * 1e9)
    deadline_ns = end_ns + int(spec.grace_s * 1e9)
    count = [0]

    def user_loop(user):
        for burst, (think, size) in enumerate(draws(spec, user)):
            start = time.time_ns() + int(think * 1e9)
            if start >= end_ns:
                return
            if stop.wait((start - time.time_ns()) / 1e9):
                return
            rec = one_burst(spec, user, burst, size,
                            deadline_ns if not stop.is_set() else time.time_ns())
            with lock:
                emit(rec)
                count[0] += 1

    threads = [threading.Thread(target=user_loop, args=(u,), daemon=True)
               for u in range(spec.users)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return count[0]


def _unsent(i, size, status):
    """The record of open-loop transfer i that was never sent."""
    now = time.time_ns()
    return {"user": 0, "burst": i, "size_bytes": size, "start_ns": now,
            "connected_ns": None, "sent_ns": None, "end_ns": None, "acked_bytes": None,
            "local_port": None, "closed_ns": now, "status": status}


def run_open(spec, emit, stop=None):
    """The open-loop transfers of spec (arrivals_per_s > 0) until
    duration_s, then grace_s for those still running; emit(record) once
    per arrival (under a lock, from the transfers' threads), including
    the ones refused at max_open.  stop ends the arrivals early.  Returns
    the number of arrivals."""
    check(spec)
    if not spec.arrivals_per_s > 0:
        raise WebError("arrivals_per_s '%s': run_open needs open-loop arrivals "
                       "(accepted: > 0)" % (spec.arrivals_per_s,))
    stop = stop or threading.Event()
    lock = threading.Lock()
    t0 = time.time_ns()
    m0 = time.monotonic()
    end_ns = t0 + int(spec.duration_s * 1e9)
    deadline_ns = end_ns + int(spec.grace_s * 1e9)
    open_now = [0]
    threads = []

    def one(i, size):
        try:
            rec = one_burst(spec, 0, i, size,
                            deadline_ns if not stop.is_set() else time.time_ns())
        except Exception as e:           # never an arrival without its record
            rec = _unsent(i, size, "error: %s" % e)
        with lock:
            open_now[0] -= 1
            emit(rec)

    # each open transfer holds a socket: stay under the file limit
    cap = min(spec.max_open, max(1, resource.getrlimit(resource.RLIMIT_NOFILE)[0] - 64))
    old_stack = threading.stack_size(OPEN_STACK_BYTES)
    count = 0
    try:
        for i, (at_s, size) in enumerate(transfers(spec)):
            if at_s >= spec.duration_s or stop.wait(max(0.0, m0 + at_s - time.monotonic())):
                break
            count += 1
            with lock:
                if open_now[0] >= cap:
                    emit(_unsent(i, size, "refused: %d transfers open (max_open, "
                                 "or the open-file limit)" % cap))
                    continue
                open_now[0] += 1
            t = threading.Thread(target=one, args=(i, size), daemon=True)
            try:
                t.start()
            except RuntimeError as e:        # out of threads: counted, not fatal
                with lock:
                    open_now[0] -= 1
                    emit(_unsent(i, size, "refused: no thread (%s)" % e))
                continue
            threads.append(t)
            threads = [x for x in threads if x.is_alive()] if len(threads) > 4096 else threads
    finally:
        threading.stack_size(old_stack)
    for t in threads:
        t.join()
    return count


def run(spec, emit, stop=None):
    """run_open() for open-loop arrivals, run_users() otherwise."""
    if spec.arrivals_per_s > 0:
        return run_open(spec, emit, stop)
    return run_users(spec, emit, stop)


def raise_nofile():
    """Raises this process's open-file limit to its hard limit (an
    overloaded open-loop run holds thousands of connections); returns
    the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    return soft


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 1024

    def __init__(self, addr, emit, idle_s):
        self.address_family = netutil.family(addr[0])
        self.emit = emit
        self.idle_s = idle_s
        self.lock = threading.Lock()
        super().__init__(addr, _Handler)


class _Handler(socketserver.BaseRequestHandler):
    def handle(self):
        sock = self.request
        sock.settimeout(self.server.idle_s)
        rec = {"user": None, "burst": None, "size_bytes": None,
               "peer": self.client_address[0], "peer_port": self.client_address[1],
               "accept_ns": time.time_ns(), "last_ns": None, "bytes": 0, "status": "ok"}
        buf = bytearray(CHUNK)
        complete = False
        try:
            hdr = _recv_exact(sock, HDR.size)
            if len(hdr) != HDR.size or hdr[:4] != MAGIC:
                rec["status"] = "error: no websess header"
            else:
                _, rec["user"], rec["burst"], rec["size_bytes"] = HDR.unpack(hdr)
                while True:
                    n = sock.recv_into(buf)
                    if not n:
                        break
                    rec["bytes"] += n
                rec["last_ns"] = time.time_ns()
                complete = True
        except socket.timeout:
            rec["status"] = "error: idle for %g s" % self.server.idle_s
        except OSError as e:
            rec["status"] = "error: %s" % (e.strerror or e)
        # recorded before the reply: a sender that has its reply may stop
        # the sink at once, and the burst is on record by then
        with self.server.lock:
            self.server.emit(rec)
        if complete:
            try:
                sock.sendall(REPLY.pack(rec["bytes"]))
            except OSError:
                pass        # the sender records the missing reply


class Sink:
    """The receiving side: Sink(("0.0.0.0", port), emit).start() serves in
    a thread until stop(); emit(record) once per connection.  port 0
    picks a free one (self.port)."""

    def __init__(self, addr, emit, idle_s=600.0):
        self.server = _Server(addr, emit, idle_s)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       kwargs={"poll_interval": 0.1}, daemon=True)

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


def summarise(records):
    """What a run's sender records say: bursts by status, bytes, and
      session_rate_bps   the DQ paper's eq. 2: the valid bits received
                         (acked_bytes x 8) summed over the completed
                         bursts, over their session times (start_ns to
                         end_ns) summed;
      mean_throughput_bps  the PDRR paper's TCP throughput: size x 8 /
                         session time, averaged over the completed bursts.
    Cut and failed bursts are counted, not averaged (their time is not a
    transfer's)."""
    done = [r for r in records if r["status"] == "ok"]
    by_status = {}
    for r in records:
        key = r["status"].split(":", 1)[0]
        by_status[key] = by_status.get(key, 0) + 1
    bits = sum(r["acked_bytes"] * 8 for r in done)
    secs = sum((r["end_ns"] - r["start_ns"]) / 1e9 for r in done)
    rates = [r["size_bytes"] * 8 / ((r["end_ns"] - r["start_ns"]) / 1e9)
             for r in done if r["end_ns"] > r["start_ns"]]
    return {"bursts": len(records), "by_status": by_status,
            "bytes": sum(r["acked_bytes"] for r in done),
            "session_rate_bps": bits / secs if secs > 0 else None,
            "mean_throughput_bps": sum(rates) / len(rates) if rates else None}

