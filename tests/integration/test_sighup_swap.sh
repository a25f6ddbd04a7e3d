#!/usr/bin/env bash
# test_sighup_swap.sh SCHEDTUN - SIGHUP swaps the scheduler in a running daemon.
#
# Link 10 Mbit/s, 10 ms, scheduler fifo, 0.5 s stats.  A paced UDP sender in
# ns A offers EF (TOS 0xb8) 2 Mbit/s, AF (TOS 0x28, AF11) 6 Mbit/s and CS0
# 6 Mbit/s of 1000-byte payloads to B (14.4 Mbit/s of inner bytes: the queue
# is saturated and holds packets of every class when the swap happens).
# Mid-run the config file is rewritten with scheduler prio and A gets SIGHUP.
# Checks:
#  - the daemon did not restart: same pid, alive, same st0 ifindex;
#  - "sched.name" is fifo on every line before the swap and prio on every
#    line after it (at least 2 of each);
#  - drops.reconf == 0 (queued packets moved, not dropped);
#  - under prio EF (2 Mbit/s of 10) never waits behind AF/CS0: no EF drops
#    on the lines after the first prio line;
# then a broken file (scheduler fifo plus a bad rate) and SIGHUP again:
#  - the daemon logs an error, keeps running, and its stats still say prio;
# and finally SIGTERM while the flood still runs (so the queue is not
# empty): exit status 0, and conservation in == out + drop + qlen per class
# over all lines up to and including the final line flushed at SIGTERM;
# and B received what A put on the link (stats.py link-check: B's
# rx.*.pkts + rx.*.lost = A's out_pkts - A's delay line at its stop, every
# loss a drop by B's socket), so no swap lost a packet A counted as sent.
set -euo pipefail
# shellcheck source=../../scripts/netns-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/netns-lib.sh"
st_test_begin "${1:-}" python3

COMMON=(--rate 10Mbit --delay 10ms --stats-interval 0.5)
fails=()

# The last complete stats line of A, as JSON field PATH (python expression
# over the parsed object `o`).
a_last() {
	python3 - "$ST_STATS_A" "$1" <<'EOF'
import json, sys
lines = [l for l in open(sys.argv[1]).read().split("\n")[:-1] if l.strip()]
if not lines:
    print(""); sys.exit(0)
o = json.loads(lines[-1])
print(eval(sys.argv[2], {"o": o}))
EOF
}
a_lines() { st_stats_lines "$ST_STATS_A"; }
a_saturated() {
	[[ $(a_last 'int(all(o["classes"][c]["qlen_pkts"] > 0 for c in ("af","cs0")))') == 1 ]]
}
a_says() { [[ $(a_last 'o["sched"]["name"]') == "$1" ]]; }
a_lines_ge() { (( $(a_lines) >= $1 )); }
ifindex() { ip -n "$ST_NS_A" -o link show dev "$ST_TUN_NAME" | cut -d: -f1; }

st_ns_create
st_pair_start "${COMMON[@]}" --sched fifo
rcvbuf0=$(st_udp_rcvbuf_errors "$ST_NS_B")
pid0=${ST_PIDS[a]}
idx0=$(ifindex)

# Flood long enough to cover the whole scenario; it is stopped explicitly.
st_bg "$ST_NS_A" python3 -c "$ST__PY_FLOOD" "$ST_TUN_B" 30 \
	6001:0xb8:2000000:1000 6002:0x28:6000000:1000 6003:0x00:6000000:1000
flood=$ST_LAST_PID

st_wait_for 10 "A's queue saturated with AF and CS0 under fifo" a_saturated ||
	st_fail "the flood did not saturate A's queue (see A's stats)"
n=$(a_lines)
st_wait_for 5 "two more stats lines under fifo" a_lines_ge $(( n + 2 )) ||
	st_fail "A stopped writing stats lines"

# --- swap to prio ------------------------------------------------------
st_conf_write "$ST_CONF_A" --address "$ST_TUN_A/24" --peer "$ST_UL_B:$ST_PORT" \
	--stats-file "$ST_STATS_A" "${COMMON[@]}" --sched prio
echo "sending SIGHUP (fifo -> prio) at stats line $(a_lines)"
st_daemon_signal a HUP
st_wait_for 5 "A's stats to say sched.name prio" a_says prio ||
	fails+=("stats never switched to sched.name=prio after SIGHUP")
n=$(a_lines)
st_wait_for 5 "three more stats lines under prio" a_lines_ge $(( n + 3 )) ||
	st_fail "A stopped writing stats lines after the swap"
st_daemon_alive a || st_fail "daemon A died after SIGHUP"
[[ ${ST_PIDS[a]} == "$pid0" ]] || fails+=("daemon pid changed")
idx1=$(ifindex) || st_fail "st0 vanished after SIGHUP"
echo "pid=$pid0 st0_ifindex_before=$idx0 after=$idx1"
[[ $idx1 == "$idx0" ]] || fails+=("st0 was re-created by SIGHUP (ifindex $idx0 -> $idx1)")

# --- broken file: must be refused, old config kept -------------------------
log_before=$(wc -l <"$ST_WORK/a.log")
st_conf_write "$ST_CONF_A" --address "$ST_TUN_A/24" --peer "$ST_UL_B:$ST_PORT" \
	--stats-file "$ST_STATS_A" --rate 10Mbt --delay 10ms --stats-interval 0.5 --sched fifo
echo "sending SIGHUP with a broken file (rate \"10Mbt\", scheduler fifo)"
st_daemon_signal a HUP
new_log_lines() { (( $(wc -l <"$ST_WORK/a.log") > log_before )); }
st_wait_for 5 "an error line in A's log after the bad SIGHUP" new_log_lines ||
	fails+=("no log line after SIGHUP with a broken config")
errlog=$(tail -n +"$(( log_before + 1 ))" "$ST_WORK/a.log")
echo "log after bad SIGHUP: $(echo "$errlog" | head -n 3)"
grep -qiE 'error|invalid|rate|10Mbt|reject|fail' <<<"$errlog" ||
	fails+=("the log line after the bad SIGHUP does not report the error: $errlog")
n=$(a_lines)
st_wait_for 5 "two more stats lines after the bad SIGHUP" a_lines_ge $(( n + 2 )) ||
	st_fail "A stopped writing stats after the bad SIGHUP"
st_daemon_alive a || st_fail "daemon A died after SIGHUP with a broken config"
a_says prio || fails+=("stats no longer say prio after a refused config: $(a_last 'o["sched"]["name"]')")

# --- stop under load ---------------------------------------------------------
st_daemon_alive a || st_fail "daemon A is not running"
rcvbuf1=$(st_udp_rcvbuf_errors "$ST_NS_B")
st_pair_stop
kill "$flood" 2>/dev/null || true
st_wait_pid_exit "$flood" 5 || true

# What the swaps did to the packets, as the receiver saw them: B's rx +
# lost = A's out_pkts - A's delay line at its stop (A stops first, B after
# everything A sent has crossed the veth), every loss a socket drop in B.
# A swap that freed queued packets while counting them out fails here even
# if A's own counters conserve.
st_link_check "$ST_STATS_A" "$ST_STATS_B" $(( rcvbuf1 - rcvbuf0 )) ||
	fails+=("B did not get what A put on the link: $ST_CHECK_MSG")

names=$("${ST_STATS_PY[@]}" field sched.name "$ST_STATS_A" --mode each | uniq -c | awk '{printf "%s x%s, ", $2, $1}')
echo "sched.name sequence: ${names%, }"
"${ST_STATS_PY[@]}" field sched.name "$ST_STATS_A" --mode each | python3 -c '
import sys
names = [l.strip() for l in sys.stdin]
k = names.index("prio") if "prio" in names else len(names)
ok = (k >= 2 and all(n == "fifo" for n in names[:k]) and
      len(names) - k >= 2 and all(n == "prio" for n in names[k:]))
sys.exit(0 if ok else 1)' || fails+=("sched.name is not fifo... then prio... (>= 2 lines each)")

reconf=$("${ST_STATS_PY[@]}" field drops.reconf "$ST_STATS_A")
echo "drops.reconf=$reconf"
(( reconf == 0 )) || fails+=("drops.reconf = $reconf, expected 0")

# EF drops on the lines strictly after the first prio line, and per-class
# out rates there (informational).
post=$(python3 - "$ST_STATS_A" <<'EOF'
import json, sys
L = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
k = next(i for i, o in enumerate(L) if o["sched"]["name"] == "prio")
pre = L[1:k]
post = L[k + 1:-1]          # without the swap line and the SIGTERM partial line
def tot(ls, c, key): return sum(o["classes"][c][key] for o in ls)
def rate(ls, c):
    dt = sum(o["t"] - p["t"] for p, o in zip(L[:-1], L[1:]) if o in ls) or 1
    return tot(ls, c, "out_bytes") * 8 / dt / 1e6
print("fifo: ef_drops=%d ef/af/cs0_out_mbps=%.2f/%.2f/%.2f  prio: ef_drops=%d ef/af/cs0_out_mbps=%.2f/%.2f/%.2f"
      % (tot(pre, "ef", "drop_pkts"), rate(pre, "ef"), rate(pre, "af"), rate(pre, "cs0"),
         tot(post, "ef", "drop_pkts"), rate(post, "ef"), rate(post, "af"), rate(post, "cs0")))
print(tot(post, "ef", "drop_pkts"))
EOF
)
echo "$post" | head -n 1
(( $(echo "$post" | tail -n 1) == 0 )) || fails+=("EF packets dropped under prio after the swap")

sumout=$("${ST_STATS_PY[@]}" sum "$ST_STATS_A" 2>&1) || fails+=("conservation violated: $(echo "$sumout" | grep violated | head -n 3)")
echo "$sumout"

if (( ${#fails[@]} )); then
	for f in "${fails[@]}"; do echo "FAIL: $ST_NAME: $f" >&2; done
	exit 1
fi
echo "PASS: $ST_NAME"
