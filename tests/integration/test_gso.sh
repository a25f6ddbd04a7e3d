#!/usr/bin/env bash
# test_gso.sh SCHEDTUN - UDP segmentation offload on the underlay: bursts of
# equal-size datagrams leave as UDP_SEGMENT messages and arrive as UDP_GRO
# buffers split back into datagrams, with nothing lost or miscounted; where
# the kernel refuses GSO the daemon falls back to one datagram per message.
#
# Each case: an unpaced pair (rate "unlimited", delay 0, fifo) carries one
# iperf3 TCP cubic flow A -> B for 4 s, with a ping A -> B before and after.
# Checks, over all stats lines of both daemons (the last flushed at SIGTERM):
#   - what B wrote to its tun is what A sent, counted by B (stats.py
#     link-check, st_link_check): B's rx.*.pkts + rx.*.lost = A's out_pkts
#     (minus A's delay line at its stop), and every datagram B counts as
#     lost is accounted for outside the daemons' GSO code: A's
#     drops.send_error (must be 0: a refused send is a datagram lost) or a
#     drop by B's full socket buffer, the kernel's Udp RcvbufErrors in B's
#     namespace during the run, each one GRO buffer of up to 64
#     (UDPGSO_MAX_SEGS) datagrams when B read coalesced buffers
#     (io.gro_reads > 0), else exactly one datagram.  Unpaced, nothing holds A to what B
#     can take, so the underlay may drop; a gap no RcvbufError explains is
#     a datagram the daemons lost (before, "B rx = A out - B lost" took
#     any loss for granted);
#   - B refused nothing (every drops.rx_* = 0), so no split produced a bad
#     datagram;
#   - the receiving iperf3 got > 1 MB (its server's count);
#   - conservation in = out + drop + qlen per class on both daemons;
#   - both pings complete.
# Case "gso" (veth MTU 1500, the default):
#   - A's io.gso_sends > 0 and io.gso_segments >= 2 * gso_sends (a GSO
#     message carries at least two datagrams), io.gso_fallback = 0 on both;
#   - B's io.gro_reads > 0 and io.gro_segments >= 2 * gro_reads: the
#     datagrams reached B's socket coalesced and were split again.  A GSO
#     message crosses the veth as one packet and a UDP_GRO socket takes it
#     as it is, so this holds whether the veth runs GRO or not (it does not
#     by default; the numbers printed show gro_reads = the peer's gso_sends).
# Case "fallback" (veth MTU 1420 < a full datagram's 1448 bytes: the kernel
# refuses a GSO message whose segment exceeds the path MTU, with EMSGSIZE on
# 6.18 (EINVAL before), while it fragments a plain datagram):
#   - A's io.gso_fallback = 1 and A's log says so exactly once;
#   - the refused burst went again as plain datagrams: nothing lost (the
#     checks above: a datagram the fallback drops is a gap at B with no
#     RcvbufError and no send_error to account for it).
set -euo pipefail
# shellcheck source=../../scripts/netns-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/netns-lib.sh"
st_test_begin "${1:-}" iperf3 python3 ping

fails=()

# check CASE: prints the totals and a "BAD: ..." line per failed check.
check() {
	python3 - "$1" "$ST_STATS_A" "$ST_STATS_B" <<'PYEOF'
import json, sys

case = sys.argv[1]

def load(path):
    return [json.loads(l) for l in open(path) if l.strip()]

def total(lines, f):
    return sum(f(o) for o in lines)

a, b = load(sys.argv[2]), load(sys.argv[3])
io = lambda lines, k: total(lines, lambda o: o["io"][k])
cls = ("ef", "af", "cs0")
a_out = total(a, lambda o: o["link"]["out_pkts"])
b_rx = total(b, lambda o: sum(o["rx"][c]["pkts"] for c in cls))
b_lost = total(b, lambda o: sum(o["rx"][c]["lost"] for c in cls))
b_refused = total(b, lambda o: sum(v for k, v in o["drops"].items()
                                   if k.startswith("rx_")))
for name, me, peer in (("A", a, b), ("B", b, a)):
    print("%s: link.out_pkts %d gso_sends %d gso_segments %d gso_fallback %d "
          "gro_reads %d gro_segments %d" % (
              name, total(me, lambda o: o["link"]["out_pkts"]),
              io(me, "gso_sends"), io(me, "gso_segments"),
              io(me, "gso_fallback"), io(me, "gro_reads"),
              io(me, "gro_segments")))
print("B: rx pkts %d lost %d refused %d" % (b_rx, b_lost, b_refused))
bad = []
if a_out < 1000:
    bad.append("A sent only %d packets" % a_out)
if b_refused:
    bad.append("B refused %d datagrams" % b_refused)
send_err = total(a, lambda o: o["drops"]["send_error"])
if send_err:
    bad.append("A's drops.send_error is %d, expected 0 (each is a datagram lost)"
               % send_err)
if case == "gso":
    if io(a, "gso_sends") <= 0:
        bad.append("A sent no GSO message")
    if io(a, "gso_segments") < 2 * io(a, "gso_sends"):
        bad.append("A's GSO messages carried fewer than 2 datagrams each")
    if io(a, "gso_fallback") or io(b, "gso_fallback"):
        bad.append("GSO fell back")
    if io(b, "gro_reads") <= 0:
        bad.append("B read no coalesced buffer")
    if io(b, "gro_segments") < 2 * io(b, "gro_reads"):
        bad.append("B's coalesced buffers held fewer than 2 datagrams each")
else:
    if io(a, "gso_fallback") != 1:
        bad.append("A's io.gso_fallback is %d, not 1" % io(a, "gso_fallback"))
for m in bad:
    print("BAD: " + m)
PYEOF
}

run_case() {
	local tag=$1 ul_mtu=$2 out verdict n rcvbuf0 rcvbuf1
	echo "=== case $tag: veth MTU $ul_mtu, tunnel MTU 1400 ==="
	ip -n "$ST_NS_A" link set ul0 mtu "$ul_mtu"
	ip -n "$ST_NS_B" link set ul0 mtu "$ul_mtu"
	st_pair_start --tag "$tag" --rate unlimited --delay 0ms --sched fifo \
		--stats-interval 1.0

	out=$(timeout 20 ip netns exec "$ST_NS_A" ping -n -c 3 -i 0.2 -W 2 "$ST_TUN_B" 2>&1) ||
		{ echo "$out" >&2; st_fail "case $tag: ping across the tunnel failed before the TCP flow"; }

	rcvbuf0=$(st_udp_rcvbuf_errors "$ST_NS_B")
	st_iperf_tcp "$tag" "$ST_TUN_B" 4 ||
		fails+=("case $tag: iperf3 TCP client failed: $(tail -n 3 "$ST_LAST_LOG")")
	echo "case $tag: iperf3 receiver got $ST_IPERF_RX_BYTES bytes"
	(( ST_IPERF_RX_BYTES > 1000000 )) ||
		fails+=("case $tag: the receiving iperf3 got $ST_IPERF_RX_BYTES bytes, expected > 1 MB")

	out=$(timeout 20 ip netns exec "$ST_NS_A" ping -n -c 3 -i 0.2 -W 2 "$ST_TUN_B" 2>&1) ||
		fails+=("case $tag: ping failed after the TCP flow: $(echo "$out" | tail -n 2)")
	rcvbuf1=$(st_udp_rcvbuf_errors "$ST_NS_B")
	st_pair_stop

	local per_buf=1
	(( $(st_field io.gro_reads "$ST_STATS_B") > 0 )) && per_buf=64
	echo "case $tag: B's Udp RcvbufErrors during the run: $(( rcvbuf1 - rcvbuf0 )), up to $per_buf datagram(s) each"
	st_link_check "$ST_STATS_A" "$ST_STATS_B" $(( rcvbuf1 - rcvbuf0 )) "$per_buf" ||
		fails+=("case $tag: B's receive counters do not match what A sent: $ST_CHECK_MSG")

	"${ST_STATS_PY[@]}" sum "$ST_STATS_A" >/dev/null ||
		fails+=("case $tag: conservation violated in A's stats")
	"${ST_STATS_PY[@]}" sum "$ST_STATS_B" >/dev/null ||
		fails+=("case $tag: conservation violated in B's stats")
	verdict=$(check "$tag")
	echo "$verdict"
	while IFS= read -r l; do
		[[ $l == BAD:* ]] && fails+=("case $tag: ${l#BAD: }")
	done <<<"$verdict"
	if [[ $tag == fallback ]]; then
		n=$(grep -c 'UDP GSO refused by the kernel' "$ST_WORK/a.log" || true)
		echo "A's log: $n line(s) 'UDP GSO refused by the kernel'"
		(( n == 1 )) || fails+=("case $tag: the fallback was logged $n times, not once")
	fi
}

st_ns_create
run_case gso 1500
run_case fallback 1420

if (( ${#fails[@]} )); then
	printf 'FAIL: %s\n' "${fails[@]}" >&2
	exit 1
fi
echo "PASS: test_gso"
