#!/usr/bin/env bash
# test_auth.sh SCHEDTUN - the authenticated, encrypted tunnel on real
# sockets: attacks from the peer's own address are dropped and counted,
# and a re-key by SIGHUP one side at a time loses nothing.
#
# Both daemons have tunnel.key_file (the same key, from `schedtun genkey`,
# mode 0600) and tunnel.encrypt; B has no configured peer and pins A at
# A's first authentic datagram (a ping).  While a ping runs across the
# tunnel (200 requests, 50 ms apart), a python program in A's namespace
# captures one of A's datagrams on the underlay (AF_PACKET), checks that
# it is version 2, flagged encrypted, and that the inner IPv4 addresses
# are not in it in clear, then sends B's port from A's own address and
# port 5000 (raw socket, so that the sender check cannot be what refuses
# them), each kind a distinct number of times:
#   rx_replay         1000  the captured datagram as it is
#   rx_bad_auth         50  its counter moved 1,000,000 + i ahead and one
#                           inner byte changed: the window check passes,
#                           the tag does not (and the window must not
#                           move, or every later datagram of A would be
#                           too old and the ping would stop)
#   rx_stale_session     5  its epoch one nanosecond earlier
#   rx_unauth            7  a well-formed version 1 datagram
# Then A's key file gets a new key and A a SIGHUP; once A's stats show it
# accepting B's datagrams under the old key (auth.prev_key > 0, the
# half-way state), the same for B (tunnel.key_grace 30 s).
# Checks: the running ping got all 200 replies; B's drops equal the
# numbers above and every other rx_* reason of either daemon is 0; both
# daemons switched to the new key once (auth.switches); nothing refused
# reached B's tun (its kernel RX counter = the sum of B's rx.*.pkts).
set -euo pipefail
# shellcheck source=../../scripts/netns-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/netns-lib.sh"
st_test_begin "${1:-}" ping python3

declare -A EXPECT=([rx_replay]=1000 [rx_bad_auth]=50 [rx_stale_session]=5
		   [rx_unauth]=7)
fails=()

st_ns_create
( umask 077; "$ST_SCHEDTUN" genkey >"$ST_WORK/k1"; "$ST_SCHEDTUN" genkey >"$ST_WORK/k2" )
cp -p "$ST_WORK/k1" "$ST_WORK/a.key"
cp -p "$ST_WORK/k1" "$ST_WORK/b.key"

common=(--rate 20Mbit --delay 10ms --sched fifo --stats-interval 0.5)
ST_STATS_A="$ST_WORK/a.jsonl"; ST_STATS_B="$ST_WORK/b.jsonl"
st_conf_write "$ST_WORK/a.conf" --address "$ST_TUN_A/24" --peer "$ST_UL_B:$ST_PORT" \
	--stats-file "$ST_STATS_A" "${common[@]}" \
	--tunnel-extra 'key_file = "a.key"; encrypt = true; key_grace = "30s";'
st_conf_write "$ST_WORK/b.conf" --address "$ST_TUN_B/24" \
	--stats-file "$ST_STATS_B" "${common[@]}" \
	--tunnel-extra 'key_file = "b.key"; encrypt = true; key_grace = "30s";'
st_daemon_start b "$ST_NS_B" "$ST_WORK/b.conf"
st_daemon_start a "$ST_NS_A" "$ST_WORK/a.conf"
st_daemon_wait_ready b "$ST_TUN_B/24"
st_daemon_wait_ready a "$ST_TUN_A/24"

out=$(timeout 20 ip netns exec "$ST_NS_A" ping -n -c 3 -i 0.2 -W 2 "$ST_TUN_B" 2>&1) ||
	{ echo "$out" >&2; st_fail "ping across the keyed tunnel failed (pinning?)"; }
echo "before: $(echo "$out" | grep 'packets transmitted')"

st_bg "$ST_NS_A" ping -n -c 200 -i 0.05 -W 2 "$ST_TUN_B"
bgping=$ST_LAST_PID
bgping_log=$ST_LAST_LOG

PYTHONPATH="$ST_ROOT/scripts" ip netns exec "$ST_NS_A" python3 - "$ST_UL_B" "$ST_PORT" \
	"$ST_TUN_A" "$ST_TUN_B" "${EXPECT[rx_replay]}" "${EXPECT[rx_bad_auth]}" \
	"${EXPECT[rx_stale_session]}" "${EXPECT[rx_unauth]}" <<'EOF'
import socket, struct, sys, time
dst, port, tun_a, tun_b = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
n_replay, n_bad, n_stale, n_unauth = map(int, sys.argv[5:9])
from soak import csum   # scripts/soak.py: the IPv4 header checksum

# One of A's datagrams to B, as it leaves ul0 (outgoing frames reach only
# ETH_P_ALL sockets).
cap = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
cap.bind(("ul0", 0))
cap.settimeout(5)
dgram = None
seen = []
deadline = time.time() + 5
while dgram is None and time.time() < deadline:
    frame, addr = cap.recvfrom(65535)
    seen.append((addr[2], len(frame)))
    if addr[2] != socket.PACKET_OUTGOING or frame[12:14] != b"\x08\x00":
        continue
    ip = frame[14:]
    ihl = (ip[0] & 15) * 4
    if ip[9] != 17 or socket.inet_ntoa(ip[16:20]) != dst:
        continue
    sport, dport = struct.unpack("!HH", ip[ihl:ihl + 4])
    if dport == port:
        dgram = bytes(ip[ihl + 8:])
assert dgram is not None, "no datagram of A's captured within 5 s: %r" % seen[:10]
assert dgram[:2] == b"ST" and dgram[2] == 2, "not version 2: %r" % dgram[:4]
flags = struct.unpack("!H", dgram[6:8])[0]
assert flags & 1, "not flagged encrypted: flags %#x" % flags
clear = socket.inet_aton(tun_a) + socket.inet_aton(tun_b)
assert clear not in dgram and socket.inet_aton(tun_b) + socket.inet_aton(tun_a) not in dgram, \
    "the inner addresses are in clear"
print("captured: %d bytes, version 2, encrypted, no inner address in clear" % len(dgram))

epoch, salt, ctr = struct.unpack("!QQQ", dgram[20:44])
forged = []
for i in range(n_bad):
    d = bytearray(dgram)
    d[36:44] = struct.pack("!Q", ctr + 1000000 + i)
    d[60] ^= 0x55
    forged.append(bytes(d))
stale = bytearray(dgram)
stale[20:28] = struct.pack("!Q", epoch - 1)

def ipv4_udp(src, dst_ip, payload, sp=40000, dp=9):
    udp = struct.pack("!HHHH", sp, dp, 8 + len(payload), 0) + payload
    h = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0x1234, 0, 64, 17,
                    0, socket.inet_aton(src), socket.inet_aton(dst_ip))
    return h[:10] + struct.pack("!H", csum(h)) + h[12:] + udp
inner = ipv4_udp(tun_a, tun_b, b"unauthenticated" * 4)
v1 = struct.pack("!HBBHHIQ", 0x5354, 1, 2, len(inner), 0, 0, time.time_ns()) + inner

raw = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)
raw.setsockopt(socket.IPPROTO_IP, 10, 0)   # IP_MTU_DISCOVER = IP_PMTUDISC_DONT
def send(d):
    raw.sendto(struct.pack("!HHHH", port, port, 8 + len(d), 0) + d, (dst, 0))
    time.sleep(0.001)
for _ in range(n_replay):
    send(dgram)
for d in forged:
    send(d)
for _ in range(n_stale):
    send(bytes(stale))
for _ in range(n_unauth):
    send(v1)
print("sent from port %d: %d replays, %d forged, %d stale, %d version 1" % (
    port, n_replay, n_bad, n_stale, n_unauth))
EOF

# Re-key one side at a time while the ping runs.
st_rekey_pair "$ST_WORK/k2" "$ST_WORK/a.key" "$ST_WORK/b.key"

st_bg_ping_done "$bgping" "$bgping_log" 200 "during the attacks and the re-key"
st_ping_ok 3 "after the re-key"

n=$(st_stats_lines "$ST_STATS_B")
st_wait_stats "$ST_STATS_B" $(( n + 1 )) 5 || st_fail "B stopped writing stats"
tun_rx=$(st_tun_rx_packets "$ST_NS_B")
tun_rx_a=$(st_tun_rx_packets "$ST_NS_A")
st_pair_stop

reasons=(rx_short rx_bad_magic rx_bad_version rx_bad_class rx_len_mismatch
	 rx_oversize rx_unknown_peer rx_unauth rx_keyed rx_bad_auth rx_replay
	 rx_too_old rx_stale_session rx_mode_mismatch rx_counter_limit
	 rx_inner_empty rx_inner_bad_version rx_inner_short rx_inner_bad_ihl
	 rx_inner_bad_length rx_inner_bad_checksum tx_counter_limit send_error)
declare -A NONE=()
st_rx_checks "$ST_STATS_B" "$tun_rx" EXPECT "${reasons[@]}"
st_rx_checks "$ST_STATS_A" "$tun_rx_a" NONE "${reasons[@]}"
for d in A B; do
	f=ST_STATS_$d
	sw=$(st_field auth.switches "${!f}")
	pend=$(st_stats_last "${!f}" 'int(o["auth"]["rekey_pending"])')
	echo "${d,,} auth.switches=$sw rekey_pending_at_end=$pend"
	(( sw == 1 )) || fails+=("$d switched keys $sw times, expected 1")
	(( pend == 0 )) || fails+=("$d still waits for the peer's new key at the end")
done
st_finish
