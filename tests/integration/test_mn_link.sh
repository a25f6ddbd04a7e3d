#!/usr/bin/env bash
# test_mn_link.sh SCHEDTUN - a SchedtunLink in a researcher's own topology:
# mininet/examples/multi_sender.py runs end to end, briefly.
#
# Runs `multi_sender.py --sched pss --ef 5Mbit --flows 2 --duration 25
# --delay 100ms --prefix mt` with the schedtun under test: three senders
# behind router mtr1, the schedtun link mtr1 -> mtr2 (20 Mbit/s, PSS 9:2,
# 100 ms each way instead of 250 so that cubic fills the link within the
# 8.3 s warm-up), the receiver mth4 behind mtr2.  Checks:
#   - exit status 0 and a summary (--out) that parses, >= 10 intervals;
#   - every sender's traffic arrived: each class above 0.5 Mbit/s at the
#     receiving daemon (rx counters over the window) and a non-zero iperf3
#     receiver byte count for each of EF (mth1), AF (mth2), CS0 (mth3);
#   - the receiver saw the link's rate: EF + AF + CS0 = 20 Mbit/s within
#     3 %, and EF = 5 Mbit/s within 3 % (CBR under PSS's strict EF priority);
#   - both daemons exited 0 on the link's SIGTERM;
#   - afterwards nothing of the run is left: no process among the daemons',
#     the Mininet shells' and the iperf3s' pids, nothing running this run's files,
#     no state file of a finished run in /run/schedtun-link, no mt* interface
#     in the root namespace.
# The example cleans up itself; this test also runs `multi_sender.py
# --cleanup` on exit, which kills what a killed run left.  About 40 s.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
NAME=test_mn_link
PY=/usr/bin/python3
EX=$ROOT/mininet/examples/multi_sender.py
# shellcheck source=../../scripts/netns-lib.sh
source "$ROOT/scripts/netns-lib.sh"
BIN=${1:-}
# root, tun, tools and Mininet, or fail (skip only by the one rule)
st_mininet_begin "$NAME" "$BIN"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/schedtun-$NAME.XXXXXX")
OUT=$WORK/summary.json
RUN_PID=""
on_exit() {
	local rc=$?
	if [[ -n $RUN_PID ]] && kill -0 "$RUN_PID" 2>/dev/null; then
		kill -TERM "$RUN_PID" 2>/dev/null || true
		wait "$RUN_PID" 2>/dev/null || true
	fi
	"$PY" "$EX" --cleanup >/dev/null 2>&1 || true
	if (( rc != 0 )) && [[ -f $WORK/run.log ]]; then
		echo "--- multi_sender.py output (last 30 lines):" >&2
		tail -n 30 "$WORK/run.log" >&2
		for f in "$WORK"/run/*.log; do
			[[ -f $f ]] || continue
			echo "--- $f (last 10 lines):" >&2
			tail -n 10 "$f" >&2
		done
	fi
	[[ -n ${KEEP:-} ]] || rm -rf "$WORK"
}
trap on_exit EXIT

start=$(date +%s)
rc=0
# in the background so that a signal to this test reaches on_exit at once
timeout --kill-after=10 110 "$PY" "$EX" --schedtun "$BIN" --sched pss --ef 5Mbit \
	--flows 2 --duration 25 --delay 100ms --prefix mt --workdir "$WORK/run" \
	--out "$OUT" >"$WORK/run.log" 2>&1 &
RUN_PID=$!
wait "$RUN_PID" || rc=$?
RUN_PID=""
elapsed=$(( $(date +%s) - start ))
cat "$WORK/run.log"
echo "$NAME: multi_sender.py took ${elapsed} s, exit status $rc"
(( rc == 0 )) || fail "multi_sender.py exited with status $rc"
[[ -s $OUT ]] || fail "no summary $OUT"

verdict=$("$PY" - "$OUT" <<'PYEOF'
import json, sys
s = json.load(open(sys.argv[1]))
fails = []
cl = s["classes"]
for c, sender in (("ef", "mth1"), ("af", "mth2"), ("cs0", "mth3")):
    d = cl[c]
    if d["sender"] != sender:
        fails.append("%s came from %s, not %s" % (c, d["sender"], sender))
    if d["rx_mbps"] is None or d["rx_mbps"] <= 0.5:
        fails.append("%s (%s): the receiving daemon saw %s Mbit/s, not above 0.5"
                     % (c, sender, d["rx_mbps"]))
    if not d["iperf_receiver_bytes"]:
        fails.append("%s (%s): iperf3's receiver got %s bytes" % (c, sender,
                     d["iperf_receiver_bytes"]))
if s["window_intervals"] < 10:
    fails.append("only %d stats intervals in the window" % s["window_intervals"])
tot, ef = s["total_rx_mbps"], cl["ef"]["rx_mbps"]
print("window %.1f..%.1f s, %d intervals: EF %s AF %s CS0 %s total %s Mbit/s (C 20)"
      % (s["window_s"][0], s["window_s"][1], s["window_intervals"], ef,
         cl["af"]["rx_mbps"], cl["cs0"]["rx_mbps"], tot))
if tot is None or abs(tot - 20.0) > 0.03 * 20.0:
    fails.append("total at the receiver %s Mbit/s, not C = 20 within 3 %%" % tot)
if ef is None or abs(ef - 5.0) > 0.03 * 5.0:
    fails.append("EF at the receiver %s Mbit/s, not 5 within 3 %%" % ef)
st = s["link"]["exit_status"]
if sorted(st) != ["mtr1", "mtr2"] or any(v != 0 for v in st.values()):
    fails.append("daemon exit statuses on SIGTERM: %s (0 expected for both)" % st)
for f in fails:
    print("FAILCHECK " + f)
PYEOF
)
grep -v '^FAILCHECK ' <<<"$verdict" || true
if grep -q '^FAILCHECK ' <<<"$verdict"; then
	sed -n 's/^FAILCHECK /FAIL: '"$NAME"': /p' <<<"$verdict" >&2
	exit 1
fi

# Nothing of the run left behind.
pids=$("$PY" -c 'import json,sys; p=json.load(open(sys.argv[1]))["pids"]; print(" ".join(str(x) for x in p["daemons"] + p["shells"] + p["iperf"]))' "$OUT")
(( $(wc -w <<<"$pids") == 14 )) || fail "the summary lists $(wc -w <<<"$pids") pids, not 2 daemons + 6 shells + 6 iperf3"
for pid in $pids; do
	if [[ -r /proc/$pid/stat ]]; then
		state=$(sed 's/.*) //' "/proc/$pid/stat" | cut -d' ' -f1)
		[[ $state == Z ]] || fail "process $pid of the run ($(tr '\0' ' ' <"/proc/$pid/cmdline")) still runs"
	fi
done
pgrep -f "$WORK/run/" >/dev/null && fail "a process still runs this run's files: $(pgrep -af "$WORK/run/")"
if ls /run/schedtun-link/*.json >/dev/null 2>&1; then
	for f in /run/schedtun-link/*.json; do
		owner=$(basename "$f" .json); owner=${owner%%-*}
		[[ -d /proc/$owner ]] || fail "state file $f of a finished run left behind"
	done
fi
ip -o link show 2>/dev/null | grep -E ': mt(h[1-4]|r[12])-eth[0-9]' && fail "a Mininet interface of the run is left in the root namespace"
echo "$NAME: the run's 14 processes have exited, no state file or interface left"
echo "PASS: $NAME (${elapsed} s)"
