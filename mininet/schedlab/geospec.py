"""schedlab/geospec.py - the PSS paper's GEO experiment as geo.py runs it.

Its two hosts' addresses (UL, TUN; DPORT, the daemons' port), where the
schedtun binary is (find_schedtun), the sender's scheduler group
(conf_sched_group, sched_group_name, default_sched_params,
sched_group_text, pss_bw_of), the theory model of the run (theory_model)
and the SchedtunLink options that build its link (link_options).
Configuration texts are read with schedlab.conf (python3-libconf), never
scanned.  Pure functions of the arguments and files: no Mininet, no root.

`a` below is geo.py's checked command line (geo.check_args): sched,
sched_group, sched_params, capacity_spec, ef_exp_bps, delay_s, w_af,
w_cs0, l_af, l_cs0, out.
"""
import os

from schedlab import conf as schedconf
from schedlab import theory
from schedlab.runerr import UsageError, bad
from schedlab.tools import ToolError, find_tool

UL = {"h1": "10.0.0.1", "h2": "10.0.0.2"}      # the underlay veth, /24
TUN = {"h1": "10.10.0.1", "h2": "10.10.0.2"}    # the tunnel, /24
DPORT = 5000
TUN_MTU = 1400


def find_schedtun(given):
    """schedlab.tools.find_tool's binary (--schedtun, $SCHEDTUN, the
    repository's build-rel/, PATH), its refusal as a UsageError."""
    try:
        return find_tool(given)
    except ToolError as e:
        if given:
            raise bad("--schedtun", given, "not an executable file") from None
        raise UsageError("%s (or give --schedtun PATH)" % e) from None


def _read(what, reader):
    """reader() with a schedlab.conf.ConfError turned into a UsageError
    naming the option: `--conf: FILE: key: problem (accepted: ...)`."""
    try:
        return reader()
    except schedconf.ConfError as e:
        raise UsageError("%s: %s" % (what, e)) from None


def conf_sched_group(path):
    """The top-level `scheduler = { ... };` group of libconfig file `path`
    as a text that reads back to the same values (read by schedlab.conf:
    comments dropped, @include followed).  UsageError naming --conf when
    the file cannot be read or has no scheduler group."""
    c = _read("--conf", lambda: schedconf.load(path))
    if "scheduler" not in c.root:
        raise bad("--conf", path, "no top-level `scheduler = { ... };` group")
    return _read("--conf", c.sched_group_text)


def _group(text):
    """schedlab.conf's reading of a scheduler group (or whole file) text;
    UsageError naming the scheduler parameters when it is not libconfig."""
    return _read("--sched-params",
                 lambda: schedconf.loads(text, "the scheduler group"))


def sched_group_name(group):
    """The `name` of a scheduler group text ('prio' when absent, the
    daemon's default)."""
    c = _group(group)
    return _read("--conf", c.sched_name)


def default_sched_params(a):
    """The scheduler members geo.py uses when neither --conf nor --sched-params.

    pss: the paper's set (eqs. 3-5) for --weights/--l-af/--l-cs0, C's mean
    and R_EF^exp; LR = 0 for a constant C, T C BW for a cosine C (4.2.1),
    then credit_init = LR (start in the steady state).  dwrr: quanta
    W L (eq. 2).  Other schedulers: their own defaults ("").
    """
    if a.sched == "pss":
        lr_t = None if a.capacity_spec.constant else a.capacity_spec.period_s
        pp = theory.pss_params(a.w_af, a.l_af, a.w_cs0, a.l_cs0,
                               a.capacity_spec.mean_bps, a.ef_exp_bps, lr_t)
        return "pss = { bw = %.9f; lm = %d; lr = %d; credit_init = %d; };" % (
            pp["bw"], pp["lm"], pp["lr"], pp["lr"])
    if a.sched == "dwrr":
        return "dwrr = { quantum = { af = %d; cs0 = %d; }; };" % (
            a.w_af * a.l_af, a.w_cs0 * a.l_cs0)
    return ""


def theory_model(a, sched_text):
    """{"k_af", "ef_exp_bps", "nominal_bps", "k_af_from"} for theory.class_theory.

    K_AF: for dwrr the quanta the daemon runs with, read from sched_text
    (a scheduler group or a whole file) by schedlab.conf: Q_AF/(Q_AF+Q_CS0),
    eq. 2 with Q = W L; else eq. 2 of --weights and the packet sizes.
    """
    k = theory.k_af(a.w_af, a.l_af, a.w_cs0, a.l_cs0)
    src = "eq. 2, W %d:%d, L %d/%d" % (a.w_af, a.w_cs0, a.l_af, a.l_cs0)
    if a.sched == "dwrr":
        c = _group(sched_text)
        q = _read("--sched-params", c.dwrr_quanta_bytes)
        k = q["af"] / float(q["af"] + q["cs0"])
        src = "dwrr quanta %d:%d" % (q["af"], q["cs0"])
    return {"k_af": k, "ef_exp_bps": a.ef_exp_bps,
            "nominal_bps": a.capacity_spec.mean_bps, "k_af_from": src}


def sched_group_text(a):
    """The sender's scheduler group: from --conf, or --sched with its params."""
    if a.sched_group:
        return a.sched_group
    params = a.sched_params if a.sched_params is not None else default_sched_params(a)
    return 'scheduler = {\n  name = "%s";\n  %s\n};' % (a.sched, params)


def pss_bw_of(group):
    """The bw of PSS's AF queue that a scheduler group text runs with (its
    queues.af.bw, else pss.bw, else the daemon's 0.5), or None when the
    group's scheduler is not pss."""
    c = _group(group)
    if _read("--conf", c.sched_name) != "pss":
        return None
    return _read("--conf", c.pss_af_params)["bw"]


def link_options(a, schedtun_path):
    """The keyword arguments of the SchedtunLink h1 -> h2 (schedlab.link)
    for a run: the sender's scheduler group, C (a rate, or a cosine
    profile), the one-way delay; the return path fifo at 1 Gbit/s with the
    same delay; the experiment's addresses, st0 on both hosts, and its
    file names in a.out: a.conf/b.conf, a.log/b.log, stats-a/b.jsonl."""
    cap = a.capacity_spec
    if cap.constant:
        cap_opt = {"rate": "%d" % round(cap.mean_bps)}
    else:
        cap_opt = {"profile": {"kind": "cosine", "mean": "%d" % round(cap.mean_bps),
                               "amplitude": cap.amplitude, "period": "%gs" % cap.period_s}}
    out = a.out
    return dict(
        cap_opt, delay=a.delay_s, sched=sched_group_text(a), rev_sched="fifo",
        rev_rate=1e9, rev_delay=None,
        ul_addrs=(UL["h1"] + "/24", UL["h2"] + "/24"),
        tun_addrs=(TUN["h1"] + "/24", TUN["h2"] + "/24"), tun_names=("st0", "st0"),
        port=DPORT, mtu=TUN_MTU, stats_interval=1.0,
        stats_files=(os.path.join(out, "stats-a.jsonl"), os.path.join(out, "stats-b.jsonl")),
        conf_files=(os.path.join(out, "a.conf"), os.path.join(out, "b.conf")),
        log_files=(os.path.join(out, "a.log"), os.path.join(out, "b.log")),
        schedtun=schedtun_path, workdir=out)
