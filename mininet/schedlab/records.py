"""records.py - the committed per-run summaries, one JSON line per run.

A records file (RUNS.jsonl) holds one compact JSON object per line,
append-only; docs/run-records.md lists the fields.  append() writes one
whole line with one write() and fsync()s it, and refuses a file whose
last line is unterminated, so no partial line is ever built on; load()
treats any line that is not a valid record as an error naming FILE:LINE.
The measured numbers are geo.py's summary.json per class (results()),
not its per-second CSVs.
"""
import json
import os

from schedlab import cache

SCHEMA = 1
FIELDS = ("schema", "experiment", "params", "key", "rep", "seed", "valid", "reasons",
          "results", "provenance")
CLASS_FIELDS = ("measured_mbps", "theory_mbps", "theory_instant_mbps", "theory",
                "rel_error", "iperf_mbps", "algorithm1_bw_c_mbps")


class RecordError(ValueError):
    """A records file or record that is not what this schema says."""


def results(summary, extra=None):
    """The part of a geo.py summary.json a record keeps: {"window_s",
    "classes": {c: CLASS_FIELDS present}, "link", "ef_owd_ms" (when the
    summary has it)}, plus "extra": the caller's own numbers of the run
    (a JSON object, e.g. mininet/figextract.py's) when given."""
    try:
        out = {"window_s": summary["window_s"],
               "classes": {c: {k: v[k] for k in CLASS_FIELDS if k in v}
                           for c, v in summary["classes"].items()},
               "link": summary["link"]}
    except (KeyError, TypeError, AttributeError) as e:
        raise RecordError("records: summary: missing %s (accepted: geo.py's "
                          "summary.json)" % e) from None
    if "ef_owd_ms" in summary:
        out["ef_owd_ms"] = summary["ef_owd_ms"]
    if extra is not None:
        if not isinstance(extra, dict):
            raise RecordError("records: extra '%r': not a JSON object" % (extra,))
        out["extra"] = extra
    return out


def make(experiment, params, key, rep, seed, valid, reasons, results_, provenance):
    """One run's record (checked)."""
    rec = {"schema": SCHEMA, "experiment": experiment, "params": params, "key": key,
           "rep": rep, "seed": seed, "valid": valid, "reasons": list(reasons),
           "results": results_, "provenance": provenance}
    check(rec)
    return rec


def check(rec, where="records"):
    """RecordError naming `where` unless rec has every field, right-typed."""
    if not isinstance(rec, dict):
        raise RecordError("%s: not a JSON object (accepted: a run record)" % where)
    missing = [f for f in FIELDS if f not in rec]
    if missing:
        raise RecordError("%s: missing %s (accepted: a record with %s)"
                          % (where, ", ".join(missing), ", ".join(FIELDS)))
    if rec["schema"] != SCHEMA:
        raise RecordError("%s: schema '%s': unknown (accepted: %d)"
                          % (where, rec["schema"], SCHEMA))
    types = {"experiment": str, "params": dict, "key": str, "rep": int, "valid": bool,
             "reasons": list, "results": dict, "provenance": dict}
    for f, t in types.items():
        if not isinstance(rec[f], t) or (t is int and isinstance(rec[f], bool)):
            raise RecordError("%s: %s '%s': not %s" % (where, f, rec[f], t.__name__))
    if not all(isinstance(x, str) for x in rec["reasons"]):
        raise RecordError("%s: reasons %r: not all strings" % (where, rec["reasons"]))
    if rec["valid"] == bool(rec["reasons"]):
        raise RecordError("%s: valid %s with %d reasons (accepted: valid with none, "
                          "invalid with at least one)"
                          % (where, rec["valid"], len(rec["reasons"])))


def append(path, rec):
    """Appends rec as one line, durably (write + fsync), or raises."""
    check(rec)
    line = (cache.canonical_json(rec) + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        size = os.fstat(fd).st_size
        if size:
            with open(path, "rb") as f:
                f.seek(size - 1)
                if f.read(1) != b"\n":
                    raise RecordError("%s:%d: last line unterminated (a partial write); "
                                      "repair the file before appending"
                                      % (path, _count_lines(path)))
        try:
            if os.write(fd, line) != len(line):
                raise OSError("%s: short write (disk full?); record not appended" % path)
            os.fsync(fd)
        except OSError:
            os.ftruncate(fd, size)      # no partial line left behind
            raise
    finally:
        os.close(fd)


def _count_lines(path):
    with open(path, "rb") as f:
        return f.read().count(b"\n") + 1


def load(path):
    """Every record of a records file, in order ([] when it does not exist)."""
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        data = f.read()
    out = []
    lines = data.split("\n")
    for i, line in enumerate(lines, 1):
        if i == len(lines):
            if line:
                raise RecordError("%s:%d: unterminated last line" % (path, i))
            break
        try:
            rec = json.loads(line)
        except ValueError as e:
            raise RecordError("%s:%d: not JSON: %s" % (path, i, e)) from None
        check(rec, "%s:%d" % (path, i))
        out.append(rec)
    return out


def select(recs, key=None, experiment=None):
    """The records of one point (key) and/or one experiment, in order."""
    return [r for r in recs if (key is None or r["key"] == key)
            and (experiment is None or r["experiment"] == experiment)]


def needs(recs, key, n_wanted, retry_limit):
    """What a point still needs: {"valid", "discarded", "to_run", "next_rep",
    "gave_up", "message"}.

    to_run = n_wanted - valid runs, but 0 once retry_limit runs of the point
    were discarded (a point that keeps stalling is reported, not retried
    forever: gave_up True and the message says so).  next_rep: the next
    unused repetition index."""
    if n_wanted < 1 or retry_limit < 0:
        raise ValueError("records: n_wanted %d, retry_limit %d (accepted: n >= 1, "
                         "limit >= 0)" % (n_wanted, retry_limit))
    mine = select(recs, key=key)
    valid = sum(1 for r in mine if r["valid"])
    discarded = len(mine) - valid
    to_run = max(n_wanted - valid, 0)
    gave_up = to_run > 0 and discarded >= retry_limit
    msg = "%s: %d valid of %d wanted, %d discarded" % (key[:12], valid, n_wanted, discarded)
    if gave_up:
        msg += "; retry limit %d reached, not run again" % retry_limit
        to_run = 0
    return {"valid": valid, "discarded": discarded, "to_run": to_run,
            "next_rep": max((r["rep"] for r in mine), default=-1) + 1,
            "gave_up": gave_up, "message": msg}
