"""geoproc.py - the bookkeeping of the processes a geo.py run starts.

Exports Procs (every process of the run, recorded in STATE_DIR/<pid>.json
and stopped on exit), alive, proc_start_time, sweep_leftovers (what runs
killed without cleanup left behind, for the next run and --cleanup),
wait_until (polling with a deadline) and STATE_DIR.
"""
import json
import os
import signal
import subprocess
import time

from geoerr import RunError

STATE_DIR = "/run/schedtun-geo"


def proc_start_time(pid):
    """Field 22 of /proc/PID/stat (start time in clock ticks), or None."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            rest = f.read().rsplit(")", 1)[1].split()
        return int(rest[19])
    except (OSError, IndexError, ValueError):
        return None


class Procs:
    """Every process this run starts, recorded in STATE_DIR/<our pid>.json so
    that a later run (or --cleanup) can stop them if we are SIGKILLed."""

    def __init__(self):
        self.items = []          # (name, Popen or None, pid)
        os.makedirs(STATE_DIR, exist_ok=True)
        self.state = os.path.join(STATE_DIR, "%d.json" % os.getpid())
        self._save()

    def _save(self):
        """Rewrites the state file: our pid and (pid, start time) of each child."""
        doc = {"owner": os.getpid(), "owner_start": proc_start_time(os.getpid()),
               "procs": [[n, pid, proc_start_time(pid)] for n, _, pid in self.items]}
        with open(self.state + ".tmp", "w") as f:
            json.dump(doc, f)
        os.replace(self.state + ".tmp", self.state)

    def add(self, name, popen=None, pid=None):
        """Records a started process (a Popen, or a bare pid such as a host shell)."""
        self.items.append((name, popen, popen.pid if popen else pid))
        self._save()
        return popen

    def stop(self, names=None, grace=5.0):
        """SIGTERM, then after `grace` s SIGKILL, the recorded processes (all,
        or those whose name starts with one of `names`); reaps them."""
        sel = [it for it in self.items
               if names is None or any(it[0].startswith(n) for n in names)]
        for _, p, pid in sel:
            if alive(p, pid):
                try:
                    os.kill(pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + grace
        for _, p, pid in sel:
            while alive(p, pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            if alive(p, pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            if p is not None:
                try:
                    p.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    pass
        return sel

    def close(self):
        """Removes the state file (call after everything is stopped)."""
        try:
            os.unlink(self.state)
        except OSError:
            pass


def alive(popen, pid):
    """True while the process runs (a Popen is polled, a bare pid probed)."""
    if popen is not None:
        return popen.poll() is None
    return proc_start_time(pid) is not None and os.path.exists("/proc/%d" % pid)


def sweep_leftovers(log):
    """Stops what geo.py runs killed without cleanup left behind.

    For each STATE_DIR/<pid>.json whose owner is gone: SIGKILL each recorded
    process still running with the same start time (never a recycled pid),
    which also lets its Mininet namespaces go; then deletes the file.
    Returns the number of processes killed.
    """
    n = 0
    if not os.path.isdir(STATE_DIR):
        return 0
    for fn in sorted(os.listdir(STATE_DIR)):
        path = os.path.join(STATE_DIR, fn)
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError):
            continue
        owner = doc.get("owner")
        if owner == os.getpid() or (proc_start_time(owner) is not None and
                                    proc_start_time(owner) == doc.get("owner_start")):
            continue
        for name, pid, start in doc.get("procs", []):
            if start is not None and proc_start_time(pid) == start:
                try:
                    os.kill(pid, signal.SIGKILL)
                    n += 1
                    log("killed leftover %s (pid %d) of dead run %s" % (name, pid, owner))
                except ProcessLookupError:
                    pass
        try:
            os.unlink(path)
        except OSError:
            pass
    return n


def wait_until(desc, timeout, pred, poll=0.1, abort=None):
    """Polls pred() until true (returns) or `timeout` s pass (RunError);
    abort() returning a message ends the wait early with that error."""
    deadline = time.monotonic() + timeout
    while True:
        if pred():
            return
        if abort:
            msg = abort()
            if msg:
                raise RunError("%s (waiting for %s)" % (msg, desc))
        if time.monotonic() >= deadline:
            raise RunError("timed out after %gs waiting for %s" % (timeout, desc))
        time.sleep(poll)
