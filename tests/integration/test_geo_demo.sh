#!/usr/bin/env bash
# test_geo_demo.sh SCHEDTUN - scripts/geo-demo.sh's default run, briefly.
#
# Runs `geo-demo.sh --sched S --duration 18 --warmup 7 --settle 1 --no-deps
# --no-plot --build-dir DIR` (S = GEO_DEMO_SCHED, default pss: the demo's
# default; DIR = the directory of the schedtun under test, which must hold
# schedtun-efgen too), results in this test's work directory, bounded by
# `timeout`.  The demo runs mininet/geo.py (Mininet: the GEO link, 20
# Mbit/s, 250 ms each way; EF from schedtun-efgen, 2.5 Mbit/s then 7.5
# Mbit/s from t = 12.5 s, the middle of the window 7..18 s; AF and CS0 4
# cubic flows each; PSS parameters from `schedtun params pss`, weights
# 3:2, calibrated rule, R_EF^exp = 5 Mbit/s) and adds its table.  The
# phases: before = 7 s .. the step (4 or 5 whole stats intervals), after
# = 1 s after the step .. 18 s (3 or 4).  Checks:
#   - exit status 0 (geo.py and the demo's report finished cleanly);
#   - geo.py's files (rates.csv, summary.json, stats-a/b.jsonl, a.conf)
#     and the demo's (demo.txt, demo.json with the before/after phases)
#     written, no rates.png (--no-plot);
#   - the demo's scenario reached geo.py, not geo.py's defaults: weights
#     3:2, 4 + 4 flows, 18 s, EF step:2.5Mbit:12.5s:7.5Mbit from efgen,
#     R_EF^exp 5 Mbit/s, for pss the calibrated set (bw 0.45, lm 10220,
#     lr 1260, credit_init 1260);
#   - EF follows the step: 2.5 before and 7.5 after within 3 % (IP-level
#     rates, as the generator counts them);
#   - the link full: 20 Mbit/s within 2 % over geo.py's window and in each
#     phase (TCP fills the 1.25 MB pipe about 6 s after time 0);
#   - AF and CS0 packets reached the receiver (B's rx pkts > 0), and the
#     demo's counters table (demo.json's window) says so too, over >= 5
#     intervals of each daemon;
#   - the link full as the receiver B measured it: B's rx bytes in each of
#     its intervals inside A's busy stretch = 20 Mbit/s within 2 % (stats.py
#     check-rx-rate, below).  (No link-check that B got every packet A put
#     on the link, as the namespace demo had: geo.py sends SIGTERM to both
#     daemons at once, so what A sends after B has exited is lost to the
#     count, e.g. 1 of 34727 packets in one run.)
#   - under pss, the paper's point: AF before and after the step within 5 %
#     of each other and each within 5 % of eq. 7's K_AF (C - R_EF^exp) =
#     9 Mbit/s (DWRR moves AF from 10.5 to 7.5 in the same scenario, -29 %);
#     CS0 takes the rest, so it falls by the EF step, 5 +- 0.75 Mbit/s;
#   - under dwrr, AF within 5 % of eq. 1's K_AF (C - R_EF) in each phase.
# geo.py cleans up itself; this test also runs `geo.py --cleanup` on
# exit, which kills what a killed run left.  About 30 s.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
NAME=test_geo_demo
PY=/usr/bin/python3
# shellcheck source=../../scripts/netns-lib.sh
source "$ROOT/scripts/netns-lib.sh"
BIN=${1:-}
# root, tun, tools and Mininet, or fail (skip only by the one rule)
st_mininet_begin "$NAME" "$BIN"

SCHED=${GEO_DEMO_SCHED:-pss}
BDIR=$(cd "$(dirname "$BIN")" && pwd)
[[ -x $BDIR/schedtun-efgen ]] || fail "no $BDIR/schedtun-efgen (the demo's EF source): build it"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/schedtun-$NAME.XXXXXX")
OUT=$WORK/demo
DEMO_PID=""
# shellcheck disable=SC2317  # the trap
on_exit() { st_mininet_finish $? "$DEMO_PID" "$WORK/demo.log" "$WORK" "$PY" "$ROOT/mininet/geo.py" --cleanup; }
trap on_exit EXIT

start=$(date +%s)
rc=0
# in the background so that a signal to this test reaches on_exit at once
timeout --kill-after=10 120 bash "$ROOT/scripts/geo-demo.sh" --sched "$SCHED" \
	--duration 18 --warmup 7 --settle 1 --no-deps --no-plot \
	--build-dir "$BDIR" -o "$OUT" >"$WORK/demo.log" 2>&1 &
DEMO_PID=$!
wait "$DEMO_PID" || rc=$?
DEMO_PID=""
elapsed=$(( $(date +%s) - start ))
sed -n '/^geo-demo: PSS parameters/,/^geo-demo: EF/p;/^per class over/,/^theory/p' "$WORK/demo.log"
echo "$NAME: geo-demo.sh took ${elapsed} s, exit status $rc"
(( rc == 0 )) || fail "geo-demo.sh --sched $SCHED exited with status $rc"
for f in rates.csv summary.json stats-a.jsonl stats-b.jsonl a.conf demo.txt demo.json; do
	[[ -s $OUT/$f ]] || fail "no $f in $OUT"
done
[[ ! -e $OUT/rates.png ]] || fail "rates.png written despite --no-plot"

verdict=$("$PY" - "$OUT" "$SCHED" <<'PYEOF'
import json, os, sys
out, sched = sys.argv[1], sys.argv[2]
fails = []
d = json.load(open(os.path.join(out, "demo.json")))
s = json.load(open(os.path.join(out, "summary.json")))
cfg = s["config"]
want = {"weights": [3, 2], "af_flows": 4, "cs0_flows": 4, "duration_s": 18, "warmup_s": 7,
        "ef": "step:2.5Mbit:12.5s:7.5Mbit", "ef_tool": "efgen", "ef_exp_bps": 5e6,
        "capacity_mean_bps": 20e6, "delay_one_way_s": 0.25, "sched": sched}
for k, v in want.items():
    if cfg.get(k) != v:
        fails.append("geo.py ran with %s = %r, not the demo's %r" % (k, cfg.get(k), v))
if sched == "pss" and not all(m in cfg["scheduler_group"] for m in (
        "bw = 0.45; lm = 10220; lr = 1260;", "credit_init = 1260;")):
    fails.append("not the calibrated PSS set: %r" % cfg["scheduler_group"])
ph = d.get("phases", {})
if set(ph) != {"before", "after"}:
    fails.append("demo.json has phases %s, not before/after" % sorted(ph))
def within(v, want, tol):
    return v is not None and abs(v - want) <= tol * abs(want)
rx = {"af": 0, "cs0": 0}
with open(os.path.join(out, "stats-b.jsonl")) as f:
    for line in f:
        try:
            o = json.loads(line)
        except ValueError:
            continue
        for c in rx:
            rx[c] += o.get("rx", {}).get(c, {}).get("pkts", 0)
if not fails:
    b, a = ph["before"], ph["after"]
    th = d["theory"]
    link = s["link"]["measured_mbps"]
    print("window %s s, link %.3f Mbit/s; before (%d intervals) EF %.3f AF %.3f CS0 %.3f link "
          "%.3f; after (%d) EF %.3f AF %.3f CS0 %.3f link %.3f; AF rx %d pkts, CS0 rx %d pkts"
          % (s["window_s"], link, b["intervals"], b["ef"], b["af"], b["cs0"], b["link"],
             a["intervals"], a["ef"], a["af"], a["cs0"], a["link"], rx["af"], rx["cs0"]))
    for name, p, want in (("before", b, 2.5), ("after", a, 7.5)):
        if p["intervals"] < 3:
            fails.append("%s the step: %d whole intervals, want >= 3" % (name, p["intervals"]))
        if not within(p["ef"], want, 0.03):
            fails.append("EF %s the step %.3f Mbit/s, not %.1f within 3 %%" % (name, p["ef"], want))
        if not within(p["link"], 20.0, 0.02):
            fails.append("link %s the step %.3f Mbit/s, not 20 within 2 %%" % (name, p["link"]))
    if not within(link, 20.0, 0.02):
        fails.append("link carried %s Mbit/s over the window, not 20 within 2 %%" % link)
    win = d.get("window") or {}
    for c in ("af", "cs0"):
        if rx[c] <= 0:
            fails.append("no %s packet reached the receiver" % c)
        got = (win.get("classes") or {}).get(c, {}).get("rx_mbps")
        if got is None or got <= 0:
            fails.append("demo.json's window: %s rx %s Mbit/s, not above 0" % (c, got))
    if win.get("intervals_a", 0) < 5 or win.get("intervals_b", 0) < 5:
        fails.append("demo.json's window: %s/%s intervals of A/B, want >= 5"
                     % (win.get("intervals_a"), win.get("intervals_b")))
    if sched == "pss":
        if not within(a["af"], b["af"], 0.05):
            fails.append("PSS: AF %.3f after the step vs %.3f before: not within 5 %%"
                         % (a["af"], b["af"]))
        if abs((b["cs0"] - a["cs0"]) - 5.0) > 0.75:
            fails.append("PSS: CS0 fell by %.3f Mbit/s, not 5 +- 0.75" % (b["cs0"] - a["cs0"]))
    if sched in ("pss", "dwrr"):
        for name, p in (("before", b), ("after", a)):
            want = th[name]["af"]
            if not within(p["af"], want, 0.05):
                fails.append("%s: AF %s the step %.3f Mbit/s, not the theory's %.3f within 5 %%"
                             % (sched, name, p["af"], want))
for f in fails:
    print("FAILCHECK " + f)
PYEOF
)
# The link full as the receiver measured it: every 1-s interval of B
# lying, on A's clock (origins from the stats lines' wall - t, + 250 ms),
# inside a stretch in which A's scheduler held packets at both interval
# ends (the link is then busy: every scheduler is work-conserving)
# carries sum(B rx.*.bytes) = 20 Mbit/s within 2 %, widened per interval
# by what A's reported lateness (late_us.max) moves across its
# boundaries (--lateness), at least 5 such intervals.
rx_out=$(python3 "$ROOT/scripts/stats.py" check-rx-rate "$OUT/stats-b.jsonl" \
	--sender "$OUT/stats-a.jsonl" --delay 0.25 --rate 20Mbit --tol 0.02 \
	--min-intervals 5 --no-require-drops --lateness 2>&1) ||
	verdict+=$'\n'"FAILCHECK the receiver's rate is not 20 Mbit/s within 2 %: $(grep '^check-rx-rate: ' <<<"$rx_out" | sed 's/^check-rx-rate: //' | paste -sd ';' -)"
grep -E '^(receiver clock|rx stretch|rx_intervals)|OUT OF TOLERANCE' <<<"$rx_out" || true

grep -v '^FAILCHECK ' <<<"$verdict" || true
if grep -q '^FAILCHECK ' <<<"$verdict"; then
	sed -n 's/^FAILCHECK /FAIL: '"$NAME"': /p' <<<"$verdict" >&2
	exit 1
fi
echo "PASS: $NAME (${elapsed} s)"
