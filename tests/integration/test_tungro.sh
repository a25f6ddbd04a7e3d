#!/usr/bin/env bash
# test_tungro.sh SCHEDTUN - coalesced GSO writes to the receiving tun
# (tunnel.tun_gro, src/pkt/tungro.c, src/daemon/tunwrite.c; issue 10's receive side).
#
# A pair paced at 200 Mbit/s (fifo, no delay, link.slack 2 ms so that each
# wake-up of A releases a burst, which reaches B as one UDP GSO message and
# so as one run of segments of the flow) carries iperf3 TCP (cubic, 4 s)
# from A to B, once with tunnel.tun_gro on (the default) and once off
# (fresh pair each).  Both: ping both ways; the receiving iperf3 got
# > 10 MB; after A reported its queue and delay line empty, B accounts for
# every datagram A put on its link, exactly (st_link_check): B's rx.*.pkts
# + rx.*.lost = A's out_pkts - in flight, every lost one a socket drop at
# B (the kernel's RcvbufErrors in B's namespace, up to 64 datagrams per
# GRO buffer) or a send_error of A, and with nothing lost rx.*.bytes =
# A's out_bytes.  The rate is below what B takes on an idle machine, but
# a busy one (under ASan) can delay B's reads until its socket buffer
# overflows: such a loss is the underlay's, counted by the kernel, not the
# coalescing's, and is allowed only as long as that count explains it.
# No drops.tun_write_error nor rx_* at B, conservation at A (secondary).
# On: B's io.tun_gro_writes > 0, tun_gro_segments /
# tun_gro_writes > 2, tun_gro_fallback 0, and B logged the coalescing.
# Off: tun_gro_writes = tun_gro_segments = 0.
set -euo pipefail
# shellcheck source=../../scripts/netns-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/netns-lib.sh"
st_test_begin "${1:-}" iperf3 python3 ss ping

SECS=4
fails=()

# The sum of rx.<class>.KEY over the three classes of stats file FILE.
rx_sum() {
	echo $(( $(st_field "rx.ef.$1" "$2") + $(st_field "rx.af.$1" "$2") +
		 $(st_field "rx.cs0.$1" "$2") ))
}

run_case() {
	local tag=$1 gro=$2
	echo "=== case $tag: tunnel.tun_gro = $gro, 200 Mbit/s, slack 2 ms, iperf3 TCP cubic ${SECS}s ==="
	st_pair_start --tag "$tag" --rate 200Mbit --slack 2ms --delay 0ms \
		--sched fifo --offload true --tun-gro "$gro" --pool 16384
	ip netns exec "$ST_NS_A" ping -c 3 -i 0.2 -W 2 "$ST_TUN_B" >/dev/null ||
		fails+=("case $tag: ping A -> B failed")
	ip netns exec "$ST_NS_B" ping -c 3 -i 0.2 -W 2 "$ST_TUN_A" >/dev/null ||
		fails+=("case $tag: ping B -> A failed")
	local rcvbuf0 rcvbuf1 per_buf=1
	rcvbuf0=$(st_udp_rcvbuf_errors "$ST_NS_B")
	st_iperf_tcp "$tag" "$ST_TUN_B" "$SECS" || fails+=("case $tag: iperf3 client failed")
	st_wait_for 15 "A's queue and delay line drained" st_sender_drained "$ST_STATS_A" ||
		fails+=("case $tag: A never reported an empty queue and delay line")
	rcvbuf1=$(st_udp_rcvbuf_errors "$ST_NS_B")
	st_pair_stop

	local rx_bytes writes segs fb a_out a_out_bytes b_pkts b_bytes b_lost
	local b_werr b_bad a_send_err
	rx_bytes=$ST_IPERF_RX_BYTES
	writes=$(st_field io.tun_gro_writes "$ST_STATS_B")
	segs=$(st_field io.tun_gro_segments "$ST_STATS_B")
	fb=$(st_field io.tun_gro_fallback "$ST_STATS_B")
	a_out=$(st_field link.out_pkts "$ST_STATS_A")
	a_out_bytes=$(st_field link.out_bytes "$ST_STATS_A")
	a_send_err=$(st_field drops.send_error "$ST_STATS_A")
	b_pkts=$(rx_sum pkts "$ST_STATS_B")
	b_bytes=$(rx_sum bytes "$ST_STATS_B")
	b_lost=$(rx_sum lost "$ST_STATS_B")
	b_werr=$(st_field drops.tun_write_error "$ST_STATS_B")
	b_bad=$(python3 - "$ST_STATS_B" <<'EOF'
import json, sys
tot = {}
for l in open(sys.argv[1]):
    if l.endswith("\n"):
        for k, v in json.loads(l)["drops"].items():
            if k.startswith("rx_") and v:
                tot[k] = tot.get(k, 0) + v
print(" ".join("%s=%d" % kv for kv in sorted(tot.items())) or "none")
EOF
)
	echo "case=$tag iperf3_rx_bytes=$rx_bytes rate_mbit=$(( rx_bytes * 8 / SECS / 1000000 ))" \
	     "b_tun_gro_writes=$writes b_tun_gro_segments=$segs b_tun_gro_fallback=$fb" \
	     "a_link_out_pkts=$a_out a_link_out_bytes=$a_out_bytes a_send_error=$a_send_err" \
	     "b_rx_pkts=$b_pkts b_rx_bytes=$b_bytes b_rx_lost=$b_lost" \
	     "b_tun_write_error=$b_werr b_rx_drops=$b_bad" \
	     "a_tun_gro_writes=$(st_field io.tun_gro_writes "$ST_STATS_A")"
	"${ST_STATS_PY[@]}" sum "$ST_STATS_A" >/dev/null ||
		fails+=("case $tag: conservation violated in A's stats")
	(( rx_bytes > 10000000 )) || fails+=("case $tag: iperf3 received only $rx_bytes bytes")
	(( $(st_field io.gro_reads "$ST_STATS_B") > 0 )) && per_buf=64
	echo "case=$tag B's RcvbufErrors $(( rcvbuf1 - rcvbuf0 )) (per GRO buffer up to $per_buf datagrams)"
	st_link_check "$ST_STATS_A" "$ST_STATS_B" $(( rcvbuf1 - rcvbuf0 )) "$per_buf" ||
		fails+=("case $tag: B did not get what A put on the link: $ST_CHECK_MSG")
	(( b_werr == 0 )) ||
		fails+=("case $tag: B's drops.tun_write_error $b_werr, expected 0")
	[[ $b_bad == none ]] || fails+=("case $tag: B dropped datagrams: $b_bad")
	(( fb == 0 )) || fails+=("case $tag: tun_gro_fallback $fb")
	if [[ $gro == true ]]; then
		(( writes > 0 )) || fails+=("case $tag: no coalesced write (tun_gro_writes 0)")
		(( segs > 2 * writes )) ||
			fails+=("case $tag: $segs packets in $writes coalesced writes (want > 2 each)")
		grep -q 'TCP segments coalesced on write' "$ST_WORK/b.log" ||
			fails+=("case $tag: B did not log the coalescing")
	else
		(( writes == 0 && segs == 0 )) ||
			fails+=("case $tag: tun_gro off but tun_gro_writes=$writes tun_gro_segments=$segs")
	fi
}

st_ns_create
run_case on true
run_case off false

if (( ${#fails[@]} )); then
	for f in "${fails[@]}"; do echo "FAIL: $ST_NAME: $f" >&2; done
	exit 1
fi
echo "PASS: $ST_NAME"
