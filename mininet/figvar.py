"""figvar.py - the PSS paper's varying-link figures (section 4.2, Figs. 7-12).

The link of section 4.2: C(t) = 20 Mbit/s (1 + 0.3 cos(2 pi t / 15 s)) and
EF(t) = EF_avg (1 + 0.6 cos(2 pi t / 6.1 s)), EF_avg 0.25 / 0.5 / 0.75 C_avg,
weights 50:50, 65:35, 81:19 (K_AF 0.50, 0.65, 0.81), the paper's parameter
rule with LR = T C_avg BW, T = 15 s (section 4.2.1) and credit_init = LR.

  fig7   PSS with and without LR memory (LR = 0), EF as expected
  fig8   Fig. 7's 81:19 runs at EF_avg = 0.75 C over time, credit below
  fig9   PSS with and without the dtime < 0 branch (idle_credit = false)
  fig10  Fig. 9's 81:19 runs at EF_avg = 0.25 C over time
  fig11  PSS vs DWRR, EF as expected (R_EF^exp = EF_avg)
  fig12  PSS vs DWRR, R_EF^exp = 0.5 C_avg, EF_avg 0.25 / 0.5 / 0.75 C

Runs are figures.Run with var = True; runs that figures share have the
same key and run once.  figprep.prepare() gives each its parameters.  Each PSS and DWRR point also gets Algorithm 1's
rates from the simulator (schedtun-sim, same parameters, greedy AF and CS0,
EF CBR cosine in efgen's 1228-byte packets, 300 s after 15 s): what the
algorithm does on this link without TCP.
"""
import json
import os
import subprocess
import tempfile

import figures as F
from schedlab import measure
from schedlab.traffic import EF_IP     # efgen's IP packet

EXP_FIXED = F.C_MBIT / 2            # Fig. 12's R_EF^exp
SIM_WARMUP_S, SIM_DURATION_S = 15, 315


def pss_var(w, ef, ef_exp, variant=None):
    """A PSS run on the varying link with the paper's rule: LR = T C BW and
    credit_init = LR, or with variant "nomem" LR = 0 (eq. 5 alone), or with
    variant "noidle" the LR set and idle_credit = false (the parameters:
    var_params)."""
    return F.Run("pss", w, ef, ef_exp, "paper", var=True, variant=variant)


def var_params(run, p):
    """The scheduler-group members of a varying-link PSS run whose
    calculated set (figures.calc()'s "paper") is p."""
    return "pss = { bw = %s; lm = %d; lr = %d; credit_init = %d;%s };" % (
        p["bw"], p["lm"], p["lr"], p["lr"],
        " idle_credit = false;" if run.variant == "noidle" else "")


def dwrr_var(w, ef):
    """A DWRR run on the varying link, quanta W L (geo.py's default)."""
    return F.Run("dwrr", w, ef, ef, var=True)


def _grid(make):
    runs = []
    for ef in F.R_EFS:
        for w in F.K_WEIGHTS:
            runs += make(w, ef)
    return runs


def _with_variant(variant):
    """Runs list: at each point PSS with memory and PSS in `variant`."""
    return lambda: _grid(lambda w, ef: [pss_var(w, ef, ef), pss_var(w, ef, ef, variant)])


def _over_time(variant, ef):
    """Runs list: 81:19 at EF_avg ef, `variant` then with memory."""
    return lambda: [pss_var((81, 19), ef, ef, variant), pss_var((81, 19), ef, ef)]


fig7_runs = _with_variant("nomem")
fig8_runs = _over_time("nomem", 15.0)
fig9_runs = _with_variant("noidle")
fig10_runs = _over_time("noidle", 5.0)


def fig11_runs():
    return _grid(lambda w, ef: [pss_var(w, ef, ef), dwrr_var(w, ef)])


def fig12_runs():
    return _grid(lambda w, ef: [pss_var(w, ef, EXP_FIXED), dwrr_var(w, ef)])


# ---------------------------------------------------------------- simulator

def sched_group(run):
    """The run's scheduler group, as geo.py gives it to the sender (a PSS
    run's sched_params set by figprep.prepare)."""
    if run.sched == "pss":
        return 'scheduler = { name = "pss"; %s };' % run.sched_params
    return ('scheduler = { name = "dwrr"; dwrr = { quantum = { af = %d; cs0 = %d; }; }; };'
            % (run.weights[0] * F.L_PKT, run.weights[1] * F.L_PKT))


def sim_rates(schedtun, run):
    """Algorithm 1 (or DWRR) on the run's link in schedtun-sim: {"ef", "af",
    "cs0"} Mbit/s over [15, 315) s (rounded to 1 bit/s, so that the record
    holding them has one text), or None when the simulator fails."""
    sim = os.path.join(os.path.dirname(os.path.abspath(F.schedtun_bin(schedtun))),
                       "schedtun-sim")
    conf = "\n".join([
        'tunnel = { tun = "st0"; address = "10.0.0.1/24"; mtu = 1400; '
        'listen = "0.0.0.0:5555"; peer = "10.0.0.2:5555"; };',
        'link = { profile = { kind = "cosine"; mean = "%dMbit"; amplitude = 0.3; '
        'period = "%gs"; }; delay = "250ms"; };' % (F.C_MBIT, F.VAR_T_S),
        sched_group(run), ""])
    with tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False) as f:
        f.write(conf)
        path = f.name
    try:
        out = subprocess.run(
            [sim, "-f", path, "--ef", "cbr:%gMbit:%d:0.6:6.1" % (run.ef, EF_IP),
             "--af", "greedy:%d" % F.L_PKT, "--cs0", "greedy:%d" % F.L_PKT,
             "-w", str(SIM_WARMUP_S), "-d", str(SIM_DURATION_S), "-s", "0", "-q",
             "--json", "-"],
            capture_output=True, text=True, timeout=120)
    finally:
        os.unlink(path)
    if out.returncode != 0:
        return None
    try:
        cls = json.loads(out.stdout)["classes"]
        return {c: round(cls[c]["mean_bps"]) / 1e6 for c in measure.CLASSES}
    except (ValueError, KeyError, TypeError):
        return None
