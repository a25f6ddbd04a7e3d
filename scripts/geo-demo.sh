#!/usr/bin/env bash
# geo-demo.sh - schedtun on an emulated GEO satellite link, with live rates.
#
#   scripts/geo-demo.sh [options]
#
# Creates two network namespaces joined by a veth, starts a pair of schedtun
# daemons emulating a 20 Mbit/s link with 250 ms of delay each way (RTT
# 500 ms), and sends a DiffServ mix through the tunnel with iperf3:
#   EF : one UDP CBR flow   -u -b 4M --tos 0xb8 -l 1200
#   AF : 4 CUBIC flows      -P 4 -C cubic --tos 0x28
#   CS0: 4 CUBIC flows      -P 4 -C cubic
# While it runs it prints one line per second from the sending daemon's
# stats (per-class out rate, queue lengths, drops); at the end a per-class
# summary (mean out rate, share of the link, drops, queueing delay, rx loss,
# one-way delay) and a PNG plot of the rates over time.
#
# Options:
#   -d, --duration S   traffic seconds (default 30; 5..600)
#   -s, --sched NAME   scheduler: fifo prio pss dwrr pdrr dq ticket (default prio;
#                      `schedtun --help` lists those the build has)
#   --sched-params T   extra members of the config's scheduler group, e.g.
#                      'pss = { bw = 0.444444; lm = 6667; lr = 0; };'
#                      (default: the scheduler's own defaults)
#   -o, --out DIR      results (default results-tmp/geo-demo-<timestamp>)
#   --rate RATE        link rate (default 20Mbit)
#   --delay D          one-way delay (default 250ms)
#   --ef-rate R        EF UDP rate, iperf3 -b (default 4M)
#   --flows N          TCP flows per AF and CS0 class (default 4)
#   --warmup S         seconds after the traffic starts left out of the summary
#                      (default 8, or a third of the duration below 24 s)
#   --build-dir DIR    where schedtun is (default build; built when missing)
#   --forwarder plainfwd  plumbing check: plain forwarders instead of schedtun
#                      (no emulated link, no stats; iperf3 results only)
#   --no-deps          install nothing and build nothing: fail if a tool or
#                      the binary is missing (tests, CI)
#   --no-plot          no rates.png (skips matplotlib)
#   -h, --help
#
# Results in the output directory: a.conf b.conf (daemon configs), stats-a.jsonl
# (sender, 10.10.0.1) and stats-b.jsonl (receiver, 10.10.0.2), a.log b.log,
# iperf-{ef,af,cs0}.json, live.txt, summary.txt, summary.json, rates.png.
#
# Needs root.  Installs missing packages (scripts/deps.sh) and builds
# build/schedtun when it is missing.  Everything it starts is stopped, and
# both namespaces deleted, on exit and on Ctrl-C.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
PY=/usr/bin/python3

DURATION=30
SCHED=prio
SCHED_PARAMS=""
OUT=""
RATE=20Mbit
DELAY=250ms
EF_RATE=4M
FLOWS=4
WARMUP=""
BUILD_DIR=build
FORWARDER=schedtun
DEPS=1
PLOT=1

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }
die() { echo "geo-demo: $*" >&2; exit 1; }

while (( $# )); do
	case $1 in
	-d|--duration) DURATION=${2:?}; shift ;;
	-s|--sched|--scheduler) SCHED=${2:?}; shift ;;
	--sched-params) SCHED_PARAMS=${2:?}; shift ;;
	-o|--out) OUT=${2:?}; shift ;;
	--rate) RATE=${2:?}; shift ;;
	--delay) DELAY=${2:?}; shift ;;
	--ef-rate) EF_RATE=${2:?}; shift ;;
	--flows) FLOWS=${2:?}; shift ;;
	--warmup) WARMUP=${2:?}; shift ;;
	--build-dir) BUILD_DIR=${2:?}; shift ;;
	--forwarder) FORWARDER=${2:?}; shift ;;
	--no-deps) DEPS=0 ;;
	--no-plot) PLOT=0 ;;
	-h|--help) usage; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
	shift
done
if ! [[ $DURATION =~ ^[0-9]+$ ]] || (( DURATION < 5 || DURATION > 600 )); then
	die "--duration '$DURATION': want whole seconds, 5..600"
fi
if ! [[ $FLOWS =~ ^[0-9]+$ ]] || (( FLOWS < 1 || FLOWS > 32 )); then
	die "--flows '$FLOWS': 1..32"
fi
case $SCHED in fifo|prio|pss|dwrr|pdrr|dq|ticket) ;;
	*) die "--sched '$SCHED': one of fifo prio pss dwrr pdrr dq ticket" ;; esac
case $FORWARDER in schedtun|plainfwd) ;; *) die "--forwarder: schedtun or plainfwd" ;; esac
if [[ -z $WARMUP ]]; then
	WARMUP=8; (( DURATION < 24 )) && WARMUP=$(( DURATION / 3 ))
fi
if ! [[ $WARMUP =~ ^[0-9]+$ ]] || (( WARMUP >= DURATION )); then
	die "--warmup '$WARMUP': whole seconds below the duration"
fi
[[ $(id -u) -eq 0 ]] || die "needs root (network namespaces, tun): run it as root, or with sudo"

cd "$ROOT"
[[ $BUILD_DIR == /* ]] || BUILD_DIR="$ROOT/$BUILD_DIR"
BIN="$BUILD_DIR/$FORWARDER"

# ---------------------------------------------------------------- deps, build
if (( DEPS )); then bash "$HERE/deps.sh"; fi
if [[ ! -x $BIN ]] && (( DEPS )); then
	echo "geo-demo: $BIN missing: building it (cmake -B $BUILD_DIR)"
	cmake -S "$ROOT" -B "$BUILD_DIR" >/dev/null
	# only what the demo runs: a broken unit test must not stop the demo
	cmake --build "$BUILD_DIR" -j2 --target "$FORWARDER"
fi
[[ -x $BIN ]] || die "no $BIN after the build"
if [[ $FORWARDER == schedtun ]]; then
	"$BIN" --version >/dev/null 2>&1 || die "$BIN --version fails: is it a working build?"
fi

OUT=${OUT:-"$ROOT/results-tmp/geo-demo-$(date +%Y%m%d-%H%M%S)"}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
rm -f "$OUT"/stats-a.jsonl "$OUT"/stats-b.jsonl "$OUT"/iperf-*.json

ST_NAME=geo-demo
# shellcheck source=netns-lib.sh
source "$HERE/netns-lib.sh"
st_require_root
st_require_cmd iperf3 ping ss
st_init "$BIN"
# keep the daemon logs with the results, whatever happens
st_on_cleanup "cp -f \"\$ST_WORK\"/a.log \"\$ST_WORK\"/b.log \"$OUT\"/ 2>/dev/null"
st_ns_create

CLK_TCK=$(getconf CLK_TCK)
pid_start_s() {     # process start, seconds since boot
	local rest
	rest=$(sed 's/.*) //' "/proc/$1/stat")
	awk -v tck="$CLK_TCK" '{printf "%.2f\n", $20 / tck}' <<<"$rest"
}
# (called through st_wait_for)
# shellcheck disable=SC2317
tun_present() { ip -n "$1" link show dev "$ST_TUN_NAME" >/dev/null 2>&1; }
# shellcheck disable=SC2317
tuns_present() { tun_present "$ST_NS_A" && tun_present "$ST_NS_B"; }
# shellcheck disable=SC2317
tunnel_pings() { ip netns exec "$ST_NS_A" ping -c 1 -W 2 "$ST_TUN_B" >/dev/null 2>&1; }

# ---------------------------------------------------------------- the link
if [[ $FORWARDER == schedtun ]]; then
	echo "geo-demo: schedtun pair: link $RATE, delay $DELAY each way, scheduler $SCHED"
	sp=()
	[[ -n $SCHED_PARAMS ]] && sp=(--sched-params "$SCHED_PARAMS")
	st_conf_write "$OUT/a.conf" --address "$ST_TUN_A/24" --peer "$ST_UL_B:$ST_PORT" \
		--rate "$RATE" --delay "$DELAY" --sched "$SCHED" "${sp[@]}" \
		--stats-file "$OUT/stats-a.jsonl"
	st_conf_write "$OUT/b.conf" --address "$ST_TUN_B/24" --peer "$ST_UL_A:$ST_PORT" \
		--rate "$RATE" --delay "$DELAY" --sched "$SCHED" "${sp[@]}" \
		--stats-file "$OUT/stats-b.jsonl"
	"$BIN" --check -f "$OUT/a.conf" || die "schedtun rejects the generated $OUT/a.conf"
	st_daemon_start b "$ST_NS_B" "$OUT/b.conf"
	st_daemon_start a "$ST_NS_A" "$OUT/a.conf"
	st_daemon_wait_ready b "$ST_TUN_B/24"
	st_daemon_wait_ready a "$ST_TUN_A/24"
	START_A=$(pid_start_s "${ST_PIDS[a]}")
	START_B=$(pid_start_s "${ST_PIDS[b]}")
else
	echo "geo-demo: PLUMBING CHECK with plainfwd: no emulated link, no scheduler, no stats"
	st_bg "$ST_NS_A" "$BIN" "$ST_TUN_NAME" "$ST_UL_A:$ST_PORT" "$ST_UL_B:$ST_PORT"
	st_bg "$ST_NS_B" "$BIN" "$ST_TUN_NAME" "$ST_UL_B:$ST_PORT" "$ST_UL_A:$ST_PORT"
	st_wait_for 5 "plainfwd's tun in both namespaces" tuns_present ||
		st_fail "plainfwd did not create its tun"
	ip -n "$ST_NS_A" addr add "$ST_TUN_A/24" dev "$ST_TUN_NAME"
	ip -n "$ST_NS_B" addr add "$ST_TUN_B/24" dev "$ST_TUN_NAME"
	ip -n "$ST_NS_A" link set dev "$ST_TUN_NAME" mtu 1400 up
	ip -n "$ST_NS_B" link set dev "$ST_TUN_NAME" mtu 1400 up
fi
st_wait_for 15 "a ping through the tunnel ($ST_TUN_A -> $ST_TUN_B)" tunnel_pings ||
	st_fail "the tunnel does not carry ping"
echo "geo-demo: tunnel up: $(ip netns exec "$ST_NS_A" ping -c 1 -W 3 "$ST_TUN_B" | grep -o 'time=.*' || echo '?')"

# ---------------------------------------------------------------- traffic
declare -A PORT=([ef]=5201 [af]=5202 [cs0]=5203)
SERVER_PIDS=()
for c in ef af cs0; do
	st_bg "$ST_NS_B" iperf3 -s -1 -B "$ST_TUN_B" -p "${PORT[$c]}"
	SERVER_PIDS+=("$ST_LAST_PID")
done
for c in ef af cs0; do
	st_wait_listen "$ST_NS_B" tcp "${PORT[$c]}" 10 || st_fail "iperf3 server for $c did not start"
done

declare -A ARGS=(
	[ef]="-u -b $EF_RATE --tos 0xb8 -l 1200"
	[af]="-P $FLOWS -C cubic --tos 0x28"
	[cs0]="-P $FLOWS -C cubic"
)
LIMIT=$(( DURATION + 60 ))      # hard bound for each client (set-up over GEO, tail)
CLIENT_PIDS=()
for c in ef af cs0; do
	# shellcheck disable=SC2086
	st_bg "$ST_NS_A" timeout --kill-after=5 "$LIMIT" iperf3 -c "$ST_TUN_B" -p "${PORT[$c]}" \
		-t "$DURATION" --connect-timeout 10000 ${ARGS[$c]} --json --logfile "$OUT/iperf-$c.json"
	CLIENT_PIDS+=("$ST_LAST_PID")
done
echo "geo-demo: $DURATION s of traffic: EF ${ARGS[ef]} | AF ${ARGS[af]} | CS0 ${ARGS[cs0]}"

rc_all=0
if [[ $FORWARDER == schedtun ]]; then
	follow_args=(--watch "${ST_PIDS[a]}" --watch "${ST_PIDS[b]}")
	for p in "${CLIENT_PIDS[@]}"; do follow_args+=(--pid "$p"); done
	frc=0
	"$PY" "$HERE/plot_rates.py" follow "$OUT/stats-a.jsonl" --deadline "$LIMIT" \
		"${follow_args[@]}" | tee "$OUT/live.txt" || frc=${PIPESTATUS[0]}
	if (( frc == 3 )); then
		rc_all=1
		for d in a b; do
			if ! st_daemon_alive "$d"; then
				st_log "ERROR: daemon '$d' (pid ${ST_PIDS[$d]}) exited during the run; its log:"
				sed 's/^/    /' "$ST_WORK/$d.log" >&2
			fi
		done
		st_log "stopping the traffic: the results below cover the run up to the daemon's exit"
		for p in "${CLIENT_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	fi
fi
CLS=(ef af cs0)
for i in "${!CLIENT_PIDS[@]}"; do
	c=${CLS[$i]}
	rc=0; st_wait_pid_exit "${CLIENT_PIDS[$i]}" "$LIMIT" || rc=$?
	if (( rc != 0 )); then
		rc_all=1
		st_log "iperf3 client for $c exited with status $rc (see $OUT/iperf-$c.json)"
	fi
done
st_servers_stop 10 "${SERVER_PIDS[@]}"

# ---------------------------------------------------------------- results
{
	echo "geo-demo: $(date -Is)  forwarder $FORWARDER"
	if [[ $FORWARDER == schedtun ]]; then
		echo "link $RATE, delay $DELAY each way, scheduler $SCHED${SCHED_PARAMS:+ [$SCHED_PARAMS]}; traffic $DURATION s:"
	else
		echo "plainfwd plumbing check (no emulated link); traffic $DURATION s:"
	fi
	echo "  EF ${ARGS[ef]} | AF ${ARGS[af]} | CS0 ${ARGS[cs0]}"
	echo
} >"$OUT/summary.txt"

if [[ $FORWARDER == schedtun ]]; then
	stop_ok=1
	st_daemon_stop a || stop_ok=0
	st_daemon_stop b || stop_ok=0
	cp -f "$ST_WORK/a.log" "$ST_WORK/b.log" "$OUT/" 2>/dev/null || true
	(( stop_ok )) || st_log "WARNING: a daemon did not stop cleanly (SIGTERM -> exit 0): see $OUT/*.log"
	# Summary window, in the sender daemon's time: from WARMUP s after the
	# traffic started (found in the stats: iperf3 needs a few round trips
	# before it sends) to DURATION s after it (TCP's tail drains later).
	RX_SHIFT=$("$PY" -c "print(round($START_A - $START_B, 2))")
	"$PY" "$HERE/plot_rates.py" summary "$OUT/stats-a.jsonl" "$OUT/stats-b.jsonl" \
		--skip "$WARMUP" --traffic-duration "$DURATION" --rx-shift "$RX_SHIFT" \
		--json "$OUT/summary.json" \
		--iperf ef="$OUT/iperf-ef.json" --iperf af="$OUT/iperf-af.json" \
		--iperf cs0="$OUT/iperf-cs0.json" \
		--title "per-class summary (sender egress = stats-a, arrivals = stats-b):" \
		>>"$OUT/summary.txt" || st_log "summary failed"
	if (( PLOT )); then
		"$PY" "$HERE/plot_rates.py" plot "$OUT/stats-a.jsonl" "$OUT/rates.png" \
			--skip "$WARMUP" --traffic-duration "$DURATION" \
			--title "schedtun $SCHED: $RATE, $DELAY one way; EF $EF_RATE UDP, AF/CS0 ${FLOWS}x cubic" \
			>/dev/null || st_log "plot failed"
	fi
else
	"$PY" "$HERE/plot_rates.py" iperf ef="$OUT/iperf-ef.json" af="$OUT/iperf-af.json" \
		cs0="$OUT/iperf-cs0.json" >>"$OUT/summary.txt" || st_log "iperf3 table failed"
fi
echo
cat "$OUT/summary.txt"
echo
echo "geo-demo: results in $OUT"
for f in "$OUT"/*; do echo "  $(basename "$f")"; done
exit "$rc_all"
