#!/usr/bin/env bash
# geo-demo.sh - schedtun on an emulated GEO satellite link, with live rates.
#
#   scripts/geo-demo.sh [options]
#   scripts/geo-demo.sh --compare dwrr       the same scenario under PSS and DWRR
#
# A front end of the experiment library: it runs mininet/geo.py (two Mininet
# hosts joined by a pair of schedtun daemons emulating a 20 Mbit/s link with
# 250 ms of delay each way, RTT 500 ms) with the demo's scenario written
# out in full (mininet/schedlab/demo.py), then adds the demo's table
# (mininet/schedlab/demoreport.py).  The traffic through the tunnel:
#   EF : schedtun-efgen, UDP, DSCP 46; by default a step: 2.5 Mbit/s, then
#        7.5 Mbit/s from the middle of the measured window
#   AF : 4 CUBIC flows (iperf3 -P 4 -C cubic --tos 0x28)
#   CS0: 4 CUBIC flows (iperf3 -P 4 -C cubic)
# The default scheduler is PSS with its parameters computed by `schedtun
# params pss` for WRR weights 3:2 (AF:CS0), 1400-byte packets (the tunnel's
# MTU), C = the link rate and R_EF^exp = the mean EF rate of the window
# (5 Mbit/s): PSS serves AF K_AF (C - R_EF^exp) = 9 Mbit/s whatever EF does
# (the paper's eq. 7) and CS0 the rest; DWRR with the same weights (quanta
# W x 1400 bytes) gives AF K_AF (C - R_EF), which moves with EF (eq. 1).
# (geo.py's own defaults, 9:2, the paper's rule, 10 + 10 flows, 100 s, are
# not the demo's: every value is passed to it.)
# While it runs geo.py prints one line per second from the sending daemon's
# stats; at the end geo.py's per-class summary (window means against the
# theory) and the demo's tables: per class over the window the sender's
# out rate, drops and queueing delay and what the receiver got (rate,
# loss, one-way delay), then each class's rate before and after the EF
# step next to the theory, and the change.  About 50 s.
#
# Options:
#   -d, --duration S   traffic seconds (default 40; 5..600)
#   -s, --sched NAME   scheduler: fifo prio pss dwrr pdrr dq ticket (default pss)
#   --compare NAME     run the same scenario a second time with scheduler NAME
#                      (e.g. dwrr): results in OUT/<sched>/, both side by side
#                      in OUT/compare.png and a table in OUT/compare.txt
#   --weights A:C      WRR weights W_AF:W_CS0 behind the PSS parameters and the
#                      DWRR quanta (default 3:2; each 2..10000)
#   --rule R           calibrated (default: BW C = K_AF (C - R_EF^exp), eq. 7's
#                      AF rate) or paper (eqs. 3-5 as published; AF lands near
#                      BW C, above eq. 7): `schedtun params pss --rule`
#   --sched-params T   members of the config's scheduler group instead of the
#                      calculated ones, e.g. 'pss = { bw = 0.45; lm = 10220; };'
#   --ef SPEC          EF profile: step (default: 2.5Mbit then 7.5Mbit), step:R1:R2
#                      (R1, then R2 from the middle of the measured window),
#                      or a constant RATE (e.g. 4Mbit; iperf3 -u when
#                      schedtun-efgen is missing)
#   --ef-rate R        a constant EF rate (same as --ef R)
#   --ef-exp R         R_EF^exp, the EF rate PSS is sized for (default: the
#                      mean EF rate over the measured window)
#   -o, --out DIR      results (default results-tmp/geo-demo-<timestamp>)
#   --rate RATE        link rate (default 20Mbit)
#   --delay D          one-way delay (default 250ms)
#   --flows N          TCP flows per AF and CS0 class (default 4; 1..64)
#   --warmup S         seconds after the traffic starts left out of the summary
#                      (default 10, or a third of the duration below 30 s)
#   --settle S         seconds after the EF step left out of "after" (default 2,
#                      or a third of what follows the step when that is shorter)
#   --build-dir DIR    where schedtun and schedtun-efgen are (default: geo.py's
#                      rule: $SCHEDTUN, build-rel/, PATH; build-rel/ is built
#                      when nothing is found, unless --no-deps)
#   --no-deps          install nothing and build nothing: fail if a tool or
#                      a binary is missing (tests, CI)
#   --no-plot          no PNG (skips matplotlib)
#   --force            geo.py's: run even while other schedtun, iperf3 or
#                      Mininet processes run (never beside another
#                      experiment holding the experiment lock)
#   -h, --help
# Gone with the namespace harness (issue 20): --forwarder plainfwd (a plain
# forwarder's baseline is scripts/bench.sh's plainfwd rows); the default
# build directory is build-rel/ (the -O2 build experiments use), not build/.
#
# Results in the output directory: geo.py's (rates.csv, credit.csv,
# summary.json, rates.png, a.conf b.conf, stats-a.jsonl stats-b.jsonl,
# a.log b.log, iperf-*.json, efgen-*.jsonl, live.txt, processes.json:
# mininet/README.md) and the demo's demo.txt (its tables) and demo.json (their
# numbers, the geo.py command and the calculator's).
#
# Needs root.  Installs missing packages (scripts/deps.sh experiments) and
# builds schedtun and schedtun-efgen when they are missing.  geo.py holds
# the experiment lock and refuses to start beside another experiment (or,
# without --force, beside other schedtun, iperf3 or Mininet processes);
# it stops everything it starts, on exit and on Ctrl-C.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
PY=/usr/bin/python3
DEMO="$ROOT/mininet/demo.py"

die() { echo "geo-demo: $*" >&2; exit 2; }
say() { echo "geo-demo: $*"; }
usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }

ARGS=()             # demo.py run's options
COMPARE="" SCHED=pss OUT="" BUILD_DIR="" DEPS=1 PLOT=1
while (( $# )); do
	case $1 in
	-d|--duration) ARGS+=(--duration "${2:?}"); shift ;;
	-s|--sched|--scheduler) SCHED=${2:?}; shift ;;
	--compare) COMPARE=${2:?}; shift ;;
	--weights|--rule|--sched-params|--ef|--ef-exp|--rate|--delay|--flows|--warmup|--settle)
		ARGS+=("$1" "${2:?}"); shift ;;
	--ef-rate) ARGS+=(--ef "${2:?}"); shift ;;
	-o|--out) OUT=${2:?}; shift ;;
	--build-dir) BUILD_DIR=${2:?}; shift ;;
	--forwarder)
		[[ ${2:-} == schedtun ]] ||
			die "--forwarder '${2:-}': only schedtun now (the demo runs mininet/geo.py, whose link is always a schedtun pair); for a plain forwarder's baseline use scripts/bench.sh (its plainfwd rows)"
		shift ;;
	--no-deps) DEPS=0 ;;
	--no-plot) PLOT=0 ;;
	--force) ARGS+=(--force) ;;
	-h|--help) usage; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
	shift
done
if [[ -n $COMPARE && $COMPARE == "$SCHED" ]]; then
	die "--compare '$COMPARE': the same scheduler as --sched"
fi
(( PLOT )) || ARGS+=(--no-plot)
[[ $(id -u) -eq 0 ]] || { echo "geo-demo: needs root (Mininet, tun): run it as root, or with sudo" >&2; exit 1; }

# ---------------------------------------------------------------- deps, build
if (( DEPS )); then
	bash "$HERE/deps.sh" experiments
	# the directory geo.py will take the binaries from, when it is ours to build
	want=""
	if [[ -n $BUILD_DIR ]]; then
		want=$BUILD_DIR
	elif [[ -z ${SCHEDTUN:-} ]] && { [[ -x $ROOT/build-rel/schedtun ]] || ! command -v schedtun >/dev/null; }; then
		want=$ROOT/build-rel
	fi
	if [[ -n $want && ( ! -x $want/schedtun || ! -x $want/schedtun-efgen ) ]]; then
		say "building schedtun and schedtun-efgen in $want"
		cmake -S "$ROOT" -B "$want" -DCMAKE_BUILD_TYPE=Release >/dev/null
		# only what the demo runs: a broken unit test must not stop the demo
		cmake --build "$want" -j2 --target schedtun schedtun-efgen
	fi
fi
if [[ -n $BUILD_DIR ]]; then
	[[ -x $BUILD_DIR/schedtun ]] || die "--build-dir '$BUILD_DIR': no schedtun there (build it, or drop --no-deps)"
	ARGS+=(--schedtun "$BUILD_DIR/schedtun")
fi

if [[ -z $COMPARE ]]; then
	exec "$PY" "$DEMO" run --sched "$SCHED" ${OUT:+--out "$OUT"} "${ARGS[@]}"
fi

# ---------------------------------------------------------------- --compare
# The same scenario twice, each a `demo.py run` in OUT/<sched>/, in the
# background so that a SIGTERM's trap runs at once (bash runs traps only
# once a foreground command ends); demo.py passes it on to geo.py, which
# cleans up.
OUT=${OUT:-$ROOT/results-tmp/geo-demo-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT"
CHILD=""
# shellcheck disable=SC2317  # called from the trap
stop() {
	trap "" INT TERM
	say "interrupted: stopping the run in progress"
	if [[ -n $CHILD ]]; then kill -TERM "$CHILD" 2>/dev/null; wait "$CHILD" 2>/dev/null || true; fi
	exit 130
}
trap stop INT TERM
rc=0
n=1
for s in "$SCHED" "$COMPARE"; do
	say "=== run $n of 2: $s"
	"$PY" "$DEMO" run --sched "$s" --out "$OUT/$s" "${ARGS[@]}" &
	CHILD=$!
	wait "$CHILD" || rc=$?
	CHILD=""
	if (( rc != 0 )); then
		echo "geo-demo: the $s run failed (status $rc): no comparison" >&2
		exit "$rc"
	fi
	n=$(( n + 1 ))
done
cmp=("$OUT" "$SCHED" "$COMPARE")
(( PLOT )) || cmp+=(--no-plot)
"$PY" "$DEMO" compare "${cmp[@]}" || die "comparison failed"
say "results in $OUT ($SCHED/, $COMPARE/, compare.txt$( (( PLOT )) && echo ", compare.png"))"
