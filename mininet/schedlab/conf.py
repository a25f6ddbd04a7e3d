"""conf.py - schedtun configuration files read with python3-libconf.

load(path) / loads(text, source) parse a libconfig text (comments, escaped
quotes, one-line groups and @include as libconfig itself reads them; a
setting given twice is refused, as libconfig refuses it) and return a Conf.
Its readers give what the daemon would run with, defaults included:
  sched_name()          scheduler.name ("prio" when absent)
  scheduler()           the scheduler group (a dict; {} when absent)
  sched_group_text()    that group as a libconfig text `scheduler = {...};`
  dwrr_quanta_bytes()   {"af": Q, "cs0": Q}: quantum, or weights x packet_size
  pss_af_params()       {"bw", "lm", "lr"} of PSS's AF queue
  link_rate_bps()       link.rate (units.parse_rate_bps; RATE_UNLIMITED;
                        None when a profile replaces it)
  link_delay_ns()       link.delay (units.parse_duration_ns)
Every problem is a ConfError (a ValueError) worded
"SOURCE: key: problem (accepted: ...)".  Only the keys read here are
checked; `schedtun --check` remains the judge of a whole file.
"""
import io
import os

import libconf

from schedlab import units

# The daemon's defaults for what is read here (src/sched/dwrr.c,
# src/sched/pss.c, src/conf/conf.c).
DEFAULT_SCHED = "prio"
DWRR_DEFAULT_QUANTUM_BYTES = {"af": 4500, "cs0": 3000}
DWRR_DEFAULT_WEIGHT = {"af": 3, "cs0": 2}
DWRR_DEFAULT_PACKET_BYTES = 1500
DWRR_QUANTUM_BYTES = (64, 1000000)
DWRR_WEIGHT = (1, 10000)
DWRR_PACKET_BYTES = (64, 65535)
PSS_DEFAULTS = {"bw": 0.5, "lm": 3000, "lr": 0}
LINK_DEFAULT_RATE = "20Mbit"
LINK_DEFAULT_DELAY = "0"
LINK_MAX_DELAY_NS = 10 * 10 ** 9
DWRR_CLASSES = ("af", "cs0")


class ConfError(ValueError):
    """A configuration that cannot be read: "SOURCE: key: problem (accepted: ...)"."""


class _Parser(libconf.Parser):
    """libconf's parser, refusing a setting given twice in one group as
    libconfig does (libconf would keep the last one silently)."""

    def setting_list_or_empty(self):
        result = libconf.AttrDict()
        while True:
            tok = self.tokens.peek()
            s = self.setting()
            if s is None:
                return result
            if s[0] in result:
                raise libconf.ConfigParseError(
                    "line %d: setting '%s' given twice" % (tok.row, s[0]))
            result[s[0]] = s[1]


def _parse(f, source, includedir):
    """The root group of the libconfig text in file object f."""
    try:
        stream = libconf.TokenStream.from_file(f, filename=source,
                                               includedir=includedir)
        return _Parser(stream).parse()
    except libconf.ConfigParseError as e:
        raise ConfError("%s: syntax: %s (accepted: libconfig syntax, "
                        "schedtun.conf(5))" % (source, e)) from None


def load(path):
    """The Conf of file `path`; @include names are relative to its directory,
    as the daemon sets libconfig's include directory.  ConfError when the
    file cannot be read or parsed."""
    try:
        with open(path, encoding="utf-8") as f:
            root = _parse(f, path, os.path.dirname(path))
    except OSError as e:
        raise ConfError("%s: %s (accepted: a readable libconfig file)"
                        % (path, e.strerror)) from None
    return Conf(root, path)


def loads(text, source="<text>", includedir=""):
    """The Conf of a libconfig text; source names it in messages, @include
    names are relative to includedir (default: the working directory)."""
    return Conf(_parse(io.StringIO(text), source, includedir), source)


def _c_text(v):
    """A scalar as the daemon's value layer turns it into text for the unit
    parsers (cfgcheck.c cval_from_setting), or None for what has none."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return "%d" % v
    if isinstance(v, float):
        t = "%.15g" % v
        return t if float(t) == v else "%.17g" % v
    if isinstance(v, str):
        return v
    return None


def _describe(v):
    """How the daemon quotes a value in messages (cfgcheck.c cfg_describe)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return "'%s'" % v
    if isinstance(v, (int, float)):
        return _c_text(v)
    if isinstance(v, dict):
        return "a group"
    return "an array" if isinstance(v, libconf.LibconfArray) else "a list"


class Conf:
    """One parsed configuration: root (libconf's dict), source (its name)."""

    def __init__(self, root, source):
        self.root = root
        self.source = source

    def error(self, key, problem):
        """A ConfError for `key` ("SOURCE: key: problem")."""
        return ConfError("%s: %s: %s" % (self.source, key, problem))

    def group(self, key, parent=None, where=None):
        """parent[key] as a dict ({} when absent); ConfError when not a group."""
        parent = self.root if parent is None else parent
        v = parent.get(key, {})
        if not isinstance(v, dict):
            raise self.error(where or key, "%s is not a group (accepted: "
                             "{ ... })" % _describe(v))
        return v

    def scheduler(self):
        """The top-level scheduler group ({} when absent: the daemon's prio)."""
        return self.group("scheduler")

    def sched_name(self):
        """scheduler.name, the daemon's "prio" when absent."""
        v = self.scheduler().get("name", DEFAULT_SCHED)
        if not isinstance(v, str):
            raise self.error("scheduler.name", "%s is not a string (accepted: "
                             "a scheduler name such as \"pss\")" % _describe(v))
        return v

    def sched_group_text(self):
        """The scheduler group as a libconfig text `scheduler = { ... };` that
        reads back to the same values (comments dropped)."""
        return libconf.dumps({"scheduler": self.scheduler()}).strip()

    def integer(self, grp, key, where, lo, hi, default):
        """grp[key] as an int in lo..hi (an integral float counts, as in the
        daemon), default when absent."""
        v = grp.get(key, default)
        ok = (not isinstance(v, bool) and isinstance(v, (int, float))
              and v == int(v))
        if not ok or not lo <= int(v) <= hi:
            raise self.error(where, "%s is %s (accepted: %d..%d)" % (
                _describe(v), "out of range" if ok else "not an integer", lo, hi))
        return int(v)

    def dwrr_quanta_bytes(self):
        """{"af": Q_AF, "cs0": Q_CS0} in bytes, what DWRR runs with: the
        quantum group, else weights x packet_size (one size, or a group by
        class), members not given at the daemon's defaults."""
        dwrr = self.group("dwrr", self.scheduler(), "scheduler.dwrr")
        where = "scheduler.dwrr."
        if "weights" not in dwrr:
            q = self.group("quantum", dwrr, where + "quantum")
            return {c: self.integer(q, c, where + "quantum." + c,
                                    *DWRR_QUANTUM_BYTES,
                                    DWRR_DEFAULT_QUANTUM_BYTES[c])
                    for c in DWRR_CLASSES}
        if "quantum" in dwrr:
            raise self.error(where + "weights", "given with quantum (accepted: "
                             "either quantum = { af, cs0 } in bytes, or weights "
                             "= { af, cs0 } with packet_size)")
        w = self.group("weights", dwrr, where + "weights")
        size = dwrr.get("packet_size", DWRR_DEFAULT_PACKET_BYTES)
        out = {}
        for c in DWRR_CLASSES:
            wc = self.integer(w, c, where + "weights." + c, *DWRR_WEIGHT,
                              DWRR_DEFAULT_WEIGHT[c])
            if isinstance(size, dict):
                lc = self.integer(size, c, where + "packet_size." + c,
                                  *DWRR_PACKET_BYTES, DWRR_DEFAULT_PACKET_BYTES)
            else:
                lc = self.integer(dwrr, "packet_size", where + "packet_size",
                                  *DWRR_PACKET_BYTES, DWRR_DEFAULT_PACKET_BYTES)
            if wc * lc > DWRR_QUANTUM_BYTES[1]:
                raise self.error(where + "weights." + c, "weight %d x packet_size "
                                 "%d = %d bytes per turn is too large (accepted: "
                                 "weight x packet_size <= %d bytes)"
                                 % (wc, lc, wc * lc, DWRR_QUANTUM_BYTES[1]))
            out[c] = wc * lc
        return out

    def pss_af_params(self):
        """{"bw": fraction, "lm": bytes, "lr": bytes} of PSS's AF queue:
        scheduler.pss.queues.af's own, else scheduler.pss's, else the
        daemon's defaults (0.5, 3000, 0)."""
        pss = self.group("pss", self.scheduler(), "scheduler.pss")
        queues = self.group("queues", pss, "scheduler.pss.queues")
        af = self.group("af", queues, "scheduler.pss.queues.af")
        out = {}
        for key, default in PSS_DEFAULTS.items():
            grp, where = ((af, "scheduler.pss.queues.af." + key) if key in af
                          else (pss, "scheduler.pss." + key))
            if key == "bw":
                v = grp.get(key, default)
                if (isinstance(v, bool) or not isinstance(v, (int, float))
                        or not 0 < v < 1):
                    raise self.error(where, "%s is %s (accepted: 0 < bw < 1)" % (
                        _describe(v), "out of range" if isinstance(v, (int, float))
                        and not isinstance(v, bool) else "not a number"))
                out[key] = float(v)
            else:
                out[key] = self.integer(grp, key, where, 1 if key == "lm" else 0,
                                        units.UNITS_MAX, default)
        return out

    def _link_value(self, key, default, parse, what, accepted):
        """link.KEY through a units parser; "SOURCE: link.KEY: message"."""
        v = self.group("link").get(key, default)
        text = _c_text(v)
        if text is None:
            raise self.error("link." + key, "%s is not a %s (accepted: %s)"
                             % (_describe(v), what, accepted))
        try:
            return parse(text)
        except ValueError as e:
            raise self.error("link." + key, str(e)) from None

    def link_rate_bps(self):
        """link.rate in bit/s (RATE_UNLIMITED for "unlimited"), the daemon's
        20Mbit when absent, None when link.profile gives C(t) instead."""
        link = self.group("link")
        if "profile" in link and "rate" not in link:
            return None
        return self._link_value("rate", LINK_DEFAULT_RATE,
                                lambda t: units.parse_rate_bps(t, True), "rate",
                                units.RATE_ACCEPTED + '; or "unlimited"')

    def link_delay_ns(self):
        """link.delay in ns, 0..10 s as the daemon allows (0 when absent)."""
        ns = self._link_value("delay", LINK_DEFAULT_DELAY, units.parse_duration_ns,
                              "duration", units.DURATION_ACCEPTED)
        if ns > LINK_MAX_DELAY_NS:
            raise self.error("link.delay", "'%s' is out of range (accepted: 0..10s)"
                             % _c_text(self.group("link")["delay"]))
        return ns
