"""efstep.py - an EF step profile, step:R1:T:R2, for geo.py's --ef.

schedtun-efgen sends `step:R1:T:R2` as R1 for t < T, then R2 (t: seconds
since the generator started, docs/efgen.md).  This module reads that text
(rates by schedlab.theory.parse_rate and T by schedlab.units, as the
daemon and efgen read them; either rate may be 0, a silence) into a StepSpec, which answers what the theory
asks of a theory.RateSpec (at, mean_over, mean_bps, constant, amplitude,
period_s), and writes it back for efgen in bare bit/s and seconds.

The step's mean_bps is its mean over the measured window: until
set_window() is called it is the mean over [0, 2T] (R1 and R2 alike).
"""
from schedlab import theory, units

ACCEPTED = ("step:R1:T:R2, R1 for t < T then R2 (rates as the daemon reads them, "
            "or 0; T a duration > 0, e.g. step:2.5Mbit:25s:7.5Mbit)")
MAX_BPS = 10 ** 9                     # geo.py's bound on EF (the veth's 1 Gbit/s)


def is_step(text):
    """True when an --ef text asks for a step (`step:` in any case)."""
    return str(text).strip().lower().startswith("step:")


def _rate(text, what):
    """A step rate -> bit/s: theory.parse_rate's (a zero as `params
    --ef-exp` takes it, a silence; else units.parse_rate_bps's)."""
    try:
        return theory.parse_rate(text.strip())
    except ValueError:
        raise ValueError("%s '%s' is not a rate (accepted: %s)" % (what, text, ACCEPTED)) from None


class StepSpec:
    """R1 before t = T, R2 from then on (bit/s, t in seconds)."""

    amplitude = 0.0                   # not a cosine: RateSpec's fields, unused
    period_s = 0.0

    def __init__(self, before_bps, at_s, after_bps):
        self.before_bps = float(before_bps)
        self.at_s = float(at_s)
        self.after_bps = float(after_bps)
        self.window_s = (0.0, 2.0 * self.at_s)

    @property
    def constant(self):
        """True when both rates are the same (then it is not a step)."""
        return self.before_bps == self.after_bps

    def set_window(self, start_s, end_s):
        """Makes mean_bps the mean over [start_s, end_s] (the measured window)."""
        self.window_s = (float(start_s), float(end_s))

    @property
    def mean_bps(self):
        """The mean rate over the window (see set_window)."""
        return self.mean_over(*self.window_s)

    def at(self, t):
        """The rate at time t."""
        return self.before_bps if t < self.at_s else self.after_bps

    def mean_over(self, t0, t1):
        """The exact mean over [t0, t1]; the rate at t0 when t1 <= t0."""
        if t1 <= t0:
            return self.at(t0)
        split = min(max(self.at_s, t0), t1)
        return (self.before_bps * (split - t0) + self.after_bps * (t1 - split)) / (t1 - t0)

    def efgen_rate(self):
        """schedtun-efgen's --rate text: step:R1:T:R2 in bit/s and seconds."""
        return "step:%d:%r:%d" % (round(self.before_bps), self.at_s, round(self.after_bps))

    def __repr__(self):
        return "step:%g:%gs:%g" % (self.before_bps, self.at_s, self.after_bps)


def parse_step(text):
    """`step:R1:T:R2` -> StepSpec.  ValueError `what 'value': problem
    (accepted: ...)` for a malformed text, R1 = R2 = 0, T <= 0 or a rate
    above 1 Gbit/s."""
    parts = str(text).strip().split(":")
    if len(parts) != 4 or parts[0].lower() != "step":
        raise ValueError("'%s' is not a step (accepted: %s)" % (text, ACCEPTED))
    r1, r2 = _rate(parts[1], "R1"), _rate(parts[3], "R2")
    try:
        t_s = units.parse_duration_ns(parts[2].strip()) / 1e9
    except ValueError:
        raise ValueError("T '%s' is not a duration (accepted: %s)" % (parts[2], ACCEPTED)) from None
    if t_s <= 0:
        raise ValueError("T '%s' must be above 0 (accepted: %s)" % (parts[2], ACCEPTED))
    if r1 == 0 and r2 == 0:
        raise ValueError("'%s': both rates are 0 (accepted: %s)" % (text, ACCEPTED))
    if max(r1, r2) > MAX_BPS:
        raise ValueError("'%s': above 1 Gbit/s (accepted: %s)" % (text, ACCEPTED))
    return StepSpec(r1, t_s, r2)
