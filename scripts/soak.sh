#!/usr/bin/env bash
# soak.sh [SECONDS] [SCHEDTUN] - a pair of daemons under everything at once,
# for SECONDS (default 600) of churn, as root.  SCHEDTUN defaults to the
# sanitizer build (build-test/schedtun, else build/schedtun); the daemons
# run with ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:quarantine_size_mb=1
# (see below).
#
# Sender A (ns a, never restarted) carries a paced UDP mix, EF 2 (TOS 0xb8),
# AF 5 (0x28), CS0 5 Mbit/s, 1000-byte payloads, plus per step one TCP
# cubic AF flow and one CS0 flow (iperf3), over a 10 Mbit/s (mean) link,
# 20 ms each way.  A runs with the smallest pool the file allows
# (tunnel.pool = 256): tunnel.* keys need a restart (docs/configuration.md,
# "Command line"), so the pool is small for the whole run, and A's queues (class
# limits 50/150/150) outgrow it, so drops.pool_empty moves.  Every step
# (5 s; 10 s from SECONDS > 120):
#   - A's file is rewritten with the next scheduler (all seven, each with
#     a non-default value for every numeric, duration and boolean key of
#     its table: scripts/soak.py params) and the next link profile
#     (constant -> cosine -> trace) and SIGHUPed; every fourth step its
#     stats.file is /dev/full (disk full) until the next step;
#   - every other step peer B is stopped (SIGTERM and SIGKILL in turn);
#     while it is down A's underlay route is withdrawn until A has logged
#     that its sends fail (ENETUNREACH), and 200 malformed datagrams reach
#     A from B's own address and port; B is then started again;
#   - every fourth step B's tun is set down until B has logged that its
#     writes fail (EIO), then up again;
#   - 200 datagrams (malformed or from an unknown sender) reach A from a
#     stranger (10.0.0.3);
#   - A's RSS (VmRSS) and open fds are sampled, and a progress line printed.
# At the end (asserted, and printed as a summary):
#   - A never died (same pid throughout, exit 0 on SIGTERM); B came back
#     each time and exited 0 after every SIGTERM;
#   - in = out + drop + qlen per class over A's whole run and over each
#     lifetime of B that ended in SIGTERM (scripts/stats.py sum): A's
#     lines missed on /dev/full carry their counts into the next line;
#   - RSS flat after warm-up: the largest RSS of the last quarter (at most
#     the last 60 s) <= the largest of the warm-up (the first full
#     rotation of schedulers, at least a quarter of the run) + RSS_TOL_KIB;
#     open fds in the last quarter = at the end of the warm-up;
#   - no AddressSanitizer / LeakSanitizer / UBSan report in any log;
#   - each failure that repeats per packet or per line (pool_empty,
#     send_error, tun_write_error, stats_write_error) was logged at most
#     once per 5 s episode (<= 1 + duration / 5 lines each), and /dev/full
#     exactly once per phase;
#   - every garbage datagram is refused: rx_* drops <= datagrams sent, and
#     the rest (taken off the socket while the pool was dry) <= pool_empty;
#   - pool_empty, send_error and stats_write_error moved on A,
#     tun_write_error on B, each tun-down phase logged exactly once;
#   - after the traffic stops, 5 pings through the tunnel all come back.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=netns-lib.sh
source "$ROOT/scripts/netns-lib.sh"

DUR=${1:-600}
BIN=${2:-}
[[ $DUR =~ ^[0-9]+$ ]] && (( DUR >= 20 )) || st_fail "usage: $0 [SECONDS >= 20] [SCHEDTUN]"
if [[ -z $BIN ]]; then
	for BIN in "$ROOT/build-test/schedtun" "$ROOT/build/schedtun"; do
		[[ -x $BIN ]] && break
	done
fi
ST_NAME=${SOAK_NAME:-soak}
st_require_root
st_init "$BIN"
st_require_cmd python3 iperf3 ping
# ASan's quarantine keeps what is freed resident (up to 256 MiB) to catch
# use after free: every reload frees a configuration and a scheduler, so
# RSS would grow by what reloads free, not by what the daemon keeps.  A
# 1 MiB quarantine still catches a use of what was freed recently; the
# packet path frees nothing (fixed pool).
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
[[ $ASAN_OPTIONS == *quarantine_size_mb* ]] || ASAN_OPTIONS+=:quarantine_size_mb=1
export ASAN_OPTIONS
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

STEP_S=5; (( DUR > 120 )) && STEP_S=10
RSS_TOL_KIB=${SOAK_RSS_TOL_KIB:-4096}
GARBAGE_N=200
STRANGER=10.0.0.3
SOAK_PY=(python3 "$ROOT/scripts/soak.py")
read -r -a SCHEDS <<<"$("$ST_SCHEDTUN" --help | sed -n 's/^schedulers: //p' | tr -d '|')"
echo "schedulers: ${SCHEDS[*]}"
declare -A PARAMS=()
for s in "${SCHEDS[@]}"; do
	body=$("${SOAK_PY[@]}" params "$ST_SCHEDTUN" "$s") || st_fail "no parameters for $s"
	PARAMS[$s]=""
	[[ -z $body ]] || PARAMS[$s]="$s = { $body };"
	echo "params $s: ${body:-(no keys)}"
done

# The trace: a rate step every second for the whole run (times count
# from A's start), cycling 6, 12, 8, 14 Mbit/s: mean 10.
TRACE=$ST_WORK/soak-trace.csv
awk -v n=$(( DUR + 120 )) 'BEGIN { split("6 12 8 14", r, " ");
	for (t = 0; t < n; t++) printf "%d,%d\n", t, r[t % 4 + 1] * 1000000 }' >"$TRACE"
PROFILES=(constant cosine trace)
profile_opts() {
	case $1 in
	constant) echo --rate; echo 10Mbit ;;
	cosine) echo --profile; echo 'kind = "cosine"; mean = "10Mbit"; amplitude = 0.3; period = 15.0;' ;;
	trace) echo --profile; echo "kind = \"trace\"; file = \"$TRACE\";" ;;
	esac
}

A_CONF=$ST_WORK/a.conf; A_STATS=$ST_WORK/a.jsonl; A_LOG=$ST_WORK/a.log
B_CONF=$ST_WORK/b.conf; B_LOG=$ST_WORK/b.log
CLASSES='ef = { limit = 50; }; af = { limit = 150; }; cs0 = { limit = 150; };'

# a_conf STEP STATS_FILE: A's file for STEP (scheduler, profile).
a_conf() {
	local k=$1 s=${SCHEDS[$(( $1 % ${#SCHEDS[@]} ))]} prof
	mapfile -t prof < <(profile_opts "${PROFILES[$(( k % 3 ))]}")
	st_conf_write "$A_CONF" --address "$ST_TUN_A/24" --peer "$ST_UL_B:$ST_PORT" \
		--pool 256 "${prof[@]}" --delay 20ms --classes "$CLASSES" \
		--sched "$s" --sched-params "${PARAMS[$s]}" --stats-file "$2"
}

B_LIVES=0; B_TERM_FILES=()
b_start() {
	B_LIVES=$(( B_LIVES + 1 ))
	B_STATS=$ST_WORK/b-$B_LIVES.jsonl
	st_conf_write "$B_CONF" --address "$ST_TUN_B/24" --peer "$ST_UL_A:$ST_PORT" \
		--rate 10Mbit --delay 20ms --sched prio --stats-file "$B_STATS"
	st_daemon_start b "$ST_NS_B" "$B_CONF"
	st_daemon_wait_ready b "$ST_TUN_B/24"
}
# b_stop term|kill
b_stop() {
	st_daemon_alive b || st_fail "daemon B died on its own (life $B_LIVES)"
	if [[ $1 == term ]]; then
		st_daemon_stop b || st_fail "B did not exit 0 after SIGTERM (life $B_LIVES)"
		B_TERM_FILES+=("$B_STATS")
	else
		kill -KILL "${ST_PIDS[b]}"
		st_wait_pid_exit "${ST_PIDS[b]}" 5 || true
		unset "ST_PIDS[b]"
	fi
}

GARBAGE_SENT=0
# garbage FROM_IP FROM_PORT SEED [--valid]: GARBAGE_N datagrams to A.
garbage() {
	local out
	out=$(ip netns exec "$ST_NS_B" "${SOAK_PY[@]}" garbage "$ST_UL_A" "$ST_PORT" \
		"$1" "$2" "$GARBAGE_N" "$3" "${@:4}") || st_fail "garbage sender failed: $out"
	GARBAGE_SENT=$(( GARBAGE_SENT + ${out#sent } ))
}

# Steps' TCP flows: fresh one-off iperf3 servers in B each step (a flow cut
# by B's restart must not hold a server for the next one).
TCP_PIDS=() TCP_LOGS=() TCP_RUNS=0 TCP_DONE=0
tcp_start() {
	local port=$(( 5300 + 2 * ($1 % 50) )) p
	for p in $port $(( port + 1 )); do
		st_bg "$ST_NS_B" iperf3 -s -1 -p "$p"
		TCP_PIDS+=("$ST_LAST_PID"); TCP_LOGS+=("$ST_LAST_LOG")
		st_wait_listen "$ST_NS_B" tcp "$p" || st_fail "iperf3 server $p did not start"
	done
	for p in "$port --tos 0x28" "$(( port + 1 ))"; do
		# shellcheck disable=SC2086  # "-p PORT [--tos T]"
		st_bg "$ST_NS_A" iperf3 -c "$ST_TUN_B" -p $p -C cubic \
			-t $(( STEP_S - 1 )) --connect-timeout 2000
		TCP_PIDS+=("$ST_LAST_PID"); TCP_LOGS+=("$ST_LAST_LOG")
	done
}
# tcp_stop: ends the step's flows (a client cut by B's restart may hang),
# counts the clients that completed, removes their logs.
tcp_stop() {
	local p
	for p in "${TCP_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	for p in "${TCP_PIDS[@]}"; do st_wait_pid_exit "$p" 5 || true; done
	TCP_RUNS=$(( TCP_RUNS + 2 ))
	TCP_DONE=$(( TCP_DONE + $(cat "${TCP_LOGS[@]:2}" | grep -c 'receiver$' || true) ))
	rm -f "${TCP_LOGS[@]}"
	TCP_PIDS=() TCP_LOGS=()
}

SAMPLES=$ST_WORK/samples.txt      # elapsed_s rss_kib fds
sample() {
	local pid=${ST_PIDS[a]} rss fds
	rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status")
	fds=$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 | wc -l)
	echo "$1 $rss $fds" >>"$SAMPLES"
	echo "$rss $fds"
}
a_send_warnings() { grep -cF 'warning: send to the peer: ' "$A_LOG" || true; }
a_send_warned() { (( $(a_send_warnings) >= $1 )); }
b_tun_warnings() { grep -cF 'warning: write to the tun: ' "$B_LOG" || true; }
b_tun_warned() { (( $(b_tun_warnings) >= $1 )); }
reloads_applied() { grep -c 'reload: .* applied' "$A_LOG" || true; }
reloaded() { (( $(reloads_applied) >= $1 )); }
total() { sed -n "s/.*\b$1=\([0-9]*\).*/\1/p" <<<"$2"; }

# ---------------------------------------------------------------- set-up
st_ns_create
ip -n "$ST_NS_B" addr add "$STRANGER/24" dev ul0
b_start
a_conf 0 "$A_STATS"
st_daemon_start a "$ST_NS_A" "$A_CONF"
st_daemon_wait_ready a "$ST_TUN_A/24"
A_PID=${ST_PIDS[a]}
st_bg "$ST_NS_A" python3 -c "$ST__PY_FLOOD" "$ST_TUN_B" $(( DUR + 60 )) \
	6001:0xb8:2000000:1000 6002:0x28:5000000:1000 6003:0x00:5000000:1000
FLOOD=$ST_LAST_PID

# ---------------------------------------------------------------- the churn
T0=$(st_now_ms)
elapsed() { echo $(( ($(st_now_ms) - T0) / 1000 )); }
k=0 reloads=0 restarts=0 full_phases=0 tun_phases=0
while (( $(elapsed) < DUR )); do
	step_end=$(( T0 + (k + 1) * STEP_S * 1000 ))
	if (( k > 0 )); then
		stats=$A_STATS
		(( k % 4 == 3 )) && { stats=/dev/full; full_phases=$(( full_phases + 1 )); }
		a_conf "$k" "$stats"
		st_daemon_signal a HUP
		reloads=$(( reloads + 1 ))
		st_wait_for 10 "A to apply reload $reloads" reloaded "$reloads" ||
			st_fail "A did not apply reload $reloads (${SCHEDS[$(( k % ${#SCHEDS[@]} ))]})"
	fi
	tcp_start "$k"
	if (( k % 2 == 1 )); then
		b_stop "$( (( restarts % 2 == 0 )) && echo term || echo kill)"
		# With B down, A's underlay route is withdrawn for a moment:
		# its sends fail (ENETUNREACH), drops.send_error.  (ICMP port
		# unreachable alone is not reported on an unconnected socket.)
		n=$(a_send_warnings)
		ip -n "$ST_NS_A" route del "${ST_UL_A%.*}.0/24" dev ul0
		st_wait_for 3 "A's sends to fail" a_send_warned $(( n + 1 )) || true
		ip -n "$ST_NS_A" route add "${ST_UL_A%.*}.0/24" dev ul0 src "$ST_UL_A"
		garbage "$ST_UL_B" "$ST_PORT" "$k"
		restarts=$(( restarts + 1 ))
		b_start
	fi
	if (( k % 4 == 2 )); then
		# A tun that is down refuses writes (EIO): B's drops.tun_write_error.
		n=$(b_tun_warnings)
		ip -n "$ST_NS_B" link set "$ST_TUN_NAME" down
		st_wait_for 5 "B's tun writes to fail" b_tun_warned $(( n + 1 )) ||
			st_fail "writes to B's tun while it is down did not fail (or were not logged)"
		ip -n "$ST_NS_B" link set "$ST_TUN_NAME" up
		tun_phases=$(( tun_phases + 1 ))
	fi
	garbage "$STRANGER" 0 $(( 100000 + k )) --valid
	while (( $(st_now_ms) < step_end )); do
		st_daemon_alive a || st_fail "daemon A died at step $k"
		sleep 0.2
	done
	tcp_stop
	[[ ${ST_PIDS[a]} == "$A_PID" ]] || st_fail "daemon A's pid changed"
	read -r rss fds < <(sample "$(elapsed)")
	tot=$("${SOAK_PY[@]}" totals "$A_STATS")
	printf '[%4d/%d s] step %d %s %s | A in %s out %s drop %s | pool_empty %s send_error %s rx_garbage %s stats_write_error %s | RSS %s KiB fds %s | B restarts %d\n' \
		"$(elapsed)" "$DUR" "$k" "${SCHEDS[$(( k % ${#SCHEDS[@]} ))]}" "${PROFILES[$(( k % 3 ))]}" \
		$(( $(total ef_in_pkts "$tot") + $(total af_in_pkts "$tot") + $(total cs0_in_pkts "$tot") )) \
		$(( $(total ef_out_pkts "$tot") + $(total af_out_pkts "$tot") + $(total cs0_out_pkts "$tot") )) \
		$(( $(total ef_drop_pkts "$tot") + $(total af_drop_pkts "$tot") + $(total cs0_drop_pkts "$tot") )) \
		"$(total pool_empty "$tot")" "$(total send_error "$tot")" "$(total rx_all "$tot")" \
		"$(total stats_write_error "$tot")" "$rss" "$fds" "$restarts"
	k=$(( k + 1 ))
done
STEPS=$k
DUR_REAL=$(elapsed)

# ---------------------------------------------------------------- the end
fails=()
kill -TERM "$FLOOD" 2>/dev/null || true
st_wait_pid_exit "$FLOOD" 5 || true
# Back to a writable stats file (the last step may have been /dev/full).
a_conf "$STEPS" "$A_STATS"
st_daemon_signal a HUP
reloads=$(( reloads + 1 ))
st_wait_for 10 "A to apply the last reload" reloaded "$reloads" || fails+=("last reload not applied")
a_idle() { [[ $(st_stats_last "$A_STATS" "sum(c['qlen_pkts'] for c in o['classes'].values()) + o['link']['inflight_pkts']") == 0 ]]; }
st_wait_for 20 "A's queues to drain" a_idle || fails+=("A's queues did not drain")
ping_out=$(timeout 20 ip netns exec "$ST_NS_A" ping -n -c 5 -i 0.2 -W 2 "$ST_TUN_B" 2>&1) || true
ping_sum=$(grep 'packets transmitted' <<<"$ping_out" || echo "no ping summary")
grep -q ' 5 received' <<<"$ping_out" || fails+=("ping after the soak: $ping_sum")
read -r rss_end fds_end < <(sample "$(elapsed)")
st_daemon_stop a || fails+=("A did not exit 0 after SIGTERM")
b_stop term

# Conservation: A's whole run, each of B's lives that ended in SIGTERM.
cons_a=$("${ST_STATS_PY[@]}" sum "$A_STATS" 2>&1) || fails+=("A: $(grep violated <<<"$cons_a" | head -n 3)")
cons_b=0
for f in "${B_TERM_FILES[@]}"; do
	if out=$("${ST_STATS_PY[@]}" sum "$f" 2>&1); then cons_b=$(( cons_b + 1 ))
	else fails+=("B $(basename "$f"): $(grep violated <<<"$out" | head -n 2)"); fi
done

# Sanitizers.
san=$(grep -hE 'ERROR: (Address|Leak)Sanitizer|runtime error:|SUMMARY: (Address|Leak|Undefined)' \
	"$A_LOG" "$B_LOG" | head -n 5 || true)
[[ -z $san ]] || fails+=("sanitizer report: $san")

# Said once.
tot=$("${SOAK_PY[@]}" totals "$A_STATS")
max_lines=$(( 1 + DUR_REAL / 5 ))
declare -A SAID=( [pool_empty]='packet pool (tunnel.pool): ' [send_error]='send to the peer: '
	[tun_write_error]='write to the tun: ' [stats_write_error]='stats file /dev/full: No space' )
said_report=""
for c in pool_empty send_error tun_write_error stats_write_error; do
	n=$(grep -cF "warning: ${SAID[$c]}" "$A_LOG" || true)
	said_report+=" $c=$(total "$c" "$tot")/${n}line(s)"
	(( n <= max_lines )) || fails+=("$c logged $n times (at most $max_lines)")
done
n=$(grep -cF "warning: ${SAID[stats_write_error]}" "$A_LOG" || true)
(( n == full_phases )) || fails+=("/dev/full logged $n times for $full_phases phases")
for c in pool_empty send_error; do
	(( $(total "$c" "$tot") > 0 )) || fails+=("drops.$c never moved")
done
(( full_phases == 0 || $(total stats_write_error "$tot") > 0 )) || fails+=("io.stats_write_error never moved")

b_tun_errors=0
for f in "$ST_WORK"/b-*.jsonl; do
	b_tun_errors=$(( b_tun_errors + $(total tun_write_error "$("${SOAK_PY[@]}" totals "$f")") ))
done
b_tun_warn=$(b_tun_warnings)
(( b_tun_warn == tun_phases )) || fails+=("B logged $b_tun_warn tun write warnings for $tun_phases down phases")
(( tun_phases == 0 || b_tun_errors > 0 )) || fails+=("B's drops.tun_write_error never moved")

# Garbage.
rx_all=$(total rx_all "$tot") pool_empty=$(total pool_empty "$tot")
(( rx_all <= GARBAGE_SENT )) || fails+=("rx_* drops $rx_all > garbage sent $GARBAGE_SENT")
(( GARBAGE_SENT - rx_all <= pool_empty )) ||
	fails+=("garbage sent $GARBAGE_SENT, refused $rx_all: $(( GARBAGE_SENT - rx_all )) unaccounted")

# RSS and fds after warm-up.
read -r warm_s rss_warm fds_warm rss_last fds_last_min fds_last_max rss_first last_s < <(
	python3 - "$SAMPLES" "$DUR_REAL" "$(( ${#SCHEDS[@]} * STEP_S ))" <<'EOF'
import sys
rows = [tuple(map(int, l.split())) for l in open(sys.argv[1]) if l.strip()]
dur, rotation = int(sys.argv[2]), int(sys.argv[3])
warm = max(rotation, dur // 4)
last = min(60, max(dur // 4, 1))
w = [r for r in rows if r[0] <= warm] or rows[:1]
l = [r for r in rows if r[0] >= rows[-1][0] - last and r[0] > warm] or rows[-1:]
print(warm, max(r[1] for r in w), w[-1][2], max(r[1] for r in l),
      min(r[2] for r in l), max(r[2] for r in l), rows[0][1], last)
EOF
)
(( rss_last <= rss_warm + RSS_TOL_KIB )) ||
	fails+=("RSS grew: last ${last_s} s max $rss_last KiB > warm-up max $rss_warm + $RSS_TOL_KIB KiB")
(( fds_last_min == fds_warm && fds_last_max == fds_warm )) ||
	fails+=("open fds: $fds_last_min..$fds_last_max in the last ${last_s} s, $fds_warm after warm-up")

cat <<EOF
=== soak summary ===
binary:        $ST_SCHEDTUN (ASAN_OPTIONS=$ASAN_OPTIONS)
duration:      ${DUR_REAL} s of churn, ${STEPS} steps of ${STEP_S} s (schedulers ${SCHEDS[*]}; profiles ${PROFILES[*]})
reloads:       $reloads SIGHUPs applied (A pid $A_PID throughout)
TCP:           $TCP_DONE of $TCP_RUNS iperf3 client runs (AF, CS0; one per step each) completed
restarts:      $restarts of B ($(( (restarts + 1) / 2 )) SIGTERM, $(( restarts / 2 )) SIGKILL), ${#B_TERM_FILES[@]} lives checked
garbage:       $GARBAGE_SENT datagrams sent to A, $rx_all refused as rx_*, the rest under pool_empty ($pool_empty)
tun down:      $tun_phases phases on B, drops.tun_write_error $b_tun_errors, $b_tun_warn warning(s)
stats:         $full_phases /dev/full phases, io.stats_write_error $(total stats_write_error "$tot"), lines in a.jsonl $(total lines "$tot")
said once:    $said_report (counter/warnings; at most $max_lines lines each)
RSS:           start $rss_first KiB, warm-up (first ${warm_s} s) max $rss_warm KiB, last ${last_s} s max $rss_last KiB, end $rss_end KiB (tolerance +$RSS_TOL_KIB KiB)
fds:           after warm-up $fds_warm, last ${last_s} s $fds_last_min..$fds_last_max, end $fds_end
conservation:  A $(tail -n 1 <<<"$cons_a"); B: $cons_b of ${#B_TERM_FILES[@]} lives ok
sanitizers:    ${san:-no report}
ping:          $ping_sum
EOF
if (( ${#fails[@]} )); then
	for f in "${fails[@]}"; do echo "FAIL: $ST_NAME: $f" >&2; done
	exit 1
fi
echo "PASS: $ST_NAME"
