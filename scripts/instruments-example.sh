#!/usr/bin/env bash
# instruments-example.sh - issue 21's instruments together, measured: a
# schedtun pair with the per-packet log on both daemons and the TSW marker
# on the sender, driven by TFRC, on-off UDP streams and web sessions.
#
#   scripts/instruments-example.sh [--build-dir DIR] [--time S] [--out DIR] [--force]
#   scripts/instruments-example.py OUT/summary.json            (the tables)
#   scripts/instruments-example.py --update OUT/summary.json   (into the docs)
#
# In two namespaces it creates (scripts/netns-lib.sh), a pair A -> B: link
# 2 Mbit/s, 50 ms one-way delay, the TICKET scheduler with d = 50 ms, both
# daemons writing a packet log (OUT/a.plog.csv, OUT/b.plog.csv), A marking
# each EF flow above 267 kbit/s (RFC 2859's TSW, window 1 s) to AF.  The
# receivers start first in B, each waited for until its port is bound;
# then for TIME s (default 60), all seeded, from A:
#   TFRC      3 greedy flows, 320-byte payloads, DSCP 46, --start-max 1,
#             seeds 1..3, one receiver each (ports 7001..7003: a flow's
#             destination port names it in the logs);
#   on-off    6 flows, 64 kbit/s peak, 0.5 s on / 0.5 s off, no lifetime,
#             DSCP 46, seed 1 (port 7100);
#   web       10 users, Reno, CS0, think 0.5 s, seed 1 (port 6000).
# It waits for every sender to end (bounded), stops the receivers (SIGTERM:
# they write their records then), waits until A has drained, stops the
# pair, and runs, one command each, mininet/pktlog.py flows, sessions
# (--websess, --delay-over 120) and check on the two logs.  Then
# instruments-example.py summarise writes OUT/summary.json: the provenance
# (date, commit, machine, kernel, build, the exact commands), the
# configuration, the tables and per source what it measured.
#
# OUT (default results-tmp/instruments-<timestamp>) keeps everything: the
# logs, stats lines, configurations, the sources' records and messages.
#
# The machine: the script holds the experiment lock
# (/run/schedtun-experiment.lock) for its whole run and refuses to start
# while schedtun, iperf3 or Mininet processes run (--force: run anyway;
# the summary says so).  Needs root and Debian's /usr/bin/python3.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PY=/usr/bin/python3
HELPER=("$PY" "$ROOT/scripts/instruments-example.py")
# The configuration; the summary and the docs' block carry these texts.
RATE=2Mbit DELAY=50ms
SCHED_PARAMS='ticket = { d = "50ms"; };'
MARKER='marker = { seed = 1; ef = { committed = "267kbit"; window = "1s"; }; };'
TFRC_FLOWS=3 TFRC_PORT0=7000 ONOFF_PORT=7100 WEB_PORT=6000

build=build secs=60 out="" force=0
argv=("$@")
usage() { sed -n '2,/^set -e/p' "$0" | sed 's/^# \{0,1\}//; /^set -e/d'; }
die() { echo "instruments-example.sh: $*" >&2; exit 1; }
while (( $# )); do
	case $1 in
	--build-dir|--time|--out)
		(( $# >= 2 )) || die "option '$1': needs a value (accepted: --build-dir DIR --time S --out DIR)"
		case $1 in
		--build-dir) build=$2 ;; --time) secs=$2 ;; --out) out=$2 ;;
		esac
		shift 2 ;;
	--force) force=1; shift ;;
	-h|--help) usage; exit 0 ;;
	*) die "option '$1': unknown (accepted: --build-dir --time --out --force)" ;;
	esac
done
[[ $secs =~ ^[1-9][0-9]*$ ]] || die "--time '$secs': not a whole number of seconds (accepted: 1 or more)"
[[ -x $PY ]] || die "$PY not found (Debian's python3)"
[[ $build == /* ]] || build="$ROOT/$build"
[[ -z $out || $out == /* ]] || out="$PWD/$out"
out=${out:-"$ROOT/results-tmp/instruments-$(date +%Y%m%d-%H%M%S)"}
# OUT is new, empty or an earlier run's (its files are replaced): never a
# directory of something else, whose files the clean-up would delete.
if [[ -d $out && -n $(ls -A "$out") && ! -f $out/meta.json ]]; then
	die "--out '$out': not empty and not an earlier run's directory (accepted: a new or empty directory, or an earlier run's OUT)"
fi

# shellcheck source=netns-lib.sh source-path=SCRIPTDIR
source "$ROOT/scripts/netns-lib.sh"
st_test_begin "$build/schedtun" ss flock

st_experiment_lock "$force" "${argv[@]}"

mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out"/*.jsonl "$out"/*.csv "$out"/*.txt "$out"/*.err "$out"/*.log "$out"/*.conf "$out"/*.json
"${HELPER[@]}" meta "$out/meta.json" root="$ROOT" build_dir="$build" time="$secs" \
	forced="$force" args="${argv[*]}"
: >"$out/commands.txt"

# started CMD... : the exact command, one line in OUT/commands.txt.
started() {
	printf '%q ' "$@" | sed 's/ $//' >>"$out/commands.txt"
	echo >>"$out/commands.txt"
}
declare -A keep=()      # a background process's log -> its name in OUT
# source_bg NAME NS CMD... : CMD in NS in the background, its messages kept
# as OUT/NAME.log; ST_LAST_PID is its pid.
source_bg() {
	local name=$1 ns=$2; shift 2
	started ip netns exec "$ns" "$@"
	st_bg "$ns" "$@"
	keep[$ST_LAST_LOG]=$name
}

st_ns_create
st_pair_start --plog-a "$out/a.plog.csv" --plog-b "$out/b.plog.csv" \
	--rate "$RATE" --delay "$DELAY" --sched ticket --sched-params "$SCHED_PARAMS" \
	--extra "$MARKER"
cp "$ST_CONF_A" "$out/a.conf"; cp "$ST_CONF_B" "$out/b.conf"
# the daemons as st_pair_start ran them (B first), on the configurations kept
started ip netns exec "$ST_NS_B" "$ST_SCHEDTUN" -f "$out/b.conf"
started ip netns exec "$ST_NS_A" "$ST_SCHEDTUN" -f "$out/a.conf"

# ---- receivers in B, each ready before any sender starts
rx_pids=()
for (( i = 1; i <= TFRC_FLOWS; i++ )); do
	source_bg "tfrc-recv-$i" "$ST_NS_B" "$PY" "$ROOT/mininet/tfrc.py" recv \
		--listen "0.0.0.0:$(( TFRC_PORT0 + i ))" --out "$out/tfrc-recv-$i.jsonl"
	rx_pids+=("$ST_LAST_PID")
	st_wait_listen "$ST_NS_B" udp $(( TFRC_PORT0 + i )) || st_fail "TFRC receiver $i did not start"
done
source_bg onoff-recv "$ST_NS_B" "$PY" "$ROOT/mininet/onoff.py" recv \
	--listen "0.0.0.0:$ONOFF_PORT" --out "$out/onoff-recv.jsonl"
rx_pids+=("$ST_LAST_PID")
st_wait_listen "$ST_NS_B" udp "$ONOFF_PORT" || st_fail "on-off receiver did not start"
source_bg websess-sink "$ST_NS_B" "$PY" "$ROOT/mininet/websess.py" sink \
	--listen "0.0.0.0:$WEB_PORT" --out "$out/websess-sink.jsonl"
rx_pids+=("$ST_LAST_PID")
st_wait_listen "$ST_NS_B" tcp "$WEB_PORT" || st_fail "web sink did not start"

# ---- senders in A
tx_pids=()
for (( i = 1; i <= TFRC_FLOWS; i++ )); do
	source_bg "tfrc-send-$i" "$ST_NS_A" "$PY" "$ROOT/mininet/tfrc.py" send \
		--to "$ST_TUN_B:$(( TFRC_PORT0 + i ))" --size 320 --duration "$secs" --dscp 46 \
		--seed "$i" --start-max 1 --out "$out/tfrc-send-$i.jsonl"
	tx_pids+=("$ST_LAST_PID")
done
source_bg onoff-send "$ST_NS_A" "$PY" "$ROOT/mininet/onoff.py" send \
	--to "$ST_TUN_B:$ONOFF_PORT" --flows 6 --peak 64kbit --on 0.5 --off 0.5 \
	--lifetime none --duration "$secs" --seed 1 --dscp 46 --out "$out/onoff-send.jsonl"
tx_pids+=("$ST_LAST_PID")
source_bg websess-send "$ST_NS_A" "$PY" "$ROOT/mininet/websess.py" send \
	--to "$ST_TUN_B:$WEB_PORT" --users 10 --cc reno --dscp 0 --think 0.5 \
	--duration "$secs" --seed 1 --out "$out/websess-send.jsonl"
tx_pids+=("$ST_LAST_PID")

fails=()
for p in "${tx_pids[@]}"; do
	# bounded: TIME, plus the web senders' grace and the end packets
	st_wait_pid_exit "$p" $(( secs + 90 )) || fails+=("a sender (pid $p) failed or did not end")
done
for p in "${rx_pids[@]}"; do
	kill -TERM "$p" 2>/dev/null || true
	st_wait_pid_exit "$p" 15 || fails+=("a receiver (pid $p) did not stop cleanly on SIGTERM")
done
st_wait_for 30 "A's queue and delay line drained" st_sender_drained "$ST_STATS_A" ||
	fails+=("A never reported an empty queue and delay line")
st_pair_stop
cp "$ST_STATS_A" "$out/a.stats.jsonl"; cp "$ST_STATS_B" "$out/b.stats.jsonl"
cp "$ST_WORK/a.log" "$out/a.log"; cp "$ST_WORK/b.log" "$out/b.log"
for log in "${!keep[@]}"; do cp "$log" "$out/${keep[$log]}.log"; done

# ---- the tables, one command each
pk=("$PY" "$ROOT/mininet/pktlog.py")
started "${pk[@]}" flows "$out/a.plog.csv" "$out/b.plog.csv" --delay-over 120
"${pk[@]}" flows "$out/a.plog.csv" "$out/b.plog.csv" --delay-over 120 >"$out/flows.txt"
started "${pk[@]}" sessions "$out/a.plog.csv" "$out/b.plog.csv" \
	--websess "$out/websess-send.jsonl" --delay-over 120
"${pk[@]}" sessions "$out/a.plog.csv" "$out/b.plog.csv" \
	--websess "$out/websess-send.jsonl" --delay-over 120 >"$out/sessions.txt"
started "${pk[@]}" check --sender "$out/a.plog.csv" --sender-stats "$out/a.stats.jsonl" \
	--receiver "$out/b.plog.csv" --receiver-stats "$out/b.stats.jsonl"
check_rc=0
"${pk[@]}" check --sender "$out/a.plog.csv" --sender-stats "$out/a.stats.jsonl" \
	--receiver "$out/b.plog.csv" --receiver-stats "$out/b.stats.jsonl" \
	>"$out/check.txt" 2>"$out/check.err" || check_rc=$?
(( check_rc == 0 )) || fails+=("pktlog.py check failed (exit $check_rc): $(head -n 3 "$out/check.err")")

"${HELPER[@]}" summarise "$out" check_rc="$check_rc" rate="$RATE" delay="$DELAY" \
	sched=ticket sched_params="$SCHED_PARAMS" marker="$MARKER" tfrc_flows="$TFRC_FLOWS" \
	tfrc_port0="$TFRC_PORT0" onoff_port="$ONOFF_PORT" web_port="$WEB_PORT" \
	problems="$(printf '%s\n' "${fails[@]+"${fails[@]}"}")"
"${HELPER[@]}" "$out/summary.json"
if (( ${#fails[@]} )); then
	for f in "${fails[@]}"; do echo "instruments-example.sh: $f" >&2; done
	exit 1
fi
echo "instruments-example.sh: everything in $out; the docs' block: scripts/instruments-example.py --update $out/summary.json"
