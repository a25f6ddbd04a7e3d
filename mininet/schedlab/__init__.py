"""schedlab - schedtun's experiment library for Mininet (issue 20).

Import its modules as `schedlab.<module>` with mininet/ on sys.path; this
file imports nothing, so that the pure modules and their unit tests load
without Mininet or matplotlib.  Modules: procs (process bookkeeping and
leftover sweep), pairconf (a schedtun pair's configuration texts), link
(SchedtunLink, a schedtun pair as a Mininet link).
"""
