"""schedlab/procs.py - the bookkeeping of the processes an experiment starts.

Exports Procs (processes recorded in a state file STATE_DIR/<pid>[-tag].json
and stopped on request), call_run (a child run that may clean up when we
are interrupted), alive, proc_start_time, sweep_leftovers (stops
what runs SIGKILLed without cleanup left behind), wait_until (polling with
a deadline), WaitError and STATE_DIR (geo.py's directory; other users pass
their own).  The state file exists so that a later run can tell a
leftover from a recycled pid: each entry keeps the process's start time.
Standard library only.
"""
import json
import os
import signal
import subprocess
import time

STATE_DIR = "/run/schedtun-geo"


# How long an interrupted run may take to clean up (stop its daemons and
# sources, take Mininet down) before it is killed.
CLEANUP_S = 120


def call_run(argv, stdout, env=None, cleanup_s=CLEANUP_S):
    """subprocess.call(argv) for a run that cleans up after itself on
    SIGINT (schedlab.onerun): on KeyboardInterrupt here it is sent SIGINT
    (a terminal's Ctrl-C has sent it one already; a `kill` of ours has
    not: see interruptible) and given cleanup_s to finish before SIGKILL; then the
    KeyboardInterrupt goes on.  subprocess.call would SIGKILL it at once,
    in the middle of its cleanup, leaving daemons and namespaces behind.
    A second interrupt while waiting leaves the run to finish its cleanup
    alone.  Returns the exit status."""
    p = subprocess.Popen(argv, stdout=stdout, stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL, env=env)
    try:
        return p.wait()
    except KeyboardInterrupt:
        try:
            p.send_signal(signal.SIGINT)
        except ProcessLookupError:
            pass
        try:
            p.wait(timeout=cleanup_s)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        raise


def _raise_interrupt(_signum, _frame):
    raise KeyboardInterrupt


def interruptible():
    """SIGINT, SIGTERM and SIGHUP raise KeyboardInterrupt from now on, in
    a driver that runs child runs through call_run: so `kill PID` stops a
    sweep as cleanly as Ctrl-C (the run in progress cleans up, its record
    is written as interrupted or not at all), and so does SIGINT to a
    sweep started in the background, where the shell set SIGINT to
    ignored."""
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, _raise_interrupt)


class WaitError(RuntimeError):
    """wait_until timed out or was aborted (the default error class)."""


def proc_start_time(pid):
    """Field 22 of /proc/PID/stat (start time in clock ticks), or None."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            rest = f.read().rsplit(")", 1)[1].split()
        return int(rest[19])
    except (OSError, IndexError, ValueError, TypeError):
        return None


class Procs:
    """Processes started by this Python process, recorded in
    state_dir/<our pid>.json (or <our pid>-<tag>.json, so that several
    owners in one process keep separate files) so that a later run can stop
    them if we are SIGKILLed."""

    def __init__(self, state_dir=STATE_DIR, tag=None):
        self.items = []          # (name, Popen or None, pid)
        os.makedirs(state_dir, exist_ok=True)
        base = "%d" % os.getpid() if tag is None else "%d-%s" % (os.getpid(), tag)
        self.state = os.path.join(state_dir, base + ".json")
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
        or those whose name starts with one of `names`); reaps them.
        Returns the (name, Popen, pid) entries it covered."""
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
        for path in (self.state, self.state + ".tmp"):
            try:
                os.unlink(path)
            except OSError:
                pass


def alive(popen, pid):
    """True while the process runs (a Popen is polled, a bare pid probed)."""
    if popen is not None:
        return popen.poll() is None
    return proc_start_time(pid) is not None and os.path.exists("/proc/%d" % pid)


def sweep_leftovers(log, state_dir=STATE_DIR):
    """Stops what runs killed without cleanup left behind.

    For each state_dir/*.json whose owner is gone: SIGKILL each recorded
    process still running with the same start time (never a recycled pid),
    which also lets its Mininet namespaces go; then deletes the file.
    Returns the number of processes killed.
    """
    n = 0
    if not os.path.isdir(state_dir):
        return 0
    for fn in sorted(os.listdir(state_dir)):
        if not fn.endswith(".json"):
            continue
        path = os.path.join(state_dir, fn)
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


def wait_until(desc, timeout, pred, poll=0.1, abort=None, error=WaitError):
    """Polls pred() until true (returns) or `timeout` s pass (raises `error`);
    abort() returning a message ends the wait early with that error."""
    deadline = time.monotonic() + timeout
    while True:
        if pred():
            return
        if abort:
            msg = abort()
            if msg:
                raise error("%s (waiting for %s)" % (msg, desc))
        if time.monotonic() >= deadline:
            raise error("timed out after %gs waiting for %s" % (timeout, desc))
        time.sleep(poll)
