"""geoconf.py - the configuration texts of a geo.py run.

The experiment's addresses and ports (UL, TUN, DPORT, PORTS, EFGEN_PORT),
the EF packet (TOS, EF_PAYLOAD, EF_IP), where the schedtun binary is
(find_schedtun), the sender's scheduler group (conf_sched_group,
sched_group_name, default_sched_params, sched_group_text, pss_bw_of), the
daemons' configuration files (link_text, conf_text), schedtun-efgen's
--rate (efgen_spec) and the theory model of the run (theory_model).
Pure functions of the arguments and files: no Mininet, no root.
"""
import os
import re
import shutil

import theory
from geoerr import UsageError, bad

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
    """--schedtun, else ./build-rel/schedtun (repository), else PATH; UsageError."""
    if given:
        if not (os.path.isfile(given) and os.access(given, os.X_OK)):
            raise bad("--schedtun", given, "not an executable file")
        return os.path.abspath(given)
    for cand in (os.path.join(ROOT, "build-rel", "schedtun"),
                 os.path.join(os.getcwd(), "build-rel", "schedtun")):
        if os.access(cand, os.X_OK):
            return cand
    found = shutil.which("schedtun")
    if not found:
        raise UsageError("no schedtun: give --schedtun PATH, or build build-rel "
                         "(cmake -S . -B build-rel -DCMAKE_BUILD_TYPE=RelWithDebInfo)")
    return found


def conf_sched_group(path):
    """The text `scheduler = { ... };` of a libconfig file (comments kept).

    Braces inside strings and comments (#, //, /* */) are skipped.
    UsageError when there is no top-level scheduler group.
    """
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"(?m)^\s*scheduler\s*[=:]\s*\{", text)
    if not m:
        raise bad("--conf", path, "no top-level `scheduler = { ... };` group")
    i, depth = m.end(), 1
    while i < len(text) and depth:
        ch = text[i]
        if ch == '"':
            i = text.index('"', i + 1) if '"' in text[i + 1:] else len(text)
        elif ch == "#" or text.startswith("//", i):
            i = text.find("\n", i)
            i = len(text) if i < 0 else i
        elif text.startswith("/*", i):
            i = text.find("*/", i)
            i = len(text) if i < 0 else i + 1
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        i += 1
    if depth:
        raise bad("--conf", path, "the scheduler group is not closed")
    end = text.find(";", i)
    return text[m.start():i].strip() + ";" if end < 0 or text[i:end].strip() else \
        text[m.start():end + 1].strip()


def sched_group_name(group):
    """The `name = "..."` of a scheduler group text ('prio' when absent, the
    daemon's default)."""
    m = re.search(r'(?m)^\s*name\s*[=:]\s*"([a-z]+)"', group)
    return m.group(1) if m else "prio"


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

    K_AF: for dwrr the quanta found in the scheduler text (Q_AF/(Q_AF+Q_CS0),
    eq. 2 with Q = W L), else eq. 2 of --weights and the packet sizes.
    """
    k = theory.k_af(a.w_af, a.l_af, a.w_cs0, a.l_cs0)
    src = "eq. 2, W %d:%d, L %d/%d" % (a.w_af, a.w_cs0, a.l_af, a.l_cs0)
    if a.sched == "dwrr":
        m = re.search(r"quantum\s*[=:]\s*\{\s*af\s*[=:]\s*(\d+)\s*;\s*cs0\s*[=:]\s*(\d+)",
                      sched_text)
        if m:
            qa, qc = int(m.group(1)), int(m.group(2))
            k, src = qa / float(qa + qc), "dwrr quanta %d:%d" % (qa, qc)
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
    """The first `bw = x` of a scheduler group text, or None."""
    m = re.search(r"\bbw\s*[=:]\s*([0-9.eE+-]+)", group)
    try:
        return float(m.group(1)) if m else None
    except ValueError:
        return None
