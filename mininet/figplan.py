"""figplan.py - what a sweep still has to run, and how long it will take.

plan() prepares every point of the requested figures (figprep), keys it
(reproduce.point_of, schedlab.cache) and asks the records file what it
still needs (schedlab.records.needs); a point that several figures share
is counted once, under the first.  overhead_s() is the mean time a run
takes beyond its traffic (Mininet, the daemons, the tools starting and
stopping), from the records' provenance, or DEFAULT_OVERHEAD_S without
any.  Progress turns runs done into an ETA for the log of a long sweep.
"""
import time

from schedlab import cache, provenance, records

DEFAULT_OVERHEAD_S = 12.0      # measured: 8 quick runs of 8 s took 19.5 s each


class Item:
    """One point of the plan: fig (the first figure that has it), run
    (prepared), point (schedlab.experiment.Point), key, need
    (records.needs), shared_with ([other figures])."""

    def __init__(self, fig, run, point, key, need):
        self.fig, self.run, self.point, self.key, self.need = fig, run, point, key, need
        self.shared_with = []


def plan(todo, figures, timing_of, point_of, prepare, store, repeat, retry_limit, code):
    """[Item] in the order they will run (figures, then their points).

    figures: figlist.FIGURES; timing_of(name), point_of(run, name, timing),
    prepare(run) as in reproduce.py; code: cache.code_state()."""
    recs = records.load(store)
    items, by_key = [], {}
    for name in todo:
        timing = timing_of(name)
        for r in figures[name]["runs"]():
            point = point_of(prepare(r), name, timing)
            key = cache.run_key(point.params, code)
            if key in by_key:
                by_key[key].shared_with.append(name)
                continue
            it = Item(name, r, point, key, records.needs(recs, key, repeat, retry_limit))
            by_key[key] = it
            items.append(it)
    return items


def overhead_s(recs):
    """Mean wall time of a run beyond its traffic, from the records."""
    extra = []
    for r in recs:
        prov = r["provenance"]
        try:
            wall = provenance.seconds_between(prov["start_utc"], prov["end_utc"])
        except (KeyError, ValueError, TypeError):
            continue
        extra.append(wall - float(r["params"].get("duration_s", 0)))
    return sum(extra) / len(extra) if extra else DEFAULT_OVERHEAD_S


def runs_left(items):
    return sum(it.need["to_run"] for it in items)


def seconds_left(items, overhead):
    """The sweep's remaining wall time, if no run is discarded."""
    return sum(it.need["to_run"] * (it.point.duration_s + overhead) for it in items)


def table(items, overhead, repeat):
    """The plan as text lines: one per figure, then the total."""
    figs = []
    for it in items:
        if it.fig not in figs:
            figs.append(it.fig)
    out = ["%-8s %6s %6s %6s %9s %9s" % ("figure", "points", "done", "gaveup", "runs left",
                                         "minutes")]
    for f in figs:
        mine = [it for it in items if it.fig == f]
        done = sum(1 for it in mine if it.need["valid"] >= repeat)
        gave = sum(1 for it in mine if it.need["gave_up"])
        out.append("%-8s %6d %6d %6d %9d %9.0f" % (f, len(mine), done, gave, runs_left(mine),
                                                  seconds_left(mine, overhead) / 60.0))
    out.append("%-8s %6d %6s %6s %9d %9.0f" % ("all", len(items), "", "", runs_left(items),
                                              seconds_left(items, overhead) / 60.0))
    out.append("(n = %d valid runs per point; a run = its traffic + %.1f s of set-up, "
               "from %s; points shared between figures counted under the first)"
               % (repeat, overhead, "the records" if overhead != DEFAULT_OVERHEAD_S
                  else "a default"))
    return out


class Progress:
    """Runs done and the ETA of a sweep of `total` runs."""

    def __init__(self, total, first_estimate_s, clock=time.monotonic):
        self.total, self.done, self.clock = total, 0, clock
        self.t0, self.first = clock(), first_estimate_s

    def tick(self):
        self.done += 1

    def text(self):
        """'runs 5 of 12, 6 min in, about 9 min left'."""
        spent = self.clock() - self.t0
        if self.done:
            left = spent / self.done * max(self.total - self.done, 0)
        else:
            left = self.first
        return "runs %d of %d, %.0f min in, about %.0f min left" % (
            self.done, self.total, spent / 60.0, left / 60.0)
