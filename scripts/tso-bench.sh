#!/usr/bin/env bash
# tso-bench.sh - the tun segmentation offload (tunnel.offload, issue 10)
# on against off, same binary, alternating.  A benchmark: it prints
# numbers, it does not fail on them.
#
#   scripts/tso-bench.sh [--build-dir DIR] [--time S] [--reps N] [--no-pin]
#                        [--cases LIST] [--before BIN] [--modes LIST]
#
# In two namespaces it creates (scripts/netns-lib.sh: veth underlay, st0
# MTU 1400), for each case and each of REPS rounds, a fresh schedtun pair
# with offload on, then one with offload off (the order alternates per
# round), carrying iperf3 -C cubic A -> B for TIME s:
#   tcp1   unpaced (rate "unlimited", delay 0, fifo), 1 flow
#   tcp4   unpaced, -P 4
#   udp64  unpaced, iperf3 -u -l 64 -b 0 (as fast as the client can): the
#          receiver's datagrams per second (kpps) besides its rate
#   paced  1 Gbit/s, fifo, 5 ms one-way delay, -P 4
#   paced20  20 Mbit/s (a GEO-like link), fifo, 5 ms, -P 4: what the
#          daemons' CPU is where the tool is mostly used
# Per run: the receiving iperf3's rate; the carried rate from the sender
# A's stats (sum of link.out_bytes over the lines / the daemon's t), for
# the paced case the rate the link was held at; io.tun_segments /
# io.tun_super_reads (mean packets per super-read); the CPU of each daemon
# over the run in % of one core (utime + stime, /proc/PID/stat).  Then the
# mean per case and mode, and on/off.  --before BIN adds a third mode,
# "before": BIN (a build without this feature, whose configuration has no
# tunnel.offload) in the same rounds, so that "off" can be checked to be
# today's daemon.  --modes picks the modes of a round (default on,off):
# nogro is offload on with tunnel.tun_gro = false (the receiving daemon
# writes one packet per write; "on" coalesces), for issue 10's receive
# side; per run then also the receiver B's io.tun_gro_segments /
# io.tun_gro_writes (mean packets per coalesced write, gro/w), and the
# means print on/nogro.  mac and enc are offload on with a tunnel key
# (tunnel.key_file, issue 23: every datagram authenticated), enc with
# tunnel.encrypt too; the means print mac/on and enc/on: the cost of
# authentication and of encryption.  nosb is offload on with
# tunnel.sandbox = false; the means print on/nosb: the cost of the
# seccomp sandbox (on by default, so "on" runs inside it).  With a key
# also the largest reordering the replay window accepted over a case's
# runs (late_max, datagrams behind the newest, either direction: how
# close the delay line and GSO batching come to the 8,128 window).
# Provenance lines (# command, commit, machine, start, end) frame the
# output, so that a saved copy (docs/data/) says what it is.
#
# By default the daemons run on CPU 1 and iperf3 on CPU 0 (taskset), as
# scripts/bench.sh does.  Needs root, iperf3, python3.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=netns-lib.sh
source "$ROOT/scripts/netns-lib.sh"

build=build secs=10 reps=3 pin=1 cases=tcp1,tcp4,paced before="" modes=on,off
args="$*"      # for the provenance line
while (( $# )); do
	case $1 in
	--build-dir) build=$2; shift 2 ;;
	--time) secs=$2; shift 2 ;;
	--reps) reps=$2; shift 2 ;;
	--no-pin) pin=0; shift ;;
	--cases) cases=$2; shift 2 ;;
	--before) before=$2; shift 2 ;;
	--modes) modes=$2; shift 2 ;;
	-h|--help) sed -n '2,/^set -e/p' "$0" | sed 's/^# \{0,1\}//; /^set -e/d'; exit 0 ;;
	*) echo "tso-bench.sh: unknown option $1" >&2; exit 1 ;;
	esac
done
[[ $build == /* ]] || build="$ROOT/$build"
st_test_begin "$build/schedtun" iperf3 python3 ss
# Provenance first, so that a saved output (docs/data/) says what it is.
started=$(date -u +%s)
echo "# scripts/tso-bench.sh $args"
echo "# commit $(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD -- src include 2>/dev/null || echo '+changes') ($(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$build/CMakeCache.txt" 2>/dev/null)), $(nproc) CPUs $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1), kernel $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
st_ns_create

pin0=()         # the prefix that puts iperf3 on CPU 0
(( pin )) && pin0=(taskset -c 0)

cpu_ticks() {   # utime + stime of PID
	awk '{print $14 + $15}' "/proc/$1/stat"
}

results="$ST_WORK/results.txt"
: >"$results"
( umask 077; "$ST_SCHEDTUN" genkey >"$ST_WORK/bench.key" )

# run_one CASE MODE(on|off) ROUND
run_one() {
	local case=$1 mode=$2 round=$3 rate=unlimited delay=0ms par=1
	case $case in
	tcp1) ;;
	tcp4) par=4 ;;
	udp64) ;;
	paced) rate=1Gbit delay=5ms par=4 ;;
	paced20) rate=20Mbit delay=5ms par=4 ;;
	esac
	local traffic=(-C cubic -P "$par")
	[[ $case == udp64 ]] && traffic=(-u -l 64 -b 0)
	local tag="$case-$mode-$round" bin=$ST_SCHEDTUN off=()
	case $mode in
	on) off=(--offload true) ;;
	off) off=(--offload false) ;;
	nogro) off=(--offload true --tun-gro false) ;;
	mac) off=(--offload true --tunnel-extra 'key_file = "bench.key";') ;;
	enc) off=(--offload true --tunnel-extra 'key_file = "bench.key"; encrypt = true;') ;;
	nosb) off=(--offload true --tunnel-extra 'sandbox = false;') ;;
	before) ST_SCHEDTUN=$before ;;
	esac
	st_pair_start --tag "$tag" --rate "$rate" --delay "$delay" --sched fifo "${off[@]}"
	ST_SCHEDTUN=$bin
	local pa=${ST_PIDS[a]} pb=${ST_PIDS[b]}
	if (( pin )); then
		taskset -p -c 1 "$pa" >/dev/null
		taskset -p -c 1 "$pb" >/dev/null
	fi
	st_bg "$ST_NS_B" "${pin0[@]}" iperf3 -s -1 -p 5201
	local srv=$ST_LAST_PID
	st_wait_listen "$ST_NS_B" tcp 5201 || st_fail "iperf3 server did not start"
	local ca0 cb0 ca1 cb1 t0 t1 json="$ST_WORK/iperf-$tag.json"
	ca0=$(cpu_ticks "$pa"); cb0=$(cpu_ticks "$pb"); t0=$(st_now_ms)
	st_run_bounded $(( secs + 30 )) "$ST_NS_A" "${pin0[@]}" iperf3 -c "$ST_TUN_B" \
		-p 5201 "${traffic[@]}" -t "$secs" -J --connect-timeout 5000 ||
		echo "WARN: $tag: iperf3 client failed" >&2
	ca1=$(cpu_ticks "$pa"); cb1=$(cpu_ticks "$pb"); t1=$(st_now_ms)
	cp "$ST_LAST_LOG" "$json"
	st_wait_pid_exit "$srv" 5 || true
	st_pair_stop
	python3 - "$json" "$ST_STATS_A" "$case" "$mode" "$round" "$ca0" "$ca1" \
		"$cb0" "$cb1" "$t0" "$t1" "$(getconf CLK_TCK)" "$ST_STATS_B" >>"$results" <<'EOF'
import json, sys
(jf, sf, case, mode, rnd, ca0, ca1, cb0, cb1, t0, t1, hz, sfb) = sys.argv[1:]
gw = gs = late = 0
for f in (sfb, sf):
    for l in open(f):
        if not l.endswith("\n"):
            continue
        o = json.loads(l)
        # with a key: the largest reordering the replay window accepted
        # (datagrams behind the newest), either direction
        late = max(late, o.get("auth", {}).get("late_max", 0))
        if f == sfb:
            gw += o["io"].get("tun_gro_writes", 0)
            gs += o["io"].get("tun_gro_segments", 0)
kpps = 0.0
try:
    end = json.load(open(jf))["end"]
    r = end["sum_received"]     # UDP too: the bytes that arrived
    rx_bps = r["bits_per_second"]
    if "lost_packets" in r:     # UDP: "packets" counts the lost ones too
        kpps = (r["packets"] - r["lost_packets"]) / r["seconds"] / 1e3
except Exception:
    rx_bps = 0.0
out_bytes = supers = segs = 0
t = 0.0
lines = [json.loads(l) for l in open(sf) if l.endswith("\n")]
for o in lines:
    out_bytes += o["link"]["out_bytes"]
    supers += o["io"].get("tun_super_reads", 0)
    segs += o["io"].get("tun_segments", 0)
# The carried rate over the seconds traffic flowed: the lines whose
# out_bytes is above 1 % of the busiest one.
busy = [o for o in lines if o["link"]["out_bytes"]]
peak = max((o["link"]["out_bytes"] for o in busy), default=0)
full = [i for i, o in enumerate(lines) if o["link"]["out_bytes"] > peak / 2]
if full:
    # whole intervals only: drop the first and last busy ones
    inner = full[1:-1] or full
    b = sum(lines[i]["link"]["out_bytes"] for i in inner)
    dt = sum(lines[i]["t"] - (lines[i - 1]["t"] if i else 0.0) for i in inner)
    link_bps = b * 8 / dt if dt else 0.0
else:
    link_bps = 0.0
wall = (int(t1) - int(t0)) / 1000.0
hz = int(hz)
cpu_a = (int(ca1) - int(ca0)) / hz / wall * 100
cpu_b = (int(cb1) - int(cb0)) / hz / wall * 100
print("%s %s %s rx_mbit=%.1f link_mbit=%.1f segs_per_super=%.1f supers=%d "
      "cpu_a=%.0f cpu_b=%.0f gro_per_write=%.1f gro_writes=%d rx_kpps=%.1f "
      "late_max=%d" % (
      case, mode, rnd, rx_bps / 1e6, link_bps / 1e6,
      segs / supers if supers else 0.0, supers, cpu_a, cpu_b,
      gs / gw if gw else 0.0, gw, kpps, late))
EOF
	tail -n 1 "$results"
}

IFS=, read -r -a case_list <<<"$cases"
for case in "${case_list[@]}"; do
	for (( r = 1; r <= reps; r++ )); do
		IFS=, read -r -a order <<<"$modes"
		if (( r % 2 == 0 )); then       # alternate: the list reversed
			local_rev=()
			for (( i = ${#order[@]} - 1; i >= 0; i-- )); do local_rev+=("${order[i]}"); done
			order=("${local_rev[@]}")
		fi
		[[ -z $before ]] || order+=(before)
		for mode in "${order[@]}"; do
			run_one "$case" "$mode" "$r"
		done
	done
done

echo "# ended $(date -u '+%H:%M UTC') (about $(( ($(date -u +%s) - started + 30) / 60 )) min)"
echo "=== means (pinned: $pin, $secs s, $reps rounds, $(basename "$build")) ==="
python3 - "$results" <<'EOF'
import re, sys
rows = {}
for l in open(sys.argv[1]):
    f = l.split()
    kv = dict(x.split("=") for x in f[3:])
    rows.setdefault((f[0], f[1]), []).append({k: float(v) for k, v in kv.items()})
def mean(c, m, k):
    r = rows.get((c, m), [])
    return sum(x.get(k, 0.0) for x in r) / len(r) if r else 0.0
def most(c, m, k):
    return max((x.get(k, 0.0) for x in rows.get((c, m), [])), default=0.0)
keyed = any(k[1] in ("mac", "enc") for k in rows)
udp = any(k[0] == "udp64" for k in rows)
print(("%-7s %-6s %9s %11s %8s %6s %6s %6s" + (" %8s" if udp else "") +
       (" %8s" if keyed else "")) % ((
      "case", "mode", "rx_Mbit", "link_Mbit", "seg/sup", "cpu_a", "cpu_b",
      "gro/w") + (("rx_kpps",) if udp else ()) + (("late_max",) if keyed else ())))
for c in dict.fromkeys(k[0] for k in rows):
    for m in ("before", "off", "nogro", "nosb", "on", "mac", "enc"):
        if (c, m) not in rows:
            continue
        print(("%-7s %-6s %9.1f %11.1f %8.1f %6.0f %6.0f %6.1f" +
               (" %8.1f" if udp else "") + (" %8d" if keyed else "")) % ((c, m,
              mean(c, m, "rx_mbit"), mean(c, m, "link_mbit"),
              mean(c, m, "segs_per_super"), mean(c, m, "cpu_a"),
              mean(c, m, "cpu_b"), mean(c, m, "gro_per_write")) +
              ((mean(c, m, "rx_kpps"),) if udp else ()) +
              ((most(c, m, "late_max"),) if keyed else ())))
    for m, base in (("on", "off"), ("on", "nogro"), ("on", "nosb"),
                    ("mac", "on"), ("enc", "on")):
        rb = mean(c, base, "rx_mbit")
        if not rb or (c, m) not in rows:
            continue
        kb = mean(c, base, "rx_kpps")
        print("%-7s %s/%s rx %.2fx%s, cpu_a %.0f vs %.0f %%, cpu_b %.0f vs %.0f %%" % (
            c, m, base, mean(c, m, "rx_mbit") / rb,
            ", kpps %.2fx" % (mean(c, m, "rx_kpps") / kb) if kb else "",
            mean(c, m, "cpu_a"), mean(c, base, "cpu_a"),
            mean(c, m, "cpu_b"), mean(c, base, "cpu_b")))
EOF
