"""theory.py - the PSS paper's rate equations for an experiment.

Finzi et al. 2023 ("Priority Switching Scheduler"), eqs. 1-8, written to
mirror src/params/params_eq.c function by function (tests/unit/test_theory.py
checks both against each other through `schedtun params pss --no-sim`).
Rates are bit/s (floats), sizes bytes, BW a fraction of C.

Besides the equations: the rate specifications an experiment accepts
(RATE or cosine:MEAN:AMPLITUDE:PERIOD, rates and durations read by
schedlab.units exactly as the daemon reads them), their exact means over
an interval, and per-class theory for a scheduler at one instant, C(t) and
R_EF(t) given, so that time-varying runs get per-interval theory lines.
"""
import math

from schedlab import units

__all__ = ["k_af", "b_factor", "pss_bw", "pss_lm_bytes", "lr_period_bytes",
           "wrr_af_bps", "wrr_cs0_bps", "pss_af_bps", "pss_cs0_bps",
           "pss_params", "RATE_ACCEPTED", "SPEC_ACCEPTED", "parse_rate",
           "parse_duration", "RateSpec", "parse_spec", "SCHEDS_WITH_THEORY",
           "class_theory", "theory_equations", "rel_error"]

# ---------------------------------------------------------------- equations


def k_af(w_af, l_af, w_cs0, l_cs0):
    """eq. 2: AF's share of a WRR round, W_AF L_AF / (W_AF L_AF + W_CS0 L_CS0)."""
    af = float(w_af) * l_af
    cs0 = float(w_cs0) * l_cs0
    return af / (af + cs0)


def b_factor(w_af, l_af, w_cs0, l_cs0):
    """eq. 4: the same share with W - 1 packets per class (W_AF, W_CS0 >= 2)."""
    af = (w_af - 1.0) * l_af
    cs0 = (w_cs0 - 1.0) * l_cs0
    return af / (af + cs0)


def pss_bw(b, capacity_bps, ef_exp_bps):
    """eq. 3 as a fraction of C: B (C - R_EF^exp) / C (C > 0)."""
    return b * (capacity_bps - ef_exp_bps) / capacity_bps


def pss_lm_bytes(l_af, w_af, bw):
    """eq. 5 without LR: L_AF (W_AF - 1) (1 - BW), bytes, unrounded."""
    return l_af * (w_af - 1.0) * (1.0 - bw)


def lr_period_bytes(period_s, capacity_bps, bw):
    """Section 4.2.1: LR = T C_avg BW, C in bytes/s, bytes, unrounded."""
    return period_s * (capacity_bps / 8.0) * bw


def wrr_af_bps(k, capacity_bps, ef_bps):
    """eq. 1: K_AF (C - R_EF); never below 0 (EF at or above C)."""
    return max(k * (capacity_bps - ef_bps), 0.0)


def wrr_cs0_bps(k, capacity_bps, ef_bps):
    """eq. 6: (1 - K_AF) (C - R_EF); never below 0."""
    return max((1.0 - k) * (capacity_bps - ef_bps), 0.0)


def pss_af_bps(k, capacity_bps, ef_exp_bps, ef_bps, nominal_bps=None):
    """eq. 7: min(K_AF (C_nom - R_EF^exp), C - R_EF), not below 0.

    The reservation K_AF (C_nom - R_EF^exp) is made against the nominal
    capacity the PSS credit slopes use (pss.capacity, the link's mean);
    the bound C - R_EF is instantaneous.  nominal_bps defaults to C, which
    is eq. 7 as printed for a fixed capacity.
    """
    nominal = capacity_bps if nominal_bps is None else nominal_bps
    return max(min(k * (nominal - ef_exp_bps), capacity_bps - ef_bps), 0.0)


def pss_cs0_bps(pss_af, capacity_bps, ef_bps):
    """eq. 8: max(C - R_EF - R_PSS/AF, 0)."""
    return max(capacity_bps - ef_bps - pss_af, 0.0)


def pss_params(w_af, l_af, w_cs0, l_cs0, capacity_bps, ef_exp_bps,
               lr_period_s=None):
    """The paper's PSS parameters (eqs. 3-5, LR of 2.4 / 4.2.1).

    Returns {"bw", "lm", "lr"} with lm, lr whole bytes: LR = 0 for a fixed
    capacity (lr_period_s None), else T C BW rounded, and then LM = eq. 5
    + LR (section 2.3), as `schedtun params pss --lr period:T` prints.
    """
    bw = pss_bw(b_factor(w_af, l_af, w_cs0, l_cs0), capacity_bps, ef_exp_bps)
    lr = 0 if lr_period_s is None else int(round(
        lr_period_bytes(lr_period_s, capacity_bps, bw)))
    lm = int(round(pss_lm_bytes(l_af, w_af, bw))) + lr
    return {"bw": bw, "lm": lm, "lr": lr}


# ---------------------------------------------------------------- specs

RATE_ACCEPTED = units.RATE_ACCEPTED + "; or 0"
SPEC_ACCEPTED = units.RATE_ACCEPTED + ", or cosine:MEAN:AMPLITUDE:PERIOD " \
    "(e.g. cosine:20Mbit:0.3:15s; 0 <= AMPLITUDE < 1, PERIOD > 0)"


def _zero_rate(text):
    """True for a zero written as the daemon's `params --ef-exp` takes it:
    zeros and at most one point, then nothing or a rate unit ("0", "0.0",
    "0Mbit"); units.parse_rate_bps refuses a zero rate."""
    body = text.lstrip(" \t\n\v\f\r")
    rest = body.lstrip("0.")
    head = body[:len(body) - len(rest)]
    if "0" not in head or head.count(".") > 1 or rest[:1].isdigit():
        return False
    try:
        units.parse_rate_bps("1" + rest)
    except ValueError:
        return False
    return True


def parse_rate(text):
    """A rate text -> bit/s (float): what units.parse_rate_bps reads (tc's
    units, so "20mbps" is 160 Mbit/s and "20M" is refused), or a zero with
    a rate unit ("0", "0Mbit") as 0.0, as `schedtun params --ef-exp` takes
    it.  ValueError "'TEXT' is not a rate (accepted: ...)" otherwise."""
    text = str(text)
    if _zero_rate(text):
        return 0.0
    try:
        return float(units.parse_rate_bps(text))
    except ValueError as e:
        raise ValueError("%s; or 0)" % str(e)[:-1]) from None


def parse_duration(text):
    """A duration text -> seconds (float), read by units.parse_duration_ns
    ("15s", "250ms", "6.1" = seconds).  ValueError naming what is accepted."""
    return units.parse_duration_ns(str(text)) / 1e9


class RateSpec:
    """A constant rate or C_avg (1 + a cos(2 pi t / T)), bit/s over time t (s)."""

    def __init__(self, mean_bps, amplitude=0.0, period_s=0.0):
        self.mean_bps = float(mean_bps)
        self.amplitude = float(amplitude)
        self.period_s = float(period_s)

    @property
    def constant(self):
        """True when the rate does not vary."""
        return self.amplitude == 0.0 or self.period_s <= 0.0

    def at(self, t):
        """The rate at time t (seconds from the profile's origin)."""
        if self.constant:
            return self.mean_bps
        return self.mean_bps * (1.0 + self.amplitude *
                                math.cos(2.0 * math.pi * t / self.period_s))

    def mean_over(self, t0, t1):
        """The exact mean rate over [t0, t1]; the rate at t0 when t1 <= t0.

        The integral of cos(w t) is sin(w t) / w, so the mean is
        R (1 + a (sin(w t1) - sin(w t0)) / (w (t1 - t0))), w = 2 pi / T.
        (No numeric integration is left in the theory: the equations are
        applied to interval means of C and R_EF, each a cosine.  A mean of
        an equation itself, e.g. eq. 7's min() of C(t) - R_EF(t) and a
        constant, would need one: the crossing times of two cosines of
        different periods have no closed form.)
        """
        if self.constant or t1 <= t0:
            return self.at(t0)
        w = 2.0 * math.pi / self.period_s
        return self.mean_bps * (1.0 + self.amplitude *
                                (math.sin(w * t1) - math.sin(w * t0)) /
                                (w * (t1 - t0)))

    def __repr__(self):
        if self.constant:
            return "%g bit/s" % self.mean_bps
        return "cosine:%g:%g:%gs" % (self.mean_bps, self.amplitude, self.period_s)


def parse_spec(text, allow_zero=False):
    """RATE | cosine:MEAN:AMPLITUDE:PERIOD -> RateSpec (rates and the period
    as the daemon reads them); a zero rate only when allow_zero.
    ValueError naming what is accepted."""
    text = str(text).strip()
    if text.lower().startswith("cosine:"):
        parts = text.split(":")
        if len(parts) != 4:
            raise ValueError("cosine needs 3 fields (accepted: %s)" % SPEC_ACCEPTED)
        try:
            mean = float(units.parse_rate_bps(parts[1]))
        except ValueError:
            raise ValueError("mean '%s' is not a rate (accepted: %s)"
                             % (parts[1], SPEC_ACCEPTED)) from None
        try:
            ampl = float(parts[2])
        except ValueError:
            raise ValueError("amplitude '%s' is not a number (accepted: %s)"
                             % (parts[2], SPEC_ACCEPTED)) from None
        try:
            period = parse_duration(parts[3])
        except ValueError:
            raise ValueError("period '%s' is not a duration (accepted: %s)"
                             % (parts[3], SPEC_ACCEPTED)) from None
        if not 0.0 <= ampl < 1.0 or period <= 0:
            raise ValueError("out of range (accepted: %s)" % SPEC_ACCEPTED)
        return RateSpec(mean, ampl, period)
    try:
        rate = parse_rate(text)
    except ValueError:
        raise ValueError("not a rate (accepted: %s)" % SPEC_ACCEPTED) from None
    if rate <= 0 and not allow_zero:
        raise ValueError("must be above 0 (accepted: %s)" % SPEC_ACCEPTED)
    return RateSpec(rate)


# ---------------------------------------------------------------- per class

SCHEDS_WITH_THEORY = ("pss", "dwrr", "prio")


def class_theory(sched, model, c_bps, ef_bps):
    """Theoretical per-class output rates (bit/s) at one instant.

    sched: the scheduler name; model: {"k_af", "ef_exp_bps", "nominal_bps"}
    (nominal_bps: the C of PSS's credit slopes).  c_bps, ef_bps: C and
    R_EF now.  EF is strict in every scheduler here, so it gets
    min(R_EF, C).  Returns {"ef", "af", "cs0"} with each value a float,
    or None for a class the paper has no equation for (fifo, pdrr, dq,
    ticket: every class None).  AF and CS0 are assumed backlogged.
      pss : AF eq. 7, CS0 eq. 8
      dwrr: AF eq. 1, CS0 eq. 6
      prio: AF takes everything EF leaves, CS0 nothing
    """
    ef = min(ef_bps, c_bps)
    if sched == "pss":
        af = pss_af_bps(model["k_af"], c_bps, model["ef_exp_bps"], ef_bps,
                        model.get("nominal_bps"))
        return {"ef": ef, "af": af, "cs0": pss_cs0_bps(af, c_bps, ef_bps)}
    if sched == "dwrr":
        return {"ef": ef, "af": wrr_af_bps(model["k_af"], c_bps, ef_bps),
                "cs0": wrr_cs0_bps(model["k_af"], c_bps, ef_bps)}
    if sched == "prio":
        return {"ef": ef, "af": max(c_bps - ef_bps, 0.0), "cs0": 0.0}
    return {"ef": None, "af": None, "cs0": None}


def theory_equations(sched):
    """The equation each class's theory value comes from, for the summary."""
    return {
        "pss": {"ef": "min(R_EF, C)", "af": "eq. 7", "cs0": "eq. 8"},
        "dwrr": {"ef": "min(R_EF, C)", "af": "eq. 1", "cs0": "eq. 6"},
        "prio": {"ef": "min(R_EF, C)", "af": "C - R_EF (strict priority)",
                 "cs0": "0 (strict priority, AF backlogged)"},
    }.get(sched, {"ef": None, "af": None, "cs0": None})


def rel_error(measured, theory):
    """(measured - theory) / theory, or None when theory is None or 0."""
    if theory is None or measured is None or theory == 0:
        return None
    return (measured - theory) / theory
