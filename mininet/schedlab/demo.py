"""demo.py - scripts/geo-demo.sh's scenario as a mininet/geo.py command.

The demo's scenario (PSS, WRR weights 3:2, the calibrated rule, EF from
schedtun-efgen stepping 2.5 -> 7.5 Mbit/s at the middle of the measured
window, 4 + 4 cubic flows, 40 s on a 20 Mbit/s link with 250 ms each way)
differs from geo.py's defaults (9:2, the paper's rule, 10 + 10 flows,
100 s), so plan() writes every one of its values into geo.py's command.

  plan(opts, schedtun) -> Plan: the checked scenario and geo_argv(), the
      options to give geo.py; ValueError "geo-demo: --opt 'v': problem
      (accepted: ...)" for a bad value.
  pss_group(schedtun, ...) -> the `pss = {...};` members `schedtun params
      pss --json` computes for a rule, credit_init = LR (the steady state).

Rates are read by schedlab.theory.parse_rate (units.c's rules, or 0),
the EF step handed to geo.py as --ef step:R1:T:R2 (schedlab.efstep reads
it there); no Mininet, no root.
"""
import json
import re
import subprocess

from schedlab import theory, units
from schedlab.traffic import EF_IP     # geo.py's EF packet, IP bytes

PROG = "geo-demo"
SCHEDS = ("fifo", "prio", "pss", "dwrr", "pdrr", "dq", "ticket")
RULES = ("calibrated", "paper")
L_PKT_BYTES = 1400        # AF and CS0: full TCP segments at the tunnel MTU (geo.py's default)

DEFAULTS = {
    "sched": "pss", "duration": "40", "warmup": None, "settle": None,
    "weights": "3:2", "rule": "calibrated", "sched_params": None,
    "ef": "step", "ef_exp": None, "rate": "20Mbit", "delay": "250ms",
    "flows": "4", "out": None, "no_plot": False, "force": False,
}
DEFAULT_STEP = ("2.5Mbit", "7.5Mbit")


def _bad(opt, value, problem):
    """The demo's refusal: `geo-demo: --opt 'value': problem`."""
    return ValueError("%s: --%s '%s': %s" % (PROG, opt.replace("_", "-"), value, problem))


def _number(opt, text, lo, hi):
    """A plain number of seconds in [lo, hi] (float) or _bad."""
    try:
        v = float(text)
    except (TypeError, ValueError):
        raise _bad(opt, text, "not a number of seconds (accepted: %g..%g)" % (lo, hi)) from None
    if not lo <= v <= hi:
        raise _bad(opt, text, "out of range (accepted: %g..%g)" % (lo, hi))
    return v


def _rate(opt, text):
    """theory.parse_rate of an option's rate, or _bad naming the option."""
    try:
        return theory.parse_rate(text)
    except ValueError as e:
        raise _bad(opt, text, str(e)) from None


class Plan:
    """A checked demo scenario.  Times are seconds of traffic time (0 =
    the traffic's start), rates bit/s.  ef_before_bps == ef_after_bps and
    step_at_s None for a constant EF."""

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def ef_text(self):
        """geo.py's --ef: a constant RATE, or step:R1:T:R2 (the user's rate texts)."""
        if self.step_at_s is None:
            return self.ef_texts[0]
        return "step:%s:%gs:%s" % (self.ef_texts[0], self.step_at_s, self.ef_texts[1])

    def geo_argv(self):
        """geo.py's options for this scenario (every value explicit)."""
        argv = ["--sched", self.sched, "--capacity", self.rate, "--delay", self.delay,
                "--ef", self.ef_text(), "--ef-exp", "%d" % round(self.ef_exp_bps),
                "--weights", "%d:%d" % self.weights, "--af-flows", str(self.flows),
                "--cs0-flows", str(self.flows), "--duration", "%g" % self.duration_s,
                "--warmup", "%g" % self.warmup_s]
        if self.sched_params is not None:
            argv += ["--sched-params", self.sched_params]
        if self.out:
            argv += ["--out", self.out]
        if self.no_plot:
            argv.append("--no-plot")
        if self.force:
            argv.append("--force")
        return argv


def plan(opts, schedtun=None):
    """The demo's options (a dict of texts, DEFAULTS' keys; missing = the
    default) -> Plan.  schedtun: the binary that computes the PSS
    parameters (needed only for pss without sched_params)."""
    o = dict(DEFAULTS)
    o.update({k: v for k, v in opts.items() if v is not None})
    if o["sched"] not in SCHEDS:
        raise _bad("sched", o["sched"], "unknown scheduler (accepted: %s)" % " ".join(SCHEDS))
    if o["rule"] not in RULES:
        raise _bad("rule", o["rule"], "accepted: %s" % " ".join(RULES))
    duration = _number("duration", o["duration"], 5, 600)
    warmup = (10.0 if duration >= 30 else duration / 3.0) if o["warmup"] is None \
        else _number("warmup", o["warmup"], 0, 600)
    if warmup >= duration:
        raise _bad("warmup", o["warmup"], "must be below the duration (%g s)" % duration)
    m = re.fullmatch(r"(\d+):(\d+)", str(o["weights"]))
    if not m or not all(2 <= int(w) <= 10000 for w in m.groups()):
        raise _bad("weights", o["weights"], "W_AF:W_CS0, each 2..10000 (e.g. 3:2)")
    weights = (int(m.group(1)), int(m.group(2)))
    if not re.fullmatch(r"\d+", str(o["flows"])) or not 1 <= int(o["flows"]) <= 64:
        raise _bad("flows", o["flows"], "flows per class (accepted: 1..64)")
    c_bps = _rate("rate", o["rate"])
    if c_bps <= 0:
        raise _bad("rate", o["rate"], "must be above 0")

    ef = str(o["ef"])
    step_at = None
    is_step = ef == "step" or ef.lower().startswith("step:")
    if ef == "step":
        texts = DEFAULT_STEP
    elif is_step:
        parts = ef.split(":")
        if len(parts) != 3:
            raise _bad("ef", ef, "accepted: step, step:R1:R2 (R2 from the middle of the "
                       "measured window) or a constant RATE")
        texts = (parts[1], parts[2])
    else:
        texts = (ef, ef)
    rates = [_rate("ef", t) for t in texts]
    if is_step:
        step_at = warmup + (duration - warmup) / 2.0
    elif rates[0] <= 0:
        raise _bad("ef", ef, "a constant EF must be above 0")
    settle = (min(2.0, round((duration - (step_at or 0.0)) / 3.0, 1))
              if o["settle"] is None else _number("settle", o["settle"], 0, 600))
    if step_at is not None and step_at + settle >= duration:
        raise _bad("settle", o["settle"] if o["settle"] is not None else "%g" % settle,
                   "leaves nothing of the window after the step at %g s"
                   % step_at)
    ef_exp = (rates[0] + rates[1]) / 2.0 if o["ef_exp"] is None else _rate("ef_exp", o["ef_exp"])
    if not (ef_exp < c_bps and max(rates) <= c_bps):
        raise _bad("ef", ef, "EF (and R_EF^exp %g bit/s) must stay below the link rate %s"
                   % (ef_exp, o["rate"]))
    params, params_cmd = o["sched_params"], None
    if params is None and o["sched"] == "pss":
        params, params_cmd = pss_group(schedtun, weights, c_bps, ef_exp, o["rule"])
    return Plan(sched=o["sched"], duration_s=duration, warmup_s=warmup, settle_s=settle,
                weights=weights, rule=o["rule"], sched_params=params,
                params_cmd=params_cmd, ef_texts=texts, ef_before_bps=rates[0],
                ef_after_bps=rates[1], step_at_s=step_at, ef_exp_bps=ef_exp,
                rate=o["rate"], capacity_bps=c_bps, delay=o["delay"],
                flows=int(o["flows"]), out=o["out"], no_plot=bool(o["no_plot"]),
                force=bool(o["force"]))


def pss_group(schedtun, weights, c_bps, ef_exp_bps, rule):
    """(members, argv): the `pss = { bw; lm; lr; capacity; credit_init };`
    members that `schedtun params pss --json` computes for the rule, with
    credit_init = LR (the calculator's advice: no start-up), and the
    command run.  RuntimeError when the calculator fails or says nothing
    usable."""
    if not schedtun:
        raise RuntimeError("%s: no schedtun binary for `schedtun params pss`" % PROG)
    argv = [schedtun, "params", "pss", "--w-af", str(weights[0]), "--w-cs0",
            str(weights[1]), "--l-af", str(L_PKT_BYTES), "--l-cs0", str(L_PKT_BYTES),
            "--l-ef", str(EF_IP), "--capacity", "%d" % round(c_bps),
            "--ef-exp", "%d" % round(ef_exp_bps), "--rule", rule, "--no-sim", "--json"]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise RuntimeError("%s: `%s` failed: %s" % (PROG, " ".join(argv), r.stderr.strip()))
    try:
        p = json.loads(r.stdout)[rule]
        bw, lm, lr = float(p["bw"]), int(p["lm_bytes"]), int(p["lr_bytes"])
    except (ValueError, KeyError, TypeError) as e:
        raise RuntimeError("%s: cannot read `schedtun params pss --json`: %s" % (PROG, e)) from None
    members = 'pss = { bw = %.9g; lm = %d; lr = %d; capacity = "%s"; credit_init = %d; };' % (
        bw, lm, lr, units.fmt_rate(round(c_bps)), lr)
    return members, argv
