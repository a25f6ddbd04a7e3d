#!/usr/bin/env bash
# test_ping_rtt.sh SCHEDTUN - the delay line gives the configured RTT.
#
# Two daemons, 250 ms one-way delay each, 20 Mbit/s.  ping -c 10 -i 0.2
# from ns A to B's tunnel address.  Expected RTT = 2 x 250 ms plus two
# serialisations of an 84-byte packet at 20 Mbit/s (2 x 34 us) plus
# processing.  Tolerance +-5 ms on the average: the delay-line timer may be
# rounded to 1 ms by the event loop (libevent without a precise timer) on
# each of the two hops (2 ms), and an idle 2-core machine with sanitizers
# adds well under a millisecond of scheduling latency per hop.  The minimum
# must be >= 500 ms: a delay line that releases early is a bug whatever the
# tolerance.
#
# Each direction on its own, as the receiving daemon measured it (issue 19;
# both namespaces share CLOCK_REALTIME, and owd runs from the sender's tun
# read to the receiver's): B's rx.cs0.owd_ms over A's echo requests and A's
# over B's replies (stats.py owd; avg and max are exact, p99 is a histogram
# bucket edge and is only printed):
#   - avg >= 250 ms (no packet can arrive before the delay) and max <= 250
#     + 2.5 ms + the lateness both daemons report (the largest
#     link.late_us.max of the sender, whose delay line released the packet
#     that late, plus the receiver's, whose loop is as late to read it):
#     half the RTT's 5 ms covers timer rounding and scheduling latency on
#     an idle machine, and what a loaded machine adds is measured in the
#     same run rather than guessed (issue 19: 253.2 ms under two busy
#     loops, with 1-3 ms of reported lateness);
#   - each daemon received exactly the 10 pings (B: rx.cs0.pkts = 10 echo
#     requests, A: 10 replies, no rx.*.lost): an idle tunnel carries
#     nothing else (IPv6 is off in the namespaces);
#   - the two one-way averages add up to the RTT ping measured, within
#     [-0.5, +1] ms: the RTT also holds B's kernel turning the request round
#     and ping's own read (well under 1 ms on an idle machine), and ping's
#     times are printed to 1 us, the owd averages to 1 us.  A delay split
#     unevenly between the directions (RTT right, each hop wrong) or a
#     timestamp taken at the wrong place (after the delay line: owd ~ 0)
#     fails here while the RTT passes.
# Also checks A's counters conserve.
set -euo pipefail
# shellcheck source=../../scripts/netns-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/netns-lib.sh"
st_test_begin "${1:-}" ping python3

EXPECT_MS=500
TOL_MS=5
COUNT=10

st_ns_create
st_pair_start --rate 20Mbit --delay 250ms --sched fifo --stats-interval 1.0

out=$(timeout 30 ip netns exec "$ST_NS_A" ping -n -c "$COUNT" -i 0.2 -W 3 "$ST_TUN_B" 2>&1) || {
	echo "$out" >&2
	st_fail "ping across the tunnel failed"
}
echo "$out" | tail -n 3
recv=$(echo "$out" | sed -n 's/.* \([0-9]\+\) received.*/\1/p')
rtt=$(echo "$out" | sed -n 's|^rtt min/avg/max/mdev = \([0-9.]*\)/\([0-9.]*\)/\([0-9.]*\)/.*|\1 \2 \3|p')
[[ -n $recv && -n $rtt ]] || st_fail "cannot parse ping output"
read -r rmin ravg rmax <<<"$rtt"
echo "rtt_min_ms=$rmin rtt_avg_ms=$ravg rtt_max_ms=$rmax received=$recv/$COUNT expected=$EXPECT_MS tol=$TOL_MS"

fails=()
(( recv == COUNT )) || fails+=("only $recv of $COUNT echo replies")
awk -v a="$ravg" -v e="$EXPECT_MS" -v t="$TOL_MS" 'BEGIN{exit !(a >= e - t && a <= e + t)}' ||
	fails+=("rtt avg $ravg ms not within $EXPECT_MS +- $TOL_MS ms")
awk -v m="$rmin" -v e="$EXPECT_MS" 'BEGIN{exit !(m >= e)}' ||
	fails+=("rtt min $rmin ms < $EXPECT_MS ms: the delay line released packets early")

st_pair_stop

# One-way delay of each direction, as its receiver measured it.
late_ms() {       # STATS: the largest link.late_us.max of the run, in ms
	"${ST_STATS_PY[@]}" field link.late_us.max --mode max "$1" |
		awk '{printf "%.3f", $1 / 1000}'
}
late_A=$(late_ms "$ST_STATS_A")
late_B=$(late_ms "$ST_STATS_B")

owd_check() {     # NAME STATS SENDER_LATE_MS RECEIVER_LATE_MS: prints the summary; fails on a bad hop
	local name=$1 stats=$2 out avg max pkts lost bound
	bound=$(awk -v a="$3" -v b="$4" 'BEGIN{printf "%.3f", 252.5 + a + b}')
	out=$("${ST_STATS_PY[@]}" owd cs0 "$stats" 2>&1) || {
		fails+=("receiver $name has no rx.cs0 packets: $out"); return; }
	read -r pkts avg max < <(sed -n 's/^pkts=\([0-9]*\) avg_ms=\([0-9.]*\) p99_ms=[0-9.]* max_ms=\([0-9.]*\)$/\1 \2 \3/p' <<<"$out")
	lost=$(( $(st_field rx.ef.lost "$stats") + $(st_field rx.af.lost "$stats") + $(st_field rx.cs0.lost "$stats") ))
	echo "$name rx.cs0: $(tail -n 1 <<<"$out") lost=$lost (expected $COUNT pkts, avg >= 250, max <= 252.5 + lateness $3 + $4 = $bound ms)"
	(( pkts == COUNT )) || fails+=("receiver $name got $pkts pings, expected $COUNT")
	(( lost == 0 )) || fails+=("receiver $name counted $lost lost")
	awk -v a="$avg" 'BEGIN{exit !(a >= 250)}' ||
		fails+=("receiver $name measured a one-way delay of $avg ms on average, below the 250 ms delay")
	awk -v m="$max" -v b="$bound" 'BEGIN{exit !(m <= b)}' ||
		fails+=("receiver $name measured a one-way delay up to $max ms, above 250 + 2.5 ms + the sender's and its own reported lateness ($3 + $4 ms) = $bound ms")
	eval "owd_$name=\$avg"
}
owd_A=0; owd_B=0
owd_check B "$ST_STATS_B" "$late_A" "$late_B"
owd_check A "$ST_STATS_A" "$late_B" "$late_A"
sum_ok=$(awk -v a="$owd_A" -v b="$owd_B" -v r="$ravg" 'BEGIN{d = r - (a + b); printf "%.3f %d", d, (d >= -0.5 && d <= 1)}')
echo "rtt_avg - (owd A->B + owd B->A) = ${sum_ok% *} ms (allowed [-0.5, 1])"
[[ ${sum_ok#* } == 1 ]] ||
	fails+=("the one-way delays measured by B ($owd_B ms) and A ($owd_A ms) do not add up to ping's RTT $ravg ms (difference ${sum_ok% *} ms, allowed [-0.5, 1])")

"${ST_STATS_PY[@]}" sum "$ST_STATS_A" >/dev/null || fails+=("conservation violated in A's stats")

if (( ${#fails[@]} )); then
	for f in "${fails[@]}"; do echo "FAIL: $ST_NAME: $f" >&2; done
	exit 1
fi
echo "PASS: $ST_NAME"
