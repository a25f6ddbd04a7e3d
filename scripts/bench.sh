#!/usr/bin/env bash
# bench.sh - issue 10's performance targets, measured in one run: schedtun
# against the plainest tun<->UDP forwarder and against the bare veth, its
# paced rate, pacing accuracy, departure lateness and CPU cost.  A
# benchmark: it prints numbers and flags the targets MET or missed; it does
# not fail on a missed target.
#
#   scripts/bench.sh [options]
#   flock /tmp/st/bench.lock scripts/bench.sh ...   # never two benches at once
#
# Everything runs in two namespaces it creates, joined by one veth (the
# underlay, 10.0.0.1 <-> 10.0.0.2, MTU 1500), the tunnel on top (st0,
# 10.10.0.1/24 <-> 10.10.0.2/24, MTU 1400).  Each part runs once per pin
# mode (--pin-mode, default both, unpinned first):
#   unpinned  nothing pinned, as a user runs it;
#   pinned    the forwarders/daemons on CPU 1, every iperf3 on CPU 0 (the
#             veth-alone row: client on CPU 0, server on CPU 1).
#
# Parts (--only):
#   compare  unpaced forwarding: a plainfwd pair (scripts/plainfwd.c), then a
#            schedtun pair (rate "unlimited", delay 0, prio): iperf3 TCP, one
#            cubic flow (receiver's rate), and 64-byte UDP (iperf3 -u -l 64
#            -b UDP_RATE; datagrams per second delivered to the receiver);
#   veth     the ceiling of the same run: the same iperf3 tests (and TCP with
#            4 flows) straight over the veth underlay, no tunnel, no daemon;
#            compare and veth alternate, REPS times, and the means are
#            compared (schedtun / plainfwd, schedtun / veth);
#   paced    a schedtun pair, fifo, delay 5 ms each way, at each rate of
#            --paced-rates, carrying iperf3 -P 4 -C cubic for WARMUP + TIME s
#            (iperf3 -O WARMUP omits the warm-up from its summary); over the
#            TIME-s window: the carried rate by the sender's stats
#            (link.out_bytes) and by iperf3's receiver (TCP payload), and the
#            pacing error = carried / configured - 1.  The error means
#            something only when the link was the bottleneck: the link counts
#            as saturated when every stats interval of the window ended with
#            packets in the scheduler (classes' qlen_pkts > 0) or had queue
#            drops (classes' drop_pkts > 0); otherwise the error is n/a (the
#            offered load or the daemon's reading of the tun set the rate)
#            and that rate fails.  The sweep reports the highest rate R at
#            which R and every lower swept rate were saturated with
#            |error| <= 0.1 %.  Beside it, where a shortfall comes from: the
#            daemons' drops by reason, io.tx_blocked, late p99 and CPU, the
#            tun queue's drops (the daemon did not read fast enough), full
#            UDP sockets, the namespaces' TCP counters (retransmits, RTOs,
#            out-of-order) and how busy each CPU was (/proc/stat);
#   mix      a schedtun pair at each of --rates, delay 0, prio, carrying the
#            EF+AF+CS0 mix (EF: one UDP CBR flow at 20 % of the rate, -l 1200,
#            tos 0xb8; AF: -P 4 cubic, tos 0x28; CS0: -P 4 cubic): pacing error,
#            late p99 (link.late_us.p99, packet-weighted mean of the
#            intervals' p99s) and CPU per daemon (/proc/PID/schedstat); then a
#            plainfwd pair carrying the same mix with its TCP streams capped by
#            iperf3 -b so that the mix totals the rate (plainfwd does not
#            pace): what the plainest forwarder costs for the same traffic.
# Before the parts of a mode, the machine's timer floor: how late an idle
# process wakes from 2000 sleeps of 600 us (timer slack 1 ns; pinned: on
# CPU 1, where the daemons run).  Departure lateness cannot be lower.
#
# Targets (issue 10), reported for each pin mode in a final table:
#   paced 1 Gbit/s: carried >= 0.97 Gbit/s (daemon stats), >= 0.93 Gbit/s
#     (iperf3, 4 cubic flows), |pacing error| <= 0.1 %; the highest rate
#     with |error| <= 0.1 %: >= 2 Gbit/s;
#   unpaced: TCP >= 4x plainfwd, 64-byte UDP >= 1.5x plainfwd; each also as
#     a fraction of the veth alone (no target: the ceiling);
#   CPU at 20 Mbit/s with the mix: both daemons together <= 1.5x both
#     plainfwd together;
#   departure lateness p99 at 20 Mbit/s <= 2x the timer floor's p99.
# A target that could not be measured prints n/a with the reason.
#
# Options:
#   --build-dir DIR    where schedtun and plainfwd are (default: build; built
#                      with cmake (RelWithDebInfo) when missing)
#   --time S           measured seconds per test, 2..600 (default 10)
#   --warmup S         paced and mix runs: seconds of traffic before the
#                      window, 0..60 (default 3)
#   --reps N           compare/veth runs per forwarder and test, 1..20 (default 2)
#   --udp-rate R       iperf3 -b for the 64-byte UDP tests (default 0 = as fast
#                      as iperf3 can)
#   --paced-rates LIST paced sweep, comma-separated rates (default
#                      1Gbit,1.5Gbit,2Gbit,3Gbit)
#   --rates LIST       mix rates, comma-separated (default 20Mbit,500Mbit; the
#                      CPU and lateness targets need 20Mbit)
#   --only LIST        parts, comma-separated: compare,veth,paced,mix (default
#                      all; "pacing" is the old name of mix)
#   --tests LIST       unpaced tests, comma-separated: tcp,udp (default both)
#   --pin-mode M       pinned | unpinned | both (default both); --pin and
#                      --no-pin are pinned and unpinned
#   --no-schedtun      compare part with plainfwd only, and veth (checks the
#                      baseline)
#   --no-plain-pacing  mix part without the plainfwd rows (then no CPU target)
#   --realtime N       every schedtun daemon with tunnel.realtime = N (0..99,
#                      default 0 = off: SCHED_FIFO priority N, memory
#                      locked); N >= 1 also measures the timer floor under
#                      chrt -f N, beside the plain one
#   --slack D          every schedtun daemon with link.slack = D (default:
#                      the daemon's, 0)
#   --tun-txqueuelen N paced part: set both tuns' txqueuelen to N (default:
#                      the kernel's, 500 for a tun).  A diagnostic: the tun's
#                      queue is where the sender's TCP bursts are dropped
#                      when the daemon does not read them fast enough
#   --quick            a smoke run (under 2 minutes with both pin modes):
#                      --time 2 --warmup 1 --reps 1 --paced-rates 1Gbit
#                      --rates 20Mbit; options after it win
#   --out DIR          results (default results-tmp/bench-<timestamp>); the
#                      report is DIR/bench.txt, the numbers DIR/results.json
#                      (scripts/bench-readme.py turns them into the table of
#                      docs/performance.md)
#   --json FILE        also write results.json to FILE
#   -h, --help
#
# Needs root (namespaces, tun).  Every process and namespace it starts is
# removed on exit, also on Ctrl-C (netns-lib.sh's st_cleanup).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
PY=/usr/bin/python3
REPORT=("$PY" "$HERE/bench-report.py")

BUILD_DIR=build
TIME=10
WARMUP=3
REPS=2
UDP_RATE=0
RATES=20Mbit,500Mbit
PACED_RATES=1Gbit,1.5Gbit,2Gbit,3Gbit
ONLY=compare,veth,paced,mix
TESTS=tcp,udp
PIN_MODE=""
NO_SCHEDTUN=0
PLAIN_PACING=1
OUT=""
JSON_OUT=""
TUN_TXQ=""
REALTIME=0
SLACK=""
ARGS_GIVEN="$*"

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }
die() { echo "bench: $*" >&2; exit 1; }

while (( $# )); do
	case $1 in
	--build-dir|--time|--warmup|--reps|--udp-rate|--rates|--paced-rates|--only|--tests|--pin-mode|--out|--json|--tun-txqueuelen|--realtime|--slack)
		[[ $# -ge 2 ]] || die "$1 needs a value (see --help)" ;;
	esac
	case $1 in
	--build-dir) BUILD_DIR=$2; shift ;;
	--time) TIME=$2; shift ;;
	--warmup) WARMUP=$2; shift ;;
	--reps) REPS=$2; shift ;;
	--udp-rate) UDP_RATE=$2; shift ;;
	--rates) RATES=$2; shift ;;
	--paced-rates) PACED_RATES=$2; shift ;;
	--only) ONLY=${2/pacing/mix}; shift ;;
	--tests) TESTS=$2; shift ;;
	--pin-mode) PIN_MODE=$2; shift ;;
	--pin) PIN_MODE=pinned ;;
	--no-pin) PIN_MODE=unpinned ;;
	--no-schedtun) NO_SCHEDTUN=1 ;;
	--no-plain-pacing) PLAIN_PACING=0 ;;
	--quick) TIME=2 WARMUP=1 REPS=1 PACED_RATES=1Gbit RATES=20Mbit ;;
	--out) OUT=$2; shift ;;
	--json) JSON_OUT=$2; shift ;;
	--tun-txqueuelen) TUN_TXQ=$2; shift ;;
	--realtime) REALTIME=$2; shift ;;
	--slack) SLACK=$2; shift ;;
	-h|--help) usage; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
	shift
done
PIN_MODE=${PIN_MODE:-both}
# in_range OPTION VALUE LO HI UNIT : VALUE is an integer in LO..HI, or die.
in_range() {
	[[ $2 =~ ^[0-9]+$ ]] && (( 10#$2 >= $3 && 10#$2 <= $4 )) && return 0
	die "$1 '$2': an integer, $3..$4$5"
}
in_range --time "$TIME" 2 600 " seconds"
in_range --warmup "$WARMUP" 0 60 " seconds"
in_range --reps "$REPS" 1 20 ""
[[ -z $TUN_TXQ ]] || in_range --tun-txqueuelen "$TUN_TXQ" 1 1000000 " packets"
in_range --realtime "$REALTIME" 0 99 " (a SCHED_FIFO priority, 0 = off)"
[[ $ONLY =~ ^(compare|veth|paced|mix)(,(compare|veth|paced|mix))*$ ]] ||
	die "--only '$ONLY': a comma-separated list of compare, veth, paced, mix"
[[ $TESTS =~ ^(tcp|udp)(,(tcp|udp))?$ ]] || die "--tests '$TESTS': tcp, udp or tcp,udp"
case $PIN_MODE in
both) MODES=(unpinned pinned) ;;
pinned|unpinned) MODES=("$PIN_MODE") ;;
*) die "--pin-mode '$PIN_MODE': pinned, unpinned or both" ;;
esac
if [[ $PIN_MODE != unpinned ]]; then
	command -v taskset >/dev/null || die "pinned mode needs taskset (util-linux); try --pin-mode unpinned"
	(( $(nproc) >= 2 )) || die "pinned mode needs 2 CPUs, this machine has $(nproc); try --pin-mode unpinned"
fi
if (( NO_SCHEDTUN )); then
	[[ $ONLY == *compare* || $ONLY == *veth* ]] || die "--no-schedtun leaves only compare and veth to run"
	ONLY=$(tr , '\n' <<<"$ONLY" | grep -E '^(compare|veth)$' | paste -sd,)
fi
[[ $(id -u) -eq 0 ]] || die "needs root (network namespaces, tun)"
# --out and --json are relative to where bench.sh was started
[[ -z $OUT || $OUT == /* ]] || OUT="$PWD/$OUT"
[[ -z $JSON_OUT || $JSON_OUT == /* ]] || JSON_OUT="$PWD/$JSON_OUT"
part() { [[ ,$ONLY, == *,$1,* ]]; }

cd "$ROOT"
[[ $BUILD_DIR == /* ]] || BUILD_DIR="$ROOT/$BUILD_DIR"
SCHEDTUN="$BUILD_DIR/schedtun"
PLAINFWD="$BUILD_DIR/plainfwd"

# ---------------------------------------------------------------- deps, build
bash "$HERE/deps.sh" experiments
if [[ ! -x $PLAINFWD ]] || { (( ! NO_SCHEDTUN )) && [[ ! -x $SCHEDTUN ]]; }; then
	echo "bench: building in $BUILD_DIR"
	cmake -S "$ROOT" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build "$BUILD_DIR" -j2 --target plainfwd schedtun
fi
[[ -x $PLAINFWD ]] || die "no $PLAINFWD after the build"
(( NO_SCHEDTUN )) || [[ -x $SCHEDTUN ]] || die "no $SCHEDTUN after the build"

# --realtime, --slack: into every schedtun configuration
CONF_EXTRA=()
(( REALTIME )) && CONF_EXTRA+=(--realtime "$REALTIME")
if [[ -n $SLACK ]]; then
	"$SCHEDTUN" --check -f /dev/stdin >/dev/null <<<"link = { slack = \"$SLACK\"; };" ||
		die "--slack '$SLACK' is refused by schedtun --check"
	CONF_EXTRA+=(--slack "$SLACK")
fi

# rate_bps 20Mbit -> 20000000 (SI units, as the daemon parses them)
rate_bps() {
	"$PY" - "$1" <<'EOF'
import re, sys
m = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)\s*(bit|kbit|Mbit|Gbit)?", sys.argv[1])
if not m:
    sys.exit(f"bench: bad rate {sys.argv[1]!r} (want a number with bit, kbit, Mbit or Gbit, e.g. 1.5Gbit)")
mult = {None: 1, "bit": 1, "kbit": 1e3, "Mbit": 1e6, "Gbit": 1e9}[m.group(2)]
print(int(float(m.group(1)) * mult))
EOF
}
IFS=, read -r -a RATE_LIST <<<"$RATES"
IFS=, read -r -a PACED_LIST <<<"$PACED_RATES"
for r in "${RATE_LIST[@]}" "${PACED_LIST[@]}"; do rate_bps "$r" >/dev/null || exit 1; done

OUT=${OUT:-"$ROOT/results-tmp/bench-$(date +%Y%m%d-%H%M%S)"}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
rm -rf "${OUT:?}/unpinned" "${OUT:?}/pinned"   # a re-used --out: no stale rows

ST_NAME=bench
# shellcheck source=netns-lib.sh source-path=SCRIPTDIR
source "$HERE/netns-lib.sh"
st_require_root
st_require_cmd iperf3 ping ss
if (( NO_SCHEDTUN )); then st_init "$PLAINFWD"; else st_init "$SCHEDTUN"; fi
st_ns_create

CLK_TCK=$(getconf CLK_TCK)
IPERF_PORT=5201

# ---------------------------------------------------------------- helpers
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

# set_mode MODE : the pin mode of the parts that follow; their files go to $MD.
PIN=0
set_mode() {
	MODE=$1
	MD="$OUT/$MODE"
	mkdir -p "$MD"
	if [[ $MODE == pinned ]]; then
		PIN=1 IPERF=(taskset -c 0 iperf3)
	else
		PIN=0 IPERF=(iperf3)
	fi
	IPERF_SRV=("${IPERF[@]}")
}
# Pinned: forwarders on CPU 1, traffic generators on CPU 0.
pin_fwd() { (( PIN )) || return 0; taskset -pc 1 "$1" >/dev/null || st_log "taskset $1 failed"; }

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

# sched_start TAG RATE [DELAY [SCHED]] : a schedtun pair (default delay 0,
# prio), stats in $MD/TAG-{a,b}.jsonl
sched_start() {
	local tag=$1 rate=$2 delay=${3:-0ms} sched=${4:-prio} side
	for side in a b; do
		local addr=$ST_TUN_A peer=$ST_UL_B ns=$ST_NS_A
		[[ $side == b ]] && { addr=$ST_TUN_B; peer=$ST_UL_A; ns=$ST_NS_B; }
		rm -f "$MD/$tag-$side.jsonl"
		st_conf_write "$MD/$tag-$side.conf" --address "$addr/24" --peer "$peer:$ST_PORT" \
			--rate "$rate" --delay "$delay" --sched "$sched" --stats-file "$MD/$tag-$side.jsonl" \
			"${CONF_EXTRA[@]}"
		st_daemon_start "$side" "$ns" "$MD/$tag-$side.conf"
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
	cp -f "$ST_WORK/a.log" "$MD/$tag-a.log" 2>/dev/null || true
	cp -f "$ST_WORK/b.log" "$MD/$tag-b.log" 2>/dev/null || true
	: >"$ST_WORK/a.log"; : >"$ST_WORK/b.log"
	(( ok )) || st_log "WARNING: a schedtun daemon did not stop cleanly (see $MD/$tag-*.log)"
	st_wait_for 5 "the tuns to go away" tuns_gone || st_fail "tun $ST_TUN_NAME left behind"
}

# iperf_server PORT [ADDR] : one-off iperf3 server in B (default on the
# tunnel address).
SERVER_PIDS=()
iperf_server() {
	st_bg "$ST_NS_B" "${IPERF_SRV[@]}" -s -1 -B "${2:-$ST_TUN_B}" -p "$1"
	SERVER_PIDS+=("$ST_LAST_PID")
	st_wait_listen "$ST_NS_B" tcp "$1" 10 || st_fail "iperf3 server on port $1 did not start"
}
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

# iperf_client JSON_OUT SECONDS DST ARGS... : in A, foreground, bounded.
iperf_client() {
	local json=$1 secs=$2 dst=$3; shift 3
	local rc=0
	timeout --kill-after=5 $(( secs + 30 )) ip netns exec "$ST_NS_A" \
		"${IPERF[@]}" -c "$dst" -t "$secs" --connect-timeout 5000 --json "$@" >"$json" 2>&1 || rc=$?
	(( rc == 0 )) || st_log "iperf3 $* exited with $rc (see $json)"
	return 0
}

# one unpaced test: FWD (plain|sched|veth) KIND (tcp|tcp4|udp) REP
compare_one() {
	local fwd=$1 kind=$2 rep=$3
	local json="$MD/compare-$fwd-$kind-$rep.json" dst=$ST_TUN_B
	[[ $fwd == veth ]] && dst=$ST_UL_B
	iperf_server $IPERF_PORT "$dst"
	cpu_snap "$json-cpu0"
	case $kind in
	tcp) iperf_client "$json" "$TIME" "$dst" -p $IPERF_PORT -C cubic ;;
	tcp4) iperf_client "$json" "$TIME" "$dst" -p $IPERF_PORT -C cubic -P 4 ;;
	udp) iperf_client "$json" "$TIME" "$dst" -p $IPERF_PORT -u -l 64 -b "$UDP_RATE" ;;
	esac
	cpu_snap "$json-cpu1"
	servers_wait
	"${REPORT[@]}" iperf-row "$MD" "$fwd" "$kind" "$rep" "$json"
}

# compare_fwd FWD REP : the unpaced tests through FWD (plain, sched) or
# straight over the veth (veth).
compare_fwd() {
	local fwd=$1 rep=$2 kinds=()
	[[ $TESTS == *tcp* ]] && kinds+=(tcp)
	[[ $TESTS == *tcp* && $fwd == veth ]] && kinds+=(tcp4)
	[[ $TESTS == *udp* ]] && kinds+=(udp)
	case $fwd in
	plain) plain_start ;;
	sched) sched_start "compare-$rep" unlimited ;;
	veth)
		# the whole machine for the ceiling: server on the forwarders' CPU
		(( PIN )) && IPERF_SRV=(taskset -c 1 iperf3) ;;
	esac
	local k
	for k in "${kinds[@]}"; do compare_one "$fwd" "$k" "$rep"; done
	case $fwd in
	plain) plain_stop ;;
	sched) sched_stop "compare-$rep" ;;
	veth) IPERF_SRV=("${IPERF[@]}") ;;
	esac
}

# client_bg TAG CLASS PORT SECS ARGS... : an iperf3 client in A, background,
# JSON in $MD/TAG-CLASS.json; its pid is appended to cpids.
client_bg() {
	local tag=$1 cls=$2 port=$3 secs=$4; shift 4
	st_bg "$ST_NS_A" timeout --kill-after=5 $(( secs + WARMUP + 30 )) "${IPERF[@]}" -c "$ST_TUN_B" \
		-p "$port" -t "$secs" --connect-timeout 5000 "$@" --json --logfile "$MD/$tag-$cls.json"
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

# fwd_sample PID NS : one line "cpu_ns voluntary_cs nonvoluntary_cs
# tun_rx_pkts tun_tx_pkts tun_rx_bytes tun_tx_bytes tun_tx_dropped
# udp_rcvbuf_errors" for the forwarder PID and its tun in NS.  The tun's tx
# is what the forwarder read from it (the kernel counts a packet when it is
# read), its rx what it wrote: the packets the forwarder carried, counted
# the same way for any forwarder.  Voluntary context switches are the times
# it went to sleep (one per blocking poll/epoll_wait): its wake-ups.  Where
# packets are lost before the forwarder sees them: tx_dropped = the tun's
# queue was full (the forwarder did not read fast enough), RcvbufErrors =
# a UDP socket of NS was full (the forwarder's, or iperf3's in UDP tests).
fwd_sample() {
	local cs tun udp
	cs=$(awk '/^(non)?voluntary_ctxt_switches:/ {printf "%s ", $2}' "/proc/$1/status")
	tun=$(ip netns exec "$2" cat /sys/class/net/"$ST_TUN_NAME"/statistics/{rx_packets,tx_packets,rx_bytes,tx_bytes,tx_dropped} |
		tr '\n' ' ')
	# shellcheck disable=SC2016  # an awk program, not a shell expansion
	udp=$(ip netns exec "$2" awk '/^Udp:/ { if (!h) { for (i = 2; i <= NF; i++) if ($i == "RcvbufErrors") c = i; h = 1 }
		else print $c }' /proc/net/snmp)
	echo "$(pid_cpu_ns "$1") $cs$tun${udp:-0}"
}

# net_counters NS FILE : the namespace's TCP/UDP counters (/proc/net/snmp
# and netstat), where a TCP flow's losses, timeouts and receive-queue drops
# show that no forwarder counter sees.
net_counters() { ip netns exec "$1" cat /proc/net/snmp /proc/net/netstat >"$2" 2>/dev/null || true; }
# cpu_snap FILE : the per-CPU time counters (/proc/stat): whether a CPU, not
# the software, was the limit (and how much a niced or stolen share took).
cpu_snap() { grep '^cpu[0-9]' /proc/stat >"$1" || true; }

# window TAG : the clients are up: WARMUP s, then the TIME-s measurement
# window; leaves WIN=(u0= u1= sa0= sa1= sb0= sb1= net=) for the row commands
# (window bounds in /proc/uptime seconds, fwd_sample of FWD_A and FWD_B at
# both ends, the prefix of the net_counters and cpu_snap files
# $MD/TAG-net-{a,b,cpu}{0,1}),
# then waits for the clients (cpids) and the servers.
window() {
	local u0 u1 sa0 sa1 sb0 sb1 p net="$MD/$1-net"
	sleep "$WARMUP"
	u0=$(uptime_s); sa0=$(fwd_sample "$FWD_A" "$ST_NS_A"); sb0=$(fwd_sample "$FWD_B" "$ST_NS_B")
	net_counters "$ST_NS_A" "$net-a0"; net_counters "$ST_NS_B" "$net-b0"; cpu_snap "$net-cpu0"
	sleep "$TIME"
	u1=$(uptime_s); sa1=$(fwd_sample "$FWD_A" "$ST_NS_A"); sb1=$(fwd_sample "$FWD_B" "$ST_NS_B")
	net_counters "$ST_NS_A" "$net-a1"; net_counters "$ST_NS_B" "$net-b1"; cpu_snap "$net-cpu1"
	WIN=("u0=$u0" "u1=$u1" "sa0=$sa0" "sa1=$sa1" "sb0=$sb0" "sb1=$sb1" "net=$net")
	for p in "${cpids[@]}"; do st_wait_pid_exit "$p" 45 || st_log "an iperf3 client ($p) failed"; done
	servers_wait
}

# sched_args TAG : the row arguments of a schedtun pair's run (stats files,
# daemons' start times); sets FWD_A, FWD_B.  Call before the traffic.
sched_args() {
	FWD_A=${ST_PIDS[a]} FWD_B=${ST_PIDS[b]}
	SARGS=("stats_a=$MD/$1-a.jsonl" "stats_b=$MD/$1-b.jsonl"
		"start_a=$(pid_start_s "$FWD_A")" "start_b=$(pid_start_s "$FWD_B")")
}

# paced_one RATE : 4 cubic flows through a schedtun pair, fifo, 5 ms, at RATE.
paced_one() {
	local rate=$1 tag="paced-$1" bps cpids=()
	bps=$(rate_bps "$rate")
	sched_start "$tag" "$rate" 5ms fifo
	sched_args "$tag"
	if [[ -n $TUN_TXQ ]]; then
		ip -n "$ST_NS_A" link set dev "$ST_TUN_NAME" txqueuelen "$TUN_TXQ"
		ip -n "$ST_NS_B" link set dev "$ST_TUN_NAME" txqueuelen "$TUN_TXQ"
	fi
	iperf_server $IPERF_PORT
	# -O: iperf3 runs WARMUP + TIME s and leaves the first WARMUP out of its summary
	client_bg "$tag" tcp $IPERF_PORT "$TIME" -P 4 -C cubic -O "$WARMUP"
	st_wait_for 10 "the 4 TCP streams" tcp_established $IPERF_PORT 5 || st_log "WARNING: TCP streams not seen"
	window "$tag"
	sched_stop "$tag"
	"${REPORT[@]}" paced-row "$MD" "rate=$rate" "bps=$bps" "iperf=$MD/$tag-tcp.json" \
		"${SARGS[@]}" "${WIN[@]}"
}

# mix_run TAG RATE_BPS TCP_CAP : servers in B, the EF+AF+CS0 mix from A,
# then window.  TCP_CAP: iperf3 -b per TCP stream ("" = no cap: the link
# paces).
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
	client_bg "$tag" ef 5201 "$secs" -u -b "$ef_bps" --tos 0xb8 -l 1200
	st_wait_for 10 "the EF UDP stream" udp_connected 5201 || st_log "WARNING: EF stream not seen"
	client_bg "$tag" cs0 5203 "$secs" -P 4 -C cubic "${tcp_b[@]}"
	st_wait_for 10 "the CS0 TCP streams" tcp_established 5203 5 || st_log "WARNING: CS0 streams not seen"
	client_bg "$tag" af 5202 "$secs" -P 4 -C cubic --tos 0x28 "${tcp_b[@]}"
	st_wait_for 10 "the AF TCP streams" tcp_established 5202 5 || st_log "WARNING: AF streams not seen"
	window "$tag"
}

# mix_one RATE : the mix through a schedtun pair at RATE, delay 0, prio.
mix_one() {
	local rate=$1 tag="mix-$1" bps
	bps=$(rate_bps "$rate")
	sched_start "$tag" "$rate"
	sched_args "$tag"
	mix_run "$tag" "$bps" ""
	sched_stop "$tag"
	"${REPORT[@]}" mix-row "$MD" "rate=$rate" "bps=$bps" "prefix=$MD/$tag" "${SARGS[@]}" "${WIN[@]}"
}

# plain_mix_one RATE : the same mix through a plainfwd pair, which does
# not pace: the TCP streams are capped with iperf3 -b so that the mix (EF
# UDP at RATE/5 plus 8 TCP streams) carries about RATE in IP packets; the
# baseline of what any tun<->UDP forwarder costs at that packet rate
# (including the kernel's network stack work done in the forwarder's context).
plain_mix_one() {
	local rate=$1 tag="plain-mix-$1" bps cap
	bps=$(rate_bps "$rate")
	# 8 streams share RATE minus EF's IP rate (1200 B payload + 28 B
	# headers); -b counts TCP payload: 1348 of 1400 B (MTU 1400, TCP
	# timestamps).
	cap=$(( (bps - bps * 1228 / 6000) * 1348 / (8 * 1400) ))
	plain_start
	FWD_A=${PLAIN_PIDS[0]} FWD_B=${PLAIN_PIDS[1]}
	mix_run "$tag" "$bps" "$cap"
	plain_stop
	"${REPORT[@]}" plain-mix-row "$MD" "rate=$rate" "bps=$bps" "prefix=$MD/$tag" "${WIN[@]}"
}

# timer_floor : how late this machine wakes a sleeping process (2000 sleeps
# of 600 us, timer slack 1 ns, no other load of ours; pinned: on CPU 1,
# where the daemons run): the floor under any timer-paced departure, and so
# under link.late_us.
timer_floor() {
	timer_floor_one timer-floor ""
	(( REALTIME )) && timer_floor_one timer-floor-rt "chrt -f $REALTIME"
	return 0
}
# timer_floor_one NAME PREFIX : the floor into $MD/NAME.json, the sleeper
# run under PREFIX ("" or "chrt -f N").
timer_floor_one() {
	local cmd=("$PY" -) pre
	read -r -a pre <<<"$2"
	(( PIN )) && cmd=(taskset -c 1 "$PY" -)
	cmd=("${pre[@]}" "${cmd[@]}")
	"${cmd[@]}" "$MD/$1.json" "${2:+ ($2)}" <<'EOF'
import json, sys, time
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
row = {"p50_us": late[len(late) // 2], "p99_us": late[len(late) * 99 // 100],
       "max_us": late[-1], "samples": len(late)}
json.dump(row, open(sys.argv[1], "w"))
print(f"    timer floor{sys.argv[2]}: late p50 {row['p50_us']:.1f} us, p99 {row['p99_us']:.1f} us,"
      f" max {row['max_us']:.1f} us")
EOF
}

# ---------------------------------------------------------------- plan, progress
# The run is a list of steps (plan); run_plan goes through it twice: once
# to add up the steps and their estimated seconds (DRY=1), once to run
# them, printing which one and the time left (the estimate, scaled by how
# long the steps so far took against their estimate).
DRY=1 STEP=0 STEPS=0 EST_TOTAL=0 EST_DONE=0 T_START=0
mmss() { printf '%d:%02d' $(( $1 / 60 )) $(( $1 % 60 )); }
step() {
	local est=$1 desc=$2; shift 2
	if (( DRY )); then
		STEPS=$(( STEPS + 1 )) EST_TOTAL=$(( EST_TOTAL + est ))
		return 0
	fi
	local el left
	STEP=$(( STEP + 1 )) el=$(( $(date +%s) - T_START ))
	left=$(( EST_TOTAL - EST_DONE ))
	(( EST_DONE > 0 )) && left=$(( left * el / EST_DONE ))
	echo "[$STEP/$STEPS, $(mmss "$el") elapsed, about $(mmss "$left") left] $MODE: $desc"
	"$@"
	EST_DONE=$(( EST_DONE + est ))
}

run_plan() {
	local mode rep r ntests=0 nveth=0
	[[ $TESTS == *tcp* ]] && ntests=$(( ntests + 1 )) nveth=$(( nveth + 2 ))
	[[ $TESTS == *udp* ]] && ntests=$(( ntests + 1 )) nveth=$(( nveth + 1 ))
	for mode in "${MODES[@]}"; do
		if (( DRY )); then MODE=$mode; else set_mode "$mode"; fi
		step 3 "timer floor" timer_floor
		for (( rep = 1; rep <= REPS; rep++ )); do
			if part compare; then
				step $(( ntests * (TIME + 2) + 4 )) "plainfwd unpaced ($TESTS), rep $rep/$REPS, ${TIME} s each" \
					compare_fwd plain "$rep"
				(( NO_SCHEDTUN )) ||
					step $(( ntests * (TIME + 2) + 4 )) "schedtun unpaced ($TESTS), rep $rep/$REPS, ${TIME} s each" \
						compare_fwd sched "$rep"
			fi
			part veth && step $(( nveth * (TIME + 2) )) "veth alone ($TESTS), rep $rep/$REPS, ${TIME} s each" \
				compare_fwd veth "$rep"
		done
		if part paced; then
			for r in "${PACED_LIST[@]}"; do
				step $(( WARMUP + TIME + 6 )) "paced $r, fifo, delay 5 ms, 4 cubic flows, ${WARMUP}+${TIME} s" \
					paced_one "$r"
			done
		fi
		if part mix; then
			for r in "${RATE_LIST[@]}"; do
				step $(( WARMUP + TIME + 8 )) "schedtun $r, EF+AF+CS0 mix, prio, ${WARMUP}+${TIME} s" mix_one "$r"
				(( PLAIN_PACING )) &&
					step $(( WARMUP + TIME + 8 )) "plainfwd $r, the same mix (TCP capped), ${WARMUP}+${TIME} s" \
						plain_mix_one "$r"
			done
		fi
	done
	return 0
}

# ---------------------------------------------------------------- main
"${REPORT[@]}" meta "$OUT" "root=$ROOT" "build_dir=$BUILD_DIR" "time=$TIME" "warmup=$WARMUP" \
	"reps=$REPS" "udp_rate=$UDP_RATE" "rates=$RATES" "paced_rates=$PACED_RATES" "only=$ONLY" \
	"tests=$TESTS" "pin_mode=$PIN_MODE" "tun_txqueuelen=${TUN_TXQ:-default}" "realtime=$REALTIME" \
	"slack=${SLACK:-default}" "args=$ARGS_GIVEN"
echo "bench: results in $OUT"
echo "bench: plainfwd $PLAINFWD$( (( NO_SCHEDTUN )) || echo ", schedtun $SCHEDTUN")"
run_plan
echo "bench: $STEPS steps, about $(mmss "$EST_TOTAL") (modes: ${MODES[*]}; parts: $ONLY)"
DRY=0 T_START=$(date +%s)
run_plan
report_args=(report "$OUT")
[[ -n $JSON_OUT ]] && report_args+=(--json "$JSON_OUT")
"${REPORT[@]}" "${report_args[@]}" | tee "$OUT/bench.txt"
echo
echo "bench: $(mmss $(( $(date +%s) - T_START ))) in all; results in $OUT"
