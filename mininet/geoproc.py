"""geoproc.py - geo.py's process bookkeeping, now schedlab/procs.py.

Re-exports Procs, alive, proc_start_time, sweep_leftovers and STATE_DIR
(/run/schedtun-geo); wait_until raises geoerr.RunError, the error geo.py
reports with exit status 1.
"""
import functools

from geoerr import RunError
from schedlab.procs import STATE_DIR, Procs, alive, proc_start_time, sweep_leftovers
from schedlab.procs import wait_until as _wait_until

wait_until = functools.partial(_wait_until, error=RunError)

__all__ = ["STATE_DIR", "Procs", "alive", "proc_start_time", "sweep_leftovers",
           "wait_until"]
