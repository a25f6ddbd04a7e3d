"""lock.py - one experiment at a time on the machine.

An experiment's timing is only meaningful when nothing else loads the
machine.  ExperimentLock holds an exclusive flock on LOCK_PATH (under
/run: gone at reboot, root's) for the experiment's whole life; the file
names the holder (pid and command) so a refusal can say who.  The lock
goes with the process (flock is released when its file is closed, also
on a crash), so a stale file never blocks.  busy() lists the processes
that must not run beside an experiment: schedtun daemons and tools,
iperf3, Mininet's `mn` and its host shells (`bash ... mininet:h1`).
"""
import errno
import fcntl
import os

LOCK_PATH = "/run/schedtun-experiment.lock"
BUSY_NAMES = ("schedtun", "schedtun-efgen", "iperf3", "mn")


class Busy(RuntimeError):
    """The machine is taken: by another experiment's lock or by processes."""


class ExperimentLock:
    """with ExperimentLock(argv): ... - holds the lock or raises Busy.

    path: the lock file (LOCK_PATH); argv: the holder's command, written
    into the file."""

    def __init__(self, argv, path=LOCK_PATH):
        self.argv, self.path, self.fd = list(argv), path, None

    def acquire(self):
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


def take(argv, force=False, path=LOCK_PATH, proc_root="/proc"):
    """The experiment's start: the lock, then the idle check (so another
    experiment is named by its lock, not by its processes).

    Returns (the held ExperimentLock, busy()'s list, non-empty only when
    forced); raises Busy, with the lock released, when the machine is
    taken."""
    held = ExperimentLock(argv, path).acquire()
    try:
        return held, check_idle(proc_root, force)
    except BaseException:
        held.release()
        raise
