#!/usr/bin/env bash
# test_rate_limit.sh SCHEDTUN - the pacer holds the link at its configured rate.
#
# For C = 20 Mbit/s and C = 5 Mbit/s (10 ms one-way delay): an iperf3 UDP
# flood at 2C for 8 s from ns A to B's iperf3 server.  The rate is measured
# where the packets arrive (issue 19: the sender's own out_bytes over its
# own t is a self-report, blind to a packet counted as sent and never
# sent): every 1-s interval of the RECEIVER B that lies, moved onto A's
# clock (each daemon's t = 0 from its stats lines' wall - t;
# plus the 10 ms delay), inside a stretch of A's saturated intervals
# (packets queued at both ends and queue-limit drops inside: the link had
# work all along) must carry sum(B rx.*.bytes)*8/dt = C within 1 %
# (stats.py check-rx-rate).  rx.*.bytes counts inner IP bytes, what the
# link is charged, so no header overhead enters the comparison.
#
# Tolerance 1 %: a 1 s interval at 5 Mbit/s carries ~509 packets of 1228
# bytes, so the packet straddling an interval boundary is 0.2 %; 't' printed
# to the millisecond is 0.1 % of 1 s, on each clock, and the origins read
# from the lines' wall - t add under 1 ms; a late release from A's delay
# line or a late stats timer in B moves packets across a boundary without
# accumulating (A's pacer works on the absolute service curve), 3 ms of it
# being 0.3 % (B's own read lateness, which nothing measures); A's late
# releases from its delay line, which A reports (link.late_us.max of the
# lines around the interval), widen that interval's tolerance by the bytes
# they can move across its boundaries at C (stats.py check-rx-rate
# --lateness), so a stalled machine widens only the interval it stalled
# in.  The stretch of those intervals, as one window, must hold C within
# 1 % x (1 s / its length) + A's lateness at its two ends: the edge
# effects above cancel inside it, so a loss of 1 % spread evenly shows
# there when each interval alone is within its tolerance.  A pacer that drifts (charges outer bytes: +2.3 %, or
# re-arms relative to the late wake-up) exceeds it.  At least 3 such
# intervals.  A's own check-rate is printed for comparison, not asserted.
#
# Also: drops.class_limit > 0 (the queue overflowed, so the link was the
# bottleneck), and B got every packet A put on the link (stats.py
# link-check, exact): B's rx.*.pkts + rx.*.lost = A's out_pkts, once A's
# queue and delay line are drained, and each datagram B counts lost is one
# its socket dropped (Udp RcvbufErrors in B) or A failed to send.
# And the application's view: the datagrams the iperf3 server received
# (its report: sum_received.packets - lost_packets) are B's rx.cs0.pkts less
# the iperf3 control connection's segments A -> B (also CS0): difference in
# [0, CTRL_MAX = 40] (measured 17-18: set-up, parameters, results; twice
# that for retransmissions of the control connection under the flood).
set -euo pipefail
# shellcheck source=../../scripts/netns-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/netns-lib.sh"
st_test_begin "${1:-}" iperf3 python3 ss

FLOOD_S=8   # busy from its second saturated 1-s interval: >= 3 receiver intervals with room (issue 19)
PAYLOAD=1200          # UDP payload: inner packet 1228 bytes < MTU 1400
TOL=0.01
CTRL_MAX=40           # iperf3 control segments A -> B (measured: see README)
fails=()

run_case() {
	local rate_mbit=$1 tag=$2
	local flood_bps=$(( 2 * rate_mbit ))M
	echo "=== case $tag: rate ${rate_mbit}Mbit, UDP flood $flood_bps for ${FLOOD_S}s ==="
	st_pair_start --tag "$tag" --rate "${rate_mbit}Mbit" --delay 10ms --sched fifo \
		--stats-interval 1.0

	local rcvbuf0 rcvbuf1 per_buf=1
	rcvbuf0=$(st_udp_rcvbuf_errors "$ST_NS_B")
	st_bg "$ST_NS_B" iperf3 -s -1 -p 5201
	local srv=$ST_LAST_PID
	st_wait_listen "$ST_NS_B" tcp 5201 || st_fail "iperf3 server did not start"
	# The client's control connection crosses the congested tunnel too; its
	# verdict is not the test's (the daemon's stats are): warn only.
	if ! st_run_bounded $(( FLOOD_S + 30 )) "$ST_NS_A" iperf3 -c "$ST_TUN_B" \
		-p 5201 -u -b "$flood_bps" -l "$PAYLOAD" -t "$FLOOD_S" -J \
		--connect-timeout 5000; then
		echo "WARN: iperf3 client did not finish cleanly:" >&2
		tail -n 5 "$ST_LAST_LOG" >&2
	fi
	local ijson="$ST_WORK/iperf-$tag.json"
	cp "$ST_LAST_LOG" "$ijson"
	# iperf3 -s -1 exits after its one test; stop it if it did not.
	st_wait_pid_exit "$srv" 5 || echo "WARN: iperf3 server did not exit by itself" >&2

	# Let A empty its queue and delay line (seen in its stats) before stopping.
	st_wait_for 15 "A's queue and delay line drained" st_sender_drained "$ST_STATS_A" ||
		fails+=("case $tag: A never reported an empty queue and delay line")
	rcvbuf1=$(st_udp_rcvbuf_errors "$ST_NS_B")
	st_pair_stop

	echo "--- A (sender) rates per interval, its own count (not asserted) ---"
	"${ST_STATS_PY[@]}" rates "$ST_STATS_A"
	"${ST_STATS_PY[@]}" check-rate "$ST_STATS_A" --rate "${rate_mbit}Mbit" \
		--tol "$TOL" --min-intervals 0 2>&1 | tail -n 1 | sed 's/^/A self-report: /' || true
	echo "--- B (receiver) rates in A's saturated stretches ---"
	st_rx_rate_check "$ST_STATS_B" "$ST_STATS_A" 0.010 "$TOL" 3 --lateness --rate "${rate_mbit}Mbit" ||
		fails+=("case $tag: the receiver's rate is not ${rate_mbit} Mbit/s within $TOL: $ST_CHECK_MSG")

	local climit
	climit=$("${ST_STATS_PY[@]}" field drops.class_limit "$ST_STATS_A")
	echo "case=$tag class_limit_drops=$climit B's RcvbufErrors $(( rcvbuf1 - rcvbuf0 ))"
	(( climit > 0 )) || fails+=("case $tag: drops.class_limit is 0 under a 2x flood")
	(( $(st_field io.gro_reads "$ST_STATS_B") > 0 )) && per_buf=64
	st_link_check "$ST_STATS_A" "$ST_STATS_B" $(( rcvbuf1 - rcvbuf0 )) "$per_buf" ||
		fails+=("case $tag: B did not get what A put on the link: $ST_CHECK_MSG")

	# The application's view (CTRL_MAX above).
	st_iperf_udp_app_check "$ijson" "$ST_STATS_B" "$CTRL_MAX" ||
		fails+=("case $tag: $ST_CHECK_MSG")
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
