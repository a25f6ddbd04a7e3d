"""schedlab/pairconf.py - the configuration texts of a schedtun pair.

A schedtun link has two daemons: end 1 sends through the link under test
(its scheduler, rate or C(t) profile, one-way delay), end 2 carries the
return path (default: fifo at 1 Gbit/s, the same delay).  End(...) holds
what differs per end (tun name, tunnel and underlay addresses, stats
file); PairSpec(...) the link's options; pair_texts(spec) returns both
configuration files' texts.  Pure functions: no Mininet, no root; the
python3-libconf import happens only for a `conf` file (it is read, its
`tunnel` and `stats` groups replaced by the link's own).

Values go into the file as the daemon accepts them (docs/configuration.md):
a rate is a string such as "20Mbit" or a number of bit/s, a duration a
string such as "250ms" or a number of seconds; `schedtun --check -f`
judges the rest, so a bad value fails there with the daemon's message.
"""
import os
import re
from dataclasses import dataclass, field
from typing import Optional

SCHEDS = ("fifo", "prio", "pss", "dwrr", "pdrr", "dq", "ticket")
PROFILE_KINDS = ("cosine", "trace", "mahimahi")
DEFAULT_PORT = 5000
DEFAULT_MTU = 1400
DEFAULT_RATE = "20Mbit"        # the daemon's own default, written out


class ConfError(ValueError):
    """A bad link option, worded `WHAT 'value': problem (accepted: ...)`."""


def bad(what, value, problem):
    """A ConfError naming the option and its value."""
    return ConfError("%s '%s': %s" % (what, value, problem))


@dataclass
class End:
    """One daemon of the pair: its tun, addresses and stats file.

    tun_cidr: the tun's address with its prefix ("172.30.0.1/30");
    ul_ip: this end's underlay address, without a prefix; packet_log: the
    daemon's per-packet log (stats.packet_log, docs/pktlog.md), None: off.
    """
    tun: str
    tun_cidr: str
    ul_ip: str
    stats_file: str
    packet_log: Optional[str] = None


@dataclass
class PairSpec:
    """The link's options (see docs/mininet-link.md).

    Forward path (end 1 -> end 2): sched (a scheduler name or a whole
    `scheduler = {...};` group text), sched_params (members added to a
    named scheduler's group), rate or profile (a dict: kind, then the kind's
    keys), delay; or conf, a schedtun file whose groups other than tunnel
    and stats are kept (rate/profile/delay given here still override its
    link group).  Return path: rev_sched, rev_rate, rev_delay (None: the
    forward delay).
    """
    rate: object = None          # None without a profile: DEFAULT_RATE
    profile: Optional[dict] = None
    delay: object = 0
    sched: str = "prio"
    sched_params: str = ""
    conf: Optional[str] = None
    rev_sched: str = "fifo"
    rev_rate: object = "1Gbit"
    rev_delay: object = None
    mtu: int = DEFAULT_MTU
    port: int = DEFAULT_PORT
    stats_interval_s: float = 1.0
    label: str = "schedtun link"
    end1: Optional[End] = None
    end2: Optional[End] = None
    extra: dict = field(default_factory=dict)


def _quoted(what, value):
    """value as a libconfig string literal; refuses quotes and backslashes,
    which no rate, duration or path here needs."""
    s = str(value)
    if not s or '"' in s or "\\" in s or "\n" in s:
        raise bad(what, s, "empty, or contains a quote, backslash or newline")
    return '"%s"' % s


def rate_value(what, rate):
    """A rate as a libconfig value: a number of bit/s (> 0) or a string such
    as "20Mbit" / "unlimited", quoted (a string keeps rates above 2^31 whole)."""
    if isinstance(rate, bool):
        raise bad(what, rate, "not a rate (accepted: \"20Mbit\", 20e6, \"unlimited\")")
    if isinstance(rate, (int, float)):
        if not rate > 0:
            raise bad(what, rate, "must be above 0 bit/s")
        return '"%d"' % round(rate)
    return _quoted(what, rate)


def duration_value(what, d):
    """A duration as a libconfig value: seconds (a number, >= 0) or a string
    such as "250ms"."""
    if isinstance(d, bool):
        raise bad(what, d, "not a duration (accepted: \"250ms\", 0.25)")
    if isinstance(d, (int, float)):
        if d < 0:
            raise bad(what, d, "must be >= 0 s")
        return '"%dus"' % round(d * 1e6)
    return _quoted(what, d)


def profile_group(profile, base_dir=None):
    """`profile = { ... };` from a dict {"kind": "cosine", "mean": "20Mbit",
    "amplitude": 0.3, "period": "15s"} or {"kind": "trace"|"mahimahi",
    "file": PATH}; a relative file is taken from base_dir (default: the
    current directory) and written absolute, since the generated file lives
    elsewhere."""
    if not isinstance(profile, dict):
        raise bad("profile", profile, "not a dict (accepted: {'kind': 'cosine', "
                  "'mean': ..., 'amplitude': ..., 'period': ...} or {'kind': "
                  "'trace'|'mahimahi', 'file': PATH})")
    kind = profile.get("kind")
    if kind not in PROFILE_KINDS:
        raise bad("profile kind", kind, "unknown (accepted: %s)" % ", ".join(PROFILE_KINDS))
    if kind == "cosine":
        need = ("mean", "amplitude", "period")
        missing = [k for k in need if k not in profile]
        if missing or set(profile) - set(need) - {"kind"}:
            raise bad("profile", profile, "a cosine takes exactly mean, amplitude, period")
        amp = profile["amplitude"]
        if isinstance(amp, bool) or not isinstance(amp, (int, float)):
            raise bad("profile amplitude", amp, "not a number (accepted: 0 <= a < 1)")
        body = 'kind = "cosine"; mean = %s; amplitude = %r; period = %s;' % (
            rate_value("profile mean", profile["mean"]), float(amp),
            duration_value("profile period", profile["period"]))
    else:
        if set(profile) != {"kind", "file"}:
            raise bad("profile", profile, "a %s profile takes exactly file" % kind)
        path = os.path.join(base_dir or os.getcwd(), profile["file"])
        body = 'kind = "%s"; file = %s;' % (kind, _quoted("profile file",
                                                           os.path.abspath(path)))
    return "profile = { %s };" % body


def link_group(rate=None, profile=None, delay=0, base_dir=None):
    """`link = { rate or profile; delay; };` (exactly one of rate, profile)."""
    if (rate is None) == (profile is None):
        raise bad("rate/profile", "%s/%s" % (rate, profile),
                  "give exactly one of a rate and a profile")
    cap = ("rate = %s;" % rate_value("rate", rate) if profile is None
           else profile_group(profile, base_dir))
    return "link = { %s delay = %s; };" % (cap, duration_value("delay", delay))


def sched_group(sched, params=""):
    """`scheduler = {...};`: sched is a group text (starting with
    `scheduler`, used as is; params must then be empty) or a scheduler name,
    whose group gets the members in params (e.g. 'pss = { bw = 0.6; };')."""
    s = (sched or "").strip()
    if re.match(r"scheduler\s*[=:]", s):
        if params:
            raise bad("sched_params", params, "only with a scheduler name, not a group text")
        return s if s.endswith(";") else s + ";"
    if s not in SCHEDS:
        raise bad("sched", s, "unknown scheduler (accepted: %s, or a "
                  "'scheduler = {...};' group text)" % " ".join(SCHEDS))
    return 'scheduler = { name = "%s"; %s};' % (s, params.strip() + " " if params else "")


def tunnel_group(end, peer, mtu, port):
    """`tunnel = {...};` of one end: listen on its own underlay address
    (so that several links in one node share the port), send to the peer's."""
    if not 576 <= int(mtu) <= 9000:
        raise bad("mtu", mtu, "out of range (accepted: 576..9000 bytes)")
    if not 1 <= int(port) <= 65535:
        raise bad("port", port, "out of range (accepted: 1..65535)")
    return ('tunnel = { tun = %s; address = %s; mtu = %d; listen = "%s:%d"; '
            'peer = "%s:%d"; };' % (_quoted("tun", end.tun), _quoted("tun address",
                                                                    end.tun_cidr),
                                    mtu, end.ul_ip, port, peer.ul_ip, port))


def stats_group(path, interval_s, packet_log=None):
    """`stats = { interval; file; [packet_log;] };`."""
    if isinstance(interval_s, bool) or not isinstance(interval_s, (int, float)) \
            or interval_s < 0:
        raise bad("stats_interval", interval_s, "not a number of seconds "
                  "(accepted: 0 = off, or 0.01..3600)")
    plog = "" if packet_log is None else " packet_log = %s;" % _quoted(
        "packet log", packet_log)
    return "stats = { interval = %r; file = %s;%s };" % (
        float(interval_s), _quoted("stats file", path), plog)


def conf_from_file(path, spec):
    """(text, delay): the groups of schedtun file `path` but tunnel and
    stats, as text, the link group's rate/profile/delay replaced by spec's
    when spec sets them (rate only when the file has no profile), trace
    paths made absolute; delay is the forward delay in effect (spec's, else
    the file's, else 0), for the return path.  ConfError when the file does
    not parse."""
    import libconf       # only here: the rest of the module needs no Debian package
    try:
        with open(path, encoding="utf-8") as f:
            doc = libconf.load(f)
    except (OSError, libconf.ConfigParseError) as e:
        raise bad("conf", path, "cannot read it: %s" % e) from None
    doc.pop("tunnel", None)
    doc.pop("stats", None)
    base = os.path.dirname(os.path.abspath(path))
    link = dict(doc.pop("link", {}))
    prof = link.get("profile")
    if spec.profile is not None:
        link.pop("rate", None)
        link.pop("profile", None)
    elif isinstance(prof, dict) and "file" in prof:
        link["profile"] = dict(prof, file=os.path.join(base, prof["file"]))
    text = [libconf.dumps(doc).strip()] if doc else []
    members = []
    for k, v in link.items():
        if k in ("rate", "delay", "profile") and (
                (k == "rate" and spec.profile is None and spec.rate is not None) or
                (k == "delay" and spec.delay is not None)):
            continue
        members.append(libconf.dumps({k: v}).strip())
    if spec.profile is not None:
        members.append(profile_group(spec.profile, base))
    elif spec.rate is not None and "profile" not in link:
        members.append("rate = %s;" % rate_value("rate", spec.rate))
    if spec.delay is not None:
        members.append("delay = %s;" % duration_value("delay", spec.delay))
    text.append("link = { %s };" % " ".join(members))
    return "\n".join(text), spec.delay if spec.delay is not None else link.get("delay", 0)


def conf_text(label, end, peer, spec, link, sched):
    """A whole configuration file for `end` talking to `peer`."""
    return "\n".join([
        "# generated by schedlab for %s (%s)" % (label, end.tun),
        tunnel_group(end, peer, spec.mtu, spec.port),
        link,
        sched,
        stats_group(end.stats_file, spec.stats_interval_s, end.packet_log),
        ""])


def pair_texts(spec):
    """(end 1's text, end 2's text) for a PairSpec with end1/end2 set."""
    if spec.end1 is None or spec.end2 is None:
        raise ConfError("pair_texts: both ends (End) must be set")
    delay = spec.delay
    if spec.conf is not None:
        body1, delay = conf_from_file(spec.conf, spec)
        fwd = conf_text(spec.label, spec.end1, spec.end2, spec, body1, "")
    else:
        fwd = conf_text(spec.label, spec.end1, spec.end2, spec,
                        link_group(DEFAULT_RATE if spec.rate is None and spec.profile is None
                                   else spec.rate, spec.profile, spec.delay),
                        sched_group(spec.sched, spec.sched_params))
    rev = conf_text(spec.label, spec.end2, spec.end1, spec,
                    link_group(spec.rev_rate, None,
                               delay if spec.rev_delay is None else spec.rev_delay),
                    sched_group(spec.rev_sched))
    return fwd, rev


# ---------------------------------------------------------------- the pair's plan

def pair_in(pool, index, prefixlen=30):
    """The two host addresses ("a.b.c.d/prefixlen" each) of subnet number
    `index` of size prefixlen inside pool ("172.31.0.0/16"); ConfError when
    the pool has no such subnet."""
    import ipaddress
    try:
        net = ipaddress.ip_network(pool)
    except ValueError as e:
        raise bad("address pool", pool, str(e)) from None
    if not net.prefixlen <= prefixlen <= net.max_prefixlen - 2:
        raise bad("address pool", pool, "cannot hold /%d subnets" % prefixlen)
    count = 1 << (prefixlen - net.prefixlen)
    if not 0 <= index < count:
        raise bad("address pool", pool, "has %d /%d subnets, link %d asks for one more "
                  "(give addresses, or a larger pool)" % (count, prefixlen, index))
    sub = ipaddress.ip_network((int(net.network_address) + index * (1 << (
        net.max_prefixlen - prefixlen)), prefixlen))
    hosts = sub.hosts()
    return tuple("%s/%d" % (next(hosts), prefixlen) for _ in range(2))


def free_tun_name(taken, prefix="st"):
    """The first prefix0, prefix1, ... not in `taken` (names in use in one
    node: its interfaces and the tuns its other links reserved)."""
    i = 0
    while "%s%d" % (prefix, i) in taken:
        i += 1
    return "%s%d" % (prefix, i)


def route_cmds(tun, via_ip, prefixes):
    """The `ip route replace` commands sending each prefix (a network such
    as "10.2.0.0/24") into `tun` towards the peer's tun address via_ip;
    ConfError for a prefix that is not a network."""
    import ipaddress
    out = []
    for p in prefixes:
        try:
            net = ipaddress.ip_network(p, strict=True)
        except ValueError as e:
            raise bad("behind prefix", p, "%s (accepted: a network such as "
                      "10.2.0.0/24)" % e) from None
        out.append("ip route replace %s via %s dev %s" % (net, via_ip, tun))
    return out
