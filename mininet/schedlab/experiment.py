"""experiment.py - one figure point, run until it has n valid runs.

A point is one configuration of a figure (a scheduler, its parameters, a
link, an EF load, a duration...).  run_point() looks the point up in the
records file by its cache key (cache.py: the parameters and the code),
runs what it still needs (records.needs: n valid runs wanted, stalled or
failed runs discarded and retried up to a limit), judges each new run
(judge(): the runner's exit status, its summary.json, the stall rule of
stall.py on the sender's stats lines) and appends one record per run
(records.py), valid or not, with its provenance (provenance.py).  The run
itself is the caller's `runner(argv, out_dir) -> exit status` (geo.py in
Mininet for the figures; a fake in the unit tests), so nothing here needs
Mininet or root.

Mininet runs have no seedable randomness of their own (TCP's, the
kernel's scheduling): a record's seed is None and its `rep` tells the
repetitions apart.
"""
import json
import os

from schedlab import cache, provenance, records, stall

# the sender daemon's stats and the daemons' configurations in a geo.py
# run's directory (mininet/README.md, "Outputs")
SENDER_STATS = "stats-a.jsonl"
CONFIG_NAMES = ("a.conf", "b.conf")


class Point:
    """One figure point.

    experiment: the figure's name; params: the cache key's inputs
    (cache.REQUIRED_PARAMS at least); argv(out_dir) -> the run's command;
    never_full: the classes whose queue the theory says never fills (the
    stall rule); binary: the schedtun binary the run uses; extract(out_dir)
    -> a JSON object of the run's own numbers kept in its record
    (results["extra"]), or None for none."""

    def __init__(self, experiment, params, argv, never_full=(), binary=None,
                 extract=None):
        self.experiment, self.params, self.argv = experiment, params, argv
        self.never_full, self.binary = tuple(never_full), binary
        self.extract = extract

    @property
    def warmup_s(self):
        return float(self.params["warmup_s"])

    @property
    def duration_s(self):
        return float(self.params["duration_s"])


def _stats_lines(path):
    """The sender's stats lines; a last line being written is left out."""
    out = []
    with open(path) as f:
        for ln in f:
            if ln.endswith("\n") and ln.strip():
                out.append(json.loads(ln))
    return out


def judge(status, out_dir, point):
    """(reasons, summary) of a finished run: reasons [] when the run is
    valid; summary the run's summary.json (None when it has none).

    Invalid: a non-zero exit status, no summary.json, no sender stats, or
    the stall rule (a departure > 100 ms late after the warm-up, an
    overflow in a never-full class), on the window the summary used and
    the sender's offset between its own time and the traffic's."""
    reasons = []
    if status != 0:
        reasons.append("the run exited with status %d (see its log)" % status)
    try:
        with open(os.path.join(out_dir, "summary.json")) as f:
            summary = json.load(f)
    except (OSError, ValueError) as e:
        reasons.append("no summary.json: %s" % e)
        return reasons, None
    try:
        lines = _stats_lines(os.path.join(out_dir, SENDER_STATS))
    except (OSError, ValueError) as e:
        reasons.append("no sender stats (%s): %s" % (SENDER_STATS, e))
        return reasons, summary
    w0, w1 = summary.get("window_s") or (point.warmup_s, point.duration_s)
    offset = summary.get("sender_offset_s")
    if offset is None:
        reasons.append("summary.json has no sender_offset_s: the stall rule cannot "
                       "place the window on the sender's clock")
        return reasons, summary
    reasons += stall.stall_reasons(lines, w0, w1, point.never_full, offset_s=offset)
    return reasons, summary


def _config_texts(out_dir):
    texts = {}
    for name in CONFIG_NAMES:
        try:
            with open(os.path.join(out_dir, name)) as f:
                texts[name] = f.read()
        except OSError:
            pass
    return texts


def run_dir(workdir, point, key, rep):
    """Where run `rep` of a point writes: WORKDIR/EXPERIMENT-KEY12-repN."""
    return os.path.join(workdir, "%s-%s-rep%d" % (point.experiment, key[:12], rep))


def run_point(point, store, workdir, n, retry_limit, runner, code, repo, log,
              proc_root="/proc"):
    """Runs `point` until the records file `store` holds n valid runs of
    it, or retry_limit of its runs were discarded.  Returns records.needs()'s
    verdict after the last run (with "key").

    runner(argv, out_dir) -> exit status runs one repetition; code is
    cache.code_state(repo), read once per sweep; log(str) reports
    progress (one line per run, with the reasons of a discarded one)."""
    key = cache.run_key(point.params, code)
    while True:
        need = records.needs(records.load(store), key, n, retry_limit)
        if need["to_run"] == 0:
            need["key"] = key
            log(need["message"])
            return need
        rep = need["next_rep"]
        out = run_dir(workdir, point, key, rep)
        os.makedirs(out, exist_ok=True)
        argv = point.argv(out)
        prov = provenance.start(argv, {}, point.binary, repo, proc_root=proc_root,
                                code=code)
        status = runner(argv, out)
        provenance.finish(prov, proc_root=proc_root)
        prov["config_files"] = _config_texts(out)
        reasons, summary = judge(status, out, point)
        try:
            extra = point.extract(out) if point.extract and summary else None
        except (OSError, ValueError, KeyError, TypeError) as e:
            reasons.append("its extra numbers cannot be read: %s" % e)
            extra = None
        try:
            res = records.results(summary, extra) if summary else {}
        except records.RecordError as e:
            reasons.append(str(e))
            res = {}
        rec = records.make(point.experiment, point.params, key, rep, None,
                           not reasons, reasons, res, prov)
        records.append(store, rec)
        log("%s rep %d: %s" % (key[:12], rep,
                               "valid" if not reasons else "discarded: " + "; ".join(reasons)))
