#!/usr/bin/env bash
# test_geo_demo.sh SCHEDTUN - scripts/geo-demo.sh runs end to end, briefly.
#
# Runs `geo-demo.sh --sched S --duration 9 --warmup 5 --no-deps --no-plot`
# (S = GEO_DEMO_SCHED, default pdrr; the demo's GEO link: 20 Mbit/s, 250 ms
# each way; EF 4 Mbit/s UDP, AF and CS0 4 cubic flows each) with the
# schedtun under test (--build-dir = its directory), results in this test's
# work directory, bounded by `timeout` (the demo cleans its own namespaces
# up on SIGTERM).  Checks the demo's contract, not the scheduler (the other
# tests do that):
#   - exit status 0 (every iperf3 client and both daemons finished cleanly);
#   - summary.txt and summary.json written, every class in summary.json;
#   - EF carried: out_mbit = the demo's EF rate at the IP level
#     (4 Mbit/s x 1228/1200 = 4.093) within 3 % over the summary window;
#   - the link full over the window: link_out_mbit = 20 within 2 % (the
#     window starts 5 s after the first traffic: iperf3's set-up over the
#     500 ms RTT and slow start up to the 1.25 MB pipe take about 4 s, the
#     demo's live lines show the link full from then on; a 4-s warm-up
#     caught the last ramp-up second, 19.22 Mbit/s, and gave 19.8);
#   - AF and CS0 packets reached the receiver (rx_pkts > 0).
# About 20 s.
set -euo pipefail
# shellcheck source=../../scripts/netns-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/netns-lib.sh"
st_test_begin "${1:-}" iperf3 ping python3 ss timeout

SCHED=${GEO_DEMO_SCHED:-pdrr}
OUT="$ST_WORK/demo"
rc=0
timeout --kill-after=10 90 bash "$ST_ROOT/scripts/geo-demo.sh" --sched "$SCHED" \
	--duration 9 --warmup 5 --no-deps --no-plot \
	--build-dir "$(dirname "$ST_SCHEDTUN")" -o "$OUT" >"$ST_WORK/demo.log" 2>&1 || rc=$?
sed -n '/^geo-demo: [0-9]/,$p' "$ST_WORK/demo.log"
if (( rc != 0 )); then
	tail -n 40 "$ST_WORK/demo.log" >&2
	st_fail "geo-demo.sh --sched $SCHED exited with status $rc"
fi
[[ -s $OUT/summary.txt && -s $OUT/summary.json ]] || st_fail "no summary.txt / summary.json in $OUT"

verdict=$(python3 - "$OUT/summary.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
fails = []
cls = s.get("classes", {})
for c in ("ef", "af", "cs0"):
    if c not in cls:
        fails.append("summary.json has no class %s" % c)
if not fails:
    ef, link = cls["ef"]["out_mbit"], s["link_out_mbit"]
    want = 4.0 * 1228 / 1200
    print("window %.1f s: EF %.3f Mbit/s (want %.3f), link %.3f Mbit/s (want 20), AF rx %d pkts, CS0 rx %d pkts"
          % (s["duration_s"], ef, want, link, cls["af"]["rx_pkts"], cls["cs0"]["rx_pkts"]))
    if abs(ef - want) > 0.03 * want:
        fails.append("EF %.3f Mbit/s, not %.3f within 3 %%" % (ef, want))
    if abs(link - 20.0) > 0.02 * 20.0:
        fails.append("link carried %.3f Mbit/s, not 20 within 2 %%" % link)
    for c in ("af", "cs0"):
        if cls[c]["rx_pkts"] <= 0:
            fails.append("no %s packet reached the receiver" % c)
for f in fails:
    print("FAILCHECK " + f)
EOF
)
grep -v '^FAILCHECK ' <<<"$verdict"
if grep -q '^FAILCHECK ' <<<"$verdict"; then
	sed -n 's/^FAILCHECK /FAIL: '"$ST_NAME"': /p' <<<"$verdict" >&2
	exit 1
fi
echo "PASS: $ST_NAME"
