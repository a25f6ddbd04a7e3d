#!/usr/bin/env bash
# test_tso.sh SCHEDTUN - tun segmentation offload (issue 10, src/pkt/tso.c).
#
# An unpaced pair (rate "unlimited", no delay, fifo) carries iperf3 TCP
# (cubic, 4 s) from A to B, once with tunnel.offload on (the default) and
# once off.  With offload on:
#   - the kernel delivered GSO super-packets to A's tun and A split them:
#     io.tun_super_reads > 0 and io.tun_segments > io.tun_super_reads
#     (and ethtool -k shows tcp-segmentation-offload on; off with
#     offload off; ethtool is required, scripts/deps.sh installs it);
#   - every segment was forwarded as a packet: no drops.tso_* nor tun_*
#     nor pool_empty at A, A's classes conserve packets (in = out + drop +
#     qlen, stats.py sum), and A's in_pkts >= io.tun_segments;
#   - B wrote to its tun what iperf3 then received: the receiving iperf3
#     reports the bytes (> 10 MB); every sequence gap B counted (rx.*.lost)
#     is a datagram its UDP socket dropped for a full buffer (the kernel's
#     Udp RcvbufErrors in B) or one A failed to send (drops.send_error);
#     RcvbufErrors counts socket buffers, and with UDP GSO/GRO one buffer
#     is a whole GSO message of up to UDPGSO_MAX_SEGS (64) datagrams, so
#     each counts for up to 64 (seen: 3 errors, 93 = 3 x 31 lost):
#     unpaced, nothing throttles A to what B can take, so at some rates
#     the underlay drops (TCP recovers); none is lost inside either daemon;
#   - ping works both ways of the tunnel (B's tun writes carry the zero
#     virtio header).
# With offload on, B also coalesces what it writes to its tun
# (tunnel.tun_gro): io.tun_gro_writes > 0, over IPv4 and IPv6.
# With offload off, the same traffic passes and both counters stay 0.
# A third pair, offload on, carries the same over IPv6 inside the tunnel
# (fd00:10::1 -> ::2 on st0, IPv6 enabled on st0 only): the TSO6 path.
# A fourth, when the kernel took USO (the daemon logs "USO4/6"): 20 UDP
# GSO sends (UDP_SEGMENT 1200, 12000 bytes each) from A reach A's tun as
# 20 super-packets of 10 segments: io.tun_super_reads = 20,
# io.tun_segments = 200, and B receives 200 datagrams of 1228 bytes.
# Rates are printed, not asserted (2-core VM, other load).
set -euo pipefail
# shellcheck source=../../scripts/netns-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/netns-lib.sh"
st_test_begin "${1:-}" iperf3 python3 ss ping ethtool

SECS=4
fails=()

# Udp RcvbufErrors of namespace NS (/proc/net/snmp is per namespace).
udp_rcvbuf_errors() {
	ip netns exec "$1" awk '/^Udp:/ { if (!n++) { for (i = 1; i <= NF; i++) col[$i] = i }
		else print $col["RcvbufErrors"] }' /proc/net/snmp
}

# st0 in NS gets IPv6 (the namespaces have it off) and address ADDR/64.
st0_v6() {
	ip netns exec "$1" sysctl -qw "net.ipv6.conf.$ST_TUN_NAME.disable_ipv6=0"
	ip -n "$1" -6 addr add "$2/64" dev "$ST_TUN_NAME" nodad
}

run_case() {
	local tag=$1 offload=$2 family=${3:-4}
	local dst=$ST_TUN_B src=$ST_TUN_A rcvbuf0 rcvbuf1
	echo "=== case $tag: tunnel.offload = $offload, unpaced, iperf3 TCP cubic ${SECS}s, IPv$family ==="
	st_pair_start --tag "$tag" --rate unlimited --delay 0ms --sched fifo \
		--offload "$offload" --pool 16384
	if [[ $family == 6 ]]; then
		src=fd00:10::1 dst=fd00:10::2
		st0_v6 "$ST_NS_A" "$src"
		st0_v6 "$ST_NS_B" "$dst"
	fi
	local tso
	tso=$(ip netns exec "$ST_NS_A" ethtool -k "$ST_TUN_NAME" |
		awk -F': ' '/^tcp-segmentation-offload/ {print $2}')
	echo "A's $ST_TUN_NAME: tcp-segmentation-offload: $tso"
	if [[ $offload == true && $tso != on* ]]; then
		fails+=("case $tag: tcp-segmentation-offload is '$tso' with offload on")
	fi
	if [[ $offload == false && $tso != off* ]]; then
		fails+=("case $tag: tcp-segmentation-offload is '$tso' with offload off")
	fi
	ip netns exec "$ST_NS_A" ping -c 3 -i 0.2 -W 2 "$dst" >/dev/null ||
		fails+=("case $tag: ping A -> B failed")
	ip netns exec "$ST_NS_B" ping -c 3 -i 0.2 -W 2 "$src" >/dev/null ||
		fails+=("case $tag: ping B -> A failed")

	rcvbuf0=$(udp_rcvbuf_errors "$ST_NS_B")
	st_iperf_tcp "$tag" "$dst" "$SECS" || fails+=("case $tag: iperf3 client failed")
	rcvbuf1=$(udp_rcvbuf_errors "$ST_NS_B")
	st_pair_stop

	local rx_bytes supers segs a_in bad pool b_lost send_err
	rx_bytes=$ST_IPERF_RX_BYTES
	supers=$(st_field io.tun_super_reads "$ST_STATS_A")
	segs=$(st_field io.tun_segments "$ST_STATS_A")
	a_in=$(( $(st_field classes.ef.in_pkts "$ST_STATS_A") +
		 $(st_field classes.af.in_pkts "$ST_STATS_A") +
		 $(st_field classes.cs0.in_pkts "$ST_STATS_A") ))
	bad=$(python3 - "$ST_STATS_A" <<'EOF'
import json, sys
tot = {}
for l in open(sys.argv[1]):
    if not l.endswith("\n"):
        continue
    for k, v in json.loads(l)["drops"].items():
        if k.startswith("tso_") or k.startswith("tun_"):
            tot[k] = tot.get(k, 0) + v
print(" ".join("%s=%d" % kv for kv in sorted(tot.items()) if kv[1]) or "none")
EOF
)
	pool=$(st_field drops.pool_empty "$ST_STATS_A")
	send_err=$(st_field drops.send_error "$ST_STATS_A")
	b_lost=$(( $(st_field rx.ef.lost "$ST_STATS_B") + $(st_field rx.af.lost "$ST_STATS_B") +
		   $(st_field rx.cs0.lost "$ST_STATS_B") ))
	echo "case=$tag iperf3_rx_bytes=$rx_bytes rate_mbit=$(( rx_bytes * 8 / SECS / 1000000 ))" \
	     "tun_super_reads=$supers tun_segments=$segs a_in_pkts=$a_in" \
	     "a_bad_drops=$bad a_pool_empty=$pool a_send_error=$send_err" \
	     "b_rx_lost=$b_lost b_udp_rcvbuf_errors=$(( rcvbuf1 - rcvbuf0 ))" \
	     "b_pool_empty=$(st_field drops.pool_empty "$ST_STATS_B")" \
	     "b_tun_write_error=$(st_field drops.tun_write_error "$ST_STATS_B")" \
	     "b_tun_gro_writes=$(st_field io.tun_gro_writes "$ST_STATS_B")" \
	     "b_tun_gro_segments=$(st_field io.tun_gro_segments "$ST_STATS_B")"
	"${ST_STATS_PY[@]}" sum "$ST_STATS_A" >/dev/null ||
		fails+=("case $tag: conservation violated in A's stats")
	(( rx_bytes > 10000000 )) || fails+=("case $tag: iperf3 received only $rx_bytes bytes")
	[[ $bad == none ]] || fails+=("case $tag: A dropped tun reads: $bad")
	(( pool == 0 )) || fails+=("case $tag: A's pool ran dry ($pool)")
	(( b_lost <= 64 * (rcvbuf1 - rcvbuf0) + send_err )) ||
		fails+=("case $tag: B counted $b_lost lost packets, the underlay dropped $(( rcvbuf1 - rcvbuf0 )) socket buffers (up to 64 datagrams each) and A failed $send_err sends")
	if [[ $offload == true ]]; then
		(( supers > 0 )) || fails+=("case $tag: no super-packet read (tun_super_reads 0)")
		(( segs > supers )) || fails+=("case $tag: $segs segments from $supers super-packets")
		(( a_in >= segs )) || fails+=("case $tag: A classified $a_in packets of $segs segments")
		grep -q 'tun offload: checksum, TSO4/6' "$ST_WORK/a.log" ||
			fails+=("case $tag: A did not log its offload")
		# B writes what arrives back to back coalesced (tunnel.tun_gro,
		# default on; test_tungro.sh checks it exactly): IPv4 and IPv6.
		(( $(st_field io.tun_gro_writes "$ST_STATS_B") > 0 )) ||
			fails+=("case $tag: B wrote no coalesced super-packet")
	else
		(( supers == 0 && segs == 0 )) ||
			fails+=("case $tag: offload off but tun_super_reads=$supers tun_segments=$segs")
	fi
}

# uso_case: UDP GSO super-packets through an offloading pair.
uso_case() {
	echo "=== case uso: tunnel.offload = true, 20 UDP_SEGMENT sends of 10 x 1200 bytes ==="
	st_pair_start --tag uso --rate unlimited --delay 0ms --sched fifo --offload true
	if ! grep -q 'USO4/6' "$ST_WORK/a.log"; then
		# TUN_F_USO4/6 exist from Linux 6.2 on: there, a daemon that
		# did not get them stopped asking, which is a failure.
		local major minor
		IFS=. read -r major minor _ <<<"$(uname -r)"
		if (( major > 6 || (major == 6 && minor >= 2) )); then
			fails+=("case uso: Linux $(uname -r) has TUN_F_USO4/6 but the daemon did not log them")
		else
			st_skip --part "case uso: Linux $(uname -r) < 6.2 has no TUN_F_USO4/6 (run it on Linux >= 6.2)"
		fi
		st_pair_stop
		return
	fi
	ip netns exec "$ST_NS_A" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_UDP, 103, 1200)         # UDP_SEGMENT
for i in range(20):
    s.sendto(bytes([i]) * 12000, (sys.argv[1], 9))
' "$ST_TUN_B" || fails+=("case uso: the UDP_SEGMENT sender failed")
	local want=$(( 20 * 10 ))
	b_rx() {
		local n
		n=$("${ST_STATS_PY[@]}" field rx.cs0.pkts "$ST_STATS_B" 2>/dev/null) || return 1
		(( n >= want ))
	}
	st_wait_for 10 "B received $want datagrams" b_rx ||
		fails+=("case uso: B did not receive $want datagrams")
	st_pair_stop
	local supers segs b_pkts b_bytes
	supers=$(st_field io.tun_super_reads "$ST_STATS_A")
	segs=$(st_field io.tun_segments "$ST_STATS_A")
	b_pkts=$(st_field rx.cs0.pkts "$ST_STATS_B")
	b_bytes=$(st_field rx.cs0.bytes "$ST_STATS_B")
	echo "case=uso tun_super_reads=$supers tun_segments=$segs b_rx_cs0_pkts=$b_pkts b_rx_cs0_bytes=$b_bytes"
	(( supers == 20 && segs == want )) ||
		fails+=("case uso: $supers super-reads, $segs segments (want 20, $want)")
	(( b_pkts == want && b_bytes == want * 1228 )) ||
		fails+=("case uso: B received $b_pkts packets, $b_bytes bytes (want $want, $(( want * 1228 )))")
}

st_ns_create
run_case on true
run_case off false
run_case on6 true 6
uso_case

if (( ${#fails[@]} )); then
	for f in "${fails[@]}"; do echo "FAIL: $ST_NAME: $f" >&2; done
	exit 1
fi
echo "PASS: $ST_NAME"
