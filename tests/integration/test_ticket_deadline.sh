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
#   these three over the lines in which the daemon was not stalled:
#   link.late_us.max (its own timer lateness) below STALL_MS = 5 ms = d/2.
#   A daemon descheduled for longer than d cannot meet a deadline of d;
#   that is the machine, not the scheduler.  At least 8 such lines needed.
#   Each line also shows late_us.max, and the test counts the lines whose
#   EF max exceeds d by no more than that lateness (a diagnosis);
#   - no EF packet dropped;
#   - AF and CS0 each at least 10 % of what EF leaves (1.6 Mbit/s) over the
#     intervals in which the scheduler held packets at both ends (the first
#     and last of them left out), as test_mix_pdrr_dq_ticket;
#   - conservation per class (stats.py sum).
# Prints the per-interval EF delay (avg / p99 / max) and the rates.  About
# 15 s on 2 cores with sanitizers.
set -euo pipefail
# shellcheck source=../../scripts/netns-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/netns-lib.sh"
st_test_begin "${1:-}" iperf3 python3 ss

D_MS=10
STALL_MS=5
C_BPS=20000000
EF_BPS=4000000
CLASSES='  ef  = { limit = 1000; };
  af  = { limit = 300; };
  cs0 = { limit = 300; };'
fails=()

st_ns_create
st_pair_start --rate 20Mbit --delay 10ms --sched ticket \
	--sched-params "ticket = { d = \"${D_MS}ms\"; };" --classes "$CLASSES" --stats-interval 0.5
st_iperf_mix_start "$ST_STATS_A" "$ST_TUN_B" 8 --ef-bps "$EF_BPS" --ef-extra 2
st_iperf_mix_wait
st_pair_stop

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
grep -v '^FAILCHECK ' <<<"$verdict"
while IFS= read -r f; do
	if [[ -n $f ]]; then fails+=("${f#FAILCHECK }"); fi
done < <(grep '^FAILCHECK ' <<<"$verdict" || true)

if (( ${#fails[@]} )); then
	for f in "${fails[@]}"; do echo "FAIL: $ST_NAME: $f" >&2; done
	exit 1
fi
echo "PASS: $ST_NAME"
