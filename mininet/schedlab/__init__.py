"""schedlab - the schedtun experiment library (issue 20).

One pipeline, each stage a module that imports only the ones before it:
topology -> traffic -> measurement -> theory -> results -> plots, with
units (rates and durations exactly as src/util/units.c reads them) and
conf (configuration files read with python3-libconf) underneath.

Import the modules themselves (`from schedlab import units`); this file
imports nothing, so that the unit tests run without Mininet or matplotlib.
"""
