"""theory.py - the PSS paper's rate equations for a GEO experiment.

Finzi et al. 2023 ("Priority Switching Scheduler"), eqs. 1-8, written to
mirror src/params/params_eq.c function by function (tests/unit/test_theory.py
checks both against each other through `schedtun params pss --no-sim`).
Rates are bit/s (floats), sizes bytes, BW a fraction of C.

Besides the equations: the rate specifications the runner accepts
(RATE or cosine:MEAN:AMPLITUDE:PERIOD) and per-class theory for a
scheduler at one instant, C(t) and R_EF(t) given, so that time-varying
runs get per-second theory lines.
"""
import math
import re

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

_RATE_UNITS = {"": 1.0, "bit": 1.0, "k": 1e3, "kbit": 1e3, "m": 1e6,
               "mbit": 1e6, "g": 1e9, "gbit": 1e9}
RATE_ACCEPTED = "a rate such as 20Mbit, 20M, 500kbit or 20000000 (bit/s)"
SPEC_ACCEPTED = RATE_ACCEPTED + ", or cosine:MEAN:AMPLITUDE:PERIOD " \
    "(e.g. cosine:20Mbit:0.3:15s; 0 <= AMPLITUDE < 1, PERIOD > 0)"


def parse_rate(text):
    """'20Mbit' / '20M' / '500kbit' / '20000000' -> bit/s (float > 0 or 0).

    Units are decimal bits as in tc and iperf3 (k, M, G with or without
    'bit', case-insensitive).  Raises ValueError naming what is accepted.
    """
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*([a-zA-Z]*)\s*",
                     str(text))
    if not m or m.group(2).lower() not in _RATE_UNITS:
        raise ValueError("not a rate (accepted: %s)" % RATE_ACCEPTED)
    return float(m.group(1)) * _RATE_UNITS[m.group(2).lower()]


def parse_duration(text):
    """'15s' / '250ms' / '6.1' (seconds) -> seconds (float)."""
    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*(ms|s|)\s*",
                     str(text))
    if not m:
        raise ValueError("not a duration (accepted: 250ms, 15s, 6.1)")
    v = float(m.group(1))
    return v / 1000.0 if m.group(2) == "ms" else v


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

    def mean_over(self, t0, t1, samples=20):
        """Mean rate over [t0, t1] (midpoint rule, `samples` points)."""
        if self.constant or t1 <= t0:
            return self.at(t0)
        h = (t1 - t0) / samples
        return sum(self.at(t0 + (i + 0.5) * h) for i in range(samples)) / samples

    def __repr__(self):
        if self.constant:
            return "%g bit/s" % self.mean_bps
        return "cosine:%g:%g:%gs" % (self.mean_bps, self.amplitude, self.period_s)


def parse_spec(text, allow_zero=False):
    """RATE | cosine:MEAN:AMPLITUDE:PERIOD -> RateSpec; ValueError when bad."""
    text = str(text).strip()
    if text.lower().startswith("cosine:"):
        parts = text.split(":")
        if len(parts) != 4:
            raise ValueError("cosine needs 3 fields (accepted: %s)" % SPEC_ACCEPTED)
        mean = parse_rate(parts[1])
        try:
            ampl = float(parts[2])
        except ValueError:
            raise ValueError("amplitude '%s' is not a number (accepted: %s)"
                             % (parts[2], SPEC_ACCEPTED)) from None
        period = parse_duration(parts[3])
        if mean <= 0 or not 0.0 <= ampl < 1.0 or period <= 0:
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
