"""repeats.py - statistics of repeated runs: mean, sd, Student-t interval.

A figure point is run n times; each run gives one value per class (a
time-weighted mean rate over the window).  The point is reported as the
mean of those values with a two-sided 95 % confidence interval for the
true mean, mean +- t(0.975, n - 1) * sd / sqrt(n), sd the sample standard
deviation (divisor n - 1).  One run has no interval: it is said so
(`half_width` None and `note`), never shown as +- 0.

The error against theory is computed per run (measured_i - theory_i; the
theory of a varying link depends on the run's own window), then
summarised like the values: absolute (Mbit/s) always, relative (divided by
the theory) only when no run's theory is 0.
"""
import math

LEVEL = 0.95
NO_INTERVAL = "n = 1: no interval"


def t_quantile(df, level=LEVEL):
    """Two-sided Student-t quantile t((1 + level) / 2, df), df >= 1.

    scipy is imported here, not at module load, so the rest of the module
    works without it (Debian's python3-scipy provides it)."""
    from scipy.stats import t as student_t
    return float(student_t.ppf((1.0 + level) / 2.0, df))


class Summary:
    """n values summarised: n, mean, sd (None for n = 1), half_width and
    lo/hi of the `level` interval (None for n = 1, `note` saying why)."""

    __slots__ = ("n", "mean", "sd", "half_width", "lo", "hi", "level", "note")

    def __init__(self, values, level=LEVEL):
        vals = [float(v) for v in values]
        if not vals:
            raise ValueError("repeats: no values to summarise (accepted: 1 or more)")
        for v in vals:
            if not math.isfinite(v):
                raise ValueError("repeats: value '%r': not finite (accepted: finite numbers)" % v)
        self.n = len(vals)
        self.level = level
        self.mean = math.fsum(vals) / self.n
        if self.n == 1:
            self.sd = self.half_width = self.lo = self.hi = None
            self.note = NO_INTERVAL
            return
        self.sd = math.sqrt(math.fsum((v - self.mean) ** 2 for v in vals) / (self.n - 1))
        self.half_width = t_quantile(self.n - 1, level) * self.sd / math.sqrt(self.n)
        self.lo, self.hi = self.mean - self.half_width, self.mean + self.half_width
        self.note = None

    def as_dict(self):
        """The fields as a plain dict (JSON-ready)."""
        return {k: getattr(self, k) for k in self.__slots__}

    def __repr__(self):
        return "Summary(%r)" % self.as_dict()


def error_against_theory(measured, theory, level=LEVEL):
    """Per-run errors of `measured` against `theory` (equal-length lists).

    Returns {"abs": Summary of m - th (Mbit/s), "rel": Summary of
    (m - th) / th, or None when a theory is 0 (say so with "rel_note")}.
    A run without a theory (None) makes the whole error None: a point
    whose theory is missing has no error to show."""
    if len(measured) != len(theory):
        raise ValueError("repeats: %d measured values but %d theory values"
                         % (len(measured), len(theory)))
    if any(t is None for t in theory) or any(m is None for m in measured):
        return None
    absolute = [m - t for m, t in zip(measured, theory)]
    out = {"abs": Summary(absolute, level), "rel": None, "rel_note": None}
    if any(t == 0 for t in theory):
        out["rel_note"] = "theory 0: absolute error only"
    else:
        out["rel"] = Summary([a / t for a, t in zip(absolute, theory)], level)
    return out


def group_by_key(records, key=lambda r: r["key"]):
    """{key: [records]} in first-appearance order of the keys, each list
    ordered by repetition index ("rep"), so the grouping does not depend
    on the order runs were appended in."""
    groups = {}
    for r in records:
        groups.setdefault(key(r), []).append(r)
    for k in groups:
        groups[k].sort(key=lambda r: r.get("rep", 0))
    return groups


def point_stats(runs, classes, level=LEVEL):
    """Aggregates one point's run records (records.py's schema).

    Only valid runs count.  Returns {"n": valid runs, "discarded":
    [(rep, [reasons])], "classes": {c: {"measured": Summary or None,
    "theory_mbps": mean theory or None, "error": error_against_theory()}}}.
    A class without a measured value in some valid run gets None."""
    valid = [r for r in runs if r["valid"]]
    out = {"n": len(valid),
           "discarded": [(r["rep"], list(r["reasons"])) for r in runs if not r["valid"]],
           "classes": {}}
    for c in classes:
        meas = [r["results"]["classes"].get(c, {}).get("measured_mbps") for r in valid]
        theo = [r["results"]["classes"].get(c, {}).get("theory_mbps") for r in valid]
        if not valid or any(m is None for m in meas):
            out["classes"][c] = {"measured": None, "theory_mbps": None, "error": None}
            continue
        th_mean = None if any(t is None for t in theo) else math.fsum(theo) / len(theo)
        out["classes"][c] = {"measured": Summary(meas, level), "theory_mbps": th_mean,
                             "error": error_against_theory(meas, theo, level)}
    return out
