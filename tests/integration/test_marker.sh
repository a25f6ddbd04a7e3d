#!/usr/bin/env bash
# test_marker.sh SCHEDTUN - the edge marker (marker.ef) on a real pair.
#
# A marks each EF flow against a committed rate of 400 kbit/s (two
# colours, 1 s window, yellow re-marked to DSCP 10 = AF11); both daemons
# log every packet (stats.packet_log).  For 6 s A sends two EF flows (DSCP
# 46) to B: flow 6001 at 800 kbit/s (2x the profile) and flow 6002 at
# 200 kbit/s (0.5x).  The link (5 Mbit/s, prio) carries both easily, so
# nothing is dropped and what B receives is what the marker decided.
# Checked:
#   - flow 6002 arrives all EF with DSCP 46: the meter is per flow (an
#     aggregate meter at 1 Mbit/s would mark it too);
#   - flow 6001 arrives partly as AF with DSCP 10 (the DSCP rewritten in
#     the packet that crossed the tunnel) and the rest as EF: the AF share
#     of its arrivals after its first 2 s (the meter's warm-up) is
#     (R - C) / R within 0.1, R the flow's rate in inner IP bytes (the
#     meter's unit: 500-byte payloads are 528-byte packets, so R = 844.8
#     kbit/s and the share 0.527); a 4 s sample of 800 packets has a
#     binomial sd of 0.018, the sender's pacing jitter adds a little;
#   - A's stats: marker.ef.yellow = the arrivals at B carrying DSCP 10
#     (nothing lost), marker.ef.green + yellow = the EF packets A read,
#     classes.af.in_pkts = marker.ef.yellow (a re-marked packet is
#     counted in the class it joins).
set -euo pipefail
# shellcheck source=../../scripts/netns-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/netns-lib.sh"
st_test_begin "${1:-}" python3

fails=()
la="$ST_WORK/a.plog.csv"
lb="$ST_WORK/b.plog.csv"
st_ns_create
st_pair_start --plog-a "$la" --plog-b "$lb" --rate 5Mbit --delay 5ms \
	--sched prio --stats-interval 1.0 \
	--extra 'marker = { seed = 4; ef = { committed = "400kbit"; window = "1s"; yellow_dscp = 10; }; };'
st_udp_flood "$ST_NS_A" "$ST_TUN_B" 6 6001:0xb8:800000:500 6002:0xb8:200000:500
st_wait_for 15 "A's queue and delay line drained" st_sender_drained "$ST_STATS_A" ||
	fails+=("A never reported an empty queue and delay line")
st_pair_stop

out=$(python3 - "$la" "$lb" "$ST_STATS_A" <<'EOF'
import json, sys
la, lb, sa = sys.argv[1:]
def rows(path):
    with open(path) as f:
        head = f.readline().rstrip("\n").split(",")
        for line in f:
            yield dict(zip(head, line.rstrip("\n").split(",")))
arr = [r for r in rows(lb) if r["event"] == "arr" and r["dport"] in ("6001", "6002")]
fast = [r for r in arr if r["dport"] == "6001"]
slow = [r for r in arr if r["dport"] == "6002"]
t0 = int(fast[0]["t_ns"])
late = [r for r in fast if int(r["t_ns"]) - t0 > 2e9]
af_share = sum(r["class"] == "af" for r in late) / len(late)
bad_fast = [r for r in fast if (r["class"], r["dscp"]) not in (("ef", "46"), ("af", "10"))]
slow_marked = [r for r in slow if (r["class"], r["dscp"]) != ("ef", "46")]
tot = {"green": 0, "yellow": 0, "red": 0, "ef_in": 0, "af_in": 0, "drops": 0}
for line in open(sa):
    o = json.loads(line)
    m = o.get("marker", {}).get("ef", {})
    for k in ("green", "yellow", "red"):
        tot[k] += m.get(k, 0)
    tot["ef_in"] += o["classes"]["ef"]["in_pkts"]
    tot["af_in"] += o["classes"]["af"]["in_pkts"]
    tot["drops"] += sum(o["classes"][c]["drop_pkts"] for c in ("ef", "af", "cs0"))
dscp10 = sum(r["dscp"] == "10" for r in arr)
print(f"fast flow: {len(fast)} arrivals, AF share after 2 s {af_share:.3f} "
      f"({len(late)} packets); slow flow: {len(slow)} arrivals, {len(slow_marked)} re-marked")
print(f"A marker.ef: green {tot['green']} yellow {tot['yellow']} red {tot['red']}; "
      f"A in_pkts ef {tot['ef_in']} af {tot['af_in']}; drops {tot['drops']}; "
      f"B arrivals with DSCP 10: {dscp10}")
problems = []
want = 1 - 400e3 / (528 * 8 * 200)
if abs(af_share - want) > 0.1:
    problems.append(f"the fast flow's AF share {af_share:.3f} is not {want:.3f} +- 0.1")
if bad_fast:
    problems.append(f"{len(bad_fast)} fast-flow arrivals with another class/DSCP")
if slow_marked or not slow:
    problems.append(f"the slow flow: {len(slow_marked)} of {len(slow)} arrivals re-marked")
if tot["yellow"] != dscp10:
    problems.append(f"marker.ef.yellow {tot['yellow']} != B's DSCP-10 arrivals {dscp10}")
if tot["green"] + tot["yellow"] + tot["red"] != tot["ef_in"] + tot["af_in"]:
    problems.append("marker counts != EF + AF packets read")
if tot["af_in"] != tot["yellow"] or tot["drops"]:
    problems.append(f"af in_pkts {tot['af_in']} != yellow {tot['yellow']}, or drops {tot['drops']}")
for p in problems:
    print("PROBLEM: " + p)
EOF
)
echo "$out"
while IFS= read -r l; do
	[[ $l == PROBLEM:* ]] && fails+=("${l#PROBLEM: }")
done <<<"$out"

if (( ${#fails[@]} )); then
	for f in "${fails[@]}"; do echo "FAIL: $ST_NAME: $f" >&2; done
	exit 1
fi
echo "PASS: $ST_NAME"
