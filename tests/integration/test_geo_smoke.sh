#!/usr/bin/env bash
# test_geo_smoke.sh SCHEDTUN - mininet/geo.py runs end to end, briefly.
#
# Runs `geo.py --sched pss --duration 12 --warmup 6 --delay 100ms
# --af-flows 2 --cs0-flows 2 --ef 8Mbit` with the schedtun under test (EF
# from schedtun-efgen when it is built beside it, else iperf3; the
# paper's shape: 20 Mbit/s, EF UDP + AF/CS0 cubic through the tunnel, the
# same one-way delay on both directions; 100 ms instead of 250 so that TCP
# fills the link within the warm-up of a short run), bounded by `timeout`.
# Checks the runner's contract, not the scheduler's accuracy:
#   - exit status 0;
#   - rates.csv, credit.csv, summary.json and rates.png exist and parse
#     (rates.csv: the header, daemon and theory rows for every class,
#     iperf rows for AF and CS0, efgen or iperf rows for EF);
#   - every class carries traffic over the window: the daemon's mean out
#     rate above 0.5 Mbit/s for EF, AF and CS0;
#   - EF = 8 Mbit/s within 3 % (a CBR flow under strict priority);
#   - the link full as the receiver B measured it wherever the sender had
#     packets queued (stats.py check-rx-rate, below);
#   - summary.json carries the run's provenance (command, commit and tree,
#     binary sha256, kernel, CPU, load before and after, times, the
#     daemons' configurations);
#   - summary.json's theory for AF and CS0 is eqs. 7 and 8 for this
#     configuration (weights 9:2, 1400-byte packets, R_EF^exp = R_EF = 8:
#     AF 9/11 x 12 = 9.818, CS0 2.182), to 0.01 Mbit/s;
#   - afterwards: no process of the run left (its state file is gone and
#     no process runs the binary from this run's configs) and no Mininet
#     host interface (h1-eth0 / h2-eth0) anywhere;
#   - the experiment lock (schedlab.lock): geo.py refuses (exit 1, naming
#     the holder) while another process holds it, also when
#     SCHEDTUN_EXPERIMENT_LOCK names that holder but it is no ancestor,
#     and refuses beside an iperf3 (on loopback) naming it; the run above
#     itself is started the way reproduce starts it, by a holder of the
#     lock that passes it down (lock.child_env), and must run under it.
# geo.py cleans up itself (finally + signal handlers); this test also runs
# `geo.py --cleanup` on exit, which kills what a killed run left.  About 25 s.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
NAME=test_geo_smoke
PY=/usr/bin/python3
# shellcheck source=../../scripts/netns-lib.sh
source "$ROOT/scripts/netns-lib.sh"
BIN=${1:-}
# root, tun, tools and Mininet, or fail (skip only by the one rule)
st_mininet_begin "$NAME" "$BIN"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/schedtun-$NAME.XXXXXX")
OUT=$WORK/out
GEO_PID=""
HOLDER_PID=""
IPERF_PID=""
on_exit() {
	local rc=$?
	for p in $HOLDER_PID $IPERF_PID; do
		kill -TERM "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	if [[ -n $GEO_PID ]] && kill -0 "$GEO_PID" 2>/dev/null; then
		kill -TERM "$GEO_PID" 2>/dev/null || true
		wait "$GEO_PID" 2>/dev/null || true
	fi
	"$PY" "$ROOT/mininet/geo.py" --cleanup >/dev/null 2>&1 || true
	if (( rc != 0 )) && [[ -f $WORK/geo.log ]]; then
		echo "--- geo.py output (last 30 lines):" >&2
		tail -n 30 "$WORK/geo.log" >&2
	fi
	[[ -n ${KEEP:-} ]] || rm -rf "$WORK"
}
trap on_exit EXIT

GEO_ARGS=(--schedtun "$BIN" --sched pss --ef 8Mbit --duration 12 --warmup 6
	--delay 100ms --af-flows 2 --cs0-flows 2 --quiet)
# geo.py beside another holder of the experiment lock: refused at once
"$PY" -c 'import sys, time; sys.path.insert(0, sys.argv[1])
from schedlab import lock
held = lock.ExperimentLock(["test_geo_smoke", "holder"]).acquire()
print("held", flush=True); time.sleep(120)' "$ROOT/mininet" >"$WORK/holder.out" 2>&1 &
HOLDER_PID=$!
for _ in $(seq 100); do grep -q held "$WORK/holder.out" 2>/dev/null && break; sleep 0.1; done
grep -q held "$WORK/holder.out" || fail "the lock holder did not start: $(cat "$WORK/holder.out")"
lrc=0
timeout 30 "$PY" "$ROOT/mininet/geo.py" "${GEO_ARGS[@]}" --out "$WORK/refused" \
	>"$WORK/refused.log" 2>&1 || lrc=$?
(( lrc == 1 )) && grep -q "held by pid $HOLDER_PID: test_geo_smoke holder" "$WORK/refused.log" ||
	fail "geo.py beside a lock holder: exit $lrc, not 1 naming pid $HOLDER_PID: $(cat "$WORK/refused.log")"
lrc=0
SCHEDTUN_EXPERIMENT_LOCK=$HOLDER_PID timeout 30 "$PY" "$ROOT/mininet/geo.py" "${GEO_ARGS[@]}" \
	--out "$WORK/refused" >"$WORK/refused.log" 2>&1 || lrc=$?
(( lrc == 1 )) && grep -q "not an ancestor" "$WORK/refused.log" ||
	fail "geo.py with the lock variable of a non-ancestor: exit $lrc: $(cat "$WORK/refused.log")"
kill -TERM "$HOLDER_PID"; wait "$HOLDER_PID" 2>/dev/null || true; HOLDER_PID=""
# ... and beside an iperf3 (loopback only)
iperf3 -s -1 -B 127.0.0.1 -p 52999 >/dev/null 2>&1 &
IPERF_PID=$!
sleep 0.3
lrc=0
timeout 30 "$PY" "$ROOT/mininet/geo.py" "${GEO_ARGS[@]}" --out "$WORK/refused" \
	>"$WORK/refused.log" 2>&1 || lrc=$?
(( lrc == 1 )) && grep -q "iperf3 pid $IPERF_PID" "$WORK/refused.log" ||
	fail "geo.py beside iperf3 pid $IPERF_PID: exit $lrc: $(cat "$WORK/refused.log")"
kill -TERM "$IPERF_PID"; wait "$IPERF_PID" 2>/dev/null || true; IPERF_PID=""
echo "$NAME: geo.py refused beside a lock holder, a non-ancestor's lock variable, an iperf3"

start=$(date +%s)
rc=0
# in the background so that a signal to this test reaches on_exit at once;
# started like reproduce starts it: a holder of the lock passes it down
# (SIGTERM/SIGINT forwarded to geo.py, its exit status returned)
timeout --kill-after=10 100 "$PY" -c 'import signal, subprocess, sys
sys.path.insert(0, sys.argv[1])
from schedlab import lock
held = lock.ExperimentLock(["test_geo_smoke"]).acquire()
child = subprocess.Popen(sys.argv[2:], env=lock.child_env())
for s in (signal.SIGTERM, signal.SIGINT):
    signal.signal(s, lambda n, f: child.send_signal(n))
sys.exit(child.wait())' "$ROOT/mininet" "$PY" "$ROOT/mininet/geo.py" "${GEO_ARGS[@]}" \
	--out "$OUT" >"$WORK/geo.log" 2>&1 &
GEO_PID=$!
wait "$GEO_PID" || rc=$?
GEO_PID=""
elapsed=$(( $(date +%s) - start ))
sed -n '/^window/,$p' "$WORK/geo.log"
echo "$NAME: geo.py took ${elapsed} s, exit status $rc"
(( rc == 0 )) || fail "geo.py exited with status $rc"
grep -q "running under the experiment lock of pid" "$WORK/geo.log" ||
	fail "geo.py did not run under the lock its parent passed down"

for f in rates.csv credit.csv summary.json rates.png; do
	[[ -s $OUT/$f ]] || fail "no $f in $OUT"
done

verdict=$(cd "$ROOT/mininet" && "$PY" - "$OUT" <<'EOF'
import json, os, sys
from schedlab import outputs
out = sys.argv[1]
fails = []
rows = outputs.read_rates_csv(os.path.join(out, "rates.csv"))
s = json.load(open(os.path.join(out, "summary.json")))
ef_src = "efgen" if s["config"]["ef_tool"] == "efgen" else "iperf"
print("EF generator: %s" % s["config"]["ef_tool"])
for c in ("ef", "af", "cs0"):
    for src in ("daemon", ef_src if c == "ef" else "iperf", "theory"):
        if not any(r[1] == c and r[3] == src for r in rows):
            fails.append("rates.csv has no %s rows for %s" % (src, c))
with open(os.path.join(out, "credit.csv")) as f:
    head = f.readline().strip()
    ncredit = sum(1 for _ in f)
if head != "t,credit_bytes,prio" or ncredit < 5:
    fails.append("credit.csv: header %r, %d lines" % (head, ncredit))
with open(os.path.join(out, "rates.png"), "rb") as f:
    if f.read(8) != b"\x89PNG\r\n\x1a\n":
        fails.append("rates.png is not a PNG")
cl = s["classes"]
m = {c: cl[c]["measured_mbps"] for c in ("ef", "af", "cs0")}
if any(v is None for v in m.values()):
    fails.append("no measured mean for some class: %s" % m)
else:
    total = sum(m.values())
    print("window %s s, %d intervals: EF %.3f AF %.3f CS0 %.3f total %.3f Mbit/s "
          "(C 20; theory AF %.3f CS0 %.3f)" % (s["window_s"], s["window_intervals"],
          m["ef"], m["af"], m["cs0"], total, cl["af"]["theory_mbps"], cl["cs0"]["theory_mbps"]))
    for c, v in m.items():
        if v <= 0.5:
            fails.append("%s carried %.3f Mbit/s, not above 0.5" % (c, v))
    if abs(m["ef"] - 8.0) > 0.03 * 8.0:
        fails.append("EF %.3f Mbit/s, not 8 within 3 %%" % m["ef"])
    for c, want in (("af", 9 / 11 * 12), ("cs0", 12 - 9 / 11 * 12)):
        th = cl[c]["theory_mbps"]
        if th is None or abs(th - want) > 0.01:
            fails.append("theory for %s is %s, not %.3f (eq. %s)" % (c, th, want,
                         7 if c == "af" else 8))
if s["window_intervals"] < 5:
    fails.append("only %d stats intervals in the window" % s["window_intervals"])
# provenance (issue 20): the command, the code, the binary, the machine,
# the daemons' configurations
prov = s.get("provenance") or {}
missing = [k for k in ("argv", "code", "binary", "kernel", "cpu", "loadavg_before",
                       "loadavg_after", "start_utc", "end_utc", "config_files") if k not in prov]
if missing or "a.conf" not in prov.get("config_files", {}) or \
        len(prov.get("binary", {}).get("sha256", "")) != 64:
    fails.append("summary.json's provenance incomplete: missing %s; %r" % (missing, prov.get("error")))
else:
    print("provenance: commit %s%s, binary sha256 %s..., %d CPUs, load %s -> %s" % (
        prov["code"]["commit"][:12], " (dirty)" if prov["code"]["dirty"] else "",
        prov["binary"]["sha256"][:12], prov["cpu"]["count"], prov["loadavg_before"][0],
        prov["loadavg_after"][0]))
for f in fails:
    print("FAILCHECK " + f)
EOF
)
# The link full, as the receiver measured it, wherever the sender had
# work: B's rx bytes in each of its intervals that lies (on A's clock:
# the lines' wall - t, + 100 ms) inside a stretch of A's intervals with
# packets queued at both ends = C within 2 % plus what A's and B's
# reported lateness moves across the interval's edges and the capacity a
# stall beyond the pacer's 50-ms catch-up forgave (stats.py check-rx-rate
# --lateness), at least 3 such intervals.  It replaces the sender's own
# total over the whole window (C within 3 %), which is TCP's fill as
# much as the link's: 2 cubic flows a class at a 200-ms RTT did not refill
# the link within the 6-s window after a 250-ms stall of the sender under
# load (18.84 Mbit/s, issue 19).
rx_out=$(python3 "$ROOT/scripts/stats.py" check-rx-rate "$OUT/stats-b.jsonl" \
	--sender "$OUT/stats-a.jsonl" --delay 0.1 --rate 20Mbit --tol 0.02 \
	--min-intervals 3 --no-require-drops --lateness 2>&1) ||
	verdict+=$'\n'"FAILCHECK the receiver's rate is not C = 20 Mbit/s where the sender had work: $(grep '^check-rx-rate: ' <<<"$rx_out" | sed 's/^check-rx-rate: //' | paste -sd ';' -)"
grep -E '^(receiver clock|rx stretch|rx_intervals)|OUT OF TOLERANCE' <<<"$rx_out" || true

grep -v '^FAILCHECK ' <<<"$verdict" || true
if grep -q '^FAILCHECK ' <<<"$verdict"; then
	sed -n 's/^FAILCHECK /FAIL: '"$NAME"': /p' <<<"$verdict" >&2
	exit 1
fi

# Nothing of the run left behind: every process geo.py started (its
# processes.json: daemons, iperf3, the Mininet host shells) has exited.
[[ -s $OUT/processes.json ]] || fail "no processes.json in $OUT"
left=$("$PY" - "$OUT/processes.json" 2>"$WORK/nprocs" <<'EOF'
import json, os, sys
procs = json.load(open(sys.argv[1]))
print(len(procs), file=sys.stderr)
for name, pid in procs:
    if os.path.exists("/proc/%d" % pid):
        state = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()[0]
        if state != "Z":
            print("%s(pid %d)" % (name, pid))
EOF
)
[[ -z $left ]] || fail "processes of the run still running: $left"
echo "$NAME: all $(cat "$WORK/nprocs") processes of the run have exited"
if ls /run/schedtun-geo/*.json >/dev/null 2>&1; then
	for f in /run/schedtun-geo/*.json; do
		owner=$(basename "$f" .json)
		[[ -d /proc/$owner ]] || fail "state file $f of a finished run left behind"
	done
fi
ip -o link show 2>/dev/null | grep -E ' h[12]-eth0[@:]' && fail "a Mininet interface is left in the root namespace"
echo "PASS: $NAME (${elapsed} s)"
