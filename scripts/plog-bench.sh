#!/usr/bin/env bash
# plog-bench.sh - what the per-packet log (stats.packet_log, issue 21)
# costs: the log on against off, same binary, alternating.  A benchmark:
# it prints numbers, it does not fail on them.
#
#   scripts/plog-bench.sh [--build-dir DIR] [--time S] [--reps N] [--no-pin]
#                         [--cases LIST] [--out DIR] [--force]
#   scripts/plog-readme.py OUT/results.json   (the docs' blocks; --update
#                                              writes them into the pages)
#
# In two namespaces it creates (scripts/netns-lib.sh: veth underlay, st0
# MTU 1400), for each case and each of REPS rounds (default 5), a fresh
# schedtun pair with the log off (no stats.packet_log) and one with it on
# (both daemons logging into files in the run's work directory); the order
# alternates per round (off first in odd rounds).  Each carries iperf3
# -C cubic -P 4 A -> B for TIME s (default 10):
#   r20   link 20 Mbit/s, 10 ms one-way delay, fifo
#   g1    link 1 Gbit/s, 5 ms, fifo, tunnel.offload on (tso-bench's "paced")
# Per run (one line printed, one JSON line in OUT/runs.jsonl): the
# receiving iperf3's rate; each daemon's CPU over the iperf3 run in % of
# one core, utime + stime (/proc/PID/stat, tick resolution) and, finer,
# the time on a CPU from /proc/PID/schedstat; how busy each CPU was
# (/proc/stat); with the log on also each
# log writer process's CPU (schedtun-plog, the daemon's child: part of the
# cost), the records and bytes written (lines and file size), bytes per
# record, records per second (those timed inside the iperf3 run, over its
# wall time) and log.lost summed over each daemon's stats lines (reported:
# a non-zero one is a finding, not a failure).  Then, per case and mode,
# the mean and 95 % Student-t interval over the rounds (schedlab.repeats)
# of the rate and the CPU, the on/off ratios, and the CPU per record,
# (mean CPU on - mean CPU off) / mean records per second, in ns.
# Everything, with the provenance (machine, kernel, commit, pinning,
# rounds, TIME, date, load average at start), goes into OUT/results.json
# (default OUT: results-tmp/plog-bench-<timestamp>); OUT/example/ keeps the
# logs of the first r20 run with the log on, for the example in
# docs/pktlog.md.
#
# By default the daemons and their log writers run on CPU 1 and iperf3 on
# CPU 0 (taskset), as scripts/tso-bench.sh does; --no-pin pins nothing.
#
# The machine: the script holds the experiment lock
# (/run/schedtun-experiment.lock, as mininet/schedlab/lock.py takes it) for
# its whole run, and refuses to start while schedtun, iperf3 or Mininet
# processes run (--force: run anyway, and the output says so).  Builds,
# tests and other benchmarks must not run beside it either; nothing can
# see them, so make sure of it yourself (the load average at the start is
# in the output).  Needs root, iperf3, Debian's /usr/bin/python3 (scipy).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PY=/usr/bin/python3
HELPER=("$PY" "$ROOT/scripts/plog-bench.py")

build=build secs=10 reps=5 pin=1 cases=r20,g1 out="" force=0
argv=("$@")     # for the provenance and the lock file
usage() { sed -n '2,/^set -e/p' "$0" | sed 's/^# \{0,1\}//; /^set -e/d'; }
die() { echo "plog-bench.sh: $*" >&2; exit 1; }
while (( $# )); do
	case $1 in
	--build-dir|--time|--reps|--cases|--out)
		(( $# >= 2 )) || die "option '$1': needs a value (accepted: --build-dir DIR --time S --reps N --cases LIST --out DIR)"
		case $1 in
		--build-dir) build=$2 ;; --time) secs=$2 ;; --reps) reps=$2 ;;
		--cases) cases=$2 ;; --out) out=$2 ;;
		esac
		shift 2 ;;
	--no-pin) pin=0; shift ;;
	--force) force=1; shift ;;
	-h|--help) usage; exit 0 ;;
	*) die "option '$1': unknown (accepted: --build-dir --time --reps --no-pin --cases --out --force)" ;;
	esac
done
[[ $secs =~ ^[1-9][0-9]*$ ]] || die "--time '$secs': not a whole number of seconds (accepted: 1 or more)"
[[ $reps =~ ^[1-9][0-9]*$ ]] || die "--reps '$reps': not a count (accepted: 1 or more)"
IFS=, read -r -a case_list <<<"$cases"
(( ${#case_list[@]} )) || die "--cases '$cases': empty (accepted: r20, g1, comma-separated)"
for c in "${case_list[@]}"; do
	[[ $c == r20 || $c == g1 ]] || die "--cases '$cases': unknown case '$c' (accepted: r20, g1)"
done
[[ -x $PY ]] || die "$PY not found (Debian's python3 with python3-scipy)"
[[ $build == /* ]] || build="$ROOT/$build"
[[ -z $out || $out == /* ]] || out="$PWD/$out"
out=${out:-"$ROOT/results-tmp/plog-bench-$(date +%Y%m%d-%H%M%S)"}
(( pin == 0 || $(nproc) >= 2 )) || die "pinning needs 2 CPUs, this machine has $(nproc); try --no-pin"

# shellcheck source=netns-lib.sh source-path=SCRIPTDIR
source "$ROOT/scripts/netns-lib.sh"
st_test_begin "$build/schedtun" iperf3 ss taskset flock pgrep

st_experiment_lock "$force" "${argv[@]}"

mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out/runs.jsonl" "$out/results.json"
rm -rf "$out/example"
"${HELPER[@]}" meta "$out/meta.json" root="$ROOT" build_dir="$build" time="$secs" \
	reps="$reps" pinned="$pin" cases="$cases" forced="$force" args="${argv[*]}"
st_ns_create

pin0=()         # the prefix that puts iperf3 on CPU 0
(( pin )) && pin0=(taskset -c 0)

# cpu_sample PID... : "ticks:ns" per PID (utime + stime; schedstat's time
# on a CPU), space-separated; "-" for an empty PID (no writer when off).
cpu_sample() {
	local p s=()
	for p in "$@"; do
		if [[ -z $p ]]; then s+=(-); continue; fi
		s+=("$(awk '{printf "%d", $14 + $15}' "/proc/$p/stat"):$(awk '{print $1}' "/proc/$p/schedstat")")
	done
	echo "${s[*]}"
}

# cpus_sample : each CPU's line of /proc/stat, joined by ";" (how busy
# each CPU was: pinned, the daemons and writers share CPU 1, and a CPU
# that is busy all the time cannot show a cost as more CPU).
cpus_sample() {
	grep '^cpu[0-9]' /proc/stat | paste -sd ';'
}

# writer_of PID : the daemon's log writer process (its child schedtun-plog).
writer_of() {
	pgrep -P "$1" -x schedtun-plog | head -n 1
}

example_done=0
# run_one CASE MODE(on|off) ROUND
run_one() {
	local case=$1 mode=$2 round=$3 rate delay extra=() plog=()
	case $case in
	r20) rate=20Mbit delay=10ms ;;
	g1) rate=1Gbit delay=5ms extra=(--offload true) ;;
	esac
	local tag="$case-$mode-$round" la="" lb=""
	if [[ $mode == on ]]; then
		la="$ST_WORK/a-$tag.plog.csv" lb="$ST_WORK/b-$tag.plog.csv"
		plog=(--plog-a "$la" --plog-b "$lb")
	fi
	st_pair_start --tag "$tag" "${plog[@]}" --rate "$rate" --delay "$delay" \
		--sched fifo "${extra[@]}"
	local pa=${ST_PIDS[a]} pb=${ST_PIDS[b]} wa="" wb="" p procs
	if [[ $mode == on ]]; then
		wa=$(writer_of "$pa") || true
		wb=$(writer_of "$pb") || true
		[[ -n $wa && -n $wb ]] || st_fail "$tag: no schedtun-plog writer beside a daemon"
	fi
	procs=("$pa" "$pb")
	[[ $mode == on ]] && procs+=("$wa" "$wb")
	if (( pin )); then
		for p in "${procs[@]}"; do taskset -p -c 1 "$p" >/dev/null; done
	fi
	st_bg "$ST_NS_B" "${pin0[@]}" iperf3 -s -1 -p 5201
	local srv=$ST_LAST_PID
	st_wait_listen "$ST_NS_B" tcp 5201 || st_fail "iperf3 server did not start"
	local c0 c1 t0 t1 s0 s1 json="$ST_WORK/iperf-$tag.json"
	s0=$(cpus_sample); c0=$(cpu_sample "$pa" "$pb" "$wa" "$wb"); t0=$(st_now_ms)
	st_run_bounded $(( secs + 30 )) "$ST_NS_A" "${pin0[@]}" iperf3 -c "$ST_TUN_B" \
		-p 5201 -C cubic -P 4 -t "$secs" -J --connect-timeout 5000 ||
		echo "WARN: $tag: iperf3 client failed" >&2
	c1=$(cpu_sample "$pa" "$pb" "$wa" "$wb"); t1=$(st_now_ms); s1=$(cpus_sample)
	cp "$ST_LAST_LOG" "$json"
	st_wait_pid_exit "$srv" 5 || true
	st_pair_stop            # the daemons hand their writers the rest first
	"${HELPER[@]}" run "$out/runs.jsonl" case="$case" mode="$mode" round="$round" \
		t0_ms="$t0" t1_ms="$t1" hz="$(getconf CLK_TCK)" cpu0="$c0" cpu1="$c1" \
		stat0="$s0" stat1="$s1" \
		iperf="$json" stats_a="$ST_STATS_A" stats_b="$ST_STATS_B" \
		plog_a="$la" plog_b="$lb"
	if [[ $mode == on ]]; then
		if [[ $case == r20 ]] && (( ! example_done )); then
			mkdir -p "$out/example"
			cp "$la" "$out/example/a.plog.csv"
			cp "$lb" "$out/example/b.plog.csv"
			"${HELPER[@]}" example "$out/example" round="$round"
			example_done=1
		fi
		rm -f "$la" "$lb"       # at 1 Gbit/s, hundreds of MB a run
	fi
}

for case in "${case_list[@]}"; do
	for (( r = 1; r <= reps; r++ )); do
		order=(off on)
		(( r % 2 )) || order=(on off)
		for mode in "${order[@]}"; do
			run_one "$case" "$mode" "$r"
		done
	done
done

"${HELPER[@]}" summary "$out"
echo "plog-bench.sh: results in $out/results.json; the docs' blocks: scripts/plog-readme.py $out/results.json"
