#!/usr/bin/env bash
# reproduce.sh - run the sweeps behind the PSS paper's figures and draw them.
#
#   scripts/reproduce.sh fig5|fig6|compare|all [--quick] [--out DIR] [--schedtun PATH]
#
# Each figure is a list of mininet/geo.py runs (one at a time: 2 cores), then
# a plot and a Markdown table in mininet/results/<figure>.png / .md (with
# --quick: 8-s runs, outputs in DIR/results, a smoke check of the machinery
# only: TCP is still in slow start, the rates mean nothing).  Runs go to
# DIR/<run key>/ (default results-tmp/repro); a run whose summary.json exists
# is skipped, so an interrupted sweep resumes where it stopped.
#   fig5     PSS vs DWRR, EF known: AF and CS0 vs K_AF for R_EF 0.25/0.5/0.75 C
#   fig6     R_EF^exp = 0.5 C, real R_EF 0.25/0.5/0.75 C: AF and CS0 vs K_AF
#   compare  the seven schedulers through the same GEO run (table only)
#   all      fig5, fig6 and compare
#   fig7..fig12  variable capacity: not yet (the next slice)
# Needs root, Mininet (Debian, /usr/bin/python3) and python3-matplotlib;
# see mininet/README.md.  Exit status: 0 done, 2 bad arguments, 130 stopped.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
case "${1:-}" in
  -h|--help|"")
    sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exec /usr/bin/python3 "$here/mininet/reproduce.py" --help ;;
esac
if [ "$(id -u)" != 0 ]; then
  echo "reproduce.sh: needs root (Mininet)" >&2; exit 2
fi
cd "$here"
exec /usr/bin/python3 "$here/mininet/reproduce.py" "$@"
