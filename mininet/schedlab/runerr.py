"""schedlab/runerr.py - the two errors of a geo.py run and how they are worded.

UsageError (a bad command line, exit 2), RunError (the run failed, exit
1) and bad() (a UsageError naming the option and its value).  Its own
module so that the argument checks (geo.py, geospec), the run (georun,
traffic) and the front ends raise the same classes without importing
each other.
"""


class UsageError(Exception):
    """A bad command line: printed as `geo.py: MESSAGE`, exit 2."""


class RunError(Exception):
    """The run failed: printed as `geo.py: ERROR: MESSAGE`, exit 1."""


def bad(opt, value, problem):
    """A UsageError in the form `--opt 'value': problem`."""
    return UsageError("%s '%s': %s" % (opt, value, problem))
