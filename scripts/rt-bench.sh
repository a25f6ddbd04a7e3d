#!/usr/bin/env bash
# rt-bench.sh - issue 10's opt-in real-time mode measured: departure
# lateness (p50, p99, max) and CPU at 20 Mbit/s (the EF+AF+CS0 mix, prio)
# and at paced 1 Gbit/s (fifo, 5 ms, iperf3 -P 4 cubic), per
# tunnel.realtime and link.slack, with the machine's timer floor with and
# without chrt in the same run.
#
#   flock /tmp/st/bench.lock scripts/rt-bench.sh [options]
#
# It runs scripts/bench.sh (parts paced and mix, no plainfwd rows) once per
# point and repetition, with --realtime and --slack; the points alternate
# within a repetition so that a drift of the machine's load spreads over
# all of them.  A bench.sh run with --realtime N >= 1 measures the timer
# floor twice: plain and under chrt -f N.
#
# Options:
#   --build-dir DIR   schedtun and plainfwd (default: build-rel)
#   --points LIST     comma-separated REALTIME:SLACK (default
#                     0:0us,50:0us,50:100us)
#   --reps N          repetitions of every point (default 2)
#   --parts LIST      bench.sh's --only: paced,mix (default), paced or mix
#   --pin-mode M      passed to bench.sh: unpinned, pinned or both (default both)
#   --time S          measured seconds per test (default 10)
#   --out DIR         results (default results-tmp/rt-<timestamp>): one
#                     bench.sh report per point and repetition,
#                     DIR/RT-SLACK-REP/bench.txt, and DIR/summary.txt
#   -h, --help
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
BUILD_DIR=build-rel POINTS=0:0us,50:0us,50:100us REPS=2 PIN_MODE=both TIME=10 OUT="" PARTS=paced,mix

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "rt-bench: $*" >&2; exit 1; }
while (( $# )); do
	case $1 in
	--build-dir) BUILD_DIR=$2; shift ;;
	--points) POINTS=$2; shift ;;
	--reps) REPS=$2; shift ;;
	--parts) PARTS=$2; shift ;;
	--pin-mode) PIN_MODE=$2; shift ;;
	--time) TIME=$2; shift ;;
	--out) OUT=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
	shift
done
[[ $REPS =~ ^[1-9][0-9]?$ ]] || die "--reps '$REPS': 1..99"
[[ $PARTS =~ ^(paced|mix|paced,mix|mix,paced)$ ]] || die "--parts '$PARTS': paced, mix or paced,mix"
[[ $BUILD_DIR == /* ]] || BUILD_DIR="$ROOT/$BUILD_DIR"
[[ -x $BUILD_DIR/schedtun && -x $BUILD_DIR/plainfwd ]] ||
	die "no schedtun/plainfwd in $BUILD_DIR (cmake -S . -B build-rel -DCMAKE_BUILD_TYPE=RelWithDebInfo)"
OUT=${OUT:-"$ROOT/results-tmp/rt-$(date +%Y%m%d-%H%M%S)"}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

IFS=, read -r -a LIST <<<"$POINTS"
for p in "${LIST[@]}"; do
	[[ $p =~ ^[0-9]+:[0-9.]+(us|ms|s)$ ]] || die "--points: '$p' is not REALTIME:SLACK (e.g. 50:100us)"
done
for (( rep = 1; rep <= REPS; rep++ )); do
	for p in "${LIST[@]}"; do
		rt=${p%%:*} slack=${p#*:}
		dir="$OUT/$rt-$slack-$rep"
		mkdir -p "$dir"
		echo "== realtime $rt, slack $slack, rep $rep/$REPS"
		"$HERE/bench.sh" --build-dir "$BUILD_DIR" --only "$PARTS" --paced-rates 1Gbit \
			--rates 20Mbit --no-plain-pacing --pin-mode "$PIN_MODE" --time "$TIME" \
			--realtime "$rt" --slack "$slack" --out "$dir" >"$dir/run.log" 2>&1 ||
			echo "rt-bench: bench.sh failed for $p rep $rep (see $dir/run.log)"
		grep -q "realtime = $rt;" "$dir"/*/*-a.conf 2>/dev/null || (( rt == 0 )) ||
			echo "rt-bench: WARNING: realtime $rt is not in the generated configuration"
	done
done
# One line per point, pin mode and repetition from bench.sh's results.json
# and the timer floors.
python3 - "$OUT" "$REPS" "${LIST[@]}" <<'PY' | tee "$OUT/summary.txt"
import json, os, sys
out, reps, points = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def f(r, k, spec):
    v = r.get(k)
    return format(v, spec) if isinstance(v, (int, float)) else "-"
def floor(d, name):
    try:
        return json.load(open(os.path.join(d, name)))
    except OSError:
        return {}
print(f"{'rt':>3} {'slack':>6} {'mode':>8} {'rep':>3} | {'floor p50/p99':>13} {'chrt p50/p99':>13} | "
      f"20M: {'late p50/p99/max us':>19} {'CPU a/b %':>11} | "
      f"1G: {'Mb/s':>5} {'late p50/p99/max us':>19} {'CPU a/b %':>9}")
for p in points:
    rt, slack = p.split(":")
    for rep in range(1, reps + 1):
        d = os.path.join(out, f"{rt}-{slack}-{rep}")
        fj = os.path.join(d, "results.json")
        if not os.path.exists(fj):
            print(f"{rt:>3} {slack:>6} (no results in {d})")
            continue
        for mode, m in json.load(open(fj))["modes"].items():
            x = (m.get("mix") or [{}])[0]
            q = (m.get("paced") or [{}])[0]
            fl = floor(os.path.join(d, mode), "timer-floor.json")
            fr = floor(os.path.join(d, mode), "timer-floor-rt.json")
            print(f"{rt:>3} {slack:>6} {mode:>8} {rep:>3} | "
                  f"{f(fl, 'p50_us', '.0f') + '/' + f(fl, 'p99_us', '.0f'):>13} "
                  f"{f(fr, 'p50_us', '.0f') + '/' + f(fr, 'p99_us', '.0f'):>13} | 20M: "
                  f"{f(x, 'late_p50_us', '.0f') + '/' + f(x, 'late_p99_us', '.0f') + '/' + f(x, 'late_max_us', '.0f'):>19} "
                  f"{f(x, 'cpu_a_pct', '.1f') + '/' + f(x, 'cpu_b_pct', '.1f'):>11} | 1G: "
                  f"{(format(q['carried_bps'] / 1e6, '.0f') if q.get('carried_bps') else '-'):>5} "
                  f"{f(q, 'late_p50_us', '.0f') + '/' + f(q, 'late_p99_us', '.0f') + '/' + f(q, 'late_max_us', '.0f'):>19} "
                  f"{f(q, 'cpu_a_pct', '.0f') + '/' + f(q, 'cpu_b_pct', '.0f'):>9}")
PY
echo "rt-bench: $OUT/summary.txt"
