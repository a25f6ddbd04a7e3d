#!/usr/bin/env bash
# test_efgen.sh SCHEDTUN - schedtun-efgen's sender and sink end to end.
#
# The generator runs in ns A, the sink in ns B (both from the build
# directory of SCHEDTUN), 1250-byte IP packets, 1 s report intervals:
#   veth      step:2Mbit:3:6Mbit for 6 s over the veth underlay;
#   tunnel    through a schedtun pair (fifo, 20 Mbit/s, 50 ms one way):
#             the same step, then cosine:4Mbit:0.6:3s for 6 s (EF between
#             1.6 and 6.4 Mbit/s, two periods).
# Each run: the sink listens first (polled with ss), the generator runs to
# its end, the sink is stopped with SIGTERM once the bits it counted equal
# the bits sent (polled, bounded), and both summaries are read.
#
# Assertions, per run:
#   - every interval's sent_bps within PACE_TOL = 3 % of its target_bps
#     (one packet is 0.5 % of a 2 Mbit/s second; the rest is room for
#     wake-up latency on 2 shared cores: a late wake-up moves a catch-up
#     burst into the next interval); the summary's |error_pct| < 0.1 %;
#   - no send errors; the sink received exactly the bits sent, no loss
#     (EF stays far below the 20 Mbit/s link);
#   - one-way delay p50 (the sink's summary, which reads it off util/hist's
#     fine histogram: above the exact value by less than 1/1024 of it):
#     veth < VETH_OWD_MS = 5 ms; tunnel within [50, 50 + OWD_SLACK_MS = 10]
#     ms (the delay line, the serialisation of one packet at 20 Mbit/s,
#     0.5 ms, the daemons' latency, and the histogram's under 0.05 ms at
#     50 ms);
#   - tunnel: A's classes.ef.out_bytes summed over its stats lines equal
#     the generator's sent_bytes (DSCP 46 classified as EF, inner IP bytes
#     counted as the generator counts them), and B's rx.*.pkts + rx.*.lost =
#     A's out_pkts with nothing lost (stats.py link-check).
# About 30 s.
set -euo pipefail
# shellcheck source=../../scripts/netns-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/netns-lib.sh"
st_test_begin "${1:-}" python3 ss

EFGEN=$(dirname "$ST_SCHEDTUN")/schedtun-efgen
[[ -x $EFGEN ]] || st_fail "$EFGEN is not built (it sits next to schedtun)"
PORT=6000
SIZE=1250
PACE_TOL=0.03
VETH_OWD_MS=5
DELAY_MS=50
OWD_SLACK_MS=10
fails=()
ef_sent_bytes=0             # of the runs through the tunnel

# sink_bits FILE : the IP bits of the sink's interval lines so far (its
# packets are all SIZE bytes).
sink_bits() {
	python3 - "$1" "$SIZE" <<'EOF'
import json, sys
lines = open(sys.argv[1]).read().split("\n")[:-1]
print(sum(json.loads(l).get("rcvd_pkts", 0) for l in lines) * int(sys.argv[2]) * 8)
EOF
}
sink_has() { [[ -f $1 ]] && (( $(sink_bits "$1") >= $2 )); }

# check_run TAG SENDER_JSONL SINK_JSONL OWD_LO_MS OWD_HI_MS : the
# assertions above; prints the numbers.
check_run() {
	local tag=$1 snd=$2 snk=$3 lo=$4 hi=$5 out rc=0
	out=$(python3 - "$snd" "$snk" "$PACE_TOL" "$lo" "$hi" <<'EOF'
import json, sys
snd, snk, tol, lo, hi = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
def lines(p):
    return [json.loads(l) for l in open(p).read().split("\n") if l.strip()]
s = lines(snd); k = lines(snk)
ivs = [o for o in s if "t" in o]; ss = s[-1]["summary"]; ks = k[-1]["summary"]
bad = []
worst = 0.0
for o in ivs:
    if o["target_bps"] > 0:
        e = (o["sent_bps"] - o["target_bps"]) / o["target_bps"]
        print("  t=%5.1f target %9.0f sent %9.0f bit/s  %+6.2f %%" % (o["t"], o["target_bps"], o["sent_bps"], 100 * e))
        worst = max(worst, abs(e))
        if abs(e) > tol:
            bad.append("interval t=%.1f: sent %.0f vs target %.0f bit/s" % (o["t"], o["sent_bps"], o["target_bps"]))
print("  sender: %d intervals, worst %.2f %%; summary %s" % (len(ivs), 100 * worst, json.dumps(ss)))
print("  sink:   %s" % json.dumps(ks))
if abs(ss["error_pct"]) >= 0.1: bad.append("summary error_pct %.4f" % ss["error_pct"])
if ss["send_errors"]: bad.append("%d send errors" % ss["send_errors"])
if ks["rcvd_bits"] != ss["sent_bits"] or ks["rcvd_pkts"] != ss["sent_pkts"]:
    bad.append("sink received %d bits / %d pkts of %d / %d sent" % (ks["rcvd_bits"], ks["rcvd_pkts"], ss["sent_bits"], ss["sent_pkts"]))
if ks["lost_pkts"] != 0: bad.append("sink lost %d" % ks["lost_pkts"])
p50 = ks["owd_ms"]["p50"]
if not (lo <= p50 <= hi): bad.append("owd p50 %.3f ms not in [%g, %g]" % (p50, lo, hi))
print("  owd p50 %.3f p99 %.3f max %.3f ms (accepted p50 in [%g, %g])" % (p50, ks["owd_ms"]["p99"], ks["owd_ms"]["max"], lo, hi))
print("SENT_BYTES %d" % ss["sent_bytes"])
for b in bad: print("BAD " + b)
EOF
) || rc=$?
	echo "$out" | grep -v '^SENT_BYTES\|^BAD '
	(( rc == 0 )) || { fails+=("$tag: checker failed ($rc)"); return; }
	local b
	while IFS= read -r b; do fails+=("$tag: ${b#BAD }"); done < <(echo "$out" | grep '^BAD ' || true)
	[[ $tag == tun-* ]] &&      # what crossed the tunnel, for A's counters
		ef_sent_bytes=$(( ef_sent_bytes + $(echo "$out" | awk '/^SENT_BYTES/{print $2}') ))
	return 0
}

# run_case TAG DST_ADDR SPEC SECONDS OWD_LO OWD_HI
run_case() {
	local tag=$1 dst=$2 spec=$3 secs=$4 lo=$5 hi=$6
	local snd="$ST_WORK/$tag-send.jsonl" snk="$ST_WORK/$tag-sink.jsonl" sink_pid rc=0
	echo "=== $tag: $spec for ${secs}s to $dst:$PORT ==="
	st_bg "$ST_NS_B" "$EFGEN" --sink --listen "$dst:$PORT" --report "$snk"
	sink_pid=$ST_LAST_PID
	st_wait_listen "$ST_NS_B" udp "$PORT" || st_fail "$tag: the sink did not bind"
	st_run_bounded $(( secs + 10 )) "$ST_NS_A" "$EFGEN" --dst "$dst:$PORT" \
		--rate "$spec" --duration "$secs" --size "$SIZE" --report "$snd" || rc=$?
	(( rc == 0 )) || { cat "$ST_LAST_LOG" >&2; st_fail "$tag: the generator exited with $rc"; }
	local sent_bits
	sent_bits=$(python3 -c 'import json,sys; print(int(json.loads(open(sys.argv[1]).read().split("\n")[-2])["summary"]["sent_bits"]))' "$snd")
	# the sink's interval lines reach the sent bits once the last packets
	# (up to the delay line's 50 ms behind) arrived and an interval closed
	st_wait_for 5 "$tag: the sink counted $sent_bits bits" sink_has "$snk" "$sent_bits" ||
		fails+=("$tag: the sink's interval lines never reached the $sent_bits bits sent")
	kill -TERM "$sink_pid"
	st_wait_pid_exit "$sink_pid" 5 || fails+=("$tag: the sink did not exit 0 after SIGTERM")
	check_run "$tag" "$snd" "$snk" "$lo" "$hi"
}

st_ns_create
run_case veth "$ST_UL_B" step:2Mbit:3:6Mbit 6 0 "$VETH_OWD_MS"

st_pair_start --rate 20Mbit --delay "${DELAY_MS}ms" --sched fifo --stats-interval 1.0
run_case tun-step "$ST_TUN_B" step:2Mbit:3:6Mbit 6 "$DELAY_MS" $(( DELAY_MS + OWD_SLACK_MS ))
run_case tun-cosine "$ST_TUN_B" cosine:4Mbit:0.6:3s 6 "$DELAY_MS" $(( DELAY_MS + OWD_SLACK_MS ))

# A's EF counters: every generator packet left A as EF (wait for the
# stats line that holds the last ones).
ef_out() { "${ST_STATS_PY[@]}" field classes.ef.out_bytes "$ST_STATS_A"; }
ef_done() { (( $(ef_out) >= ef_sent_bytes )); }
st_wait_for 5 "A's stats count $ef_sent_bytes EF bytes" ef_done || true
a_ef=$(ef_out)
a_cs0=$("${ST_STATS_PY[@]}" field classes.cs0.out_bytes "$ST_STATS_A")
st_pair_stop
echo "tunnel: generator sent_bytes $ef_sent_bytes, A classes.ef.out_bytes $a_ef, classes.cs0.out_bytes $a_cs0"
(( a_ef == ef_sent_bytes )) ||
	fails+=("A's classes.ef.out_bytes $a_ef != the generator's $ef_sent_bytes bytes")
# And B, the receiving daemon, got every packet A put on the link (stats.py
# link-check; no socket drops expected at these rates, so any loss fails):
# the sink's count checks the application's view, this the tunnel's.
st_link_check "$ST_STATS_A" "$ST_STATS_B" ||
	fails+=("B did not get what A put on the link: $ST_CHECK_MSG")

if (( ${#fails[@]} )); then
	for f in "${fails[@]}"; do echo "FAIL: $ST_NAME: $f" >&2; done
	exit 1
fi
echo "PASS: $ST_NAME"
