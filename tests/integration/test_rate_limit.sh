#!/usr/bin/env bash
# test_rate_limit.sh SCHEDTUN - the pacer holds the link at its configured rate.
#
# For C = 20 Mbit/s and C = 5 Mbit/s (10 ms one-way delay): an iperf3 UDP
# flood at 2C for 6 s from ns A to B's iperf3 server.  From the sender A's
# own stats lines (1 s intervals), every saturated interval (packets queued
# at both of its ends and queue-limit drops inside it: see stats.py
# check-rate; this excludes the ramp-up and drain intervals and the partial
# line written at SIGTERM) must carry sum(classes.*.out_bytes)*8/dt = C
# within 1 %.  The link is charged on inner IP bytes, which is what out_bytes
# counts, so no header overhead enters the comparison.
#
# Tolerance 1 %: a 1 s interval at 5 Mbit/s carries ~509 packets of 1228
# bytes, so the packet straddling an interval boundary is 0.2 %; 't' printed
# to the millisecond is 0.1 % of 1 s; a pacer that works on the absolute
# service curve catches up after a late timer, so lateness does not
# accumulate.  A pacer that drifts (charges outer bytes: +2.3 %, or re-arms
# relative to the late wake-up) exceeds it.
#
# Also: drops.class_limit > 0 (the queue overflowed, so the link was the
# bottleneck) and the receiver B saw A's packets: sum(B rx.*.pkts) is at
# least 99.9 % of sum(A out_pkts) once A's queue and delay line are drained.
set -euo pipefail
# shellcheck source=../../scripts/netns-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/netns-lib.sh"
st_test_begin "${1:-}" iperf3 python3 ss

FLOOD_S=6
PAYLOAD=1200          # UDP payload: inner packet 1228 bytes < MTU 1400
TOL=0.01
fails=()

# A's last stats line shows an empty queue and an empty delay line.
a_drained() {
	python3 - "$ST_STATS_A" <<'EOF'
import json, sys
lines = [l for l in open(sys.argv[1]).read().split("\n")[:-1] if l.strip()]
if not lines:
    sys.exit(1)
o = json.loads(lines[-1])
q = sum(o["classes"][c]["qlen_pkts"] for c in ("ef", "af", "cs0"))
sys.exit(0 if q == 0 and o["link"]["inflight_pkts"] == 0 else 1)
EOF
}

run_case() {
	local rate_mbit=$1 tag=$2
	local flood_bps=$(( 2 * rate_mbit ))M
	echo "=== case $tag: rate ${rate_mbit}Mbit, UDP flood $flood_bps for ${FLOOD_S}s ==="
	st_pair_start --tag "$tag" --rate "${rate_mbit}Mbit" --delay 10ms --sched fifo \
		--stats-interval 1.0

	st_bg "$ST_NS_B" iperf3 -s -1 -p 5201
	local srv=$ST_LAST_PID
	st_wait_listen "$ST_NS_B" tcp 5201 || st_fail "iperf3 server did not start"
	# The client's control connection crosses the congested tunnel too; its
	# verdict is not the test's (the daemon's stats are): warn only.
	if ! st_run_bounded $(( FLOOD_S + 30 )) "$ST_NS_A" iperf3 -c "$ST_TUN_B" \
		-p 5201 -u -b "$flood_bps" -l "$PAYLOAD" -t "$FLOOD_S" \
		--connect-timeout 5000; then
		echo "WARN: iperf3 client did not finish cleanly:" >&2
		tail -n 5 "$ST_LAST_LOG" >&2
	fi
	# iperf3 -s -1 exits after its one test; stop it if it did not.
	st_wait_pid_exit "$srv" 5 || echo "WARN: iperf3 server did not exit by itself" >&2

	# Let A empty its queue and delay line (seen in its stats) before stopping.
	st_wait_for 15 "A's queue and delay line drained" a_drained ||
		fails+=("case $tag: A never reported an empty queue and delay line")
	st_pair_stop

	echo "--- A (sender) rates per interval ---"
	"${ST_STATS_PY[@]}" rates "$ST_STATS_A"
	local chk rc=0
	chk=$("${ST_STATS_PY[@]}" check-rate "$ST_STATS_A" --rate "${rate_mbit}Mbit" \
		--tol "$TOL" --min-intervals 3 2>&1) || rc=$?
	echo "$chk"
	(( rc == 0 )) || fails+=("case $tag: out rate not ${rate_mbit}Mbit within $TOL: $(echo "$chk" | tail -n 1)")

	local climit out_pkts rx_pkts
	climit=$("${ST_STATS_PY[@]}" field drops.class_limit "$ST_STATS_A")
	out_pkts=$(( $("${ST_STATS_PY[@]}" field classes.ef.out_pkts "$ST_STATS_A") +
		     $("${ST_STATS_PY[@]}" field classes.af.out_pkts "$ST_STATS_A") +
		     $("${ST_STATS_PY[@]}" field classes.cs0.out_pkts "$ST_STATS_A") ))
	rx_pkts=$(( $("${ST_STATS_PY[@]}" field rx.ef.pkts "$ST_STATS_B") +
		    $("${ST_STATS_PY[@]}" field rx.af.pkts "$ST_STATS_B") +
		    $("${ST_STATS_PY[@]}" field rx.cs0.pkts "$ST_STATS_B") ))
	echo "case=$tag class_limit_drops=$climit a_out_pkts=$out_pkts b_rx_pkts=$rx_pkts"
	(( climit > 0 )) || fails+=("case $tag: drops.class_limit is 0 under a 2x flood")
	(( out_pkts > 0 )) || fails+=("case $tag: A sent nothing")
	(( rx_pkts * 1000 >= out_pkts * 999 && rx_pkts <= out_pkts )) ||
		fails+=("case $tag: B received $rx_pkts packets of the $out_pkts A sent")
	"${ST_STATS_PY[@]}" sum "$ST_STATS_A" >/dev/null ||
		fails+=("case $tag: conservation violated in A's stats")
}

st_ns_create
run_case 20 r20
run_case 5 r5

if (( ${#fails[@]} )); then
	for f in "${fails[@]}"; do echo "FAIL: $ST_NAME: $f" >&2; done
	exit 1
fi
echo "PASS: $ST_NAME"
