#!/usr/bin/env bash
# sched-bench.sh - what each scheduler costs per packet, measured by the
# simulator (schedtun-sim --cost, docs/simulator.md "Cost"): no root, no
# network, the daemon's own packet path on a virtual clock.  A benchmark:
# it prints numbers, it asserts none.
#
#   scripts/sched-bench.sh [options]
#
# Load (the same for every scheduler): a 1 Gbit/s link, delay 0, 1500-byte
# packets; EF one CBR flow at 100 Mbit/s, AF and CS0 greedy (each flow
# keeps 2 packets in the scheduler), for DURATION of simulated time.
# Every scheduler of `schedtun-sim --help` runs it with 1 AF flow; the
# flow-based ones (--many, default pdrr and dq) also with 100 AF flows and
# with FLOWS (default 10,000) AF flows, all of them backlogged at once.
# The class limits and the schedulers' tables are sized for that
# (classes.af.limit, scheduler.pdrr.max_flows/buffer,
# scheduler.dq.sessions/buffer), and a run with --stats checks it: the
# "active" column is the largest count the scheduler's own stats reported
# (pdrr: "flows", the active flow list; dq: "sessions", its flow table).
#
# Columns: sched ns/pkt is the wall time inside the scheduler's ops
# (enqueue, dequeue, peek, next_event, ...) per packet the scheduler took;
# path ns/pkt the time inside the daemon's packet path (classification,
# class limits, the scheduler, pacer, delay line, tunnel header, and the
# simulator's fake send and per-flow observers) per packet; the cost of
# reading the clock is calibrated and taken out (simcost.c).  Each number
# is the best (smallest) of REPS runs: wall-clock times on a shared
# machine vary with its load, and the best run is the one least disturbed.
# They depend on the CPU, the build and the load: compare rows of one
# table, not numbers from different machines.
#
# Options:
#   --build-dir DIR   where schedtun-sim is (default build-rel; configured
#                     RelWithDebInfo and built when missing)
#   --duration D      simulated time per run (default 2s)
#   --reps N          runs per row, the best is kept (default 3)
#   --flows N         AF flows of the many-flow rows (default 10000)
#   --many LIST       schedulers that also get the 100- and N-flow rows,
#                     comma-separated (default pdrr,dq)
#   --pin CPU         run every simulation on that CPU (taskset -c CPU)
#   --update-docs     also write the table into docs/performance.md between
#                     <!-- sched-bench --> and <!-- /sched-bench -->
#                     (--update-readme: the same, its old name)
#   -h, --help
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)

BUILD_DIR=build-rel
DURATION=2s
REPS=3
FLOWS=10000
MANY=pdrr,dq
PIN=""
UPDATE=0
BACKLOG=2                               # packets each greedy flow keeps queued

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }

while [ $# -gt 0 ]; do
	case "$1" in
	--build-dir) BUILD_DIR=$2; shift 2 ;;
	--duration) DURATION=$2; shift 2 ;;
	--reps) REPS=$2; shift 2 ;;
	--flows) FLOWS=$2; shift 2 ;;
	--many) MANY=$2; shift 2 ;;
	--pin) PIN=$2; shift 2 ;;
	--update-docs|--update-readme) UPDATE=1; shift ;;
	-h|--help) usage; exit 0 ;;
	*) echo "sched-bench: unknown option '$1' (accepted: see --help)" >&2; exit 1 ;;
	esac
done
case "$REPS" in ''|*[!0-9]*|0) echo "sched-bench: --reps '$REPS' (accepted: 1 or more)" >&2; exit 1 ;; esac
case "$FLOWS" in ''|*[!0-9]*|0) echo "sched-bench: --flows '$FLOWS' (accepted: 1..50000)" >&2; exit 1 ;; esac
[ "$FLOWS" -le 50000 ] || { echo "sched-bench: --flows '$FLOWS' (accepted: 1..50000)" >&2; exit 1; }

cd "$ROOT"
SIM=$BUILD_DIR/schedtun-sim
if [ ! -x "$SIM" ]; then
	cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build "$BUILD_DIR" -j2 --target schedtun-sim >/dev/null
fi
RUN=()
if [ -n "$PIN" ]; then
	command -v taskset >/dev/null || { echo "sched-bench: --pin needs taskset (util-linux)" >&2; exit 1; }
	RUN=(taskset -c "$PIN")
fi

# The registry's order, from the binary: one list, the one it was built with.
SCHEDS=$("$SIM" --help | sed -n 's/^schedulers: //p' | tr -d '|')
[ -n "$SCHEDS" ] || { echo "sched-bench: no scheduler list in $SIM --help" >&2; exit 1; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# Sized so that FLOWS greedy AF flows are all backlogged: the AF limit
# holds BACKLOG packets of each, and neither scheduler's table nor buffer
# is the bottleneck (a full buffer would push packets out instead).
AF_LIMIT=$(( FLOWS * BACKLOG + 1000 ))
cat >"$TMP/bench.conf" <<EOF
link = { rate = "1Gbit"; delay = "0ms"; };
classes = {
  ef  = { limit = 1000; };
  af  = { limit = $AF_LIMIT; };
  cs0 = { limit = 1000; };
};
scheduler = {
  name = "fifo";
  pdrr = { max_flows = $(( FLOWS * 2 + 16 )); buffer = $(( AF_LIMIT + 2000 )); };
  dq   = { sessions = $(( FLOWS * 2 + 16 )); buffer = $(( (AF_LIMIT + 2000) * 1500 * 2 )); };
};
EOF

# One simulation of scheduler $1 with $2 AF flows; extra options after.
sim() {
	local sched=$1 n=$2
	shift 2
	"${RUN[@]}" "$SIM" -f "$TMP/bench.conf" --sched "$sched" \
		--ef cbr:100Mbit:1500 --af "$n*greedy:1500:$BACKLOG" \
		--cs0 "greedy:1500:$BACKLOG" -d "$DURATION" -w 0 -q "$@"
}

# The value of field $1 of a "cost name value ..." line on stdin.
field() { awk -v f="$1" '$1 == "cost" { for (i = 2; i < NF; i += 2) if ($i == f) print $(i + 1) }'; }

# The largest "flows" (pdrr) or "sessions" (dq) the scheduler reported.
active() {
	python3 - "$1" <<'PY'
import json, sys
best = None
for line in open(sys.argv[1]):
    s = json.loads(line).get("sched", {})
    for k in ("flows", "sessions"):
        if isinstance(s.get(k), int):
            best = s[k] if best is None else max(best, s[k])
print("-" if best is None else best)
PY
}

# One row: scheduler $1, $2 AF flows; prints the Markdown row.
row() {
	local sched=$1 n=$2 i out s p best_s="" best_p="" pkts act
	for ((i = 0; i < REPS; i++)); do
		out=$(sim "$sched" "$n" -s 0 --cost 2>&1 >/dev/null)
		s=$(field sched_ns_per_pkt <<<"$out")
		p=$(field path_ns_per_pkt <<<"$out")
		pkts=$(field pkts <<<"$out")
		[ -n "$s" ] || { echo "sched-bench: $sched, $n flows: $out" >&2; exit 1; }
		if [ -z "$best_s" ] || awk -v a="$s" -v b="$best_s" 'BEGIN { exit !(a < b) }'; then best_s=$s; fi
		if [ -z "$best_p" ] || awk -v a="$p" -v b="$best_p" 'BEGIN { exit !(a < b) }'; then best_p=$p; fi
	done
	# not timed: the check that the flows were really there at once
	sim "$sched" "$n" -s 0.25 -o /dev/null --stats "$TMP/stats.jsonl" 2>/dev/null
	act=$(active "$TMP/stats.jsonl")
	printf '| %s | %s | %s | %s | %s | %s |\n' "$sched" "$((n + 2))" "$act" \
		"$best_s" "$best_p" "$pkts"
}

CPU=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
CORES=$(nproc)
BTYPE=$(sed -n 's/^CMAKE_BUILD_TYPE:[^=]*=//p' "$BUILD_DIR/CMakeCache.txt" 2>/dev/null || true)
LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
{
	echo "Measured $(date -u +%Y-%m-%d) by \`scripts/sched-bench.sh --duration $DURATION --reps $REPS --flows $FLOWS${PIN:+ --pin $PIN}\`:"
	echo "${CPU:-unknown CPU}, $CORES cores, ${BTYPE:-default} build, $([ -n "$PIN" ] && echo "pinned to CPU $PIN" || echo "not pinned"),"
	echo "load average $LOAD at the start. Best of $REPS runs; wall-clock numbers"
	echo "that depend on the machine and its load. 1 Gbit/s, 1500-byte packets, EF CBR"
	echo "100 Mbit/s + AF N×greedy + CS0 greedy (flows = N + 2), $DURATION simulated;"
	echo "active: the most flows the scheduler's own stats reported at once."
	echo
	echo "| scheduler | flows | active | sched ns/pkt | path ns/pkt | packets |"
	echo "|---|--:|--:|--:|--:|--:|"
	for sched in $SCHEDS; do
		row "$sched" 1
		case ",$MANY," in
		*",$sched,"*) row "$sched" 100; row "$sched" "$FLOWS" ;;
		esac
	done
} >"$TMP/table.md"
cat "$TMP/table.md"

if [ "$UPDATE" = 1 ]; then
	DOC=docs/performance.md
	grep -q '^<!-- sched-bench -->$' "$DOC" && grep -q '^<!-- /sched-bench -->$' "$DOC" || {
		echo "sched-bench: $DOC has no <!-- sched-bench --> ... <!-- /sched-bench --> markers" >&2
		exit 1
	}
	awk -v table="$TMP/table.md" '
		/^<!-- \/sched-bench -->$/ { skip = 0 }
		!skip { print }
		/^<!-- sched-bench -->$/ { while ((getline l < table) > 0) print l; skip = 1 }
	' "$DOC" >"$TMP/doc.md"
	cp "$TMP/doc.md" "$DOC"
	echo "sched-bench: $DOC updated"
fi
