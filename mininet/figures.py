"""figures.py - the PSS paper's figures as lists of geo.py runs.

Run (one geo.py configuration), calc (`schedtun params pss --json`), the
runs of Figs. 5, 6 and the comparison, and TITLES.  Figs. 7-12 (section
4.2's varying link) are in figvar.py; the drawings in figplot.py and
figvarplot.py; figlist.py joins each figure to its runs and drawing.
Imports go one way: figlist -> figvarplot -> figplot -> figvar -> figures.

Choices the paper leaves open (DESIGN.md section 4): C = 20 Mbit/s, 1400-byte
AF and CS0 packets (the tunnel MTU), weights W_AF:W_CS0 = 50:50, 65:35 and
81:19 (K_AF = 0.50, 0.65, 0.81 exactly with equal packets), plus 9:2 (K_AF
0.818), where the paper's parameter rule (eqs. 3-5) and the calibrated rule
(docs/pss.md) differ by 8.6 % in BW; for the other weights their BW differs
by under 1 % and only the paper's rule is run.  Theory: mininet/theory.py.
"""
import json
import os
import subprocess

import theory
from schedlab.tools import ToolError, find_tool

C_MBIT = 20.0
R_EFS = (5.0, 10.0, 15.0)             # 0.25, 0.5, 0.75 C
K_WEIGHTS = ((50, 50), (65, 35), (81, 19))
SMALL_W = (9, 2)
L_PKT = 1400
CAL_BW_DIFF = 0.01                    # run the calibrated rule where BW differs more
# Section 4.2's varying link: C(t) = C_avg (1 + 0.3 cos(2 pi t / 15)),
# EF(t) = EF_avg (1 + 0.6 cos(2 pi t / 6.1))
VAR_T_S = 15.0
VAR_C = "cosine:%gMbit:0.3:%gs" % (C_MBIT, VAR_T_S)
VAR_EF = "cosine:%gMbit:0.6:6.1s"


class Run:
    """One geo.py run: scheduler, weights, EF and R_EF^exp (Mbit/s), rule.

    var: the varying link of section 4.2 (C and EF cosines, VAR_C and
    VAR_EF, ef = EF_avg); variant: None, "nomem" (PSS with LR = 0) or
    "noidle" (PSS without the dtime < 0 branch, idle_credit = false).
    A Run as the figure lists make it names the point only (its key);
    figprep.prepare() adds what the calculator and the simulator say
    (calc, sched_params, sim) before it is run, and a redraw takes them
    from the point's records.
    """

    def __init__(self, sched, weights, ef, ef_exp, rule=None, var=False, variant=None):
        self.sched, self.weights, self.ef, self.ef_exp = sched, weights, ef, ef_exp
        self.rule, self.var, self.variant = rule, var, variant
        self.calc = self.sched_params = self.sim = None
        if sched == "dwrr":
            self.ef_exp = ef          # DWRR does not use R_EF^exp: one run per R_EF
        self.key = "%s%s%s-w%d-%d-ef%g%s" % (
            "var-" if var else "", sched, "-" + rule if rule else "", weights[0],
            weights[1], ef, "-exp%g" % ef_exp if sched == "pss" else "") + (
            "-" + variant if variant else "")

    @property
    def capacity_arg(self):
        """geo.py's --capacity."""
        return VAR_C if self.var else "%gMbit" % C_MBIT

    @property
    def ef_arg(self):
        """geo.py's --ef."""
        return (VAR_EF % self.ef) if self.var else "%gMbit" % self.ef

    @property
    def k_af(self):
        return theory.k_af(self.weights[0], L_PKT, self.weights[1], L_PKT)


# ---------------------------------------------------------------- calculator

def schedtun_bin(given):
    """The schedtun binary reproduce uses (schedlab.tools.find_tool)."""
    try:
        return find_tool(given)
    except ToolError as e:
        raise SystemExit("reproduce: %s (--schedtun)" % e) from None


def calc(schedtun, w, ef_exp, ef, lr_period=None):
    """`schedtun params pss --json` for weights w at R_EF^exp, R_EF (Mbit/s);
    lr_period (e.g. "15s"): LR = T C BW (section 4.2.1), else LR = 0.

    Returns {"paper": {...}, "calibrated": {...}}, each {"bw" (text, 9
    significant digits as the scheduler blocks print it), "lm", "lr", "sim_af",
    "sim_cs0"} (the simulator's Algorithm 1 rates, Mbit/s: AF and CS0
    backlogged, EF CBR).
    """
    out = subprocess.run(
        [schedtun_bin(schedtun), "params", "pss", "--w-af", str(w[0]), "--w-cs0",
         str(w[1]), "--l-af", str(L_PKT), "--l-cs0", str(L_PKT), "--capacity",
         "%gMbit" % C_MBIT, "--ef-exp", "%gMbit" % ef_exp, "--ef", "%gMbit" % ef,
         "--json"] + (["--lr", "period:" + lr_period] if lr_period else []),
        check=True, capture_output=True, text=True).stdout
    try:
        j = json.loads(out)
        res = {}
        for name in ("paper", "calibrated"):
            s, sim = j[name], j["sim"][name]
            res[name] = {"bw": "%.9g" % s["bw"], "lm": int(s["lm_bytes"]),
                         "lr": int(s["lr_bytes"]), "sim_af": sim["af_bps"] / 1e6,
                         "sim_cs0": sim["cs0_bps"] / 1e6}
    except (ValueError, KeyError, TypeError) as e:
        raise SystemExit("reproduce: cannot read `schedtun params pss --json`: %s" % e)
    return res


def pss_runs(w, ef, ef_exp):
    """PSS runs at one point: the paper's rule, and for SMALL_W the
    calibrated rule too (the only weights where the two rules' BW differ
    by more than CAL_BW_DIFF; figprep.prepare checks it against the
    calculator)."""
    runs = [Run("pss", w, ef, ef_exp, "paper")]
    if w == SMALL_W:
        runs.append(Run("pss", w, ef, ef_exp, "calibrated"))
    return runs


def calibrated_params(k):
    """The scheduler-group members of the calibrated rule's set k (calc())."""
    return "pss = { bw = %s; lm = %d; lr = %d; credit_init = %d; };" % (
        k["bw"], k["lm"], k["lr"], k["lr"])


def sweep(ef_exp_of):
    """PSS and DWRR at every R_EF and K_AF; R_EF^exp = ef_exp_of(R_EF)."""
    runs = []
    for ef in R_EFS:
        for w in K_WEIGHTS + (SMALL_W,):
            runs += pss_runs(w, ef, ef_exp_of(ef))
            if w != SMALL_W:
                runs.append(Run("dwrr", w, ef, ef))
    return runs


def fig5_runs():
    """Fig. 5: EF known, R_EF^exp = R_EF."""
    return sweep(lambda ef: ef)


def fig6_runs():
    """Fig. 6: R_EF^exp = 0.5 C, real R_EF 0.25 / 0.5 / 0.75 C."""
    return sweep(lambda ef: C_MBIT / 2)


def compare_runs():
    """All seven schedulers: 81:19, EF 10 Mbit/s as expected (repetitions
    are reproduce's --repeat, per point)."""
    w = (81, 19)
    runs = [Run("pss", w, 10.0, 10.0, "paper"), Run("dwrr", w, 10.0, 10.0)]
    runs += [Run(s, w, 10.0, 10.0) for s in ("prio", "fifo", "pdrr", "dq", "ticket")]
    return runs


# ---------------------------------------------------------------- reading

def cls(s, c, field="measured_mbps"):
    return s["classes"][c].get(field)


def pct(x):
    return "" if x is None else "%+.1f %%" % (100.0 * x)


def num(x, fmt="%.3f"):
    return "" if x is None else fmt % x


def params_text(r):
    """The scheduler parameters of a run, short."""
    if r.sched == "pss":
        return "BW %.4f, LM %d, LR %d%s" % (
            float(r.calc["bw"]), r.calc["lm"], r.calc["lr"],
            ", no dtime<0 branch" if r.variant == "noidle" else "")
    if r.sched == "dwrr":
        return "quanta %d/%d" % (r.weights[0] * L_PKT, r.weights[1] * L_PKT)
    return "defaults"


# ---------------------------------------------------------------- titles

# In the paper's order; the registry that joins each to its runs and its
# drawing is figlist.py (so that this module imports no plot module).
TITLES = {
    "fig5": "PSS vs DWRR, EF known (R_EF^exp = R_EF): AF, CS0 vs K_AF",
    "fig6": "PSS vs DWRR, R_EF^exp = 0.5 C, R_EF 0.25/0.5/0.75 C: AF, CS0 vs K_AF",
    "fig7": "varying C and EF: PSS with and without LR memory (AF, CS0 vs K_AF)",
    "fig8": "throughput and credit over time, PSS without / with memory",
    "fig9": "varying C and EF: PSS with and without the dtime < 0 branch",
    "fig10": "throughput and credit over time, without / with the dtime < 0 branch",
    "fig11": "varying C and EF, EF as expected: PSS vs DWRR",
    "fig12": "varying C and EF, R_EF^exp = 0.5 C_avg: PSS vs DWRR",
    "compare": "all seven schedulers through the same GEO run (table)",
}
