"""schedlab - the schedtun experiment library (issue 20).

Import its modules as `schedlab.<module>` with mininet/ on sys.path.  This
file imports nothing, so that the pure-Python modules (and their unit
tests) load without Mininet or matplotlib.
"""
