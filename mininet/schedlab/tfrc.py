"""schedlab/tfrc.py - TCP-Friendly Rate Control (RFC 5348), the clockless parts.

No sockets and no clock reads: every call is handed the time (`now_ns`,
CLOCK_REALTIME nanoseconds in the UDP loops of schedlab.tfrcnet, a
virtual clock in the tests), so the state machines are worked by hand in
tests/unit/test_tfrc.py.  Rates are bytes per second (`_Bps`, RFC 5348's
X); the records of tfrcnet turn them into bit/s (`_bps`).

  x_Bps(s, R, p)          §3.1's throughput equation, b = 1, t_RTO = 4R
  p_for_rate(s, R, X)     its inverse in p (§6.3.1's synthetic interval)
  LossHistory             the receiver's loss events, loss intervals and
                          p (§5.1-5.4; §5.5's history discounting left out)
  Receiver                one flow at the receiver: loss history, X_recv
                          over the last feedback interval, the feedback
                          timer (once per RTT, at once on a new loss event,
                          §6), one-way delay, counts
  Sender                  the sender's state machine (§4.2-4.4): initial
                          rate, slow start, the equation after the first
                          loss, both bounded by 2 X_recv, the RTT's EWMA,
                          the nofeedback timer, s/t_mbi, plus an
                          application cap (max_rate_Bps) on what is sent
  Pacer                   §8's scheduling: packet times from absolute
                          deadlines t_ipi = s / rate apart

Left out, and documented in docs/instruments.md: §4.5's oscillation
prevention, §5.5's history discounting, §4.3's special case of a
data-limited sender (a capped sender is treated as greedy: its allowed
rate X follows the RFC and it sends at min(X, cap)), ECN, and the idle
sender's case of the nofeedback timer (our senders are never idle).
"""
import bisect
import math
from collections import deque

B_ACKS = 1                      # packets acknowledged by one TCP ACK (§3.1)
NDUPACK = 3                     # later packets that make a hole a loss (§5.1)
WEIGHTS = (1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2)   # §5.4, n = 8
N_INTERVALS = len(WEIGHTS)
T_MBI_S = 64.0                  # the maximum back-off interval (§4.3)
Q_RTT = 0.9                     # the RTT filter's weight on the old value (§4.3)
NOFEEDBACK_FIRST_S = 2.0        # before any feedback (§4.2)
T_GRAN_NS = 1_000_000           # the scheduling granularity we assume (§8.3)
NS = 1_000_000_000
P_MIN = 1e-8                    # p_for_rate's floor: an interval of 10^8 packets


def x_Bps(s_bytes, rtt_s, p):
    """RFC 5348 §3.1 with b = 1 and t_RTO = 4 R:
        X = s / (R sqrt(2bp/3) + t_RTO (3 sqrt(3bp/8)) p (1 + 32 p^2))
    in bytes/s; s the payload size in bytes, R in seconds, p in (0, 1]."""
    if not (s_bytes > 0 and rtt_s > 0 and 0 < p <= 1):
        raise ValueError("x_Bps(s=%r, R=%r, p=%r): needs s > 0, R > 0, 0 < p <= 1"
                         % (s_bytes, rtt_s, p))
    t_rto_s = 4.0 * rtt_s
    den = (rtt_s * math.sqrt(2.0 * B_ACKS * p / 3.0)
           + t_rto_s * 3.0 * math.sqrt(3.0 * B_ACKS * p / 8.0) * p * (1.0 + 32.0 * p * p))
    return s_bytes / den


def p_for_rate(s_bytes, rtt_s, rate_Bps):
    """The p in [P_MIN, 1] at which x_Bps(s, R, p) = rate (the equation falls
    as p grows, so bisection on log p; 60 halvings leave p within 1e-15 of
    the root in log terms, far inside §6.3.1's 5 %).  A rate above
    x_Bps(p = 1e-8) gives 1e-8, one below x_Bps(p = 1) gives 1."""
    lo, hi = math.log(P_MIN), 0.0
    if rate_Bps >= x_Bps(s_bytes, rtt_s, P_MIN):
        return P_MIN
    if rate_Bps <= x_Bps(s_bytes, rtt_s, 1.0):
        return 1.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if x_Bps(s_bytes, rtt_s, math.exp(mid)) > rate_Bps:
            lo = mid
        else:
            hi = mid
    return math.exp(0.5 * (lo + hi))


class _Hole:
    """Missing sequence numbers lo..hi (inclusive), not yet declared lost.
    Their nominal send times are interpolated between the packets around
    them (S_before, T_before) and (S_after, T_after) (§5.2); `later`
    counts the packets with a higher number received since (§5.1)."""
    __slots__ = ("lo", "hi", "s_before", "t_before_ns", "s_after", "t_after_ns",
                 "rtt_ns", "later")

    def __init__(self, lo, hi, s_before, t_before_ns, s_after, t_after_ns, rtt_ns):
        self.lo, self.hi = lo, hi
        self.s_before, self.t_before_ns = s_before, t_before_ns
        self.s_after, self.t_after_ns = s_after, t_after_ns
        self.rtt_ns = rtt_ns
        self.later = 1

    def t_loss_ns(self, seq):
        return self.t_before_ns + ((self.t_after_ns - self.t_before_ns) * (seq - self.s_before)
                                   / (self.s_after - self.s_before))

    def first_after(self, t_ns):
        """The smallest seq in lo..hi whose nominal time is above t_ns, or None."""
        if self.t_loss_ns(self.hi) <= t_ns:
            return None
        if self.t_loss_ns(self.lo) > t_ns:
            return self.lo
        step_ns = (self.t_after_ns - self.t_before_ns) / (self.s_after - self.s_before)
        seq = self.s_before + int(math.floor((t_ns - self.t_before_ns) / step_ns)) + 1
        # float rounding may put seq one off either way: settle it exactly
        seq = max(self.lo, min(self.hi, seq))
        while seq > self.lo and self.t_loss_ns(seq - 1) > t_ns:
            seq -= 1
        while self.t_loss_ns(seq) <= t_ns:
            seq += 1
        return seq


class LossHistory:
    """The receiver's loss history of one flow (RFC 5348 §5).

    on_packet(seq, send_ns, rtt_ns) for every data packet received, in
    arrival order: send_ns is the sender's timestamp in the packet, rtt_ns
    the sender's RTT estimate in it (0 while it has none).  A missing
    number becomes a lost packet once NDUPACK packets with higher numbers
    have arrived (it may arrive late before that and is then no loss).  A
    lost packet whose interpolated send time is more than the RTT after
    the first loss of the current loss event starts a new event; others
    belong to the current one.  on_packet returns how many loss events
    began.

    The intervals (intervals()) are I_0, the open one: from the first loss
    of the newest event to the highest number received, inclusive; then
    I_1, I_2, ...: the numbers from one event's first loss to the next
    one's.  The interval before the first loss event is the synthetic one
    that seed_fn(rtt_ns) returns when that event begins (§6.3.1: the
    receiver's Receiver gives 1 / p_for_rate(X_recv)); seed_fn None makes
    it the packets before the first loss (from the first number received).
    At most N_INTERVALS closed intervals are kept.  p() is §5.4's
    1 / I_mean, 0 before any loss."""

    def __init__(self, seed_fn=None):
        self.seed_fn = seed_fn
        self.max_seq = None
        self.max_send_ns = None
        self.first_seq = None
        self.holes = []                 # _Hole, ascending, disjoint
        self.starts = deque(maxlen=N_INTERVALS + 1)   # first lost seq of each event, oldest first
        self.event_t0_ns = None         # the current event's first loss time
        self.seed = None                # the synthetic interval (float)
        self.events = 0
        self.lost = 0                   # packets declared lost
        self.late = 0                   # arrivals after being declared lost, or duplicates

    def on_packet(self, seq, send_ns, rtt_ns):
        if self.max_seq is None:
            self.max_seq, self.max_send_ns, self.first_seq = seq, send_ns, seq
            return 0
        if seq > self.max_seq:
            for h in self.holes:
                h.later += 1
            if seq > self.max_seq + 1:
                self.holes.append(_Hole(self.max_seq + 1, seq - 1, self.max_seq,
                                        self.max_send_ns, seq, send_ns, rtt_ns))
            self.max_seq, self.max_send_ns = seq, send_ns
        elif not self._fill(seq):
            self.late += 1
            return 0
        return self._declare()

    def _fill(self, seq):
        """A late arrival: removes seq from its hole; False if in none."""
        i = bisect.bisect_right([h.lo for h in self.holes], seq) - 1
        if i < 0 or seq > self.holes[i].hi:
            return False
        h = self.holes[i]
        for later in self.holes[:i]:
            later.later += 1            # seq is above every lower hole
        parts = []
        if h.lo < seq:
            parts.append(self._part(h, h.lo, seq - 1))
            parts[0].later += 1
        if seq < h.hi:
            parts.append(self._part(h, seq + 1, h.hi))
        self.holes[i:i + 1] = parts
        return True

    @staticmethod
    def _part(h, lo, hi):
        p = _Hole(lo, hi, h.s_before, h.t_before_ns, h.s_after, h.t_after_ns, h.rtt_ns)
        p.later = h.later
        return p

    def _declare(self):
        """Turns the holes that have NDUPACK later packets into losses, in
        number order (a lower hole has seen every packet a higher one has,
        so they are a prefix); returns the loss events begun."""
        begun = 0
        while self.holes and self.holes[0].later >= NDUPACK:
            h = self.holes.pop(0)
            self.lost += h.hi - h.lo + 1
            seq = h.lo
            while seq is not None:
                if self.event_t0_ns is None or h.t_loss_ns(seq) > self.event_t0_ns + h.rtt_ns:
                    self._begin(seq, h)
                    begun += 1
                nxt = h.first_after(self.event_t0_ns + h.rtt_ns)
                # send times running backwards (a clock step) give no order: stop
                seq = nxt if nxt is not None and nxt > seq else None
        return begun

    def _begin(self, seq, hole):
        if not self.starts:
            self.seed = (float(self.seed_fn(hole.rtt_ns)) if self.seed_fn is not None
                         else float(seq - self.first_seq))
        self.starts.append(seq)
        self.event_t0_ns = hole.t_loss_ns(seq)
        self.events += 1

    def intervals(self):
        """[I_0, I_1, ..., I_k], k <= N_INTERVALS closed ones; [] before any loss."""
        if not self.starts:
            return []
        st = list(self.starts)
        out = [self.max_seq - st[-1] + 1]
        out += [st[i] - st[i - 1] for i in range(len(st) - 1, 0, -1)]
        if len(out) <= N_INTERVALS:
            out.append(self.seed)
        return out

    def mean_interval(self):
        """§5.4: the weighted mean of I_0..I_(k-1) or of I_1..I_k, whichever
        is larger (the open interval counts only when it raises the mean)."""
        iv = self.intervals()
        if not iv:
            return None
        k = len(iv) - 1
        w_tot = sum(WEIGHTS[:k])
        tot0 = sum(iv[i] * WEIGHTS[i] for i in range(k))
        tot1 = sum(iv[i] * WEIGHTS[i - 1] for i in range(1, k + 1))
        return max(tot0, tot1) / w_tot

    def p(self):
        m = self.mean_interval()
        return 0.0 if m is None else 1.0 / m


class Receiver:
    """One flow at the receiver (RFC 5348 §6).

    on_data(seq, send_ns, rtt_ns, size_bytes, now_ns) for each data packet
    received; it returns True when a feedback packet is due at once (the
    first packet, a new loss event).  feedback_due(now_ns) is True when the
    feedback timer (one RTT, the packets' rtt_ns) has run out and data came
    since the last feedback; when it has run out with no data, it restarts
    and says False.  feedback(now_ns) makes the feedback record and
    restarts the timer:
        t_recvdata_ns  the send timestamp of the highest-numbered packet
                       received
        t_delay_ns     the time since that packet arrived
        x_recv_Bps     bytes received since the last feedback / the time
                       since it (0 for the first feedback)
        p              the loss event rate
    One-way delays are arrival minus send time (one host's clock)."""

    def __init__(self):
        self.history = LossHistory(seed_fn=self._seed)
        self.received = 0
        self.bytes = 0
        self.owd_sum_ns = 0
        self.owd_max_ns = None
        self.rtt_ns = 0
        self.size_bytes = None
        self.last_send_ns = None        # of the highest number received
        self.last_data_ns = None        # when that one arrived
        self.last_arrival_ns = None
        self.first_arrival_ns = None
        self.fb_ns = []                 # the last two feedback times
        self.bytes_since_fb = 0
        self.bytes_prev_fb = 0          # in the feedback interval before
        self.next_fb_ns = None
        self.feedbacks = 0

    def _seed(self, rtt_ns):
        """§6.3.1: the loss interval that would give the rate received over
        about the last RTT (the last full feedback interval and the current
        one; since the first packet while there are fewer than two).  With
        no RTT known at all (a loss before any feedback), the equation has
        nothing to work on: the packets received so far stand in."""
        rtt_ns = rtt_ns or self.rtt_ns
        if not rtt_ns:
            return float(self.received)
        now = self.last_arrival_ns
        if len(self.fb_ns) == 2:
            span_ns, got = now - self.fb_ns[0], self.bytes_prev_fb + self.bytes_since_fb
        else:
            span_ns, got = now - self.first_arrival_ns, self.bytes
        rtt_s = rtt_ns / NS
        rate_Bps = got / (span_ns / NS) if span_ns > 0 else self.size_bytes / rtt_s
        return 1.0 / p_for_rate(self.size_bytes, rtt_s, rate_Bps)

    def on_data(self, seq, send_ns, rtt_ns, size_bytes, now_ns):
        first = self.received == 0
        self.received += 1
        self.bytes += size_bytes
        self.bytes_since_fb += size_bytes
        owd = now_ns - send_ns
        self.owd_sum_ns += owd
        self.owd_max_ns = owd if self.owd_max_ns is None else max(self.owd_max_ns, owd)
        self.size_bytes = size_bytes
        self.last_arrival_ns = now_ns
        if first:
            self.first_arrival_ns = now_ns
        if rtt_ns > 0:
            self.rtt_ns = rtt_ns
        if self.last_send_ns is None or seq >= self.history.max_seq:
            # RTT samples echo the newest packet: a late one would inflate them
            self.last_send_ns, self.last_data_ns = send_ns, now_ns
        p_before = self.history.p()
        new_events = self.history.on_packet(seq, send_ns, rtt_ns)
        # §6.1: a new loss event that raises p is reported at once
        return first or (new_events > 0 and self.history.p() > p_before)

    def feedback_due(self, now_ns):
        if self.next_fb_ns is None or now_ns < self.next_fb_ns:
            return False
        if self.bytes_since_fb > 0:
            return True
        self.next_fb_ns = now_ns + self.rtt_ns
        return False

    def feedback(self, now_ns):
        if self.fb_ns:
            span_ns = now_ns - self.fb_ns[-1]
            x_recv = self.bytes_since_fb / (span_ns / NS) if span_ns > 0 else 0.0
        else:
            x_recv = 0.0
        rec = {"t_recvdata_ns": self.last_send_ns,
               "t_delay_ns": now_ns - self.last_data_ns,
               "x_recv_Bps": x_recv, "p": self.history.p()}
        self.fb_ns = (self.fb_ns + [now_ns])[-2:]
        self.bytes_prev_fb, self.bytes_since_fb = self.bytes_since_fb, 0
        # with no RTT yet, every packet is answered (the sender sends one a second)
        self.next_fb_ns = now_ns + self.rtt_ns
        self.feedbacks += 1
        return rec


class Sender:
    """The sender's allowed rate X (RFC 5348 §4), from now_ns at start.

    Before any feedback X is one packet a second and the nofeedback timer
    runs 2 s (§4.2).  on_feedback(now_ns, t_recvdata_ns, t_delay_ns,
    x_recv_Bps, p) (§4.3): R_sample = now - t_recvdata - t_delay; R is the
    first sample, then q R + (1 - q) R_sample with q = 0.9; the first
    feedback sets X to initial_rate = W_init / R, W_init = min(4 s,
    max(2 s, 4380)); X_recv_set keeps the X_recv reported in the last two
    RTTs (the first feedback's, measured over no interval, is not kept)
    and recv_limit = 2 max(X_recv_set); with p > 0, X = max(min(x_Bps(s,
    R, p), recv_limit), s / t_mbi); with p = 0, once per RTT, X =
    max(min(2 X, recv_limit), initial_rate).  The nofeedback timer then
    runs max(4 R, 2 s / X).  on_nofeedback(now_ns) when it expires (§4.4):
    with no RTT yet or p = 0, X = max(X / 2, s / t_mbi); otherwise the
    limit becomes X_recv (if the equation's X_calc is above 2 X_recv) or
    X_calc / 2, at least s / t_mbi, X_recv_set is that limit halved, and
    X is recomputed as on feedback.  The timer runs max(4 R, 2 s / rate)
    with rate = send_rate_Bps(), not X: see _restart_timer.

    send_rate_Bps() is what goes on the wire: min(X, max_rate_Bps) (the
    application's cap, None for a greedy sender)."""

    def __init__(self, s_bytes, now_ns, max_rate_Bps=None, t_mbi_s=T_MBI_S):
        self.s = s_bytes
        self.max_rate_Bps = max_rate_Bps
        self.t_mbi_s = t_mbi_s
        self.x_Bps = float(s_bytes)
        self.rtt_s = None
        self.p = 0.0
        self.x_calc_Bps = None
        self.x_recv_set = []            # (added_ns, x_recv_Bps)
        self.tld_ns = None
        self.nofeedback_ns = now_ns + int(NOFEEDBACK_FIRST_S * NS)
        self.feedbacks = 0
        self.nofeedback_expiries = 0

    def min_rate_Bps(self):
        return self.s / self.t_mbi_s

    def initial_rate_Bps(self):
        return min(4 * self.s, max(2 * self.s, 4380)) / self.rtt_s

    def send_rate_Bps(self):
        if self.max_rate_Bps is None:
            return self.x_Bps
        return min(self.x_Bps, self.max_rate_Bps)

    def x_recv_max_Bps(self):
        return max((x for _, x in self.x_recv_set), default=None)

    def _restart_timer(self, now_ns):
        # §4.3 step 5's 2 s / X lets two packets go before the timer runs
        # out; a capped sender sends at the cap, so it is 2 s / min(X, cap)
        # (with 2 s / X, a 64 kbit/s flow on a short RTT halves X between
        # every two of its packets)
        wait_s = 2.0 * self.s / self.send_rate_Bps()
        if self.rtt_s is not None:
            wait_s = max(4.0 * self.rtt_s, wait_s)
        self.nofeedback_ns = now_ns + int(wait_s * NS)

    def _update_x(self, now_ns):
        """§4.3 step 4 from p, R and X_recv_set."""
        top = self.x_recv_max_Bps()
        recv_limit = math.inf if top is None else 2.0 * top
        if self.p > 0:
            self.x_calc_Bps = x_Bps(self.s, self.rtt_s, self.p)
            self.x_Bps = max(min(self.x_calc_Bps, recv_limit), self.min_rate_Bps())
        elif now_ns - self.tld_ns >= self.rtt_s * NS:
            self.x_Bps = max(min(2.0 * self.x_Bps, recv_limit), self.initial_rate_Bps())
            self.tld_ns = now_ns

    def on_feedback(self, now_ns, t_recvdata_ns, t_delay_ns, x_recv_Bps, p):
        # a sample at or below zero (clock steps, a bogus t_delay) counts as 1 us
        sample_s = max(now_ns - t_recvdata_ns - t_delay_ns, 1000) / NS
        first = self.rtt_s is None
        self.rtt_s = sample_s if first else Q_RTT * self.rtt_s + (1 - Q_RTT) * sample_s
        self.p = p
        if first:
            self.x_Bps = self.initial_rate_Bps()
            self.tld_ns = now_ns
        else:
            horizon_ns = now_ns - 2.0 * self.rtt_s * NS
            self.x_recv_set = [e for e in self.x_recv_set if e[0] >= horizon_ns]
            self.x_recv_set.append((now_ns, x_recv_Bps))
        self._update_x(now_ns)
        self.feedbacks += 1
        self._restart_timer(now_ns)

    def on_nofeedback(self, now_ns):
        self.nofeedback_expiries += 1
        if self.rtt_s is None or self.p == 0:
            self.x_Bps = max(self.x_Bps / 2.0, self.min_rate_Bps())
        else:
            top = self.x_recv_max_Bps() or 0.0
            limit = top if self.x_calc_Bps > 2.0 * top else self.x_calc_Bps / 2.0
            limit = max(limit, self.min_rate_Bps())
            self.x_recv_set = [(now_ns, limit / 2.0)]
            self._update_x(now_ns)
        self._restart_timer(now_ns)


class Pacer:
    """§8: when the next packet may go.  Deadlines are absolute: each one is
    the previous deadline plus t_ipi = s / rate, so the wake-up latency of
    one sleep does not push back the ones after it.  A packet may go up to
    t_delta = min(t_ipi, t_gran) / 2 early.  A sender that has fallen more
    than max(t_ipi, t_gran) behind (a stalled process) restarts from now
    rather than catching up in a burst.  set_rate(rate, now_ns) re-derives
    the next deadline from the last one."""

    def __init__(self, s_bytes, rate_Bps, now_ns):
        self.s = s_bytes
        self.ipi_ns = self._ipi(rate_Bps)
        self.last_ns = None
        self.next_ns = now_ns

    def _ipi(self, rate_Bps):
        return max(1, int(round(self.s / rate_Bps * NS)))

    def set_rate(self, rate_Bps, now_ns):
        self.ipi_ns = self._ipi(rate_Bps)
        if self.last_ns is not None:
            self.next_ns = self.last_ns + self.ipi_ns

    def may_send(self, now_ns):
        return now_ns >= self.next_ns - min(self.ipi_ns, T_GRAN_NS) // 2

    def sent(self, now_ns):
        """Call after each packet; returns the next deadline."""
        self.last_ns = self.next_ns
        self.next_ns += self.ipi_ns
        if now_ns - self.next_ns > max(self.ipi_ns, T_GRAN_NS):
            self.last_ns, self.next_ns = now_ns, now_ns + self.ipi_ns
        return self.next_ns
