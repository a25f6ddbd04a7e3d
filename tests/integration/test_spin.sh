#!/usr/bin/env bash
# test_spin.sh SCHEDTUN - link.spin polls for close departures instead of
# sleeping on the timer, and the link's rate stays exact either way.
#
# A pair at 20 Mbit/s (delay 0, fifo) carries a 30 Mbit/s UDP flood of
# 1228-byte packets (560 us per packet on the link) for FLOOD_S s, once
# with link.spin = 1ms and once with link.spin = 0.  With spin 0 every
# departure is a sleep on the timerfd and a wake-up; with spin 1ms every
# next departure of the backlogged link is less than 1 ms away, so the
# sender polls and does not sleep while it is backlogged.  Measured on
# the sender: voluntary context switches (sleeps; a sched_yield() is not
# one) per packet it sent, over the daemon's whole life (idle time adds a
# few dozen sleeps: the stats tick, the tun coming up).  Thresholds: spin
# 1ms < 0.2, spin 0 > 0.5 (measured: about 0.01 and 1.0).  A loop that
# ignored the key, or spun by arming a timer anyway, fails one of them.
#
# In both runs the RECEIVER measures the rate (as test_rate_limit.sh):
# every 1-s interval of B that lies, on A's clock, inside a stretch of A's
# saturated intervals carries 20 Mbit/s within 1 % + what A's reported
# delay-line lateness moves across its boundaries (st_rx_rate_check
# --lateness: a loaded machine delays the sender's wake-ups, which moves
# bytes between intervals without changing the rate), and B got what A
# put on the link (st_link_check, after A drained: every lost datagram a
# socket drop at B or a send_error at A).  A's own out rate is printed,
# not asserted.  Polling changes when the loop wakes, never the link's
# accounting.
set -euo pipefail
# shellcheck source=../../scripts/netns-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/netns-lib.sh"
st_test_begin "${1:-}" python3

FLOOD_S=8   # busy from its second saturated 1-s interval: >= 3 receiver intervals with room (issue 19)
fails=()

# voluntary_ctxt_switches of a running pid
vcsw() { awk '/^voluntary_ctxt_switches:/ {print $2}' "/proc/$1/status"; }

run_case() {
	local spin=$1 tag=$2 sleeps rcvbuf0 rcvbuf1 per_buf=1
	echo "=== case $tag: link.spin = $spin, 20 Mbit/s, 30 Mbit/s UDP flood for ${FLOOD_S}s ==="
	st_pair_start --tag "$tag" --rate 20Mbit --delay 0ms --sched fifo \
		--stats-interval 1.0 --link-extra "spin = \"$spin\";"
	rcvbuf0=$(st_udp_rcvbuf_errors "$ST_NS_B")
	st_udp_flood "$ST_NS_A" "$ST_TUN_B" "$FLOOD_S" 9000:0:30000000:1200
	sleeps=$(vcsw "${ST_PIDS[a]}")
	st_wait_for 15 "A's queue and delay line drained" st_sender_drained "$ST_STATS_A" ||
		fails+=("case $tag: A never reported an empty queue and delay line")
	rcvbuf1=$(st_udp_rcvbuf_errors "$ST_NS_B")
	st_pair_stop

	echo "--- A (sender) rates per interval, its own count (not asserted) ---"
	"${ST_STATS_PY[@]}" rates "$ST_STATS_A"
	echo "--- B (receiver) rates in A's saturated stretches ---"
	st_rx_rate_check "$ST_STATS_B" "$ST_STATS_A" 0 0.01 3 --lateness --rate 20Mbit ||
		fails+=("case $tag: the receiver's rate is not 20 Mbit/s within 1 %: $ST_CHECK_MSG")
	(( $(st_field io.gro_reads "$ST_STATS_B") > 0 )) && per_buf=64
	st_link_check "$ST_STATS_A" "$ST_STATS_B" $(( rcvbuf1 - rcvbuf0 )) "$per_buf" ||
		fails+=("case $tag: B did not get what A put on the link: $ST_CHECK_MSG")
	local out
	out=$(( $("${ST_STATS_PY[@]}" field classes.cs0.out_pkts "$ST_STATS_A") ))
	(( out > 1000 )) || { fails+=("case $tag: A sent only $out packets"); return; }
	local per
	per=$(python3 -c "print('%.4f' % ($sleeps / $out))")
	echo "case=$tag spin=$spin sender_sleeps=$sleeps out_pkts=$out sleeps_per_pkt=$per"
	if [[ $spin == 0us ]]; then
		python3 -c "import sys; sys.exit(0 if $per > 0.5 else 1)" ||
			fails+=("case $tag: spin 0 slept $per times per packet (expected > 0.5: one timer sleep per departure)")
	else
		python3 -c "import sys; sys.exit(0 if $per < 0.2 else 1)" ||
			fails+=("case $tag: spin $spin slept $per times per packet (expected < 0.2: polling)")
	fi
}

st_ns_create
run_case 1ms s1
run_case 0us s0

if (( ${#fails[@]} )); then
	for f in "${fails[@]}"; do echo "FAIL: $ST_NAME: $f" >&2; done
	exit 1
fi
echo "PASS: $ST_NAME"
