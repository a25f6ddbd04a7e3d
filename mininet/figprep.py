"""figprep.py - what a figure point needs before it runs: its parameters.

The figure lists (figures.py, figvar.py) name their points; prepare()
asks the calculator (`schedtun params pss --json`) for each PSS point's
parameter set and, on the varying link, the simulator (schedtun-sim) for
Algorithm 1's rates on the same link.  These go into the point's record
(reproduce.point_of: params "calc" and "sim"), so a redraw needs neither
binary.  Imports: figprep -> figvar -> figures (nothing imports this but
reproduce).
"""
import figures as F
import figvar as V


def check_rule_choice(run, c):
    """SystemExit unless the calculator agrees with figures.pss_runs' fixed
    choice: the calibrated rule is run exactly where the two rules' BW
    differ by more than CAL_BW_DIFF (SMALL_W)."""
    bp, bc = float(c["paper"]["bw"]), float(c["calibrated"]["bw"])
    differs = abs(bp - bc) / bp > F.CAL_BW_DIFF
    if differs != (run.weights == F.SMALL_W):
        raise SystemExit(
            "reproduce: %s: the paper and calibrated BW are %.6g and %.6g (%+.1f %%): "
            "figures.pss_runs runs the calibrated rule only for %d:%d, where they differ "
            "by more than %g %%; the calculator no longer agrees: update figures.py"
            % (run.key, bp, bc, 100.0 * (bc - bp) / bp, F.SMALL_W[0], F.SMALL_W[1],
               100.0 * F.CAL_BW_DIFF))


def prepare(run, schedtun):
    """Fills run.calc (PSS: the rule's set, figures.calc()), run.sched_params
    (what geo.py is given; None where geo.py computes the paper's rule
    itself) and run.sim (varying link: figvar.sim_rates, None where the
    simulator failed); returns run."""
    if run.sched == "pss":
        lr_period = "%gs" % F.VAR_T_S if run.var and run.variant != "nomem" else None
        c = F.calc(schedtun, run.weights, run.ef_exp, run.ef, lr_period)
        run.calc = c[run.rule]
        if run.var:
            run.sched_params = V.var_params(run, run.calc)
        else:
            check_rule_choice(run, c)
            if run.rule == "calibrated":
                run.sched_params = F.calibrated_params(run.calc)
    if run.var:
        run.sim = V.sim_rates(schedtun, run)
    return run
