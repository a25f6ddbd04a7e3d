"""provenance.py - the record of how one run was made.

start(...) before the run, finish(record) after it; the record is a plain
dict (JSON-ready) stored in the run's record (records.py):

  argv            [str]  the exact command of the run
  config_files    {name: text}  the configuration files' contents
  code            cache.code_state(): commit, tree, dirty, dirty_files,
                  dirty_hash
  binary          {"path", "sha256"}  the schedtun binary used
  kernel          {"sysname", "release", "version", "machine"}  (uname)
  cpu             {"model": str or None, "count": int}  (/proc/cpuinfo)
  loadavg_before  [1, 5, 15 min]  (/proc/loadavg) at start
  loadavg_after   the same at finish
  start_utc, end_utc  ISO 8601 UTC, milliseconds

Everything is read from proc_root (default /proc), os and git, each
injectable so that tests run on fake files.
"""
import datetime
import hashlib
import os

from schedlab import cache


def utc_now():
    """The current time, ISO 8601 UTC with milliseconds."""
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")


def seconds_between(start_utc, end_utc):
    """end - start in seconds, both utc_now() texts; ValueError otherwise."""
    a = datetime.datetime.fromisoformat(start_utc)
    b = datetime.datetime.fromisoformat(end_utc)
    return (b - a).total_seconds()


def loadavg(proc_root="/proc"):
    """[1-, 5-, 15-min load averages] from PROC/loadavg."""
    path = os.path.join(proc_root, "loadavg")
    with open(path) as f:
        fields = f.read().split()
    try:
        return [float(x) for x in fields[:3]]
    except ValueError:
        raise ValueError("provenance: %s '%s': not a load average (accepted: "
                         "three numbers)" % (path, " ".join(fields[:3]))) from None


def cpu_info(proc_root="/proc"):
    """{"model": the first "model name" in PROC/cpuinfo (None on CPUs
    that do not name it), "count": its processor entries}."""
    model, count = None, 0
    with open(os.path.join(proc_root, "cpuinfo")) as f:
        for line in f:
            name, _, value = line.partition(":")
            name = name.strip()
            if name == "processor":
                count += 1
            elif name == "model name" and model is None:
                model = value.strip()
    return {"model": model, "count": count or os.cpu_count()}


def sha256_file(path):
    """Hex sha256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def start(argv, config_files, binary, repo, proc_root="/proc", uname=os.uname,
          now=utc_now, code=None):
    """The record of a run about to start.

    config_files: {name: text}; binary: the schedtun binary's path; repo:
    the git work tree the code comes from (code: an already computed
    cache.code_state(), to read git once per sweep)."""
    u = uname()
    return {
        "argv": [str(a) for a in argv],
        "config_files": dict(config_files),
        "code": code if code is not None else cache.code_state(repo),
        "binary": {"path": os.path.abspath(binary), "sha256": sha256_file(binary)},
        "kernel": {"sysname": u.sysname, "release": u.release, "version": u.version,
                   "machine": u.machine},
        "cpu": cpu_info(proc_root),
        "loadavg_before": loadavg(proc_root),
        "loadavg_after": None,
        "start_utc": now(),
        "end_utc": None,
    }


def finish(record, proc_root="/proc", now=utc_now):
    """Completes start()'s record with the end time and load; returns it."""
    record["loadavg_after"] = loadavg(proc_root)
    record["end_utc"] = now()
    return record
