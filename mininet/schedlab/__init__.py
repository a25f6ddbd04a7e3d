"""schedlab - the schedtun experiment library (issue 20).

One pipeline, each stage a module that imports only the ones before it:
topology -> traffic -> measurement -> theory -> results -> plots.  Under
it: units (rates and durations exactly as src/util/units.c reads them),
conf (configuration files read with python3-libconf) and theory (the PSS
paper's equations); the run machinery: repeats, stall, provenance, cache,
records, lock, tables, experiment (a point run until n valid runs); the
topology: procs (process bookkeeping and the leftover sweep), pairconf (a
schedtun pair's configuration texts), link (SchedtunLink, a schedtun pair
as a Mininet link); geo.py's run, stage by stage: geospec (the
experiment's definition), traffic, follow (live lines), measure,
runtheory, results, outputs, plot, and georun (GeoRun, which joins
them); runerr (the errors of a run).

Import its modules as `schedlab.<module>` with mininet/ on sys.path.  This
file imports nothing, so that the pure-Python modules (and their unit
tests) load without Mininet or matplotlib.
"""
