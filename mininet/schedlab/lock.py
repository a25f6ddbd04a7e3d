"""lock.py - one experiment at a time on the machine.

An experiment's timing is only meaningful when nothing else loads the
machine.  ExperimentLock holds an exclusive flock on LOCK_PATH (under
/run: gone at reboot, root's) for the experiment's whole life; the file
names the holder (pid and command) so a refusal can say who.  The lock
goes with the process (flock is released when its file is closed, also
on a crash), so a stale file never blocks.  busy() lists the processes
that must not run beside an experiment: schedtun daemons and tools,
iperf3, Mininet's `mn` and its host shells (`bash ... mininet:h1`).

A holder that runs experiments as child processes (reproduce runs
geo.py) passes the lock down: child_env() adds ENV_VAR=<holder's pid> to
the child's environment, and take() in the child accepts the held lock
as its own (Inherited) only when that pid is the child's ancestor and is
the pid the lock file names, so a stray or copied variable grants
nothing (docs/run-records.md, "Lock").
"""
import errno
import fcntl
import os

LOCK_PATH = "/run/schedtun-experiment.lock"
BUSY_NAMES = ("schedtun", "schedtun-efgen", "iperf3", "mn")
ENV_VAR = "SCHEDTUN_EXPERIMENT_LOCK"


class Busy(RuntimeError):
    """The machine is taken: by another experiment's lock or by processes."""


class ExperimentLock:
    """with ExperimentLock(argv): ... - holds the lock or raises Busy.

    path: the lock file (LOCK_PATH); argv: the holder's command, written
    into the file."""

    inherited = False

    def __init__(self, argv, path=LOCK_PATH):
        self.argv, self.path, self.fd = list(argv), path, None

    def acquire(self):
        """Takes the lock (non-blocking) and writes `pid PID: COMMAND` into
        the file; returns self; Busy naming the holder when it is held."""
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise Busy("experiment lock %s: cannot open: %s (experiments run as root)"
                       % (self.path, e.strerror)) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as e:
            holder = _read(fd)
            os.close(fd)
            if e.errno in (errno.EWOULDBLOCK, errno.EACCES):
                raise Busy("experiment lock %s: held by %s; wait for it to finish"
                           % (self.path, holder or "an unknown process")) from None
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, ("pid %d: %s\n" % (os.getpid(), " ".join(self.argv))).encode(), 0)
        self.fd = fd
        return self

    def release(self):
        """Empties the file and drops the lock (the file stays: removing it
        would let a waiter lock an unlinked inode)."""
        if self.fd is not None:
            os.ftruncate(self.fd, 0)
            os.close(self.fd)
            self.fd = None

    def __enter__(self):
        return self.acquire()

    def __exit__(self, *exc):
        self.release()


class Inherited:
    """The lock an ancestor holds, accepted by take() (child_env()): the
    same interface as ExperimentLock; release() leaves it to its holder."""

    inherited = True

    def __init__(self, holder_pid, path=LOCK_PATH):
        self.holder_pid, self.path = holder_pid, path

    def release(self):
        """Nothing: the ancestor releases its own lock."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.release()



def child_env(env=None, pid=None):
    """A copy of env (default os.environ) with ENV_VAR set to pid (default
    this process): the environment of a child run that is to share this
    process's lock.  Only meaningful while this process holds the lock."""
    out = dict(os.environ if env is None else env)
    out[ENV_VAR] = str(os.getpid() if pid is None else pid)
    return out


def holder_pid(text):
    """The pid of a lock file's text (`pid PID: COMMAND`), or None."""
    head = text.split(":", 1)[0].split()
    if len(head) == 2 and head[0] == "pid" and head[1].isdigit():
        return int(head[1])
    return None


def parent_pid(pid, proc_root="/proc"):
    """PID's parent from PROC/PID/stat (field 4), or None when it is gone."""
    try:
        with open(os.path.join(proc_root, str(pid), "stat")) as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def is_ancestor(anc, pid, proc_root="/proc"):
    """True when process anc is pid's parent, grandparent, ... (not pid
    itself)."""
    seen = set()
    p = parent_pid(pid, proc_root)
    while p is not None and p > 0 and p not in seen:
        if p == anc:
            return True
        seen.add(p)
        p = parent_pid(p, proc_root)
    return False


def inherit(busy, path=LOCK_PATH, env=None, proc_root="/proc", own_pid=None):
    """The Inherited lock when ENV_VAR in env (default os.environ) names an
    ancestor of own_pid (default this process) that the lock file at path
    names as its holder; None when ENV_VAR is unset; otherwise re-raises
    `busy` (acquire()'s refusal) with why the variable was not accepted."""
    env = os.environ if env is None else env
    val = env.get(ENV_VAR)
    if val is None:
        return None
    own = os.getpid() if own_pid is None else own_pid
    try:
        with open(path) as f:
            named = holder_pid(f.read())
    except OSError:
        named = None
    why = None
    if not val.isdigit():
        why = "%s '%s': not a pid (accepted: the holder's pid)" % (ENV_VAR, val)
    elif named != int(val):
        why = "%s '%s': the lock file names pid %s" % (ENV_VAR, val, named)
    elif not is_ancestor(int(val), own, proc_root):
        why = "%s '%s': not an ancestor of pid %d" % (ENV_VAR, val, own)
    if why:
        raise Busy("%s; %s" % (busy, why)) from None
    return Inherited(int(val), path)


def _read(fd):
    try:
        return os.pread(fd, 4096, 0).decode(errors="replace").strip()
    except OSError:
        return ""


def busy(proc_root="/proc", own_pid=None):
    """[(pid, name, command line)] of the processes that must not run beside
    an experiment, by pid; own_pid (default this process) is left out."""
    own = os.getpid() if own_pid is None else own_pid
    found = []
    for d in os.listdir(proc_root):
        if not d.isdigit() or int(d) == own:
            continue
        try:
            with open(os.path.join(proc_root, d, "comm")) as f:
                comm = f.read().strip()
            with open(os.path.join(proc_root, d, "cmdline"), "rb") as f:
                args = [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
        except OSError:             # the process ended while we looked
            continue
        base = os.path.basename(args[0]) if args else ""
        if comm in BUSY_NAMES or base in BUSY_NAMES:
            found.append((int(d), base if base in BUSY_NAMES else comm, " ".join(args)))
        elif any(a.startswith("mininet:") for a in args):
            found.append((int(d), "mininet host", " ".join(args)))
    return sorted(found)


def check_idle(proc_root="/proc", force=False, own_pid=None):
    """Raises Busy naming what runs (unless force); returns busy()'s list."""
    found = busy(proc_root, own_pid)
    if found and not force:
        raise Busy("the machine is busy: %s; stop them, or force to run anyway"
                   % "; ".join("%s pid %d (%s)" % (n, p, c) for p, n, c in found))
    return found


def take(argv, force=False, path=LOCK_PATH, proc_root="/proc", env=None):
    """The experiment's start: the lock, then the idle check (so another
    experiment is named by its lock, not by its processes).

    Returns (the held lock, busy()'s list, non-empty only when forced);
    raises Busy, with the lock released, when the machine is taken.  When
    the lock is held by an ancestor that passed it down (child_env(),
    inherit()), returns an Inherited lock and busy()'s list without
    refusing: the holder checked the machine and made the force decision
    for its whole run, and what runs now may be its own."""
    try:
        held = ExperimentLock(argv, path).acquire()
    except Busy as e:
        got = inherit(e, path, env, proc_root)
        if got is None:
            raise
        return got, check_idle(proc_root, force=True)
    try:
        return held, check_idle(proc_root, force)
    except BaseException:
        held.release()
        raise
