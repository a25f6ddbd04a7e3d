#!/usr/bin/env bash
# bench.sh - schedtun against the plainest tun<->UDP forwarder, and schedtun's
# pacing accuracy and CPU cost.  A benchmark: it prints numbers and flags the
# targets met; it does not fail on a missed target.
#
#   scripts/bench.sh [options]
#
# Part 1, "compare": in two namespaces it creates, the same veth underlay, the
# same tun (st0, 10.10.0.1/24 <-> 10.10.0.2/24, MTU 1400), once with a pair of
# plainfwd (scripts/plainfwd.c) and once with a pair of schedtun (link rate
# "unlimited", delay 0, scheduler prio):
#   - TCP throughput: iperf3 -C cubic, one flow, TIME s (receiver's rate);
#   - 64-byte UDP: iperf3 -u -l 64 -b UDP_RATE (0 = as fast as it can), the
#     datagrams per second delivered to the receiving iperf3 server.
# Each is repeated REPS times, alternating plain and schedtun; the mean is
# compared (schedtun / plain).
#
# Part 2, "pacing": schedtun pair at 20 Mbit/s and at 500 Mbit/s, delay 0,
# prio, carrying the EF+AF+CS0 mix (EF: one UDP CBR flow at 20% of the link,
# -l 1200, tos 0xb8; AF: -P 4 cubic, tos 0x28; CS0: -P 4 cubic) for WARMUP + TIME
# seconds; over the last TIME s it reports, from the sender daemon's stats:
#   - pacing error: carried rate (link.out_bytes) vs configured rate, in %;
#   - late p99: link.late_us.p99 (|actual - planned| departure), mean of the
#     per-interval p99s weighted by packets, and the worst interval;
#   - CPU per daemon: its CPU time over the window (/proc/PID/schedstat, or
#     utime+stime from /proc/PID/stat), in % of one core; and per 1000
#     packets forwarded (sent on the link + written to the tun, from the
#     stats), in ms;
#   - wake-ups per packet forwarded: voluntary context switches (each is one
#     sleep in epoll_wait) from /proc/PID/status over the window.
# Then, at the same rate, a plainfwd pair carries the same mix with the TCP
# streams capped by iperf3 -b so that the mix totals about RATE (plainfwd
# does not pace): its CPU per side and per 1000 packets (from the tun's
# packet counters) is what the plainest forwarder costs at that packet rate,
# the kernel's network-stack work done in the forwarder's context included;
# schedtun's numbers beside it show what the daemon adds.
#
# Targets (issue): TCP >= 1.0x plain; 64-byte UDP >= 1.5x plain; at 20 Mbit/s:
# pacing error <= 0.1 %, late p99 <= 50 us, CPU <= 5 % of one core per daemon.
#
# Options:
#   --build-dir DIR   where schedtun and plainfwd are (default: build; built
#                     with cmake when missing, packages by scripts/deps.sh)
#   --time S          measured seconds per test (default 10)
#   --warmup S        pacing runs: seconds of traffic before the window (3)
#   --reps N          compare runs per forwarder and test (default 2)
#   --udp-rate R      iperf3 -b for the 64-byte UDP test (default 0 = unlimited)
#   --rates LIST      pacing rates, comma-separated (default 20Mbit,500Mbit)
#   --only PART       compare | pacing (default: both)
#   --tests LIST      compare tests, comma-separated: tcp,udp (default both)
#   --no-pin          do not pin; by default the forwarders/daemons run on
#                     CPU 1 and every iperf3 on CPU 0 (taskset), which makes
#                     the numbers much steadier on a 2-core machine
#   --no-schedtun     compare part with plainfwd only (checks the baseline)
#   --no-plain-pacing pacing part without the plainfwd baseline rows
#   --out DIR         results (default results-tmp/bench-<timestamp>)
#   -h, --help
#
# Needs root (namespaces, tun).  Every process and namespace it starts is
# removed on exit, also on Ctrl-C (netns-lib.sh's st_cleanup).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
PY=/usr/bin/python3

BUILD_DIR=build
TIME=10
WARMUP=3
REPS=2
UDP_RATE=0
RATES=20Mbit,500Mbit
ONLY=""
TESTS=tcp,udp
PIN=1
NO_SCHEDTUN=0
PLAIN_PACING=1
OUT=""

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }
die() { echo "bench: $*" >&2; exit 1; }

while (( $# )); do
	case $1 in
	--build-dir) BUILD_DIR=${2:?}; shift ;;
	--time) TIME=${2:?}; shift ;;
	--warmup) WARMUP=${2:?}; shift ;;
	--reps) REPS=${2:?}; shift ;;
	--udp-rate) UDP_RATE=${2:?}; shift ;;
	--rates) RATES=${2:?}; shift ;;
	--only) ONLY=${2:?}; shift ;;
	--no-schedtun) NO_SCHEDTUN=1 ;;
	--no-plain-pacing) PLAIN_PACING=0 ;;
	--tests) TESTS=${2:?}; shift ;;
	--pin) PIN=1 ;;
	--no-pin) PIN=0 ;;
	--out) OUT=${2:?}; shift ;;
	-h|--help) usage; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
	shift
done
[[ $TIME =~ ^[0-9]+$ && $TIME -ge 2 && $TIME -le 600 ]] || die "--time: 2..600 seconds"
[[ $WARMUP =~ ^[0-9]+$ && $WARMUP -le 60 ]] || die "--warmup: 0..60 seconds"
[[ $REPS =~ ^[0-9]+$ && $REPS -ge 1 && $REPS -le 20 ]] || die "--reps: 1..20"
[[ -z $ONLY || $ONLY == compare || $ONLY == pacing ]] || die "--only: compare or pacing"
[[ $TESTS =~ ^(tcp|udp)(,(tcp|udp))?$ ]] || die "--tests: tcp, udp or tcp,udp"
if (( PIN )); then
	command -v taskset >/dev/null || die "--pin needs taskset (util-linux)"
	(( $(nproc) >= 2 )) || die "--pin needs 2 CPUs"
fi
(( NO_SCHEDTUN )) && [[ $ONLY == pacing ]] && die "--no-schedtun leaves nothing to pace"
(( NO_SCHEDTUN )) && ONLY=compare
[[ $(id -u) -eq 0 ]] || die "needs root (network namespaces, tun)"

cd "$ROOT"
[[ $BUILD_DIR == /* ]] || BUILD_DIR="$ROOT/$BUILD_DIR"
SCHEDTUN="$BUILD_DIR/schedtun"
PLAINFWD="$BUILD_DIR/plainfwd"

# ---------------------------------------------------------------- deps, build
bash "$HERE/deps.sh"
if [[ ! -x $PLAINFWD ]] || { (( ! NO_SCHEDTUN )) && [[ ! -x $SCHEDTUN ]]; }; then
	echo "bench: building in $BUILD_DIR"
	cmake -S "$ROOT" -B "$BUILD_DIR" >/dev/null
	if (( NO_SCHEDTUN )); then
		cmake --build "$BUILD_DIR" -j2 --target plainfwd
	else
		cmake --build "$BUILD_DIR" -j2 --target plainfwd schedtun
	fi
fi
[[ -x $PLAINFWD ]] || die "no $PLAINFWD after the build"
(( NO_SCHEDTUN )) || [[ -x $SCHEDTUN ]] || die "no $SCHEDTUN after the build"

OUT=${OUT:-"$ROOT/results-tmp/bench-$(date +%Y%m%d-%H%M%S)"}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

ST_NAME=bench
# shellcheck source=netns-lib.sh
source "$HERE/netns-lib.sh"
st_require_root
st_require_cmd iperf3 ping ss
if (( NO_SCHEDTUN )); then st_init "$PLAINFWD"; else st_init "$SCHEDTUN"; fi
st_ns_create

CLK_TCK=$(getconf CLK_TCK)
IPERF_PORT=5201

# ---------------------------------------------------------------- helpers
# jget FILE 'python expression on d' : one value from a JSON file.
jget() {
	"$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}
calc() { "$PY" -c "print($1)"; }

uptime_s() { awk '{print $1}' /proc/uptime; }
# pid_start_s PID : the process's start, in seconds since boot (like /proc/uptime).
pid_start_s() {
	local rest
	rest=$(sed 's/.*) //' "/proc/$1/stat")   # fields from 3 on (comm may hold spaces)
	awk -v tck="$CLK_TCK" '{printf "%.2f\n", $20 / tck}' <<<"$rest"
}
# pid_cpu_ns PID : CPU time used, ns: /proc/PID/schedstat's run time (the
# main thread's, exact; the forwarders are single-threaded), or utime + stime
# from /proc/PID/stat (the same time in 10 ms ticks) without schedstats.
pid_cpu_ns() {
	local rest
	if [[ -r /proc/$1/schedstat ]]; then
		awk '{print $1}' "/proc/$1/schedstat"
		return
	fi
	rest=$(sed 's/.*) //' "/proc/$1/stat")
	awk -v tck="$CLK_TCK" '{printf "%.0f\n", ($12 + $13) * 1e9 / tck}' <<<"$rest"
}

# With --pin: forwarders on CPU 1, traffic generators on CPU 0.
pin_fwd() { (( PIN )) || return 0; taskset -pc 1 "$1" >/dev/null || st_log "taskset $1 failed"; }
IPERF=(iperf3)
(( PIN )) && IPERF=(taskset -c 0 iperf3)

tun_present() { ip -n "$1" link show dev "$ST_TUN_NAME" >/dev/null 2>&1; }
tuns_present() { tun_present "$ST_NS_A" && tun_present "$ST_NS_B"; }
tuns_gone() { ! tun_present "$ST_NS_A" && ! tun_present "$ST_NS_B"; }
tunnel_pings() { ip netns exec "$ST_NS_A" ping -c 1 -W 1 "$ST_TUN_B" >/dev/null 2>&1; }

PLAIN_PIDS=()
plain_start() {
	st_bg "$ST_NS_A" "$PLAINFWD" "$ST_TUN_NAME" "$ST_UL_A:$ST_PORT" "$ST_UL_B:$ST_PORT"
	PLAIN_PIDS=("$ST_LAST_PID")
	st_bg "$ST_NS_B" "$PLAINFWD" "$ST_TUN_NAME" "$ST_UL_B:$ST_PORT" "$ST_UL_A:$ST_PORT"
	PLAIN_PIDS+=("$ST_LAST_PID")
	pin_fwd "${PLAIN_PIDS[0]}"; pin_fwd "${PLAIN_PIDS[1]}"
	st_wait_for 5 "plainfwd's tun $ST_TUN_NAME in both namespaces" tuns_present ||
		st_fail "plainfwd did not create its tun (see the logs above)"
	local ns addr
	for ns in "$ST_NS_A" "$ST_NS_B"; do
		addr=$ST_TUN_A; [[ $ns == "$ST_NS_B" ]] && addr=$ST_TUN_B
		ip -n "$ns" addr add "$addr/24" dev "$ST_TUN_NAME"
		ip -n "$ns" link set dev "$ST_TUN_NAME" mtu 1400 up
	done
	st_wait_for 10 "ping through the plainfwd tunnel" tunnel_pings ||
		st_fail "no ping through the plainfwd tunnel"
}
plain_stop() {
	local p
	for p in "${PLAIN_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	for p in "${PLAIN_PIDS[@]}"; do st_wait_pid_exit "$p" 5 || true; done
	PLAIN_PIDS=()
	st_wait_for 5 "the tuns to go away" tuns_gone || st_fail "tun $ST_TUN_NAME left behind"
}

# sched_start TAG RATE : a schedtun pair, delay 0, prio, stats in $OUT/TAG-{a,b}.jsonl
sched_start() {
	local tag=$1 rate=$2 side
	for side in a b; do
		local addr=$ST_TUN_A peer=$ST_UL_B ns=$ST_NS_A
		[[ $side == b ]] && { addr=$ST_TUN_B; peer=$ST_UL_A; ns=$ST_NS_B; }
		rm -f "$OUT/$tag-$side.jsonl"
		st_conf_write "$OUT/$tag-$side.conf" --address "$addr/24" --peer "$peer:$ST_PORT" \
			--rate "$rate" --delay 0ms --sched prio --stats-file "$OUT/$tag-$side.jsonl"
		st_daemon_start "$side" "$ns" "$OUT/$tag-$side.conf"
	done
	st_daemon_wait_ready a "$ST_TUN_A/24"
	st_daemon_wait_ready b "$ST_TUN_B/24"
	pin_fwd "${ST_PIDS[a]}"; pin_fwd "${ST_PIDS[b]}"
	st_wait_for 10 "ping through the schedtun tunnel" tunnel_pings ||
		st_fail "no ping through the schedtun tunnel"
}
sched_stop() {
	local tag=$1 ok=1
	st_daemon_stop a || ok=0
	st_daemon_stop b || ok=0
	cp -f "$ST_WORK/a.log" "$OUT/$tag-a.log" 2>/dev/null || true
	cp -f "$ST_WORK/b.log" "$OUT/$tag-b.log" 2>/dev/null || true
	: >"$ST_WORK/a.log"; : >"$ST_WORK/b.log"
	(( ok )) || st_log "WARNING: a schedtun daemon did not stop cleanly (see $OUT/$tag-*.log)"
	st_wait_for 5 "the tuns to go away" tuns_gone || st_fail "tun $ST_TUN_NAME left behind"
}

# iperf_server PORT : one-off iperf3 server in B on the tunnel address.
iperf_server() {
	st_bg "$ST_NS_B" "${IPERF[@]}" -s -1 -B "$ST_TUN_B" -p "$1"
	SERVER_PIDS+=("$ST_LAST_PID")
	st_wait_listen "$ST_NS_B" tcp "$1" 10 || st_fail "iperf3 server on port $1 did not start"
}
SERVER_PIDS=()
# One-off servers exit after their test; one whose client failed would wait
# for ever: a short bounded wait, then it is killed.
servers_wait() {
	local p
	for p in "${SERVER_PIDS[@]}"; do
		st_wait_for 5 "iperf3 server $p to exit" st__pid_gone "$p" 2>/dev/null ||
			kill -TERM "$p" 2>/dev/null || true
		st_wait_pid_exit "$p" 5 || true
	done
	SERVER_PIDS=()
}

# iperf_client JSON_OUT SECONDS ARGS... : in A, foreground, bounded.
iperf_client() {
	local json=$1 secs=$2; shift 2
	local rc=0
	timeout --kill-after=5 $(( secs + 30 )) ip netns exec "$ST_NS_A" \
		"${IPERF[@]}" -c "$ST_TUN_B" -t "$secs" --connect-timeout 5000 --json "$@" >"$json" 2>&1 || rc=$?
	(( rc == 0 )) || st_log "iperf3 $* exited with $rc (see $json)"
	return 0
}

# one compare test: FWD (plain|sched) KIND (tcp|udp) REP
compare_one() {
	local fwd=$1 kind=$2 rep=$3
	local json="$OUT/compare-$fwd-$kind-$rep.json"
	iperf_server $IPERF_PORT
	if [[ $kind == tcp ]]; then
		iperf_client "$json" "$TIME" -p $IPERF_PORT -C cubic
	else
		iperf_client "$json" "$TIME" -p $IPERF_PORT -u -l 64 -b "$UDP_RATE"
	fi
	servers_wait
	local v
	if [[ $kind == tcp ]]; then
		v=$(jget "$json" "round(d['end']['sum_received']['bits_per_second']/1e6, 2)" 2>/dev/null) || v=nan
		printf '  %-8s TCP  rep %d: %10s Mbit/s\n' "$fwd" "$rep" "$v"
	else
		# delivered datagrams = bytes received / 64, over the receiver's time
		v=$(jget "$json" "round(d['end']['sum_received']['bytes']/64/d['end']['sum_received']['seconds'])" \
			2>/dev/null) || v=nan
		local sent
		sent=$(jget "$json" "round(d['end']['sum_sent']['packets']/d['end']['sum_sent']['seconds'])" \
			2>/dev/null) || sent=nan
		printf '  %-8s UDP  rep %d: %10s pkt/s delivered (%s pkt/s sent)\n' "$fwd" "$rep" "$v" "$sent"
	fi
	echo "$fwd $kind $rep $v" >>"$OUT/compare.txt"
}

# ---------------------------------------------------------------- part 1
run_compare() {
	echo
	echo "== compare: plainfwd vs schedtun (unlimited, delay 0, prio); $REPS x $TIME s per test =="
	: >"$OUT/compare.txt"
	local rep fwd
	for (( rep = 1; rep <= REPS; rep++ )); do
		for fwd in plain sched; do
			if [[ $fwd == plain ]]; then
				plain_start
			else
				(( NO_SCHEDTUN )) && continue
				sched_start "compare-$rep" unlimited
			fi
			[[ $TESTS == *tcp* ]] && compare_one "$fwd" tcp "$rep"
			[[ $TESTS == *udp* ]] && compare_one "$fwd" udp "$rep"
			if [[ $fwd == plain ]]; then plain_stop; else sched_stop "compare-$rep"; fi
		done
	done
}

# ---------------------------------------------------------------- part 2
# mix_client TAG CLASS PORT SECS ARGS... : an iperf3 client in A, background.
mix_client() {
	local tag=$1 cls=$2 port=$3 secs=$4; shift 4
	st_bg "$ST_NS_A" timeout --kill-after=5 $(( secs + 30 )) "${IPERF[@]}" -c "$ST_TUN_B" \
		-p "$port" -t "$secs" --connect-timeout 5000 "$@" --json --logfile "$OUT/$tag-$cls.json"
	cpids+=("$ST_LAST_PID")
}
# udp_connected PORT : A has a connected UDP socket to the server's PORT.
udp_connected() {
	[[ -n $(ip netns exec "$ST_NS_A" ss -Hun "dport = :$1" 2>/dev/null) ]]
}
# tcp_established PORT N : A has at least N established TCP connections to PORT.
tcp_established() {
	local n
	n=$(ip netns exec "$ST_NS_A" ss -Htn state established "dport = :$1" 2>/dev/null | wc -l)
	(( n >= $2 ))
}

# mix_run TAG RATE_BPS TCP_CAP : servers in B, the EF+AF+CS0 mix from A,
# WARMUP s, then the TIME s window; leaves in U0/U1 the window's bounds
# (/proc/uptime) and in SA0 SA1 SB0 SB1 the forwarders' fwd_sample at both
# ends (pids in FWD_A, FWD_B).  TCP_CAP: iperf3 -b per TCP stream ("" = no
# cap: the link paces).  Waits for the clients and servers to finish.
mix_run() {
	local tag=$1 bps=$2 cap=$3
	local ef_bps=$(( bps / 5 ))
	local tcp_b=()
	[[ -n $cap ]] && tcp_b=(-b "$cap")
	iperf_server 5201
	iperf_server 5202
	iperf_server 5203
	# Staggered start, each client once the previous one's streams are up:
	# iperf3's control connections are CS0 (untagged), and under prio a
	# running AF load starves CS0, so a client started after AF may never
	# connect.  EF first, then CS0, then AF.
	local secs=$(( WARMUP + TIME + 5 )) cpids=()
	mix_client "$tag" ef 5201 "$secs" -u -b "$ef_bps" --tos 0xb8 -l 1200
	st_wait_for 10 "the EF UDP stream" udp_connected 5201 || st_log "WARNING: EF stream not seen"
	mix_client "$tag" cs0 5203 "$secs" -P 4 -C cubic "${tcp_b[@]}"
	st_wait_for 10 "the CS0 TCP streams" tcp_established 5203 5 || st_log "WARNING: CS0 streams not seen"
	mix_client "$tag" af 5202 "$secs" -P 4 -C cubic --tos 0x28 "${tcp_b[@]}"
	st_wait_for 10 "the AF TCP streams" tcp_established 5202 5 || st_log "WARNING: AF streams not seen"
	# Fixed-duration measurement window: WARMUP s after the last client's
	# streams came up, TIME s long.
	sleep "$WARMUP"
	U0=$(uptime_s); SA0=$(fwd_sample "$FWD_A" "$ST_NS_A"); SB0=$(fwd_sample "$FWD_B" "$ST_NS_B")
	sleep "$TIME"
	U1=$(uptime_s); SA1=$(fwd_sample "$FWD_A" "$ST_NS_A"); SB1=$(fwd_sample "$FWD_B" "$ST_NS_B")
	local p
	for p in "${cpids[@]}"; do st_wait_pid_exit "$p" 45 || st_log "an iperf3 client of $tag failed"; done
	servers_wait
}

# fwd_sample PID NS : one line "cpu_ns voluntary_cs nonvoluntary_cs
# tun_rx_pkts tun_tx_pkts tun_rx_bytes tun_tx_bytes" for the forwarder PID
# and its tun in NS.  The tun's tx is what the forwarder read from it (the
# kernel counts a packet when it is read), its rx what it wrote: the
# packets the forwarder carried, counted the same way for any forwarder.
# Voluntary context switches are the times it went to sleep (one per
# blocking poll/epoll_wait): its wake-ups.
fwd_sample() {
	local cs tun
	cs=$(awk '/^(non)?voluntary_ctxt_switches:/ {printf "%s ", $2}' "/proc/$1/status")
	tun=$(ip netns exec "$2" cat /sys/class/net/"$ST_TUN_NAME"/statistics/{rx_packets,tx_packets,rx_bytes,tx_bytes} |
		tr '\n' ' ')
	echo "$(pid_cpu_ns "$1") $cs$tun"
}

# Python helpers the row scripts below load (exec) from the environment:
# per-side numbers from two fwd_samples.
FWD_PY='
def side(s0, s1, wall):
    a = [int(x) for x in s0.split()]
    b = [int(x) for x in s1.split()]
    d = [y - x for x, y in zip(a, b)]
    cpu, vcs, _ivcs, rxp, txp, rxb, txb = d
    pkts = rxp + txp
    return {"cpu": cpu / 1e9 / wall * 100.0,             # % of one core
            "wake_s": vcs / wall,                         # sleeps per s
            "tun_pps": pkts / wall,                       # read + written
            "tun_read_mbit": txb * 8.0 / wall / 1e6,
            "pkts": pkts}
def per_k(cpu_pct, pps):
    # CPU time per 1000 packets in ms (= us per packet)
    return cpu_pct / 100.0 / pps * 1e6 if pps > 0 else float("nan")
def failed_clients(prefix):
    failed = []
    for c in ("ef", "af", "cs0"):
        try:
            if "error" in json.load(open(f"{prefix}-{c}.json")):
                failed.append(c)
        except (OSError, ValueError):
            failed.append(c)
    return ",".join(failed) or "-"
'

# pacing_one RATE : the mix through a schedtun pair at RATE; appends a result row.
pacing_one() {
	local rate=$1 tag="pacing-$1"
	local bps
	bps=$(rate_bps "$rate")
	echo "  $rate: EF $(( bps / 5 / 1000 ))kbit/s UDP + AF 4 cubic + CS0 4 cubic, ${WARMUP}+${TIME} s"
	sched_start "$tag" "$rate"
	FWD_A=${ST_PIDS[a]} FWD_B=${ST_PIDS[b]}
	local start_a start_b
	start_a=$(pid_start_s "$FWD_A")
	start_b=$(pid_start_s "$FWD_B")
	mix_run "$tag" "$bps" ""
	sched_stop "$tag"

	local from to
	from=$(calc "round($U0 - $start_a, 3)")
	to=$(calc "round($U1 - $start_a, 3)")
	"$PY" "$HERE/plot_rates.py" summary "$OUT/$tag-a.jsonl" "$OUT/$tag-b.jsonl" \
		--from "$from" --to "$to" --json "$OUT/$tag-summary.json" \
		--iperf ef="$OUT/$tag-ef.json" --iperf af="$OUT/$tag-af.json" \
		--iperf cs0="$OUT/$tag-cs0.json" --title "schedtun $rate, delay 0, prio" \
		>"$OUT/$tag-summary.txt" || st_log "no summary for $tag"
	# Row: rate out err late_mean late_max cpu_a cpu_b backlogged intervals
	# failed | pps_a pps_b ms1k_a ms1k_b wake_a wake_b tun_pps_a tun_pps_b
	# (the second part: packets forwarded per s from the stats, CPU ms per
	# 1000 of them, wake-ups per forwarded packet, packets through the tun).
	FWD_PY=$FWD_PY "$PY" - "$OUT/$tag-a.jsonl" "$OUT/$tag-b.jsonl" "$OUT/$tag-summary.json" "$rate" "$bps" "$U0" "$U1" \
		"$from" "$to" "$(calc "round($start_a - $start_b, 3)")" "$OUT/$tag" \
		"$SA0" "$SA1" "$SB0" "$SB1" \
		>>"$OUT/pacing.txt" <<'EOF'
import json, os, sys
exec(os.environ["FWD_PY"])
stats_a, stats_b, summ, rate, bps, u0, u1, t0, t1, shift_b, prefix, sa0, sa1, sb0, sb1 = sys.argv[1:]
failed = failed_clients(prefix)
wall = float(u1) - float(u0)
A = side(sa0, sa1, wall)
B = side(sb0, sb1, wall)
cpu_a, cpu_b = A["cpu"], B["cpu"]
def recs(path):
    try:
        return [json.loads(l) for l in open(path) if l.strip().startswith("{")]
    except (OSError, ValueError):
        return []
def fwd_pps(path, t0, t1):
    # packets forwarded = sent on the link + written to the tun, over the
    # stats intervals inside [t0, t1] (as plot_rates.py summary picks them)
    prev, n, dur = 0.0, 0, 0.0
    for r in recs(path):
        t = float(r["t"])
        dt, prev = t - prev, t
        if dt <= 1e-6 or t - dt < t0 - 1e-3 or t > t1 + 1e-3:
            continue
        dur += dt
        n += r["link"]["out_pkts"] + sum(r["rx"][c]["pkts"] for c in ("ef", "af", "cs0"))
    return n / dur if dur > 0 else float("nan")
pps_a = fwd_pps(stats_a, float(t0), float(t1))
pps_b = fwd_pps(stats_b, float(t0) + float(shift_b), float(t1) + float(shift_b))
tail = (f"{pps_a:.1f} {pps_b:.1f} {per_k(cpu_a, pps_a):.2f} {per_k(cpu_b, pps_b):.2f} "
        f"{A['wake_s'] / pps_a if pps_a > 0 else float('nan'):.3f} "
        f"{B['wake_s'] / pps_b if pps_b > 0 else float('nan'):.3f} "
        f"{A['tun_pps']:.1f} {B['tun_pps']:.1f}")
try:
    s = json.load(open(summ))
except (OSError, ValueError):
    s = None
if not s or not s.get("intervals"):
    print(f"{rate} nan nan nan nan {cpu_a:.2f} {cpu_b:.2f} no 0 {failed} {tail}")
    sys.exit(0)
out = s["link_out_mbit"]
err = (out * 1e6 - float(bps)) / float(bps) * 100.0
# backlogged: every interval ended with packets queued (the link never ran dry
# for lack of traffic, which would look like a pacing error but is not one)
q = [sum(r["classes"][c]["qlen_pkts"] for c in ("ef", "af", "cs0")) for r in recs(stats_a)
     if float(t0) - 1.001 <= r["t"] <= float(t1) + 0.001]
back = "yes" if q and min(q) > 0 else "no"
lm = s.get("late_p99_us_mean")
lx = s.get("late_p99_us_max")
print(f"{rate} {out:.4f} {err:.4f} {'nan' if lm is None else format(lm, '.1f')} "
      f"{'nan' if lx is None else format(lx, '.1f')} {cpu_a:.2f} {cpu_b:.2f} {back} "
      f"{s['intervals']} {failed} {tail}")
EOF
	tail -n 1 "$OUT/pacing.txt" | awk '{printf "    carried %s Mbit/s, error %s %%, late p99 %s us (worst %s), CPU a %s %% b %s %%, backlogged %s, %s intervals, failed iperf3 clients: %s\n", $2, $3, $4, $5, $6, $7, $8, $9, $10;
		printf "    forwarded a %s pkt/s, b %s pkt/s; CPU per 1000 pkts a %s ms, b %s ms; wake-ups per pkt a %s, b %s\n", $11, $12, $13, $14, $15, $16}'
}

# plain_pacing_one RATE : the same mix through a plainfwd pair, which does
# not pace: the TCP streams are capped with iperf3 -b so that the mix (EF
# UDP at RATE/5 plus 8 TCP streams) carries about RATE in IP packets; the
# baseline of what any tun<->UDP forwarder costs at that packet rate
# (including the kernel's network stack work done in the forwarder's context).
# Appends a row to pacing-plain.txt.
plain_pacing_one() {
	local rate=$1 tag="plain-$1"
	local bps cap
	bps=$(rate_bps "$rate")
	# 8 streams share RATE minus EF's IP rate (1200 B payload + 28 B
	# headers); -b counts TCP payload: 1348 of 1400 B (MTU 1400, TCP
	# timestamps).
	cap=$(calc "int(($bps - $bps / 5 * 1228 / 1200) / 8 * 1348 / 1400)")
	echo "  $rate: plainfwd, EF $(( bps / 5 / 1000 ))kbit/s UDP + AF 4 + CS0 4 cubic at -b $(( cap / 1000 ))kbit/s each, ${WARMUP}+${TIME} s"
	plain_start
	FWD_A=${PLAIN_PIDS[0]} FWD_B=${PLAIN_PIDS[1]}
	mix_run "$tag" "$bps" "$cap"
	plain_stop
	# Row: rate carried_mbit cpu_a cpu_b pps_a pps_b ms1k_a ms1k_b wake_a wake_b failed
	FWD_PY=$FWD_PY "$PY" - "$rate" "$U0" "$U1" "$OUT/$tag" "$SA0" "$SA1" "$SB0" "$SB1" \
		>>"$OUT/pacing-plain.txt" <<'EOF'
import json, os, sys
exec(os.environ["FWD_PY"])
rate, u0, u1, prefix, sa0, sa1, sb0, sb1 = sys.argv[1:]
wall = float(u1) - float(u0)
A = side(sa0, sa1, wall)
B = side(sb0, sb1, wall)
pa, pb = A["tun_pps"], B["tun_pps"]
print(f"{rate} {A['tun_read_mbit']:.4f} {A['cpu']:.2f} {B['cpu']:.2f} {pa:.1f} {pb:.1f} "
      f"{per_k(A['cpu'], pa):.2f} {per_k(B['cpu'], pb):.2f} "
      f"{A['wake_s'] / pa if pa > 0 else float('nan'):.3f} "
      f"{B['wake_s'] / pb if pb > 0 else float('nan'):.3f} {failed_clients(prefix)}")
EOF
	tail -n 1 "$OUT/pacing-plain.txt" | awk '{printf "    carried %s Mbit/s, CPU a %s %% b %s %%, forwarded a %s pkt/s, b %s pkt/s; CPU per 1000 pkts a %s ms, b %s ms; wake-ups per pkt a %s, b %s; failed iperf3 clients: %s\n", $2, $3, $4, $5, $6, $7, $8, $9, $10, $11}'
}

# rate_bps 20Mbit -> 20000000 (SI units, as the daemon parses them)
rate_bps() {
	"$PY" - "$1" <<'EOF'
import re, sys
m = re.fullmatch(r"([0-9.]+)\s*(bit|kbit|Mbit|Gbit)?", sys.argv[1])
if not m:
    sys.exit(f"bench: bad rate {sys.argv[1]!r} (want e.g. 20Mbit)")
mult = {None: 1, "bit": 1, "kbit": 1e3, "Mbit": 1e6, "Gbit": 1e9}[m.group(2)]
print(int(float(m.group(1)) * mult))
EOF
}

# timer_floor : how late this machine wakes a sleeping process (2000 sleeps
# of 600 us, timer slack 1 ns, no other load of ours): the floor under any
# timer-paced departure, and so under link.late_us.
timer_floor() {
	"$PY" - >"$OUT/timer-floor.txt" <<'EOF'
import time
try:
    with open("/proc/self/timerslack_ns", "w") as f:
        f.write("1")
except OSError:
    pass
late = []
for _ in range(2000):
    tgt = time.monotonic_ns() + 600_000
    time.sleep(0.0006)
    late.append((time.monotonic_ns() - tgt) / 1000.0)
late.sort()
print(f"{late[len(late) // 2]:.1f} {late[len(late) * 99 // 100]:.1f} {late[-1]:.1f}")
EOF
	local f50 f99 fmax
	read -r f50 f99 fmax <"$OUT/timer-floor.txt"
	echo "  machine timer floor (idle, 2000 x 600 us sleeps): late p50 $f50 us, p99 $f99 us, max $fmax us"
}

run_pacing() {
	echo
	echo "== pacing: schedtun with the EF+AF+CS0 mix, delay 0, prio; window $TIME s after ${WARMUP} s =="
	: >"$OUT/pacing.txt"
	: >"$OUT/pacing-plain.txt"
	timer_floor
	local r
	IFS=, read -r -a rate_list <<<"$RATES"
	for r in "${rate_list[@]}"; do
		pacing_one "$r"
		(( PLAIN_PACING )) && plain_pacing_one "$r"
	done
}

# ---------------------------------------------------------------- report
report() {
	"$PY" - "$OUT/compare.txt" "$OUT/pacing.txt" "$UDP_RATE" "$TIME" "$REPS" "$OUT/timer-floor.txt" \
		"$PIN" "$OUT/pacing-plain.txt" <<'EOF'
import math, os, sys
cmp_f, pac_f, udp_rate, secs, reps, floor_f, pin, plain_f = sys.argv[1:]
def yn(ok):
    return "n/a" if ok is None else ("MET" if ok else "missed")
def num(x):
    try:
        v = float(x)
        return None if math.isnan(v) else v
    except ValueError:
        return None
print()
print("=" * 78)
print("schedtun benchmark")
print("=" * 78)
if os.path.exists(cmp_f) and os.path.getsize(cmp_f):
    vals = {}
    for line in open(cmp_f):
        fwd, kind, rep, v = line.split()
        vals.setdefault((fwd, kind), []).append(num(v))
    def mean(k):
        xs = [x for x in vals.get(k, []) if x is not None]
        return sum(xs) / len(xs) if xs else None
    print(f"\nschedtun (unlimited, delay 0, prio) vs plainfwd; mean of {reps} x {secs} s"
          + ("; forwarders pinned to CPU 1, iperf3 to CPU 0" if pin == "1" else "; no CPU pinning"))
    print(f"{'metric':<34} {'plainfwd':>10} {'schedtun':>10} {'ratio':>7} {'target':>8} {'':>7}")
    rows = [("TCP cubic 1 flow, Mbit/s", "tcp", 1.0),
            (f"UDP 64 B (-b {udp_rate}) delivered pkt/s", "udp", 1.5)]
    for label, k, target in rows:
        p, s = mean(("plain", k)), mean(("sched", k))
        ratio = s / p if p and s is not None else None
        print(f"{label:<34} {p if p is not None else float('nan'):>10.1f} "
              f"{s if s is not None else float('nan'):>10.1f} "
              f"{(f'{ratio:.2f}x' if ratio is not None else '-'):>7} {f'>={target}x':>8} "
              f"{yn(None if ratio is None else ratio >= target):>7}")
if os.path.exists(pac_f) and os.path.getsize(pac_f):
    print(f"\nschedtun pacing, EF+AF+CS0 mix, delay 0, prio, {secs} s window")
    print(f"{'rate':<9} {'carried Mbit/s':>14} {'error %':>9} {'late p99 us':>11} {'worst':>8} "
          f"{'CPU a %':>8} {'CPU b %':>8} {'backlog':>7} {'failed':>7}")
    for line in open(pac_f):
        f = line.split()
        rate = f[0]
        out, err, lm, lx, ca, cb = (num(x) for x in f[1:7])
        def s(v, spec):
            return format(v, spec) if v is not None else "nan"
        print(f"{rate:<9} {s(out, '.3f'):>14} {s(err, '+.3f'):>9} {s(lm, '.1f'):>11} {s(lx, '.1f'):>8} "
              f"{s(ca, '.2f'):>8} {s(cb, '.2f'):>8} {f[7]:>7} {(f[9] if len(f) > 9 else '?'):>7}")
        if rate.replace(" ", "") in ("20Mbit", "20000000", "20000kbit"):
            print(f"  targets at {rate}: pacing error <= 0.1 %: "
                  f"{yn(None if err is None else abs(err) <= 0.1)}; "
                  f"late p99 <= 50 us: {yn(None if lm is None else lm <= 50)}; "
                  f"CPU <= 5 % per daemon: "
                  f"{yn(None if ca is None or cb is None else max(ca, cb) <= 5)}")
    if os.path.exists(floor_f):
        f50, f99, fmax = open(floor_f).read().split()
        print(f"  machine timer floor (idle process sleeping 600 us, slack 1 ns): late p50 {f50} us,"
              f" p99 {f99} us, max {fmax} us")
    print("  error = (carried - configured) / configured over the window; late p99 = packet-")
    print("  weighted mean of the per-interval link.late_us.p99, worst = largest interval p99;")
    print("  CPU = CPU time over the window in % of one core (a sends the data, b the ACKs);")
    print("  backlog = the sender's queues held packets at every interval end; failed = iperf3")
    print("  clients of the mix that reported an error (then the mix was incomplete).")
    # CPU cost beside the plainest forwarder carrying the same mix and rate
    plain = {}
    if os.path.exists(plain_f):
        for line in open(plain_f):
            f = line.split()
            if len(f) >= 11:
                plain[f[0]] = f
    print(f"\nCPU cost: schedtun vs plainfwd carrying the same mix at the same rate"
          f" (plainfwd's TCP streams capped with iperf3 -b)")
    print(f"{'rate':<9} {'forwarder':<9} {'Mbit/s':>7} {'CPU a %':>8} {'CPU b %':>8} {'pkt/s a':>8} "
          f"{'pkt/s b':>8} {'ms/1k a':>8} {'ms/1k b':>8} {'wake/pkt a':>10} {'wake/pkt b':>10}")
    def row(rate, fwd, mb, ca, cb, pa, pb, ka, kb, wa, wb):
        def s(v, spec):
            v = num(v)
            return format(v, spec) if v is not None else "nan"
        print(f"{rate:<9} {fwd:<9} {s(mb, '.2f'):>7} {s(ca, '.2f'):>8} {s(cb, '.2f'):>8} "
              f"{s(pa, '.0f'):>8} {s(pb, '.0f'):>8} {s(ka, '.2f'):>8} {s(kb, '.2f'):>8} "
              f"{s(wa, '.3f'):>10} {s(wb, '.3f'):>10}")
    for line in open(pac_f):
        f = line.split()
        if len(f) < 16:
            continue
        row(f[0], "schedtun", f[1], f[5], f[6], *f[10:16])
        p = plain.get(f[0])
        if p:
            row(p[0], "plainfwd", *p[1:10])
            d = [num(f[i]) is not None and num(p[j]) is not None and num(f[i]) - num(p[j])
                 for i, j in ((5, 2), (6, 3), (12, 6), (13, 7))]
            if all(x is not False for x in d):
                print(f"{'':<9} schedtun adds: a {d[0]:+.2f} % of a core ({d[2]:+.2f} ms per 1000 pkts),"
                      f" b {d[1]:+.2f} % ({d[3]:+.2f} ms per 1000 pkts)")
    print("  Mbit/s = carried (schedtun: link.out_bytes; plainfwd: bytes read from A's tun);")
    print("  pkt/s = packets forwarded by that side (sent on the underlay + written to the")
    print("  tun; schedtun: from its stats, plainfwd: from the tun's counters); ms/1k = CPU")
    print("  time per 1000 of them (= us per packet), kernel time in the forwarder's context")
    print("  included; wake/pkt = voluntary context switches (sleeps) per packet.")
EOF
}

# ---------------------------------------------------------------- main
echo "bench: results in $OUT"
echo "bench: plainfwd $PLAINFWD$( (( NO_SCHEDTUN )) || echo ", schedtun $SCHEDTUN")"
[[ -z $ONLY || $ONLY == compare ]] && run_compare
[[ -z $ONLY || $ONLY == pacing ]] && run_pacing
report | tee "$OUT/bench.txt"
echo
echo "bench: results in $OUT"
