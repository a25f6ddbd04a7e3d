#!/usr/bin/env bash
# test_garbage.sh SCHEDTUN - malformed underlay datagrams are dropped and counted.
#
# Daemon B has no configured peer: A's first valid packet (a ping) pins A's
# underlay address:port (10.0.0.1:5000).  While a ping runs across the
# tunnel, a python sender in ns A sends B's listen port, per reason, a
# distinct number of bad datagrams (distinct, so that a reason counted under
# another name shows):
#   from the pinned peer's own address and port (raw socket, source port
#   5000 - so that the sender check cannot be what rejects them):
#     rx_short              3   10 bytes, shorter than the 20-byte header
#     rx_bad_magic          4   magic 0xdead
#     rx_bad_version        5   version 9
#     rx_len_mismatch       6   header length = inner length + 10
#     rx_inner_bad_version  7   valid header, inner packet of 40 zero bytes
#                               (IP version 0: not IPv4/IPv6)
#     rx_bad_class          9   class 7
#     rx_oversize           2   valid header + valid IPv4 packet of 1450
#                               bytes > tunnel MTU 1400
#   from another port of the same host (ordinary UDP socket):
#     rx_unknown_peer       8   valid header + valid IPv4/UDP inner packet
# Checks, over all of B's stats lines (the last flushed at SIGTERM): each
# drops.<reason> equals the number sent, every other rx_* reason is 0; the
# ping running meanwhile lost nothing and a ping after works; nothing
# refused reached B's tun: B's st0 kernel RX packet counter equals the sum
# of B's rx.*.pkts (IPv6 is off in the namespaces, so no stray traffic).
set -euo pipefail
# shellcheck source=../../scripts/netns-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/netns-lib.sh"
st_test_begin "${1:-}" ping python3

declare -A EXPECT=(
	[rx_short]=3 [rx_bad_magic]=4 [rx_bad_version]=5 [rx_len_mismatch]=6
	[rx_inner_bad_version]=7 [rx_unknown_peer]=8 [rx_bad_class]=9
	[rx_oversize]=2
)
fails=()

st_ns_create
st_pair_start --no-peer-b --rate 20Mbit --delay 10ms --sched fifo --stats-interval 0.5

out=$(timeout 20 ip netns exec "$ST_NS_A" ping -n -c 3 -i 0.2 -W 2 "$ST_TUN_B" 2>&1) ||
	{ echo "$out" >&2; st_fail "ping across the tunnel failed before any garbage (pinning?)"; }
echo "before: $(echo "$out" | grep 'packets transmitted')"

# A ping running while the garbage arrives.
st_bg "$ST_NS_A" ping -n -c 40 -i 0.05 -W 2 "$ST_TUN_B"
bgping=$ST_LAST_PID
bgping_log=$ST_LAST_LOG

PYTHONPATH="$ST_ROOT/scripts" ip netns exec "$ST_NS_A" python3 - "$ST_UL_B" "$ST_PORT" "$ST_PORT" \
	"${EXPECT[rx_short]}" "${EXPECT[rx_bad_magic]}" "${EXPECT[rx_bad_version]}" \
	"${EXPECT[rx_len_mismatch]}" "${EXPECT[rx_inner_bad_version]}" \
	"${EXPECT[rx_unknown_peer]}" "${EXPECT[rx_bad_class]}" "${EXPECT[rx_oversize]}" <<'EOF'
import socket, struct, sys, time
dst, dport, sport = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
(n_short, n_magic, n_version, n_len, n_inner, n_peer, n_class,
 n_over) = map(int, sys.argv[4:12])

from soak import csum   # scripts/soak.py: the IPv4 header checksum

def ipv4_udp(src, dst_ip, payload, sp=40000, dp=9):
    """A well-formed IPv4/UDP packet (header checksum set, UDP sum 0)."""
    udp = struct.pack("!HHHH", sp, dp, 8 + len(payload), 0) + payload
    total = 20 + len(udp)
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, total, 0x1234, 0, 64, 17, 0,
                    socket.inet_aton(src), socket.inet_aton(dst_ip))
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + udp

def hdr(length, magic=0x5354, ver=1, cls=2, seq=0):
    # tunnel.h: magic u16, version u8, class u8, length u16, flags u16,
    # seq u32, tx_ns u64 - network byte order, 20 bytes.
    return struct.pack("!HBBHHIQ", magic, ver, cls, length, 0, seq,
                       time.time_ns())

inner = ipv4_udp("10.10.0.1", "10.10.0.2", b"garbage-test" * 4)
big = ipv4_udp("10.10.0.1", "10.10.0.2", bytes(1450 - 28))
assert len(big) == 1450
notip = bytes(40)

from_peer = (
    [hdr(len(inner))[:10]] * n_short +
    [hdr(len(inner), magic=0xdead) + inner] * n_magic +
    [hdr(len(inner), ver=9) + inner] * n_version +
    [hdr(len(inner) + 10) + inner] * n_len +
    [hdr(len(notip)) + notip] * n_inner +
    [hdr(len(inner), cls=7) + inner] * n_class +
    [hdr(len(big)) + big] * n_over
)
# Raw UDP socket: the kernel adds the IP header (source 10.0.0.1 by route),
# we write the UDP header with source port = the pinned peer's port.
raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)
raw.setsockopt(socket.IPPROTO_IP, 10, 0)   # IP_MTU_DISCOVER = IP_PMTUDISC_DONT
for d in from_peer:
    raw.sendto(struct.pack("!HHHH", sport, dport, 8 + len(d), 0) + d, (dst, 0))
    time.sleep(0.002)
other = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
other.bind(("0.0.0.0", 0))
for i in range(n_peer):
    other.sendto(hdr(len(inner), seq=1000 + i) + inner, (dst, dport))
    time.sleep(0.002)
print("garbage sent: %d datagrams from port %d, %d from port %d" % (
    len(from_peer), sport, n_peer, other.getsockname()[1]))
EOF

st_bg_ping_done "$bgping" "$bgping_log" 40 "during the garbage"
st_ping_ok 3 "after the garbage"

# Quiet tunnel: wait for one more stats line, then read B's tun counter.
n=$(st_stats_lines "$ST_STATS_B")
st_wait_stats "$ST_STATS_B" $(( n + 1 )) 5 || st_fail "B stopped writing stats"
tun_rx=$(st_tun_rx_packets "$ST_NS_B")
st_pair_stop

st_rx_checks "$ST_STATS_B" "$tun_rx" EXPECT rx_short rx_bad_magic rx_bad_version \
	rx_bad_class rx_len_mismatch rx_oversize rx_unknown_peer rx_inner_empty \
	rx_inner_bad_version rx_inner_short rx_inner_bad_ihl rx_inner_bad_length \
	rx_inner_bad_checksum
st_finish
