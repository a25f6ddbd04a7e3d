#!/usr/bin/env bash
# reproduce.sh - run the sweeps behind the PSS paper's figures and draw them.
#
#   scripts/reproduce.sh fig5..fig12|compare|all [--quick] [--out DIR] [--schedtun PATH]
#                        [--results DIR | --update-committed] [--repeat N]
#                        [--retry-limit K] [--records FILE] [--force]
#   scripts/reproduce.sh all --redraw [--check] [--records FILE] [--results DIR]
#   scripts/reproduce.sh all --plan [--repeat N] [--records FILE]
#   scripts/reproduce.sh ticket|dq|pdrr [--points core|all] [--repeat N] [--quick]
#                        [--update-committed] [--plan] [--redraw [--check]] ...
#
# Each figure is a list of mininet/geo.py runs (one at a time: 2 cores), then
# a plot and a Markdown table in DIR/results/<figure>.png / .md (--results:
# elsewhere; --update-committed: the tracked mininet/results/, explicitly
# only; --quick: 8-s runs, a smoke check of the machinery only: TCP is
# still in slow start, the rates mean nothing).  Each point runs until
# the records (DIR/runs.jsonl; default DIR results-tmp/repro) hold N valid
# runs of it (--repeat, default 3), stalled ones recorded, discarded and
# retried; a point recorded under the same key (its parameters and the
# code) is not run again, so an interrupted sweep resumes where it
# stopped.  Everything drawn comes from the records: per point the mean
# over its valid runs and the 95 % interval (error bars, mean +- half-width),
# DIR/results/<figure>-runs.md every run's key, README.md the largest errors.
# --redraw runs nothing (no root needed): it draws from the records (default
# mininet/results/runs.jsonl); --redraw --check writes nothing and fails when
# a committed table differs from its redraw by one byte.  --plan runs nothing
# either: per figure the points, the runs the records still need and the
# wall time they will take (a long sweep logs the same ETA as it goes).
# One experiment at a time: it refuses to start beside another schedtun,
# iperf3 or Mininet (--force) (mininet/reproduce.py, docs/run-records.md).
#   fig5     PSS vs DWRR, EF known: AF and CS0 vs K_AF for R_EF 0.25/0.5/0.75 C
#   fig6     R_EF^exp = 0.5 C, real R_EF 0.25/0.5/0.75 C: AF and CS0 vs K_AF
#   fig7     varying C and EF (section 4.2): PSS with and without LR memory
#   fig8     fig7's 81:19 runs at EF_avg 0.75 C over time, with the credit
#   fig9     varying C and EF: PSS with and without the dtime < 0 branch
#   fig10    fig9's 81:19 runs at EF_avg 0.25 C over time, with the credit
#   fig11    varying C and EF, EF as expected: PSS vs DWRR
#   fig12    varying C and EF, R_EF^exp = 0.5 C_avg: PSS vs DWRR
#   compare  the seven schedulers through the same GEO run (table only)
#   all      all of the above, in this order
#   ticket   the TICKET paper's section 3 (In-Time PHB): 27 TFRC flows
#            marked at 267 kbit/s, web background at three overloads, d
#            swept, TICKET against naive, n = 5 by default
#            (mininet/ticketsweep.py, docs/ticket-mininet.md; records in
#            mininet/results/ticket-runs.jsonl)
#   dq       the Dual Queue paper's Table 1 experiment 1: 50 web sources
#            behind 500 kbit/s, 2 Mbit/s, 500 kB, 500 ms return; dq, its
#            two ablations, fifo, DRRexp against think time; n = 5
#            (mininet/dqsweep.py, docs/dq-mininet.md)
#   pdrr     the PDRR paper's Fig. 3 (left) and section 5: a 10 Mbit/s
#            link, open-loop TCP transfers and on-off UDP flows; PDRR vs
#            DRR at load 0.9, and 11 Mbit/s offered with and without
#            admission control; 300-s runs, n = 5
#            (mininet/pdrrsweep.py, docs/pdrr-mininet.md)
# Runs last 40 s, means over 10-40 s; on the varying link 45 s, means over
# 15-45 s (two periods of C); --quick: 8 and 12 s.  The paper's 100 s would
# make the sweep more than twice as long (--plan prints its estimate).
# Needs root.  Installs what is missing (scripts/deps.sh experiments: Mininet, iperf3,
# python3-matplotlib, ...) and brings build-rel/ (schedtun, schedtun-efgen,
# schedtun-sim) up to date first, unless --schedtun PATH is given; see
# mininet/README.md.  Exit status: 0 done, 2 bad arguments, 130 stopped.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
driver=$here/mininet/reproduce.py
case "${1:-}" in
  -h|--help|"")
    sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'
    exec /usr/bin/python3 "$driver" --help ;;
  ticket) driver=$here/mininet/ticketsweep.py ;;
  dq) driver=$here/mininet/dqsweep.py ;;
  pdrr) driver=$here/mininet/pdrrsweep.py ;;
esac
if [[ " $* " == *" --redraw "* ]] || { [[ " $* " == *" --plan "* ]] && [ "$(id -u)" != 0 ]; }; then
  exec /usr/bin/python3 "$driver" "$@"
fi
if [ "$(id -u)" != 0 ]; then
  echo "reproduce.sh: needs root (Mininet)" >&2; exit 2
fi
cd "$here"
if [[ " $* " != *" --schedtun "* ]]; then
  bash scripts/deps.sh experiments
  # incremental: a no-op when up to date, a rebuild after a pull
  cmake -S . -B build-rel -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build build-rel -j"$(nproc)" --target schedtun schedtun-efgen schedtun-sim >/dev/null
fi
exec /usr/bin/python3 "$driver" "$@"
