#!/usr/bin/env bash
# test_pss_dwrr.sh SCHEDTUN - PSS and DWRR share a live EF + AF + CS0 mix as
# the paper says (Finzi et al. 2023, eqs. 1, 2, 7; DESIGN §3, §4).
#
# Link C = 20 Mbit/s, 10 ms one way, 0.5-s stats.  Four runs, each with a
# fresh daemon pair: scheduler in {dwrr, pss} x EF rate R_EF in {0.25 C,
# 0.5 C}.  Traffic from ns A to B through the tunnel; the tunnel MTU is
# L = 1300, so every packet is L IP bytes (checked: the mean out packet
# size of each class is printed):
#   EF   one iperf3 UDP CBR flow, --tos 0xb8, R_EF at the IP level (iperf3's
#        -b counts payload: -b = R_EF * 1272/1300);
#   AF   10 TCP cubic flows (iperf3 -P 10 -C cubic --tos 0x28, AF11);
#   CS0  10 TCP cubic flows, unmarked (as the paper, DESIGN §4).
# Order: EF alone first; AF once A has classified EF packets; CS0 once A has
# classified AF packets (polled in A's stats lines), so that each iperf3
# control connection (unmarked: class CS0) is set up before CS0's queue
# fills.  AF and CS0 run FLOOD_S = 8 s, EF 4 s longer.
#
# Parameters (W_AF = 9, W_CS0 = 2, L_AF = L_CS0 = L, R_EF^exp = 0.5 C, the
# paper's rule, as `schedtun params pss --w-af 9 --w-cs0 2 --l-af 1300
# --l-cs0 1300 --capacity 20Mbit --ef-exp 10Mbit --no-sim` prints them; the
# script computes them from the formulas and shows that command's block):
#   K_AF = 9L/(9L + 2L) = 9/11;  B = 8L/(8L + 1L) = 8/9
#   pss:  bw = B (C - R_EF^exp)/C = 4/9 = 0.444444444
#         lm = round(L (W_AF - 1)(1 - bw)) = round(1300*8*5/9 = 5777.8) = 5778
#         lr = 0 (fixed capacity, §2.4), capacity = 20Mbit
#   dwrr: quantum af = 9 L = 11700, cs0 = 2 L = 2600 bytes
# Queue limits: AF and CS0 200 packets (0.1-0.2 s at their shares: short
# ramp, backlog kept by 10 cubic flows), EF 1000 (EF never queues at a
# strict priority below C; the limit only keeps a sender burst, e.g. an
# iperf3 descheduled on a loaded machine, from being dropped).
#
# Measured: per-class rates of what the RECEIVER B got (rx.X.bytes) over
# its intervals that lie, on A's clock (st_rx_rate_check's origins: the
# lines' wall - t, + 10 ms), inside A's steady stretches (stats.py steady,
# the rule shared with test_mix_pdrr_dq_ticket.sh): AF and CS0 both have
# packets queued at both ends of A's interval, without the first (PSS's
# credit starts at 0, TCP ramps up) and the last (the senders stop) of
# these, and without a short partial interval.  At least MIN_STEADY (8 =
# 4 s) of A's and MIN_STEADY - 2 of B's required.  A's own out rates are
# printed, not asserted; after A drained, B accounts for every datagram A
# put on the link (st_link_check); conservation at A is secondary.
# pss runs last PSS_FLOOD_S = 16 s, not 8 (a wider window, not a wider
# tolerance): PSS's AF rate varies from one 0.5-s interval to the next
# (7.49-8.57 Mbit/s in one run under CPU load), so over 8 s (13 steady
# intervals) the two runs' AF differed by 1.4-2.3 % idle and by 7.0 % once
# under two busy loops; 16 s gives 27-31 intervals.
# Assertions:
#   - EF out rate = R_EF within 2 %, and no EF packet dropped; 2 %: 0.5 s
#     at 5 Mbit/s is 240 packets, so one packet at an interval edge is
#     0.4 % of one interval and the mean over >= 8 intervals is finer.
#   - DWRR: AF = K_AF (C - R_EF) within 3 % at both EF rates (eq. 1:
#     12.27 and 8.18 Mbit/s).  The DWRR split is exact to a quantum (11700
#     bytes, 0.5 % of a 0.5-s interval at 20 Mbit/s); 3 % leaves room for
#     EF's own 2 % (which moves C - R_EF) and the 1 % allowed on the total.
#     Also AF's share of what EF leaves, AF/(AF + CS0) = K_AF within 1 %:
#     the scheduler's split alone, whatever the link delivered.
#   - PSS: the paper's central claim, AF's rate does not depend on EF
#     where DWRR's does: AF's change between R_EF = 0.25 C and 0.5 C at
#     most PSS_DEP_MAX = 30 % of DWRR's AF change over the same EF step,
#     measured in this same test (the reference; eq. 1: K_AF x 5 = 4.09
#     Mbit/s); and each PSS AF between PSS_FLOOR = 0.85 x eq. 7 and BW C
#     + 3 % (eq. 7:
#     K_AF (C - R_EF^exp) = 8.18; BW C = 8.89 Mbit/s).  Algorithm 1 with
#     these parameters gives AF close to BW C, about 8 % above eq. 7 (the
#     simulator, greedy sources, CBR EF: 8.95 and 8.76 Mbit/s, 5 % of
#     DWRR's change; docs/params.md), so the level is asserted only
#     loosely.  Why 30 %: PSS's AF depends on how bursty EF is, not only
#     on its rate.  While an EF burst fills the link, AF cannot send and
#     its credit falls to the floor 0 (LR = 0), time it never gets back:
#     in the simulator, EF on-off at 20 Mbit/s, 20 ms on / 20 ms off
#     (mean 10) gives AF 5.08 Mbit/s against 8.76 for CBR at the same
#     mean; at mean 5 (bursts of 10 Mbit/s) AF stays at 8.85.  iperf3's
#     EF, CPU-starved on a loaded machine, arrives in bursts, more so at
#     10 Mbit/s: measured 3-5 % of DWRR's change idle, 5-7 % under two
#     busy loops, and 9.6 % (UDP floods for AF and CS0) to 21.7 % (TCP)
#     under two busy loops beside a parallel build (AF 8.70 vs 7.81), the
#     former 3 % absolute limit failing (issue 19).  A PSS that behaves
#     like DWRR moves 100 % of DWRR's change, one that never switches
#     fails the level.  The same bursts set the floor: 7.81 Mbit/s =
#     0.955 eq. 7 in that loaded run; a PSS stuck at p_low gives AF what
#     CS0 leaves, far below 0.85 eq. 7.
#   - the link is work-conserving while AF and CS0 are backlogged: EF + AF
#     + CS0 = C within 1 % (as test_rate_limit; the pacer catches up late
#     wake-ups, so nothing but a boundary packet, 0.3 %, should be missing),
#     and conservation (stats.py sum) holds per run.
# A table of measured vs expected is printed.
#
# Why TCP cubic for AF and CS0: it is the paper's traffic, and here it is as
# stable as UDP floods: with 10 flows per class and 200-packet queues both
# classes stayed backlogged in every steady interval (queues never below
# 100 packets in our runs), per-interval DWRR rates agree to 0.3 %, the ramp takes
# < 1 s, and measured rates equal those of UDP floods to 0.1 % (DWRR) and
# 0.3 % (PSS).  PSSDWRR_TRAFFIC=udp replaces the TCP flows with UDP floods
# above the link rate (AF 16, CS0 10 Mbit/s of payload), the fully
# deterministic variant, e.g. to tell a congestion-control effect from a
# scheduler one.
#
# Why L = 1300 and not 1400: the paper's eq. 5 makes LM exactly W_AF - 1 =
# 8 AF packets' credit gain, L (W_AF - 1)(1 - bw); rounded to a whole byte
# it lands just above (L = 1300: 5777.8 -> 5778) or just below (L = 1400:
# 6222.2 -> 6222) that gain, i.e. AF switches after 9 or after 8 packets.
# Below, Algorithm 1 gives AF 9.17 Mbit/s at R_EF = 0.25 C and 8.78 at
# 0.5 C (the simulator: `schedtun params pss ... --l-af 1400 --l-cs0 1400
# --ef 5Mbit`), 4 % apart; above, 8.85 and 8.81.  The test checks the claim
# where the parameter rule is not on that knife edge; PSSDWRR_L=1400 runs
# it with 1400-byte packets.
#
# PSSDWRR_SCHEDS="pss" (or "dwrr") runs only those two runs.
# Run time about 75 s on 2 cores with sanitizers.
set -euo pipefail
# shellcheck source=../../scripts/netns-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/netns-lib.sh"
st_test_begin "${1:-}" iperf3 python3 ss

C_BPS=20000000                 # link rate
C_RATE=20Mbit
DELAY=10ms
L=${PSSDWRR_L:-1300}           # every packet's IP size = the tunnel MTU
PAYLOAD=$(( L - 28 ))          # EF's (and the UDP floods') UDP payload
W_AF=9
W_CS0=2
EF_EXP_BPS=$(( C_BPS / 2 ))    # R_EF^exp = 0.5 C
EF_RATES=($(( C_BPS / 4 )) $(( C_BPS / 2 )))   # R_EF = 0.25 C, 0.5 C
TRAFFIC=${PSSDWRR_TRAFFIC:-tcp}  # AF and CS0: tcp (cubic) or udp (floods)
TCP_FLOWS=10                   # per class, as the paper
AF_FLOOD=16000000              # udp: payload bit/s offered per class
CS0_FLOOD=10000000
FLOOD_S=8                      # AF/CS0 traffic duration per dwrr run
PSS_FLOOD_S=16                 # per pss run: its AF rate varies by interval
STATS_IVL=0.5
MIN_STEADY=8
CLASSES='  ef  = { limit = 1000; };
  af  = { limit = 200; };
  cs0 = { limit = 200; };'
fails=()
results=()                     # "sched ref ef af cs0 total n efdrops" per run

(( L >= 576 && L <= 1400 )) || st_fail "PSSDWRR_L=$L: the packet size must be 576..1400"
case $TRAFFIC in
tcp)
	TRAFFIC_DESC="$TCP_FLOWS TCP cubic flows each"
	grep -qw cubic /proc/sys/net/ipv4/tcp_available_congestion_control ||
		st_fail "TCP cubic is not available (tcp_available_congestion_control:" \
			"$(cat /proc/sys/net/ipv4/tcp_available_congestion_control); load tcp_cubic)" ;;
udp)
	TRAFFIC_DESC="UDP floods of $(( AF_FLOOD / 1000000 )) and $(( CS0_FLOOD / 1000000 )) Mbit/s" ;;
*)	st_fail "PSSDWRR_TRAFFIC=$TRAFFIC: tcp or udp" ;;
esac

# ---------------------------------------------------------------- parameters
# The paper's rules (eqs. 2-5, §2.4), as `schedtun params pss` evaluates them.
read -r K_AF B BW LM Q_AF Q_CS0 < <(awk -v l="$L" -v wa="$W_AF" -v wc="$W_CS0" \
	-v c="$C_BPS" -v e="$EF_EXP_BPS" 'BEGIN {
	k  = wa * l / (wa * l + wc * l)                       # eq. 2
	b  = (wa - 1) * l / ((wa - 1) * l + (wc - 1) * l)     # eq. 4
	bw = b * (c - e) / c                                  # eq. 3, a fraction
	lm = l * (wa - 1) * (1 - bw)                          # eq. 5 (LR = 0)
	printf "%.9f %.9f %.9f %d %d %d\n", k, b, bw, int(lm + 0.5), wa * l, wc * l }')
PSS_PARAMS="pss = { bw = $BW; lm = $LM; lr = 0; capacity = \"$C_RATE\"; };"
DWRR_PARAMS="dwrr = { quantum = { af = $Q_AF; cs0 = $Q_CS0; }; };"
echo "packets L = $L bytes; K_AF = $K_AF, B = $B"
echo "  $PSS_PARAMS"
echo "  $DWRR_PARAMS"
# For reference: what the calculator prints for the same inputs.
if calc=$("$ST_SCHEDTUN" params pss --w-af "$W_AF" --w-cs0 "$W_CS0" --l-af "$L" \
	--l-cs0 "$L" --capacity "$C_RATE" --ef-exp "$EF_EXP_BPS" --no-sim 2>&1); then
	echo "schedtun params pss ... --no-sim prints:"
	grep -E '^ *(pss|dwrr) *=' <<<"$calc" | sed 's/^/  /' || true
else
	echo "(schedtun params pss not available: $(head -n 1 <<<"$calc"))"
fi

# ---------------------------------------------------------------- helpers
# The steady rule and the rates over it: stats.py steady (shared with
# test_mix_pdrr_dq_ticket.sh; tests/unit/test_stats_py.py TestSteady).
a_started() { st_class_seen "$ST_STATS_A" "$1"; }

# iperf3 verdicts are not the test's (their control connections cross the
# congested tunnel); the daemon's statistics are: warn only.
wait_client() {
	local pid=$1 log=$2 what=$3
	if ! st_wait_pid_exit "$pid" $(( FLOOD_S + 25 )); then
		echo "WARN: $what: iperf3 client did not finish cleanly:" >&2
		tail -n 5 "$log" >&2
	fi
}

run_case() {
	local sched=$1 ref=$2 tag="$1-$(( $2 / 1000000 ))"
	local ef_b=$(( ref * PAYLOAD / L ))     # iperf3 -b counts UDP payload
	local params=$PSS_PARAMS srv=() port FLOOD_S=$FLOOD_S
	[[ $sched == dwrr ]] && params=$DWRR_PARAMS
	[[ $sched == pss ]] && FLOOD_S=$PSS_FLOOD_S
	echo "=== $tag: scheduler $sched, EF $(( ref / 1000 )) kbit/s (iperf3 -u -b $ef_b)," \
		"AF and CS0: $TRAFFIC_DESC for ${FLOOD_S}s ==="
	st_pair_start --tag "$tag" --rate "$C_RATE" --delay "$DELAY" --sched "$sched" \
		--mtu "$L" --sched-params "$params" --classes "$CLASSES" \
		--stats-interval "$STATS_IVL"
	local rcvbuf0
	rcvbuf0=$(st_udp_rcvbuf_errors "$ST_NS_B")

	for port in 5201 5202 5203; do
		[[ $TRAFFIC == udp && $port != 5201 ]] && continue
		st_bg "$ST_NS_B" iperf3 -s -1 -p "$port"
		srv+=("$ST_LAST_PID")
		st_wait_listen "$ST_NS_B" tcp "$port" || st_fail "$tag: iperf3 server $port did not start"
	done
	# EF first, alone: its control connection meets empty queues; it runs
	# until after the AF and CS0 senders have stopped.
	st_bg "$ST_NS_A" iperf3 -c "$ST_TUN_B" -p 5201 -u -b "$ef_b" -l "$PAYLOAD" \
		--tos 0xb8 -t $(( FLOOD_S + 4 )) --connect-timeout 5000
	local ef_pid=$ST_LAST_PID ef_log=$ST_LAST_LOG
	st_wait_for 10 "$tag: EF packets classified by A" a_started ef ||
		st_fail "$tag: the EF flow never reached A's scheduler (see $ef_log)"

	if [[ $TRAFFIC == tcp ]]; then
		# AF, then CS0 once AF's data flows: each iperf3 control connection
		# (unmarked, so class CS0) is set up before CS0's queue fills.
		st_bg "$ST_NS_A" iperf3 -c "$ST_TUN_B" -p 5202 -C cubic -P "$TCP_FLOWS" \
			--tos 0x28 -t "$FLOOD_S" --connect-timeout 5000
		local af_pid=$ST_LAST_PID af_log=$ST_LAST_LOG
		st_wait_for 10 "$tag: AF packets classified by A" a_started af ||
			st_fail "$tag: the AF TCP flows never reached A's scheduler (see $af_log)"
		st_bg "$ST_NS_A" iperf3 -c "$ST_TUN_B" -p 5203 -C cubic -P "$TCP_FLOWS" \
			-t "$FLOOD_S" --connect-timeout 5000
		local cs_pid=$ST_LAST_PID cs_log=$ST_LAST_LOG
		wait_client "$af_pid" "$af_log" "$tag AF"
		wait_client "$cs_pid" "$cs_log" "$tag CS0"
		grep -h -E 'SUM.*(sender|receiver)' "$af_log" "$cs_log" | sed 's/^/  /' || true
	else
		st_run_bounded $(( FLOOD_S + 20 )) "$ST_NS_A" python3 -c "$ST__PY_FLOOD" \
			"$ST_TUN_B" "$FLOOD_S" "6002:0x28:$AF_FLOOD:$PAYLOAD" \
			"6003:0x00:$CS0_FLOOD:$PAYLOAD" ||
			fails+=("$tag: the flood sender failed: $(tail -n 3 "$ST_LAST_LOG")")
		sed 's/^/  /' "$ST_LAST_LOG"
	fi
	wait_client "$ef_pid" "$ef_log" "$tag EF"
	for port in "${srv[@]}"; do
		st_wait_pid_exit "$port" 5 || echo "WARN: $tag: an iperf3 server did not exit by itself" >&2
	done
	st_wait_for 15 "$tag: A's queue and delay line drained" st_sender_drained "$ST_STATS_A" ||
		fails+=("$tag: A never reported an empty queue and delay line")
	local rcvbuf1 per_buf=1
	rcvbuf1=$(st_udp_rcvbuf_errors "$ST_NS_B")
	st_pair_stop

	local sumout
	sumout=$("${ST_STATS_PY[@]}" sum "$ST_STATS_A" 2>&1) ||
		fails+=("$tag: conservation violated in A's stats: $(grep violated <<<"$sumout" | head -n 3)")
	echo "$sumout" | sed 's/^/  /'
	(( $(st_field io.gro_reads "$ST_STATS_B") > 0 )) && per_buf=64
	st_link_check "$ST_STATS_A" "$ST_STATS_B" $(( rcvbuf1 - rcvbuf0 )) "$per_buf" ||
		fails+=("$tag: B did not get what A put on the link: $ST_CHECK_MSG")
	echo "  steady intervals (A's out rates):"
	local res
	res=$("${ST_STATS_PY[@]}" steady "$ST_STATS_A" --rx "$ST_STATS_B" --delay 0.010 \
		--backlog af,cs0) || st_fail "$tag: cannot analyse $ST_STATS_A"
	grep -v '^RESULT ' <<<"$res"
	sed -n 's/^RESULT //p' <<<"$res" >"$ST_WORK/steady-$sched-$ref.json"
	results+=("$sched $ref $ST_WORK/steady-$sched-$ref.json")
}

# ---------------------------------------------------------------- runs
st_ns_create
for sched in ${PSSDWRR_SCHEDS:-dwrr pss}; do
	for ref in "${EF_RATES[@]}"; do
		run_case "$sched" "$ref"
	done
done

# ---------------------------------------------------------------- verdict
verdict=$(python3 - "$C_BPS" "$EF_EXP_BPS" "$K_AF" "$BW" "$MIN_STEADY" "${results[@]}" <<'EOF'
import sys
c, e_exp, k, bw, min_steady = (float(sys.argv[1]), float(sys.argv[2]),
                               float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]))
import json
runs = {}
for r in sys.argv[6:]:
    s, ref, path = r.split()
    j = json.load(open(path))
    # The receiver's rates (B's rx bytes per class over its intervals inside
    # A's steady stretches) are asserted; A's own out rates are printed.
    runs[(s, int(ref))] = dict(ef=j["rx_ef"], af=j["rx_af"], cs0=j["rx_cs0"],
                               tot=j["rx_total"], n=j["n"], rx_n=j["rx_n"],
                               efd=j["ef_drops"], tx_af=j["tx_af"],
                               tx_tot=j["tx_total"])
M = 1e6
# PSS AF's change with the EF step, at most this fraction of DWRR's (header)
PSS_DEP_MAX = 0.30
# PSS AF's floor, a fraction of eq. 7: bursty EF lowers it (header)
PSS_FLOOR = 0.85
eq7 = min(k * (c - e_exp), c)
fails = []
print("%-5s %7s | %8s %8s | %8s %8s %8s %8s | %8s %8s | %6s %8s %3s" % (
    "sched", "R_EF", "EF", "err", "AF", "eq.1", "eq.7", "BW*C", "CS0", "total",
    "AF err", "AF share", "n"))
for (s, ref), m in sorted(runs.items()):
    eq1 = k * (c - ref)
    ef_err = (m["ef"] - ref) / ref
    af_ref = eq1 if s == "dwrr" else eq7
    share = m["af"] / (m["af"] + m["cs0"]) if m["af"] + m["cs0"] > 0 else 0.0
    print("%-5s %7.3f | %8.3f %+7.2f%% | %8.3f %8.3f %8.3f %8.3f | %8.3f %8.3f | %+5.1f%% %8.4f %3d" % (
        s, ref / M, m["ef"] / M, 100 * ef_err, m["af"] / M, eq1 / M, eq7 / M,
        bw * c / M, m["cs0"] / M, m["tot"] / M,
        100 * (m["af"] - af_ref) / af_ref, share, m["n"]))
    tag = "%s R_EF=%.1fMbit/s" % (s, ref / M)
    print("      A's own count (not asserted): AF %.3f, total %.3f Mbit/s over %d steady intervals; "
          "B's: %d intervals inside them" % (m["tx_af"] / M, m["tx_tot"] / M, m["n"], m["rx_n"]))
    if m["n"] < min_steady or m["rx_n"] < min_steady - 2:
        fails.append("%s: only %d steady intervals of A (need %d), %d of B's inside them (need %d)"
                     % (tag, m["n"], min_steady, m["rx_n"], min_steady - 2))
        continue
    if abs(ef_err) > 0.02:
        fails.append("%s: B received EF at %.3f Mbit/s, expected R_EF = %.3f within 2 %%" % (tag, m["ef"] / M, ref / M))
    if m["efd"]:
        fails.append("%s: %d EF packets dropped" % (tag, m["efd"]))
    if abs(m["tot"] - c) > 0.01 * c:
        fails.append("%s: B received %.3f Mbit/s in total, expected C = %.3f within 1 %%" % (tag, m["tot"] / M, c / M))
    if s == "dwrr" and abs(m["af"] - eq1) > 0.03 * eq1:
        fails.append("%s: B received AF at %.3f Mbit/s, expected K_AF(C - R_EF) = %.3f within 3 %%"
                     % (tag, m["af"] / M, eq1 / M))
    if s == "dwrr" and abs(share - k) > 0.01 * k:
        fails.append("%s: AF/(AF + CS0) = %.4f, not K_AF = %.4f within 1 %%"
                     % (tag, share, k))
    if s == "pss" and not (PSS_FLOOR * eq7 <= m["af"] <= 1.03 * bw * c):
        fails.append("%s: B received AF at %.3f Mbit/s, expected within [0.85 eq.7, BW*C + 3 %%] = [%.3f, %.3f]"
                     % (tag, m["af"] / M, PSS_FLOOR * eq7 / M, 1.03 * bw * c / M))
pss = sorted((ref, m) for (s, ref), m in runs.items() if s == "pss")
dw = sorted((ref, m) for (s, ref), m in runs.items() if s == "dwrr")
if len(dw) == 2:
    print("DWRR AF at R_EF = %.1f and %.1f Mbit/s: %.3f and %.3f Mbit/s (follows K_AF(C - R_EF))"
          % (dw[0][0] / M, dw[1][0] / M, dw[0][1]["af"] / M, dw[1][1]["af"] / M))
if len(pss) == 2 and min(m["rx_n"] for _, m in pss) >= min_steady - 2:
    a, b = pss[0][1]["af"], pss[1][1]["af"]
    d = abs(a - b) / ((a + b) / 2)
    # The reference: how much DWRR's AF moved with the same EF step in
    # this same test (measured, on this machine, now), or eq. 1's
    # K_AF x the step when DWRR was not run.
    if len(dw) == 2:
        ref_d, ref_what = abs(dw[0][1]["af"] - dw[1][1]["af"]), "DWRR's, measured in this test"
    else:
        ref_d, ref_what = k * abs(pss[1][0] - pss[0][0]), "eq. 1's K_AF x the EF step"
    frac = abs(a - b) / ref_d if ref_d > 0 else float("inf")
    print("PSS AF at R_EF = %.1f and %.1f Mbit/s: %.3f and %.3f Mbit/s, %.2f %% apart; the change "
          "is %.1f %% of %s %.3f Mbit/s (limit %.0f %%)"
          % (pss[0][0] / M, pss[1][0] / M, a / M, b / M, 100 * d, 100 * frac, ref_what,
             ref_d / M, 100 * PSS_DEP_MAX))
    if frac > PSS_DEP_MAX:
        fails.append("PSS AF rate depends on EF: B received AF at %.3f vs %.3f Mbit/s, a change of "
                     "%.1f %% of %s %.3f Mbit/s (limit %.0f %%)"
                     % (a / M, b / M, 100 * frac, ref_what, ref_d / M, 100 * PSS_DEP_MAX))
for f in fails:
    print("FAILCHECK " + f)
EOF
)
echo "=== measured vs expected (Mbit/s; AF err vs eq. 1 for dwrr, eq. 7 for pss;" \
	"AF share = AF/(AF + CS0), K_AF = $K_AF) ==="
grep -v '^FAILCHECK ' <<<"$verdict"
while IFS= read -r f; do
	[[ -n $f ]] && fails+=("${f#FAILCHECK }")
done < <(grep '^FAILCHECK ' <<<"$verdict" || true)

if (( ${#fails[@]} )); then
	for f in "${fails[@]}"; do echo "FAIL: $ST_NAME: $f" >&2; done
	exit 1
fi
echo "PASS: $ST_NAME"
