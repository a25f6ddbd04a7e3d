"""figdata.py - a figure's points as its run records give them.

A figure (figlist.py) names its points (figures.Run keys); the records
file (schedlab.records) holds the runs.  collect() finds each point's
runs: records whose params "point" is the Run's key and whose duration
and warm-up are the figure's; where the point ran under several cache
keys (another code, another iperf3), the newest key wins (the one whose
latest run started last, by provenance start_utc; ties: more valid runs,
then the key) and the others are counted, not mixed in: the choice does
not depend on the order of the records file.
The Run gets its calculated parameters (calc, sim) back from the record,
so drawing needs no binary.

A Point holds: run, key, valid (records, by repetition), discarded
[(rep, reasons)], stats (schedlab.repeats.point_stats), older_keys.
Helpers summarise the extra numbers (figextract.py) over the valid runs
and say what was run (footer()).
"""
import copy

from schedlab import provenance, repeats, tables

CLASSES = ("ef", "af", "cs0")


class Point:
    """One figure point's runs (module docstring)."""

    def __init__(self, run, key, recs, older_keys):
        self.run, self.key, self.older_keys = run, key, older_keys
        recs = sorted(recs, key=lambda r: r["rep"])
        self.valid = [r for r in recs if r["valid"]]
        self.discarded = [(r["rep"], list(r["reasons"])) for r in recs if not r["valid"]]
        self.stats = repeats.point_stats(recs, CLASSES)
        self.recs = recs

    @property
    def n(self):
        return len(self.valid)

    def measured(self, c):
        """The class's Summary over the valid runs, or None."""
        return self.stats["classes"][c]["measured"]

    def theory(self, c):
        return self.stats["classes"][c]["theory_mbps"]

    def error(self, c):
        return self.stats["classes"][c]["error"]

    def values(self, path):
        """[value] over the valid runs of results[path[0]][path[1]]...,
        Nones left out."""
        out = []
        for r in self.valid:
            v = r["results"]
            for p in path:
                v = v.get(p) if isinstance(v, dict) else None
            if v is not None:
                out.append(v)
        return out

    def mean_of(self, path):
        """repeats.Summary of values(path), or None when there are none."""
        vals = self.values(path)
        return repeats.Summary(vals) if vals else None


def _recency(recs, key):
    """The sort key of a cache key among a point's records (newest last)."""
    mine = [r for r in recs if r["key"] == key]
    start = max(str(r["provenance"].get("start_utc", "")) for r in mine)
    return (start, sum(1 for r in mine if r["valid"]), key)


def collect(recs, runs, timing):
    """{run.key: Point or None} for the figure's runs (module docstring)."""
    out = {}
    for run in runs:
        mine = [r for r in recs if r["params"].get("point") == run.key
                and r["params"].get("duration_s") == timing["duration"]
                and r["params"].get("warmup_s") == timing["warmup"]]
        if not mine:
            out[run.key] = None
            continue
        key = max({r["key"] for r in mine}, key=lambda k: _recency(mine, k))
        older = sorted({r["key"] for r in mine} - {key})
        chosen = [r for r in mine if r["key"] == key]
        drawn = copy.copy(run)
        drawn.calc = chosen[0]["params"].get("calc")
        drawn.sim = chosen[0]["params"].get("sim")
        drawn.sched_params = chosen[0]["params"].get("sched_group")
        out[run.key] = Point(drawn, key, chosen, older)
    return out


def value_text(s, fmt="%.3f"):
    """'mean ± half-width', 'mean (n = 1: no interval)' or '' for None."""
    if s is None:
        return ""
    if s.half_width is None:
        return (fmt % s.mean) + " (%s)" % repeats.NO_INTERVAL
    return (fmt + " ± " + fmt) % (s.mean, s.half_width)


error_text = tables.error_text


def worst_error(points, c, theory_zero=False):
    """(point, error) of the largest |mean error| of class c among points:
    the relative errors, or with theory_zero the absolute errors of the
    points whose theory is 0 (they have no relative one); (None, None)
    when no point has such an error."""
    best = (None, None, -1.0)
    for p in points:
        e = p.error(c) if p is not None else None
        if e is None or (e["rel"] is None) != theory_zero:
            continue
        size = abs((e["abs"] if theory_zero else e["rel"]).mean)
        if size > best[2]:
            best = (p, e, size)
    return best[0], best[1]


def footer(points, timing):
    """What was run, in one line: points, n per point, discarded runs, the
    runs' wall time, commits (dirty flagged), machine."""
    pts = [p for p in points if p is not None]
    ns = sorted({p.n for p in pts})
    disc = sum(len(p.discarded) for p in pts)
    recs = [r for p in pts for r in p.recs]
    wall_s = 0.0
    commits, cpus = {}, set()
    for r in recs:
        prov = r["provenance"]
        try:
            wall_s += provenance.seconds_between(prov["start_utc"], prov["end_utc"])
        except (KeyError, ValueError, TypeError):
            pass
        code = prov.get("code") or {}
        c = (code.get("commit") or "?")[:10] + (" (dirty)" if code.get("dirty") else "")
        commits[c] = commits.get(c, 0) + 1
        cpu = prov.get("cpu") or {}
        if cpu:
            cpus.add("%s x %s" % (cpu.get("count"), cpu.get("model") or "an unnamed CPU"))
    missing = sum(1 for p in points if p is None)
    n_text = "none" if not ns else ("%d" % ns[0] if len(ns) == 1 else "%d-%d" % (ns[0], ns[-1]))
    return ("%d points with runs%s; valid runs per point: %s; %d discarded; %d-s runs "
            "(means over %g-%g s); %.0f min of runs; commit %s; %s"
            % (len(pts), " (%d without)" % missing if missing else "", n_text, disc,
               timing["duration"], timing["warmup"], timing["duration"], wall_s / 60.0,
               ", ".join("%s: %d runs" % kv for kv in sorted(commits.items())) or "none",
               "; ".join(sorted(cpus)) or "machine unknown"))
