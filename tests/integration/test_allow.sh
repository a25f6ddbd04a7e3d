#!/usr/bin/env bash
# test_allow.sh SCHEDTUN - tunnel.allow: a receiver without peer pins only
# a sender inside its prefixes.
#
# B has no configured peer and allow = "10.0.0.1/32" (A's underlay
# address).  A's namespace gets a second underlay address, 10.0.0.3;
# before A sends anything, a python program there sends B's port 6 valid
# datagrams (a well-formed header and IPv4/UDP inner packet) from
# 10.0.0.3 (another port).  Then A pings B across the tunnel.
# Checks: B counted the 6 in drops.rx_not_allowed and pinned nobody for
# them (its log has no pin before the ping); the ping works (A pinned);
# every other rx_* reason of B is 0; nothing refused reached B's tun (its
# kernel RX counter = the sum of B's rx.*.pkts); and --check refuses
# allow together with peer.
set -euo pipefail
# shellcheck source=../../scripts/netns-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/netns-lib.sh"
st_test_begin "${1:-}" ping python3

N_STRANGER=6
fails=()
st_ns_create
ip -n "$ST_NS_A" addr add 10.0.0.3/24 dev ul0 ||
	st_fail "cannot add a second underlay address to $ST_NS_A"

# allow and peer together: a configuration error, exit 1
st_conf_write "$ST_WORK/both.conf" --peer "$ST_UL_A:$ST_PORT" \
	--tunnel-extra "allow = \"$ST_UL_A/32\";"
rc=0; out=$("$ST_SCHEDTUN" --check -f "$ST_WORK/both.conf" 2>&1) || rc=$?
echo "$out"
(( rc == 1 )) || fails+=("--check of allow with peer exited $rc, expected 1")
grep -q "tunnel.allow: given together with peer" <<<"$out" ||
	fails+=("--check did not name allow given together with peer")

common=(--rate 20Mbit --delay 5ms --sched fifo --stats-interval 0.5)
ST_STATS_A="$ST_WORK/a.jsonl"; ST_STATS_B="$ST_WORK/b.jsonl"
st_conf_write "$ST_WORK/a.conf" --address "$ST_TUN_A/24" --peer "$ST_UL_B:$ST_PORT" \
	--stats-file "$ST_STATS_A" "${common[@]}"
st_conf_write "$ST_WORK/b.conf" --address "$ST_TUN_B/24" --stats-file "$ST_STATS_B" \
	"${common[@]}" --tunnel-extra "allow = \"$ST_UL_A/32\";"
st_daemon_start b "$ST_NS_B" "$ST_WORK/b.conf"
st_daemon_start a "$ST_NS_A" "$ST_WORK/a.conf"
st_daemon_wait_ready b "$ST_TUN_B/24"
st_daemon_wait_ready a "$ST_TUN_A/24"

ip netns exec "$ST_NS_A" python3 - "$ST_UL_B" "$ST_PORT" "$N_STRANGER" <<'EOF'
import socket, struct, sys, time
dst, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff

payload = b"not-allowed" * 4
udp = struct.pack("!HHHH", 40000, 9, 8 + len(payload), 0) + payload
h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, 64, 17, 0,
                socket.inet_aton("10.10.0.1"), socket.inet_aton("10.10.0.2"))
inner = h[:10] + struct.pack("!H", csum(h)) + h[12:] + udp
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("10.0.0.3", 0))
for i in range(n):
    s.sendto(struct.pack("!HBBHHIQ", 0x5354, 1, 2, len(inner), 0, i,
                         time.time_ns()) + inner, (dst, port))
    time.sleep(0.01)
print("sent %d valid datagrams from 10.0.0.3:%d" % (n, s.getsockname()[1]))
EOF

n=$(st_stats_lines "$ST_STATS_B")
st_wait_stats "$ST_STATS_B" $(( n + 2 )) 5 || st_fail "B stopped writing stats"
if grep -q "pinned the peer" "$ST_WORK/b.log"; then
	fails+=("B pinned a peer before A sent anything")
fi

st_ping_ok 5 "from the allowed A"
grep -q "pinned the peer" "$ST_WORK/b.log" || fails+=("B never pinned A")

n=$(st_stats_lines "$ST_STATS_B")
st_wait_stats "$ST_STATS_B" $(( n + 1 )) 5 || st_fail "B stopped writing stats"
tun_rx=$(st_tun_rx_packets "$ST_NS_B")
st_pair_stop

declare -A EXPECT=([rx_not_allowed]=$N_STRANGER)
st_rx_checks "$ST_STATS_B" "$tun_rx" EXPECT rx_short rx_bad_magic rx_bad_version \
	rx_bad_class rx_len_mismatch rx_oversize rx_unknown_peer rx_not_allowed \
	rx_unauth rx_keyed rx_inner_empty rx_inner_bad_version rx_inner_short \
	rx_inner_bad_ihl rx_inner_bad_length rx_inner_bad_checksum
st_finish
