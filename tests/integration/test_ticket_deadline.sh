#!/usr/bin/env bash
# test_ticket_deadline.sh SCHEDTUN - TICKET never holds an EF packet longer
# than d, while AF and CS0 both get a share of the link.
#
# Link C = 20 Mbit/s, 10 ms one way, 0.5-s stats; scheduler ticket with
# d = D_MS = 10 ms (n_eb default 256).  Traffic from ns A to B
# (st_iperf_mix_start): EF one iperf3 UDP CBR flow, --tos 0xb8, 4 Mbit/s
# (1228-byte packets); AF 4 TCP cubic flows, --tos 0x28; CS0 4 TCP cubic
# flows, unmarked; 8 s.  Class limits EF 1000, AF and CS0 300 (AF + CS0
# are bounded by n_eb = 256 anyway).
#
# TICKET lets AF and CS0 go first and starts an EF packet no later than its
# deadline tau = arrival + d (Algorithm 2), so under this load EF's time in
# the scheduler is close to d, and never above it.  Assertions on A's
# stats (classes.ef.delay_ms.max, the largest enqueue-to-dequeue time of
# the interval, kept exactly in ns and printed to 1 us):
#   - max <= d + 0.001 ms (the stat's printed resolution);
#   - max >= 0.8 d: EF really was held back for AF and CS0 (otherwise the
#     bound above would be met trivially);
#   - sched.ef_missed = 0 (the scheduler's own count of EF packets started
#     after tau);
#   these three over the lines in which the daemon was not stalled
#   beyond the pacer's catch-up: link.late_us.max (its own timer
#   lateness) below STALL_MS = 50 ms (PACER_CATCHUP_MAX_NS).  The delay is
#   on the link's clock: a wake-up up to 50 ms late still starts each
#   packet at its own slot, so the deadline holds exactly; beyond it the
#   pacer forgives the missed time, the link's clock jumps, and a packet
#   can start after tau: that is the machine, not the scheduler.  At
#   least 8 such lines needed.  (The former STALL_MS = d/2 = 5 ms left 4
#   of 21 lines under two busy loops and a parallel build, whose
#   late_us.max ran 5-10 ms while no line's EF max exceeded d: issue 19.)
#   Each line also shows late_us.max, and the test counts the lines whose
#   EF max exceeds d by no more than that lateness (a diagnosis);
#   - no EF packet dropped;
#   - AF and CS0 each at least 10 % of what EF leaves (1.6 Mbit/s) over the
#     intervals in which the scheduler held packets at both ends (the first
#     and last of them left out), as test_mix_pdrr_dq_ticket;
#   - conservation per class (stats.py sum).
# The same, as the receiver B measured it (issue 19: the numbers above are
# A's scheduler's own; a delay added after the scheduler, in the delay line
# or the send path, or a packet lost there, would not show in them), over
# every line, none dropped for a stall:
#   - EF's one-way delay (B's rx.ef.owd_ms, from A's tun read to B's
#     receive; max is exact) per B line <= d + delay (10 ms) + one 1228-byte
#     packet's serialisation at C (0.49 ms) + 1 ms (B's receive path and
#     the stamps' 1-us prints) + the largest link.late_us.max A reported in
#     the lines covering that B interval (moved onto A's clock: origins from
#     the stats lines' wall - t, + delay) + B's own link.late_us.max of that
#     line (B's loop, late for the departures of the ACKs it sends back, is
#     as late to read): both are the machine's lateness, and what a stall
#     adds to the owd, so a stalled line is checked against its own
#     lateness, not dropped;
#   - on average, the EF path after the scheduler (B's packet-weighted EF
#     owd avg minus A's packet-weighted classes.ef.delay_ms.avg) within
#     [delay, delay + one packet + 1 ms + A's packet-weighted late_us p99]:
#     the average is robust to a few stalls, and lateness on average is
#     below its p99; 5 ms added to EF after the scheduler is far outside;
#   - EF's largest one-way delay >= 0.8 d + delay: held near its deadline
#     as seen from the far end too;
#   - B got exactly the EF packets A sent (rx.ef.pkts = A's
#     classes.ef.out_pkts, rx.ef.lost = 0), and in all classes B's rx +
#     lost = A's out, every loss a socket drop in B (stats.py link-check);
#   - AF and CS0 each at least 10 % of C - R_EF in B's rx bytes over B's
#     intervals that lie inside A's stretch of held intervals.
# Prints the per-interval EF delay (avg / p99 / max) and the rates.  About
# 15 s on 2 cores with sanitizers.
set -euo pipefail
# shellcheck source=../../scripts/netns-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/netns-lib.sh"
st_test_begin "${1:-}" iperf3 python3 ss

D_MS=10
STALL_MS=50
C_BPS=20000000
EF_BPS=4000000
CLASSES='  ef  = { limit = 1000; };
  af  = { limit = 300; };
  cs0 = { limit = 300; };'
fails=()

st_ns_create
st_pair_start --rate 20Mbit --delay 10ms --sched ticket \
	--sched-params "ticket = { d = \"${D_MS}ms\"; };" --classes "$CLASSES" --stats-interval 0.5
rcvbuf0=$(st_udp_rcvbuf_errors "$ST_NS_B")
st_iperf_mix_start "$ST_STATS_A" "$ST_TUN_B" 8 --ef-bps "$EF_BPS" --ef-extra 2
st_iperf_mix_wait
st_wait_for 15 "A's queue and delay line drained" st_sender_drained "$ST_STATS_A" ||
	fails+=("A never reported an empty queue and delay line")
rcvbuf1=$(st_udp_rcvbuf_errors "$ST_NS_B")
st_pair_stop

per_buf=1
(( $(st_field io.gro_reads "$ST_STATS_B") > 0 )) && per_buf=64
st_link_check "$ST_STATS_A" "$ST_STATS_B" $(( rcvbuf1 - rcvbuf0 )) "$per_buf" ||
	fails+=("B did not get what A put on the link: $ST_CHECK_MSG")

rverdict=$(python3 - "$ST_ROOT/scripts" "$ST_STATS_A" "$ST_STATS_B" "$D_MS" "$C_BPS" "$EF_BPS" <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
import stats
tx_path, rx_path = sys.argv[2], sys.argv[3]
d, c, r = (float(x) for x in sys.argv[4:7])
DELAY, SER, SLACK = 10.0, 1228 * 8 / c * 1000, 1.0
tx, rx = stats.load(tx_path), stats.load(rx_path)
shift = stats.origin(tx_path, tx) - stats.origin(rx_path, rx) + DELAY / 1000
fails = []
print("receiver B, EF one-way delay per line (B clock = A clock + %.4f s):" % shift)
print("  B t | EF pkts  avg     max ms | late_us max A    B | bound ms")
worst, top, checked = None, 0.0, 0
tx_iv = list(stats.intervals(tx))
for i, t0, t1, ln in stats.intervals(rx):
    e = ln["rx"]["ef"]
    if e["pkts"] == 0:
        continue
    a0, a1 = t0 - shift, t1 - shift
    late = max((o["link"]["late_us"]["max"] for _, s0, s1, o in tx_iv
                if s1 > a0 - 1e-9 and s0 < a1 + 1e-9), default=0.0)
    blate = ln["link"]["late_us"]["max"]
    bound = d + DELAY + SER + SLACK + (late + blate) / 1000
    m = e["owd_ms"]["max"]
    checked += 1
    top = max(top, m)
    flag = "" if m <= bound else "  OVER"
    print("%6.2f | %6d %7.3f %7.3f | %8.1f %7.1f | %7.3f%s" % (
        t1, e["pkts"], e["owd_ms"]["avg"], m, late, blate, bound, flag))
    if m > bound and (worst is None or m - bound > worst[0]):
        worst = (m - bound, t1, m, bound, late + blate)
n, avg, _, mx, _ = stats.owd_summary(rx, "ef")
print("B: EF owd over %d lines: avg %.3f ms, max %.3f ms (held: >= %.3f; "
      "bound d + delay + %.2f + %.1f + A's and B's lateness)" % (
          checked, avg or 0, top, 0.8 * d + DELAY, SER, SLACK))
if worst:
    fails.append("EF one-way delay measured by B reached %.3f ms in its line ending "
                 "%.2f s, above d + delay + one packet + %.1f ms + A's and B's lateness %.3f ms "
                 "= %.3f ms" % (worst[2], worst[1], SLACK, worst[4] / 1000, worst[3]))
if top < 0.8 * d + DELAY:
    fails.append("EF one-way delay measured by B at most %.3f ms: never held near "
                 "d (expected >= %.3f ms)" % (top, 0.8 * d + DELAY))
# The path after the scheduler, on average: B's EF owd average minus A's
# EF time in the scheduler (delay_ms.avg), both packet-weighted over the run.
soj = sum(o["classes"]["ef"]["out_pkts"] * o["classes"]["ef"]["delay_ms"]["avg"]
          for o in tx) / max(1, sum(o["classes"]["ef"]["out_pkts"] for o in tx))
w = lambda L, f: sum(o["link"]["out_pkts"] * f(o) for o in L) / max(1, sum(o["link"]["out_pkts"] for o in L))
late50 = w(tx, lambda o: o["link"]["late_us"]["p50"]) / 1000
late99 = w(tx, lambda o: o["link"]["late_us"]["p99"]) / 1000
resid = (avg or 0) - soj
print("EF path after the scheduler, on average: B's owd avg %.3f - A's delay_ms avg %.3f "
      "= %.3f ms (delay %.1f + one packet %.2f; A's late_us p50 %.3f, p99 %.3f ms, "
      "packet-weighted)" % (avg or 0, soj, resid, DELAY, SER, late50, late99))
if not DELAY <= resid <= DELAY + SER + SLACK + late99:
    fails.append("EF spent %.3f ms on average between A's scheduler and B (B's owd avg "
                 "%.3f - A's delay_ms avg %.3f), expected within [%.1f, %.3f] = delay .. "
                 "delay + one packet + %.1f ms + A's late_us p99 %.3f ms"
                 % (resid, avg or 0, soj, DELAY, DELAY + SER + SLACK + late99, SLACK, late99))
ef_out = sum(o["classes"]["ef"]["out_pkts"] for o in tx)
ef_rx = sum(o["rx"]["ef"]["pkts"] for o in rx)
ef_lost = sum(o["rx"]["ef"]["lost"] for o in rx)
print("EF: A out_pkts %d, B rx.ef.pkts %d, rx.ef.lost %d" % (ef_out, ef_rx, ef_lost))
if ef_rx != ef_out or ef_lost:
    fails.append("B received %d EF packets and counted %d lost, A sent %d"
                 % (ef_rx, ef_lost, ef_out))
share = {}
for x in ("af", "cs0"):
    rows = stats.rx_rate_rows(rx, tx, shift, rate=c, classes=(x,),
                              require_drops=False)
    dur = sum(r1 - r0 for r0, r1, _, _, _, _ in rows)
    share[x] = (sum(g * (r1 - r0) for r0, r1, _, _, g, _ in rows) / dur
                if dur else 0.0, len(rows))
print("B: AF %.3f Mbit/s, CS0 %.3f Mbit/s over %d / %d intervals inside A's held "
      "stretch (each >= %.3f)" % (share["af"][0] / 1e6, share["cs0"][0] / 1e6,
                                  share["af"][1], share["cs0"][1], 0.1 * (c - r) / 1e6))
for name, x in (("AF", "af"), ("CS0", "cs0")):
    v, k = share[x]
    if k < 8:
        fails.append("only %d intervals of B inside A's held stretch (need 8)" % k)
    elif v < 0.1 * (c - r):
        fails.append("%s reached B at %.3f Mbit/s, below 10 %% of C - R_EF = %.3f"
                     % (name, v / 1e6, 0.1 * (c - r) / 1e6))
for f in fails:
    print("FAILCHECK " + f)
EOF
)

sumout=$("${ST_STATS_PY[@]}" sum "$ST_STATS_A" 2>&1) ||
	fails+=("conservation violated: $(grep violated <<<"$sumout" | head -n 3)")
echo "$sumout"

verdict=$(python3 - "$ST_STATS_A" "$D_MS" "$C_BPS" "$EF_BPS" "$STALL_MS" <<'EOF'
import json, sys
L = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
d, c, r, stall = (float(x) for x in sys.argv[2:6])
C = ("ef", "af", "cs0")
fails = []
print("     t | EF delay avg   p99     max ms | late_us max | EF out  AF out  CS0 out Mbit/s | missed late order")
prev, checked, emax, missed, near, excess_late = 0.0, 0, 0.0, 0, 0, 0
for o in L:
    k, dt = o["classes"], o["t"] - prev
    prev = o["t"]
    e, late = k["ef"]["delay_ms"], o["link"]["late_us"]["max"]
    ok = late < stall * 1000
    print("%6.2f | %13.3f %7.3f %7.3f | %10.1f%s | %6.3f  %6.3f  %7.3f        | %6d %4d %5d" % (
        o["t"], e["avg"], e["p99"], e["max"], late, " " if ok else "*",
        *(k[x]["out_bytes"] * 8 / dt / 1e6 for x in C),
        o["sched"]["ef_missed"], o["sched"]["late"], o["sched"]["out_of_order"]))
    if e["max"] > d + 0.001:
        near += 1
        if e["max"] - d <= late / 1000 + 0.05:
            excess_late += 1
    if not ok:
        continue
    checked += 1
    emax = max(emax, e["max"])
    missed += o["sched"]["ef_missed"]
efd = sum(o["classes"]["ef"]["drop_pkts"] for o in L)
held = lambda o: sum(o["classes"][x]["qlen_pkts"] for x in C) > 0
steady = [(o["t"] - p["t"], o) for p, o in zip(L, L[1:]) if held(p) and held(o)][1:-1]
tdt = sum(dt for dt, _ in steady) or 1.0
af, cs0 = (sum(o["classes"][x]["out_bytes"] for _, o in steady) * 8 / tdt for x in ("af", "cs0"))
print("(* = the daemon reports a stall, late_us max >= %.0f ms: line not checked)" % stall)
print("EF delay max over %d checked lines %.3f ms (d = %.0f ms, allowed [%.1f, %.3f]); "
      "ef_missed %d; EF drops %d" % (checked, emax, d, 0.8 * d, d + 0.001, missed, efd))
print("lines with EF delay max above d: %d, of which %d by no more than that line's "
      "late_us max (+ 0.05 ms)" % (near, excess_late))
print("AF %.3f Mbit/s, CS0 %.3f Mbit/s over %d steady intervals (each >= %.3f)"
      % (af / 1e6, cs0 / 1e6, len(steady), 0.1 * (c - r) / 1e6))
if checked < 8:
    fails.append("only %d lines without a stall (need 8): machine too loaded" % checked)
if emax > d + 0.001:
    fails.append("EF waited %.3f ms in the scheduler, above d = %.0f ms" % (emax, d))
if emax < 0.8 * d:
    fails.append("EF waited at most %.3f ms: never held near its deadline (%.0f ms)" % (emax, d))
if missed:
    fails.append("sched.ef_missed = %d" % missed)
if efd:
    fails.append("%d EF packets dropped" % efd)
if len(steady) < 8:
    fails.append("only %d steady intervals (need 8)" % len(steady))
for name, v in (("AF", af), ("CS0", cs0)):
    if v < 0.1 * (c - r):
        fails.append("%s %.3f Mbit/s, below 10 %% of C - R_EF" % (name, v / 1e6))
for f in fails:
    print("FAILCHECK " + f)
EOF
)
for v in "$verdict" "$rverdict"; do
	grep -v '^FAILCHECK ' <<<"$v"
	while IFS= read -r f; do
		if [[ -n $f ]]; then fails+=("${f#FAILCHECK }"); fi
	done < <(grep '^FAILCHECK ' <<<"$v" || true)
done

if (( ${#fails[@]} )); then
	for f in "${fails[@]}"; do echo "FAIL: $ST_NAME: $f" >&2; done
	exit 1
fi
echo "PASS: $ST_NAME"
