#!/usr/bin/env bash
# test_pktlog.sh SCHEDTUN - the per-packet log (stats.packet_log) against
# the daemons' own counters and iperf3's.
#
# Case "log": a pair at 5 Mbit/s, 10 ms, pdrr (its verdicts: pq / flow),
# both daemons logging.  For 5 s: an iperf3 UDP test A -> B at 8 Mbit/s
# (CS0, overloads the link: drops) and a 1 Mbit/s EF flow; once A has
# drained, an iperf3 UDP test at 2 Mbit/s for 3 s (port 5202, no queue).
# After both stopped, mininet/pktlog.py check asserts, exactly:
#   - every drop is logged with the reason counter it moved (per reason,
#     log = sum of the stats lines' drops.*), at both ends;
#   - A: dep + send_error drops = link.out_pkts; per class, enq +
#     class_limit drops = in_pkts;
#   - B: arr = rx.*.pkts; every arrival's (class, seq) is a departure of
#     A's, and the departures that never arrived = B's rx.*.lost;
#   - the second iperf3 server's received datagrams = the arrivals of its
#     flow (port 5202) in B's log, except the ones that arrived in the
#     flow's last 20 ms (two one-way delays): the server stops counting when
#     the client's end-of-test message arrives over TCP, and pdrr gives that
#     small new flow its priority queue, so it can overtake the last
#     datagrams (seen once: 748 counted of 750 arrived); the bytes = the
#     datagrams x 1000 exactly;
#   - no record lost (log.lost = 0 on every line, no bad line).
# Also: drop records exist (the overload was real), A's departures carry
# both verdicts, the flows table lists the iperf3 flow, and the log
# reaches its file before the daemon's exit (the check reads it at once).
#
# Case "full": A's log on /dev/full (every write fails with ENOSPC): pings
# cross the tunnel all the same, the stats lines count the records lost
# (log.lost > 0), the writer says so once (one warning line however many
# writes failed), and A stops cleanly.
#
# Case "bad path": a log in a directory that does not exist: exit 2 with
# the path and the OS error, before the tun is touched.
set -euo pipefail
# shellcheck source=../../scripts/netns-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/netns-lib.sh"
st_test_begin "${1:-}" iperf3 python3 ss ping

PKTLOG=(python3 "$ST_ROOT/mininet/pktlog.py")
fails=()

case_log() {
	local la="$ST_WORK/a.plog.csv" lb="$ST_WORK/b.plog.csv"
	echo "=== case log: pdrr at 5 Mbit/s, both daemons logging ==="
	st_pair_start --tag log --plog-a "$la" --plog-b "$lb" --rate 5Mbit \
		--delay 10ms --sched pdrr --stats-interval 1.0
	st_bg "$ST_NS_B" iperf3 -s -1 -p 5201
	local srv=$ST_LAST_PID
	st_wait_listen "$ST_NS_B" tcp 5201 || st_fail "iperf3 server did not start"
	st_bg "$ST_NS_A" iperf3 -c "$ST_TUN_B" -p 5201 -u -b 8M -l 1200 -t 5 -J \
		--connect-timeout 5000
	local cli=$ST_LAST_PID cli_log=$ST_LAST_LOG
	st_udp_flood "$ST_NS_A" "$ST_TUN_B" 5 6000:0xb8:1000000:500
	st_wait_pid_exit "$cli" 30 || fails+=("log: the iperf3 client did not finish")
	st_wait_pid_exit "$srv" 5 || echo "WARN: iperf3 server did not exit by itself" >&2
	st_wait_for 15 "A's queue and delay line drained" st_sender_drained "$ST_STATS_A" ||
		fails+=("log: A never reported an empty queue and delay line")
	# iperf3's own count, on a link with no queue: the server stops
	# counting when the client's end-of-test message arrives, which under
	# pdrr overtakes a queued backlog (a new flow goes to PQ), so the
	# overloaded run above cannot be compared byte for byte.
	st_bg "$ST_NS_B" iperf3 -s -1 -p 5202
	srv=$ST_LAST_PID
	st_wait_listen "$ST_NS_B" tcp 5202 || st_fail "iperf3 server did not start"
	st_run_bounded 30 "$ST_NS_A" iperf3 -c "$ST_TUN_B" -p 5202 -u -b 2M -l 1000 \
		-t 3 -J --connect-timeout 5000 || fails+=("log: the 2 Mbit/s iperf3 test failed")
	local ijson="$ST_WORK/iperf-log.json"
	cp "$ST_LAST_LOG" "$ijson"
	st_wait_pid_exit "$srv" 5 || echo "WARN: iperf3 server did not exit by itself" >&2
	st_wait_for 15 "A's queue and delay line drained" st_sender_drained "$ST_STATS_A" ||
		fails+=("log: A never reported an empty queue and delay line")
	st_pair_stop

	"${PKTLOG[@]}" summary "$la" "$lb"
	if ! "${PKTLOG[@]}" check --sender "$la" --sender-stats "$ST_STATS_A" \
		--receiver "$lb" --receiver-stats "$ST_STATS_B" \
		--udp-port 5202 --iperf "$ijson" --iperf-tail-ms 20; then
		fails+=("log: the logs disagree with the daemons' counters (above)")
	fi
	local drops pq flow
	drops=$(grep -c ',drop,' "$la" || true)
	pq=$(grep -c ',dep,.*,pq,$' "$la" || true)
	flow=$(grep -c ',dep,.*,flow,$' "$la" || true)
	echo "A: $drops drop records, departures by verdict: pq $pq, flow $flow"
	(( drops > 0 )) || fails+=("log: no drop record under a 8 Mbit/s load on 5 Mbit/s")
	(( pq > 0 && flow > 0 )) || fails+=("log: pdrr's verdicts missing (pq $pq, flow $flow)")
	"${PKTLOG[@]}" flows "$la" "$lb" --format csv >"$ST_WORK/flows.csv"
	grep -q ",5201,cs0," "$ST_WORK/flows.csv" ||
		fails+=("log: the flows table has no row for the iperf3 flow")
	head -n 5 "$ST_WORK/flows.csv"
}

full_lost_seen() {
	local n
	n=$(st_field log.lost "$ST_STATS_A" 2>/dev/null) || return 1
	(( n > 0 ))
}

case_full() {
	echo "=== case full: A's log on /dev/full ==="
	st_pair_start --tag full --plog-a /dev/full --rate 5Mbit --delay 10ms \
		--sched fifo --stats-interval 0.2
	st_run_bounded 20 "$ST_NS_A" ping -c 20 -i 0.05 -W 2 "$ST_TUN_B" >/dev/null ||
		fails+=("full: pings did not cross the tunnel with the log on /dev/full")
	# The writer's count reaches the stats line at the next tick (0.2 s).
	st_wait_for 10 "log.lost > 0 on A's stats lines" full_lost_seen ||
		fails+=("full: no stats line counted lost records")
	st_pair_stop
	local lost warns
	lost=$(st_field log.lost "$ST_STATS_A")
	warns=$(grep -c 'packet log /dev/full: No space left on device' "$ST_WORK/a.log" || true)
	echo "full: log.lost $lost, warnings $warns"
	(( lost > 0 )) || fails+=("full: log.lost is 0 with the log on /dev/full")
	(( warns == 1 )) || fails+=("full: $warns warnings about the full disk, expected 1")
}

case_bad_path() {
	echo "=== case bad path ==="
	local conf="$ST_WORK/bad.conf" rc=0 out
	st_conf_write "$conf" --address "$ST_TUN_A/24" --packet-log "$ST_WORK/no/such/dir/x.csv"
	out=$(ip netns exec "$ST_NS_A" timeout 10 "$ST_SCHEDTUN" -f "$conf" 2>&1) || rc=$?
	echo "$out" | tail -n 2
	(( rc == 2 )) || fails+=("bad path: exit $rc, expected 2")
	grep -q "packet log $ST_WORK/no/such/dir/x.csv: No such file or directory" <<<"$out" ||
		fails+=("bad path: the error does not name the path and the OS error")
}

st_ns_create
case_log
case_full
case_bad_path

if (( ${#fails[@]} )); then
	for f in "${fails[@]}"; do echo "FAIL: $ST_NAME: $f" >&2; done
	exit 1
fi
echo "PASS: $ST_NAME"
