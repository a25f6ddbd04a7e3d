#!/usr/bin/env bash
# slack-bench.sh - issue 10's "fewer wake-ups" lever measured: link.slack's
# cost in departure lateness and its gain in CPU and wake-ups, at 20 Mbit/s
# (the EF+AF+CS0 mix) and 1 Gbit/s (fifo, 5 ms, iperf3 -P 4 cubic).
#
#   flock /tmp/st/bench.lock scripts/slack-bench.sh [options]
#
# It runs scripts/bench.sh (the issue-10 benchmark, parts paced and mix)
# once per slack value, unchanged: bench.sh writes its own configuration
# files and has no option for link.slack, so each run gets a build
# directory whose `schedtun` is a two-line wrapper that copies the file it
# is given with `slack = "S";` added to the link group and execs the real
# binary (same pid: bench.sh's CPU and context-switch readings are the
# daemon's).  plainfwd is the real one (a symlink).
#
# Options:
#   --bench PATH      bench.sh to run (default: scripts/bench.sh next to this)
#   --build-dir DIR   the real schedtun and plainfwd (default: build)
#   --slacks LIST     comma-separated durations (default 0us,50us,100us,200us)
#   --pin-mode M      passed to bench.sh (default unpinned)
#   --time S          measured seconds per test (default 10)
#   --out DIR         results (default results-tmp/slack-<timestamp>): one
#                     bench.sh report per slack, DIR/S/bench.txt, and
#                     DIR/summary.txt
#   --plain           also run bench.sh's plainfwd mix rows (the 20 Mbit/s
#                     CPU baseline), with the first slack only
#   -h, --help
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
BENCH="$HERE/bench.sh" BUILD_DIR=build SLACKS=0us,50us,100us,200us
PIN_MODE=unpinned TIME=10 OUT="" PLAIN=0

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
die() { echo "slack-bench: $*" >&2; exit 1; }
while (( $# )); do
	case $1 in
	--bench) BENCH=$2; shift ;;
	--build-dir) BUILD_DIR=$2; shift ;;
	--slacks) SLACKS=$2; shift ;;
	--pin-mode) PIN_MODE=$2; shift ;;
	--time) TIME=$2; shift ;;
	--out) OUT=$2; shift ;;
	--plain) PLAIN=1 ;;
	-h|--help) usage; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
	shift
done
[[ -x $BENCH ]] || die "no bench.sh at $BENCH (give --bench)"
[[ $BUILD_DIR == /* ]] || BUILD_DIR="$ROOT/$BUILD_DIR"
[[ -x $BUILD_DIR/schedtun && -x $BUILD_DIR/plainfwd ]] ||
	die "no schedtun/plainfwd in $BUILD_DIR (cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo)"
OUT=${OUT:-"$ROOT/results-tmp/slack-$(date +%Y%m%d-%H%M%S)"}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

IFS=, read -r -a LIST <<<"$SLACKS"
first=1
for s in "${LIST[@]}"; do
	"$BUILD_DIR/schedtun" --check -f /dev/stdin >/dev/null 2>&1 <<<"link = { slack = \"$s\"; };" ||
		die "link.slack '$s' is refused by schedtun --check"
	wrap="$OUT/$s/bin"
	mkdir -p "$wrap"
	ln -sf "$BUILD_DIR/plainfwd" "$wrap/plainfwd"
	cat >"$wrap/schedtun" <<EOF
#!/bin/bash
# slack-bench.sh's wrapper: link.slack = "$s" added to the file of -f.
if [[ \$1 == -f && -f \$2 ]]; then
	sed 's/^link = {\$/link = {\n  slack = "$s";/' "\$2" >"\$2.slack.conf"
	exec "$BUILD_DIR/schedtun" -f "\$2.slack.conf" "\${@:3}"
fi
exec "$BUILD_DIR/schedtun" "\$@"
EOF
	chmod +x "$wrap/schedtun"
	extra=(--no-plain-pacing)
	(( PLAIN && first )) && extra=()
	first=0
	echo "== link.slack = $s"
	"$BENCH" --build-dir "$wrap" --only paced,mix --paced-rates 1Gbit --rates 20Mbit \
		--pin-mode "$PIN_MODE" --time "$TIME" "${extra[@]}" --out "$OUT/$s" \
		>"$OUT/$s/run.log" 2>&1 || echo "slack-bench: bench.sh failed for $s (see $OUT/$s/run.log)"
	grep -q "slack = \"$s\"" "$OUT/$s"/*/paced-1Gbit-a.conf.slack.conf ||
		echo "slack-bench: WARNING: the wrapper did not add the slack for $s"
	{ echo "== link.slack = $s"; cat "$OUT/$s/bench.txt" 2>/dev/null; } >>"$OUT/summary.txt"
done
# One line per slack and pin mode from bench.sh's results.json.
python3 - "$OUT" "${LIST[@]}" <<'PY' | tee -a "$OUT/summary.txt"
import json, os, sys
out, slacks = sys.argv[1], sys.argv[2:]
def g(r, k, f):
    return f % r[k] if r.get(k) is not None else "-"
print(f"{'slack':>7} {'mode':>8} | 1G: {'stats Mb/s':>10} {'iperf':>6} {'late99 us':>9} "
      f"{'CPU a/b %':>11} | 20M: {'err %':>7} {'late99 us':>9} {'CPU a/b %':>11} {'wake/pkt a/b':>12}")
for s in slacks:
    f = os.path.join(out, s, "results.json")
    if not os.path.exists(f):
        print(f"{s:>7} (no results)")
        continue
    for mode, m in json.load(open(f))["modes"].items():
        p = (m.get("paced") or [{}])[0]
        x = (m.get("mix") or [{}])[0]
        mbps = lambda r, k: g({k: r[k] / 1e6} if r.get(k) else {}, k, "%.0f")
        print(f"{s:>7} {mode:>8} | 1G: {mbps(p, 'carried_bps'):>10} {mbps(p, 'iperf_bps'):>6} "
              f"{g(p, 'late_p99_us', '%.0f'):>9} "
              f"{g(p, 'cpu_a_pct', '%.0f') + '/' + g(p, 'cpu_b_pct', '%.0f'):>11} | 20M: "
              f"{g(x, 'error_pct', '%+.4f'):>7} {g(x, 'late_p99_us', '%.0f'):>9} "
              f"{g(x, 'cpu_a_pct', '%.2f') + '/' + g(x, 'cpu_b_pct', '%.2f'):>11} "
              f"{g(x, 'wake_per_pkt_a', '%.2f') + '/' + g(x, 'wake_per_pkt_b', '%.2f'):>12}")
PY
echo "slack-bench: $OUT/summary.txt"
