"""geoio.py - the old name of geo.py's readers and writers, kept for users'
scripts that `import geoio` to read a run's files (rates.csv, the stats
lines).  The code is in schedlab: measure (readers, window means),
runtheory (per-interval and window theory), outputs (rates.csv,
credit.csv, summary.json), plot (rates.png, here as plot()).  New code
imports those modules.
"""
from schedlab.measure import (CLASSES, best_lag, efgen_lines, ef_owd,  # noqa: F401
                              in_window, iperf_error, iperf_rates, points_mean,
                              stats_credit, stats_lines, stats_rates, traffic_start,
                              window_mean)
from schedlab.outputs import (read_rates_csv, read_summary_json,  # noqa: F401
                              write_credit_csv, write_rates_csv, write_summary_json)
from schedlab.plot import COLORS, rates_png as plot  # noqa: F401
from schedlab.runtheory import theory_rows, window_theory  # noqa: F401
