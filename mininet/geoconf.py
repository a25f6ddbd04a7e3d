"""geoconf.py - the configuration texts of a geo.py run.

The experiment's addresses and ports (UL, TUN, DPORT, PORTS, EFGEN_PORT),
the EF packet (TOS, EF_PAYLOAD, EF_IP), where the schedtun binary is
(find_schedtun), the sender's scheduler group (conf_sched_group,
sched_group_name, default_sched_params, sched_group_text, pss_bw_of), the
daemons' configuration files (link_text, conf_text), schedtun-efgen's
--rate (efgen_spec) and the theory model of the run (theory_model).
Configuration texts are read with schedlab.conf (python3-libconf), never
scanned.  Pure functions of the arguments and files: no Mininet, no root.
"""
import os

import theory
from schedlab import conf as schedconf
from geoerr import UsageError, bad
from schedlab.tools import ToolError, find_tool

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
UL = {"h1": "10.0.0.1", "h2": "10.0.0.2"}
TUN = {"h1": "10.10.0.1", "h2": "10.10.0.2"}
DPORT = 5000
PORTS = {"ef": 5201, "af": 5202, "cs0": 5203}
EFGEN_PORT = 5301
TOS = {"ef": "0xb8", "af": "0x28", "cs0": "0x00"}
EF_PAYLOAD = 1200                  # iperf3 -l: IP packet 1228 bytes
EF_IP = EF_PAYLOAD + 28


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


# ---------------------------------------------------------------- configuration

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


def link_text(spec, delay_s):
    """The body of a `link = { ... };` group for a RateSpec."""
    if spec.constant:
        rate = 'rate = "%d";' % round(spec.mean_bps)
    else:
        rate = ('profile = { kind = "cosine"; mean = "%d"; amplitude = %r; '
                'period = "%gs"; };' % (round(spec.mean_bps), spec.amplitude,
                                        spec.period_s))
    return '%s delay = "%dus";' % (rate, round(delay_s * 1e6))


def conf_text(host, link, sched_group, stats_file):
    """A complete schedtun configuration for host h1 (sender) or h2."""
    peer = UL["h2" if host == "h1" else "h1"]
    return "\n".join([
        "# generated by mininet/geo.py for %s" % host,
        "tunnel = {",
        '  tun = "st0"; address = "%s/24"; mtu = 1400;' % TUN[host],
        '  listen = "0.0.0.0:%d"; peer = "%s:%d";' % (DPORT, peer, DPORT),
        "};",
        "link = { %s };" % link,
        sched_group,
        'stats = { interval = 1.0; file = "%s"; };' % stats_file,
        ""])


def sched_group_text(a):
    """The sender's scheduler group: from --conf, or --sched with its params."""
    if a.sched_group:
        return a.sched_group
    params = a.sched_params if a.sched_params is not None else default_sched_params(a)
    return 'scheduler = {\n  name = "%s";\n  %s\n};' % (a.sched, params)



def efgen_spec(spec):
    """A RateSpec as schedtun-efgen's --rate (bit/s and seconds, bare numbers)."""
    if spec.constant:
        return "%d" % round(spec.mean_bps)
    return "cosine:%d:%r:%g" % (round(spec.mean_bps), spec.amplitude, spec.period_s)


def pss_bw_of(group):
    """The bw of PSS's AF queue that a scheduler group text runs with (its
    queues.af.bw, else pss.bw, else the daemon's 0.5), or None when the
    group's scheduler is not pss."""
    c = _group(group)
    if _read("--conf", c.sched_name) != "pss":
        return None
    return _read("--conf", c.pss_af_params)["bw"]
