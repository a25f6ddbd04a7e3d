"""schedlab/follow.py - a sender daemon's stats followed live.

live_line formats one stats interval (`t=  12.0 s  EF  10.00  AF ...`);
Follower turns the complete lines a stats file has gained since the last
call into such lines; follow() polls until the traffic is over, writing
each line to a file (geo.py's live.txt) and, unless quiet, to stdout.
No Mininet: the caller passes done() and died() callables.
"""
import time

from schedlab.measure import stats_lines, stats_rates


def live_line(row, line):
    """The live text of one interval: row from measure.stats_rates (Mbit/s,
    t1 in traffic time), line the stats line it came from (PSS's AF credit
    and priority from its sched member, when present)."""
    txt = "t=%6.1f s  EF %6.2f  AF %6.2f  CS0 %6.2f  link %6.2f Mbit/s" % (
        row["t1"], row["ef"], row["af"], row["cs0"], row["link"])
    q = line.get("sched", {}).get("af")
    if isinstance(q, dict) and "credit" in q:
        txt += "  AF credit %9.0f prio %s" % (q["credit"], q.get("prio"))
    return txt


class Follower:
    """The new intervals of a stats file, as live lines.

    path: the sender's stats file; offset_s: the daemon's t at traffic
    time 0 (its rows are shifted by it)."""

    def __init__(self, path, offset_s):
        self.path, self.offset_s = path, offset_s
        self.seen = 0

    def poll(self):
        """The live lines of the complete intervals written since the last
        call (a line being written is left for the next call)."""
        lines = stats_lines(self.path)
        # every row again: an interval's length comes from the line before it
        rows = stats_rates(lines, self.offset_s)
        new = [live_line(r, ln) for ln, r in zip(lines[self.seen:], rows[self.seen:])]
        self.seen = len(rows)
        return new


def follow(follower, live, quiet, done, died, end_s, grace_s=60.0, poll_s=0.25,
           error=RuntimeError):
    """Writes follower's new lines to the open file `live` (and stdout unless
    quiet) every poll_s until done() is true.  died() returning a message
    raises error(message); grace_s after end_s (the traffic's planned end
    on time.monotonic()) it gives up waiting and returns a warning.
    Returns the list of warnings."""
    while True:
        for txt in follower.poll():
            live.write(txt + "\n")
            live.flush()
            if not quiet:
                print(txt, flush=True)
        msg = died()
        if msg:
            raise error(msg)
        if done():
            return []
        if time.monotonic() > end_s + grace_s:
            return ["clients still running %gs after the end: stopped" % grace_s]
        time.sleep(poll_s)
