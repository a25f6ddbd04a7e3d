#!/usr/bin/env bash
# geo-demo.sh - schedtun on an emulated GEO satellite link, with live rates.
#
#   scripts/geo-demo.sh [options]
#   scripts/geo-demo.sh --compare dwrr       the same scenario under PSS and DWRR
#
# Creates two network namespaces joined by a veth, starts a pair of schedtun
# daemons emulating a 20 Mbit/s link with 250 ms of delay each way (RTT
# 500 ms), and sends a DiffServ mix through the tunnel:
#   EF : schedtun-efgen, UDP 1250-byte packets, DSCP 46; by default a step:
#        2.5 Mbit/s, then 7.5 Mbit/s from the middle of the measured window
#   AF : 4 CUBIC flows (iperf3 -P 4 -C cubic --tos 0x28)
#   CS0: 4 CUBIC flows (iperf3 -P 4 -C cubic)
# The default scheduler is PSS with its parameters computed by `schedtun
# params pss` for WRR weights 3:2 (AF:CS0), 1400-byte packets (the tunnel's
# MTU), C = the link rate and R_EF^exp = the mean EF rate of the window
# (5 Mbit/s): PSS serves AF K_AF (C - R_EF^exp) = 9 Mbit/s whatever EF does
# (the paper's eq. 7) and CS0 the rest; DWRR with the same weights gives AF
# K_AF (C - R_EF), which moves with EF (eq. 1).
# While it runs it prints one line per second from the sending daemon's
# stats (per-class out rate, queue lengths, drops); at the end a per-class
# summary (mean out rate, share, drops, queueing delay, rx loss, one-way
# delay), each class's rate before and after the EF step next to the
# theory, and a PNG plot of the rates over time.  About 50 s.
#
# Options:
#   -d, --duration S   traffic seconds (default 40; 5..600)
#   -s, --sched NAME   scheduler: fifo prio pss dwrr pdrr dq ticket (default pss;
#                      `schedtun --help` lists those the build has)
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
#   --flows N          TCP flows per AF and CS0 class (default 4)
#   --warmup S         seconds after the traffic starts left out of the summary
#                      (default 10, or a third of the duration below 30 s)
#   --settle S         seconds after the EF step left out of "after" (default 2,
#                      or a third of what follows the step when that is shorter)
#   --build-dir DIR    where schedtun and schedtun-efgen are (default build;
#                      built when missing)
#   --forwarder plainfwd  plumbing check: plain forwarders instead of schedtun
#                      (no emulated link, no stats; iperf3 results only)
#   --no-deps          install nothing and build nothing: fail if a tool or
#                      a binary is missing (tests, CI)
#   --no-plot          no PNG (skips matplotlib)
#   -h, --help
#
# Results in the output directory: a.conf b.conf (daemon configs), params.txt
# (the calculator's output), stats-a.jsonl (sender, 10.10.0.1) and
# stats-b.jsonl (receiver, 10.10.0.2), a.log b.log, iperf-{af,cs0}.json,
# ef-send.jsonl ef-sink.jsonl (schedtun-efgen), live.txt, summary.txt,
# summary.json, rates.png.
#
# Needs root.  Installs missing packages (scripts/deps.sh) and builds
# schedtun and schedtun-efgen when they are missing.  Everything it starts
# is stopped, and both namespaces deleted, on exit and on Ctrl-C.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
PY=/usr/bin/python3

DURATION=40
SCHED=pss
COMPARE=""
WEIGHTS=3:2
RULE=calibrated
SCHED_PARAMS=""
EF_SPEC=step
EF_EXP=""
OUT=""
RATE=20Mbit
DELAY=250ms
FLOWS=4
WARMUP=""
SETTLE=""
BUILD_DIR=build
FORWARDER=schedtun
DEPS=1
PLOT=1
L_PKT=1400          # AF and CS0 packets: full TCP segments at the tunnel's MTU
L_EF=1250           # schedtun-efgen --size (IP bytes)
SCHEDS="fifo prio pss dwrr pdrr dq ticket"

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }
die() { echo "geo-demo: $*" >&2; exit 1; }
say() { echo "geo-demo: $*"; }
is_sched() { [[ " $SCHEDS " == *" $1 "* ]]; }
calc() { "$PY" -c "print($1)"; }
# rate_mbit RATE: Mbit/s as a number ("2.5Mbit" -> 2.5), via plot_rates.py's parser
rate_mbit() {
	"$PY" -c 'import sys; sys.path.insert(0, sys.argv[1]); import plot_rates as p; print(f"{p.rate_mbit(sys.argv[2]):g}")' \
		"$HERE" "$1" 2>/dev/null || die "'$1' is not a rate (e.g. 20Mbit, 2.5Mbit, 500kbit)"
}

while (( $# )); do
	case $1 in
	-d|--duration) DURATION=${2:?}; shift ;;
	-s|--sched|--scheduler) SCHED=${2:?}; shift ;;
	--compare) COMPARE=${2:?}; shift ;;
	--weights) WEIGHTS=${2:?}; shift ;;
	--rule) RULE=${2:?}; shift ;;
	--sched-params) SCHED_PARAMS=${2:?}; shift ;;
	--ef) EF_SPEC=${2:?}; shift ;;
	--ef-rate) EF_SPEC=${2:?}; shift ;;
	--ef-exp) EF_EXP=${2:?}; shift ;;
	-o|--out) OUT=${2:?}; shift ;;
	--rate) RATE=${2:?}; shift ;;
	--delay) DELAY=${2:?}; shift ;;
	--flows) FLOWS=${2:?}; shift ;;
	--warmup) WARMUP=${2:?}; shift ;;
	--settle) SETTLE=${2:?}; shift ;;
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
is_sched "$SCHED" || die "--sched '$SCHED': one of $SCHEDS"
if [[ -n $COMPARE ]]; then
	is_sched "$COMPARE" || die "--compare '$COMPARE': one of $SCHEDS"
	[[ $COMPARE != "$SCHED" ]] || die "--compare $COMPARE: the same scheduler as --sched"
fi
case $FORWARDER in schedtun|plainfwd) ;; *) die "--forwarder: schedtun or plainfwd" ;; esac
[[ $FORWARDER == plainfwd && -n $COMPARE ]] && die "--compare needs --forwarder schedtun"
[[ $WEIGHTS =~ ^([0-9]+):([0-9]+)$ ]] || die "--weights '$WEIGHTS': want W_AF:W_CS0, e.g. 3:2"
W_AF=${BASH_REMATCH[1]} W_CS0=${BASH_REMATCH[2]}
case $RULE in calibrated|paper) ;; *) die "--rule '$RULE': calibrated or paper" ;; esac
if [[ -z $WARMUP ]]; then
	WARMUP=10; (( DURATION < 30 )) && WARMUP=$(( DURATION / 3 ))
fi
if ! [[ $WARMUP =~ ^[0-9]+$ ]] || (( WARMUP >= DURATION )); then
	die "--warmup '$WARMUP': whole seconds below the duration"
fi

# EF: a step at the middle of the measured window, or a constant rate.
# EF1/EF2 are the rates before/after the step (equal for a constant).
STEP_AT=""
case $EF_SPEC in
step) EF1=2.5Mbit EF2=7.5Mbit ;;
step:*:*)
	IFS=: read -r _ EF1 EF2 <<<"$EF_SPEC"
	[[ -n $EF1 && -n $EF2 && $EF2 != *:* ]] || die "--ef '$EF_SPEC': want step:R1:R2, e.g. step:2.5Mbit:7.5Mbit" ;;
step:*) die "--ef '$EF_SPEC': want step, step:R1:R2 or a constant RATE" ;;
*) EF1=$EF_SPEC EF2=$EF_SPEC ;;
esac
EF1_M=$(rate_mbit "$EF1") EF2_M=$(rate_mbit "$EF2")
C_M=$(rate_mbit "$RATE")
[[ $EF_SPEC == step* ]] && STEP_AT=$(calc "$WARMUP + ($DURATION - $WARMUP) / 2")
# settle: 2 s, or a third of what follows the step when that is below 6 s
[[ -n $SETTLE ]] || SETTLE=$(calc "f'{min(2, round(($DURATION - ${STEP_AT:-0}) / 3, 1)):g}'")
[[ $SETTLE =~ ^[0-9]+([.][0-9]+)?$ ]] || die "--settle '$SETTLE': seconds, e.g. 2"
if [[ -n $STEP_AT ]] && (( $(calc "int($STEP_AT + $SETTLE >= $DURATION)") )); then
	die "--settle $SETTLE: leaves nothing of the window after the step at $STEP_AT s"
fi
# R_EF^exp: the mean EF rate over the measured window
[[ -n $EF_EXP ]] || EF_EXP="$(calc "f'{($EF1_M + $EF2_M) / 2:g}'")Mbit"
EF_EXP_M=$(rate_mbit "$EF_EXP")
(( $(calc "int($EF_EXP_M < $C_M and $EF1_M <= $C_M and $EF2_M <= $C_M)") )) ||
	die "EF ($EF1, $EF2, R_EF^exp $EF_EXP) must stay below the link rate $RATE"
[[ $(id -u) -eq 0 ]] || die "needs root (network namespaces, tun): run it as root, or with sudo"

cd "$ROOT"
[[ $BUILD_DIR == /* ]] || BUILD_DIR="$ROOT/$BUILD_DIR"
OUT=${OUT:-"$ROOT/results-tmp/geo-demo-$(date +%Y%m%d-%H%M%S)"}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

# ---------------------------------------------------------------- --compare
# The same scenario twice, each run a child geo-demo.sh in OUT/<sched>/ with
# its own namespaces and cleanup.  The children run in the background (so
# they ignore the terminal's SIGINT): Ctrl-C reaches this shell, which
# sends them SIGTERM, and they clean up.
CHILD=""
# shellcheck disable=SC2317  # called from the trap
compare_stop() {
	trap "" INT TERM
	say "interrupted: stopping the run in progress"
	if [[ -n $CHILD ]]; then kill -TERM "$CHILD" 2>/dev/null; wait "$CHILD" 2>/dev/null || true; fi
	exit 130
}
compare_run() {    # compare_run SCHED [extra options]
	local s=$1; shift
	local args=(--sched "$s" -o "$OUT/$s" --duration "$DURATION" --warmup "$WARMUP"
		--settle "$SETTLE" --rate "$RATE" --delay "$DELAY" --flows "$FLOWS"
		--weights "$WEIGHTS" --rule "$RULE" --ef "$EF_SPEC" --ef-exp "$EF_EXP"
		--build-dir "$BUILD_DIR" "$@")
	[[ -n $SCHED_PARAMS ]] && args+=(--sched-params "$SCHED_PARAMS")
	(( PLOT )) || args+=(--no-plot)
	bash "$0" "${args[@]}" &
	CHILD=$!
	local rc=0
	wait "$CHILD" || rc=$?
	CHILD=""
	return "$rc"
}
if [[ -n $COMPARE ]]; then
	trap compare_stop INT TERM
	deps=(); (( DEPS )) || deps=(--no-deps)
	rc=0
	say "=== run 1 of 2: $SCHED"
	compare_run "$SCHED" "${deps[@]}" || rc=$?
	say "=== run 2 of 2: $COMPARE (the same scenario)"
	compare_run "$COMPARE" --no-deps || rc=$?
	for s in "$SCHED" "$COMPARE"; do
		[[ -s $OUT/$s/summary.json ]] || die "no $OUT/$s/summary.json: no comparison"
	done
	png="$OUT/compare.png"; (( PLOT )) || png=-
	{
		echo "geo-demo --compare: $SCHED vs $COMPARE, the same scenario ($(date -Is)):"
		echo "link $RATE, delay $DELAY each way; EF $EF1 -> $EF2 at t0 + $STEP_AT s; AF, CS0 ${FLOWS}x cubic;"
		echo "measured windows: before = t0 + $WARMUP s .. the step, after = step + $SETTLE s .. t0 + $DURATION s"
		"$PY" "$HERE/plot_rates.py" compare "$OUT/$SCHED/summary.json" "$OUT/$COMPARE/summary.json" \
			"$png" --title "schedtun on a GEO link ($RATE, $DELAY one way), EF $EF1 -> $EF2 at t = $STEP_AT s, AF and CS0 ${FLOWS}x cubic: $SCHED vs $COMPARE"
	} >"$OUT/compare.txt" || die "comparison failed"
	echo
	cat "$OUT/compare.txt"
	(( PLOT )) && say "plot: $OUT/compare.png"
	say "results in $OUT ($SCHED/, $COMPARE/, compare.txt, compare.png)"
	exit "$rc"
fi

rm -f "$OUT"/stats-a.jsonl "$OUT"/stats-b.jsonl "$OUT"/iperf-*.json "$OUT"/ef-*.jsonl

# ---------------------------------------------------------------- deps, build
build_target() {    # build_target NAME: build/NAME when it is missing (and allowed)
	if [[ ! -x $BUILD_DIR/$1 ]] && (( DEPS )); then
		say "$BUILD_DIR/$1 missing: building it (cmake -B $BUILD_DIR)"
		cmake -S "$ROOT" -B "$BUILD_DIR" >/dev/null
		# only what the demo runs: a broken unit test must not stop the demo
		cmake --build "$BUILD_DIR" -j2 --target "$1"
	fi
}
if (( DEPS )); then bash "$HERE/deps.sh" experiments; fi
BIN="$BUILD_DIR/$FORWARDER"
EFGEN="$BUILD_DIR/schedtun-efgen"
build_target "$FORWARDER"
[[ -x $BIN ]] || die "no $BIN after the build"
if [[ $FORWARDER == schedtun ]]; then
	"$BIN" --version >/dev/null 2>&1 || die "$BIN --version fails: is it a working build?"
	build_target schedtun-efgen
fi
EF_TOOL=efgen
if [[ ! -x $EFGEN ]]; then
	[[ -z $STEP_AT ]] ||
		die "no $EFGEN: the EF step needs schedtun-efgen (cmake --build $BUILD_DIR --target schedtun-efgen), or pass a constant --ef RATE (iperf3)"
	EF_TOOL=iperf3
	say "no $EFGEN: constant EF from iperf3 -u instead"
fi

# ---------------------------------------------------------------- PSS parameters
# From the calculator, for the demo's weights, packet sizes, C and R_EF^exp:
# its first configuration block (the --rule set) has the pss and dwrr groups.
K_AF=""
sched_params_calc() {
	local cmd=("$BIN" params pss --w-af "$W_AF" --w-cs0 "$W_CS0" --l-af "$L_PKT" --l-cs0 "$L_PKT"
		--l-ef "$L_EF" --capacity "$RATE" --ef-exp "$EF_EXP" --rule "$RULE" --no-sim)
	"${cmd[@]}" >"$OUT/params.txt" 2>&1 || { cat "$OUT/params.txt" >&2; die "schedtun params pss failed"; }
	local pss dwrr lr
	K_AF=$(sed -n 's/^K_AF = \([0-9.]*\).*/\1/p' "$OUT/params.txt" | head -1)
	pss=$(sed -n '/^scheduler = {/,/^};/{s/^  \(pss  = {[^}]*};\).*/\1/p}' "$OUT/params.txt" | head -1)
	dwrr=$(sed -n '/^scheduler = {/,/^};/{s/^  \(dwrr = {.*};\).*$/\1/p}' "$OUT/params.txt" | head -1)
	[[ -n $K_AF && -n $pss && -n $dwrr ]] || die "cannot read the calculator's output ($OUT/params.txt)"
	lr=$(sed -n 's/.*lr = \([0-9]*\);.*/\1/p' <<<"$pss")
	# start in the steady state: the calculator's advice (credit_init = LR)
	pss=${pss%\};}
	SCHED_PARAMS_CALC="${pss}credit_init = ${lr:-0}; }; $dwrr"
	say "PSS parameters: schedtun ${cmd[*]:1}"
	say "  -> $pss}  K_AF = $K_AF; credit_init = LR (no start-up); DWRR: $dwrr"
	if [[ $RULE == calibrated ]]; then
		say "  why calibrated: Algorithm 1 gives AF about BW*C; this set puts BW*C at eq. 7's" \
			"K_AF*(C - R_EF^exp) = $(calc "round($K_AF * ($C_M - $EF_EXP_M), 3)") Mbit/s" \
			"(the paper's eqs. 3-5 aim higher: docs/pss.md)"
	else
		say "  paper rule (eqs. 3-5): Algorithm 1 gives AF about BW*C, above eq. 7 (docs/pss.md)"
	fi
}
SCHED_PARAMS_CALC=""
if [[ $FORWARDER == schedtun ]]; then
	sched_params_calc
	[[ -n $SCHED_PARAMS ]] || SCHED_PARAMS=$SCHED_PARAMS_CALC
fi

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
	say "schedtun pair: link $RATE, delay $DELAY each way, scheduler $SCHED"
	for side in a b; do
		if [[ $side == a ]]; then addr=$ST_TUN_A peer=$ST_UL_B; else addr=$ST_TUN_B peer=$ST_UL_A; fi
		st_conf_write "$OUT/$side.conf" --address "$addr/24" --peer "$peer:$ST_PORT" \
			--rate "$RATE" --delay "$DELAY" --sched "$SCHED" --sched-params "$SCHED_PARAMS" \
			--stats-file "$OUT/stats-$side.jsonl"
	done
	"$BIN" --check -f "$OUT/a.conf" || die "schedtun rejects the generated $OUT/a.conf"
	st_daemon_start b "$ST_NS_B" "$OUT/b.conf"
	st_daemon_start a "$ST_NS_A" "$OUT/a.conf"
	st_daemon_wait_ready b "$ST_TUN_B/24"
	st_daemon_wait_ready a "$ST_TUN_A/24"
	START_A=$(pid_start_s "${ST_PIDS[a]}")
	START_B=$(pid_start_s "${ST_PIDS[b]}")
else
	say "PLUMBING CHECK with plainfwd: no emulated link, no scheduler, no stats"
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
say "tunnel up: $(ip netns exec "$ST_NS_A" ping -c 1 -W 3 "$ST_TUN_B" | grep -o 'time=.*' || echo '?')"

# ---------------------------------------------------------------- traffic
declare -A PORT=([ef]=5201 [af]=5202 [cs0]=5203)
SERVER_PIDS=()
TCP_CLS=(af cs0)
[[ $EF_TOOL == iperf3 ]] && TCP_CLS=(ef af cs0)    # (the ef one is UDP)
for c in "${TCP_CLS[@]}"; do
	st_bg "$ST_NS_B" iperf3 -s -1 -B "$ST_TUN_B" -p "${PORT[$c]}"
	SERVER_PIDS+=("$ST_LAST_PID")
done
for c in "${TCP_CLS[@]}"; do
	st_wait_listen "$ST_NS_B" tcp "${PORT[$c]}" 10 || st_fail "iperf3 server for $c did not start"
done
SINK_PID=""
if [[ $EF_TOOL == efgen ]]; then
	st_bg "$ST_NS_B" "$EFGEN" --sink --listen "$ST_TUN_B:${PORT[ef]}" --report "$OUT/ef-sink.jsonl"
	SINK_PID=$ST_LAST_PID
	st_wait_listen "$ST_NS_B" udp "${PORT[ef]}" 10 || st_fail "the schedtun-efgen sink did not start"
fi

EF_RATE_SPEC=$EF1
[[ -n $STEP_AT ]] && EF_RATE_SPEC="step:$EF1:${STEP_AT}s:$EF2"
# iperf3 fallback (constant only): -b counts UDP payload, -l 1222 = 1250-byte IP packets
EF_IPERF_B=$(calc "int($EF1_M * 1e6 * ($L_EF - 28) / $L_EF)")
declare -A ARGS=(
	[ef]="-u -b $EF_IPERF_B --tos 0xb8 -l $(( L_EF - 28 ))"
	[af]="-P $FLOWS -C cubic --tos 0x28"
	[cs0]="-P $FLOWS -C cubic"
)
LIMIT=$(( DURATION + 60 ))      # hard bound for each client (set-up over GEO, tail)
CLIENT_PIDS=()
CLIENT_CLS=()
if [[ $EF_TOOL == efgen ]]; then
	st_bg "$ST_NS_A" timeout --kill-after=5 "$LIMIT" "$EFGEN" --dst "$ST_TUN_B:${PORT[ef]}" \
		--bind "$ST_TUN_A" --rate "$EF_RATE_SPEC" --duration "$DURATION" --size "$L_EF" \
		--tos 0xb8 --report "$OUT/ef-send.jsonl"
	EF_DESC="schedtun-efgen --rate $EF_RATE_SPEC --size $L_EF"
else
	st_bg "$ST_NS_A" timeout --kill-after=5 "$LIMIT" iperf3 -c "$ST_TUN_B" -p "${PORT[ef]}" \
		-t "$DURATION" --connect-timeout 10000 ${ARGS[ef]} --json --logfile "$OUT/iperf-ef.json"
	EF_DESC="iperf3 ${ARGS[ef]}"
fi
EF_PID=$ST_LAST_PID
CLIENT_PIDS+=("$ST_LAST_PID"); CLIENT_CLS+=(ef)
for c in af cs0; do
	# shellcheck disable=SC2086
	st_bg "$ST_NS_A" timeout --kill-after=5 "$LIMIT" iperf3 -c "$ST_TUN_B" -p "${PORT[$c]}" \
		-t "$DURATION" --connect-timeout 10000 ${ARGS[$c]} --json --logfile "$OUT/iperf-$c.json"
	CLIENT_PIDS+=("$ST_LAST_PID"); CLIENT_CLS+=("$c")
done
say "$DURATION s of traffic: EF $EF_DESC | AF ${ARGS[af]} | CS0 ${ARGS[cs0]}"
# t0: the traffic's start (the EF sender's) in the sending daemon's time
T0=""
if [[ $FORWARDER == schedtun ]]; then
	T0=$(calc "round($(pid_start_s "$EF_PID") - $START_A, 2)")
	say "measured window: t0 + $WARMUP s .. t0 + $DURATION s (t0 = ${T0} s of daemon time)${STEP_AT:+; EF step at t0 + $STEP_AT s}"
fi

rc_all=0
if [[ $FORWARDER == schedtun ]]; then
	follow_args=(--watch "${ST_PIDS[a]}" --watch "${ST_PIDS[b]}"
		--mark "$(calc "$T0 + $WARMUP"):warm-up over: the measured window starts")
	[[ -n $STEP_AT ]] && follow_args+=(--mark "$(calc "$T0 + $STEP_AT"):EF steps $EF1 -> $EF2")
	for p in "${CLIENT_PIDS[@]}"; do follow_args+=(--pid "$p"); done
	# in the background, so that a SIGTERM's trap runs at once (bash runs
	# traps only once a foreground command ends); the cleanup stops it
	"$PY" "$HERE/plot_rates.py" follow "$OUT/stats-a.jsonl" --deadline "$LIMIT" \
		--log "$OUT/live.txt" "${follow_args[@]}" &
	FOLLOW_PID=$!
	st_on_cleanup "kill -TERM $FOLLOW_PID 2>/dev/null"
	frc=0
	wait "$FOLLOW_PID" || frc=$?
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
for i in "${!CLIENT_PIDS[@]}"; do
	c=${CLIENT_CLS[$i]}
	rc=0; st_wait_pid_exit "${CLIENT_PIDS[$i]}" "$LIMIT" || rc=$?
	if (( rc != 0 )); then
		rc_all=1
		st_log "$c sender exited with status $rc (see $OUT/iperf-$c.json or ef-send.jsonl)"
	fi
done
st_servers_stop 10 "${SERVER_PIDS[@]}"
if [[ -n $SINK_PID ]]; then
	sleep 1     # the last EF packets are a one-way delay away
	kill -INT "$SINK_PID" 2>/dev/null || true
	st_wait_pid_exit "$SINK_PID" 5 || st_log "the schedtun-efgen sink did not exit cleanly"
fi

# ---------------------------------------------------------------- results
ef_line() {    # what schedtun-efgen sent and its sink received
	"$PY" - "$OUT/ef-send.jsonl" "$OUT/ef-sink.jsonl" <<'EOF' || true
import json, sys
def last(path):
    s = {}
    for l in open(path):
        if l.startswith('{"summary"'):
            s = json.loads(l)["summary"]
    return s
snd, rcv = last(sys.argv[1]), last(sys.argv[2])
print("schedtun-efgen: sent %d pkts (%.2f Mbit/s over %.1f s, %.4f %% from the profile), sink "
      "received %d, lost %d, owd p50 %.1f ms"
      % (snd["sent_pkts"], snd["sent_bits"] / snd["duration_s"] / 1e6, snd["duration_s"],
         snd["error_pct"], rcv["rcvd_pkts"], rcv["lost_pkts"], rcv["owd_ms"]["p50"]))
EOF
}
{
	echo "geo-demo: $(date -Is)  forwarder $FORWARDER"
	if [[ $FORWARDER == schedtun ]]; then
		echo "link $RATE, delay $DELAY each way, scheduler $SCHED [$SCHED_PARAMS]; traffic $DURATION s:"
	else
		echo "plainfwd plumbing check (no emulated link); traffic $DURATION s:"
	fi
	echo "  EF $EF_DESC | AF ${ARGS[af]} | CS0 ${ARGS[cs0]}"
	[[ $EF_TOOL == efgen ]] && ef_line
	echo
} >"$OUT/summary.txt"

theory_args() {    # the scenario options of plot_rates.py summary and plot
	local a=(--t0 "$T0" --skip "$WARMUP" --traffic-duration "$DURATION" --label "$SCHED"
		--k-af "$K_AF" --capacity "$RATE" --ef-exp "$EF_EXP" --ef-before "$EF1" --ef-after "$EF2")
	[[ -n $STEP_AT ]] && a+=(--step-at "$STEP_AT" --settle "$SETTLE")
	case $SCHED in pss|dwrr|prio) a+=(--theory "$SCHED") ;; esac
	printf '%s\n' "${a[@]}"
}
if [[ $FORWARDER == schedtun ]]; then
	stop_ok=1
	st_daemon_stop a || stop_ok=0
	st_daemon_stop b || stop_ok=0
	cp -f "$ST_WORK/a.log" "$ST_WORK/b.log" "$OUT/" 2>/dev/null || true
	(( stop_ok )) || st_log "WARNING: a daemon did not stop cleanly (SIGTERM -> exit 0): see $OUT/*.log"
	# Summary window, in the sender daemon's time: from WARMUP s after the
	# traffic started (t0: iperf3 needs a few round trips before it sends,
	# TCP some seconds to fill the 1.25 MB pipe) to DURATION s after it.
	RX_SHIFT=$(calc "round($START_A - $START_B, 2)")
	mapfile -t TH < <(theory_args)
	iperf=(--iperf af="$OUT/iperf-af.json" --iperf cs0="$OUT/iperf-cs0.json")
	[[ $EF_TOOL == iperf3 ]] && iperf+=(--iperf ef="$OUT/iperf-ef.json")
	"$PY" "$HERE/plot_rates.py" summary "$OUT/stats-a.jsonl" "$OUT/stats-b.jsonl" \
		"${TH[@]}" --rx-shift "$RX_SHIFT" --json "$OUT/summary.json" "${iperf[@]}" \
		--title "per-class summary (sender egress = stats-a, arrivals = stats-b):" \
		>>"$OUT/summary.txt" || st_log "summary failed"
	if (( PLOT )); then
		"$PY" "$HERE/plot_rates.py" plot "$OUT/stats-a.jsonl" "$OUT/rates.png" "${TH[@]}" \
			--title "schedtun $SCHED: $RATE, $DELAY one way; EF ${EF_RATE_SPEC}, AF/CS0 ${FLOWS}x cubic" \
			>/dev/null || st_log "plot failed"
	fi
else
	ip=()
	[[ $EF_TOOL == iperf3 ]] && ip+=(ef="$OUT/iperf-ef.json")
	"$PY" "$HERE/plot_rates.py" iperf "${ip[@]}" af="$OUT/iperf-af.json" \
		cs0="$OUT/iperf-cs0.json" >>"$OUT/summary.txt" || st_log "iperf3 table failed"
fi
echo
cat "$OUT/summary.txt"
echo
say "results in $OUT"
for f in "$OUT"/*; do echo "  $(basename "$f")"; done
exit "$rc_all"
