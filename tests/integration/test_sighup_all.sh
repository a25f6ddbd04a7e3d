#!/usr/bin/env bash
# test_sighup_all.sh SCHEDTUN - SIGHUP swaps through every registered
# scheduler in a running daemon under load, and loses nothing.
#
# Link 10 Mbit/s, 10 ms, 0.5 s stats.  A paced UDP sender in ns A offers EF
# 2 Mbit/s, AF 6 Mbit/s and CS0 6 Mbit/s (14.4 Mbit/s of inner bytes: the
# queues hold packets of every class at each swap).  The daemon starts with
# the first scheduler `schedtun --help` lists; the file is then rewritten
# with each of the others in turn (each with its defaults), then back to the
# first, one SIGHUP each.  Checks:
#  - the stats name each scheduler in turn (waited for, never slept on);
#  - the daemon never restarted: same pid;
#  - drops.reconf == 0: every queued packet moved to the next scheduler;
#  - B received what A put on the link (stats.py link-check: B's rx.*.pkts
#    + rx.*.lost = A's out_pkts - A's delay line at its stop, every loss a
#    drop by B's socket), so no swap lost a packet that A counted as sent;
#  - conservation in == out + drop + qlen per class over all lines up to
#    the final line flushed at SIGTERM under load.
# The list comes from the binary, so a scheduler registered later is swapped
# through without touching this test.
set -euo pipefail
# shellcheck source=../../scripts/netns-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/netns-lib.sh"
st_test_begin "${1:-}" python3

COMMON=(--rate 10Mbit --delay 10ms --stats-interval 0.5)
fails=()

read -r -a scheds <<<"$("$ST_SCHEDTUN" --help | sed -n 's/^schedulers: //p' | tr -d '|')"
(( ${#scheds[@]} >= 2 )) || st_fail "schedtun --help lists fewer than 2 schedulers: ${scheds[*]}"
echo "schedulers: ${scheds[*]}"

a_name() {
	python3 - "$ST_STATS_A" <<'EOF'
import json, sys
lines = [l for l in open(sys.argv[1]).read().split("\n")[:-1] if l.strip()]
print(json.loads(lines[-1])["sched"]["name"] if lines else "")
EOF
}
a_says() { [[ $(a_name) == "$1" ]]; }
a_lines_ge() { (( $(st_stats_lines "$ST_STATS_A") >= $1 )); }

st_ns_create
st_pair_start "${COMMON[@]}" --sched "${scheds[0]}"
rcvbuf0=$(st_udp_rcvbuf_errors "$ST_NS_B")
pid0=${ST_PIDS[a]}

st_bg "$ST_NS_A" python3 -c "$ST__PY_FLOOD" "$ST_TUN_B" 60 \
	6001:0xb8:2000000:1000 6002:0x28:6000000:1000 6003:0x00:6000000:1000
flood=$ST_LAST_PID
st_wait_for 10 "two stats lines under ${scheds[0]}" a_lines_ge 2 ||
	st_fail "A writes no stats lines"

for s in "${scheds[@]:1}" "${scheds[0]}"; do
	st_conf_write "$ST_CONF_A" --address "$ST_TUN_A/24" \
		--peer "$ST_UL_B:$ST_PORT" --stats-file "$ST_STATS_A" \
		"${COMMON[@]}" --sched "$s"
	st_daemon_signal a HUP
	if ! st_wait_for 5 "A's stats to say $s" a_says "$s"; then
		fails+=("stats never said $s after SIGHUP")
		continue
	fi
	n=$(st_stats_lines "$ST_STATS_A")
	st_wait_for 5 "two more lines under $s" a_lines_ge $(( n + 2 )) ||
		fails+=("A stopped writing stats under $s")
	st_daemon_alive a || st_fail "daemon A died after the swap to $s"
	[[ ${ST_PIDS[a]} == "$pid0" ]] || fails+=("daemon pid changed at $s")
done

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

names=$("${ST_STATS_PY[@]}" field sched.name "$ST_STATS_A" --mode each | uniq | tr '\n' ' ')
echo "sched.name sequence: $names"
want="${scheds[*]} ${scheds[0]} "
[[ $names == "$want" ]] || fails+=("sched.name sequence '$names', expected '$want'")

reconf=$("${ST_STATS_PY[@]}" field drops.reconf "$ST_STATS_A")
echo "drops.reconf=$reconf"
(( reconf == 0 )) || fails+=("drops.reconf = $reconf, expected 0")

sumout=$("${ST_STATS_PY[@]}" sum "$ST_STATS_A" 2>&1) ||
	fails+=("conservation violated: $(echo "$sumout" | grep violated | head -n 3)")
echo "$sumout"

if (( ${#fails[@]} )); then
	for f in "${fails[@]}"; do echo "FAIL: $ST_NAME: $f" >&2; done
	exit 1
fi
echo "PASS: $ST_NAME"
