#!/usr/bin/env bash
# test_privdrop.sh SCHEDTUN - the privilege drop (tunnel.user,
# tunnel.group): a keyed pair gives up root after set-up and keeps
# working.
#
# Both daemons are started as root with tunnel.user = "nobody" (B also
# tunnel.group = "nogroup" and tunnel.realtime = 5); A writes a packet
# log (its writer process drops too); B has no peer and pins A.  The
# files a reload reads are readable by nobody, the key files are
# nobody's (mode 0600), and the stats directory is nobody's.
# Checks:
#   - --check as nobody: a valid file passes; one whose key file only
#     root may read passes with a "not read" warning (--check needs no
#     root); tunnel.user = "root" is refused (uid 0);
#   - /proc/PID/status of both daemons and of A's writer: uid and gid
#     65534 in all four slots, groups {65534}, every capability set
#     empty (CapInh, CapPrm, CapEff, CapBnd, CapAmb), NoNewPrivs 1, and
#     Seccomp 2 (the default sandbox: the drop and the sandbox together);
#   - while a ping runs (200 requests, 50 ms apart), as nobody: A
#     reloads a new scheduler; both re-key by SIGHUP one side at a time
#     (each switches once); B's stats file, moved away, is created again
#     by the SIGHUP that follows (owned by nobody); B refuses a reload
#     that raises tunnel.realtime (5 -> 20) and one that changes
#     tunnel.user, with the reason, and keeps its configuration (its
#     scheduler stays fifo), then applies one that turns the real-time
#     mode off (SCHED_OTHER); the ping gets all 200 replies;
#   - both stop with exit status 0; A's packet log has records.
set -euo pipefail
# shellcheck source=../../scripts/netns-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/netns-lib.sh"
st_test_begin "${1:-}" ping setpriv getent install

U=nobody G=nogroup
uid=$(getent passwd "$U" | cut -d: -f3) || st_skip "no user $U"
gid=$(getent group "$G" | cut -d: -f3) || st_skip "no group $G"
fails=()
as_nobody() { setpriv --reuid="$U" --regid="$G" --clear-groups "$@"; }

st_ns_create
# nobody must reach the files a reload reads: the work directory is
# traversable (not listable), D readable, the stats directory its own.
chmod 711 "$ST_WORK"
D=$ST_WORK/p
mkdir -m 755 "$D"
install -d -o "$U" -g "$G" -m 755 "$D/stats"
( umask 077
  for k in k1 k2; do "$ST_SCHEDTUN" genkey >"$ST_WORK/$k"; done )
for d in a b; do install -o "$U" -g "$G" -m 600 "$ST_WORK/k1" "$D/$d.key"; done
install -m 600 "$ST_WORK/k1" "$D/root.key"

ST_STATS_A=$D/stats/a.jsonl ST_STATS_B=$D/stats/b.jsonl PLOG=$D/stats/a-plog.csv
common=(--rate 20Mbit --delay 10ms --stats-interval 0.5)
conf_a() {
	st_conf_write "$D/a.conf" --address "$ST_TUN_A/24" --peer "$ST_UL_B:$ST_PORT" \
		--stats-file "$ST_STATS_A" --packet-log "$PLOG" "${common[@]}" "$@" \
		--tunnel-extra "key_file = \"a.key\"; key_grace = \"30s\"; user = \"$U\";"
}
conf_b() {     # conf_b REALTIME USER [options]
	local rt=$1 user=$2; shift 2
	st_conf_write "$D/b.conf" --address "$ST_TUN_B/24" --stats-file "$ST_STATS_B" \
		"${common[@]}" --realtime "$rt" "$@" \
		--tunnel-extra "key_file = \"b.key\"; key_grace = \"30s\"; user = \"$user\"; group = \"$G\";"
}
conf_a --sched fifo
conf_b 5 "$U" --sched fifo
chmod 644 "$D/a.conf" "$D/b.conf"

# ---- --check as nobody
out=$(as_nobody "$ST_SCHEDTUN" --check -f "$D/a.conf" 2>&1) ||
	fails+=("--check as $U refused a valid file: $out")
sed 's/"a.key"/"root.key"/' "$D/a.conf" >"$D/c.conf"
rc=0; out=$(as_nobody "$ST_SCHEDTUN" --check -f "$D/c.conf" 2>&1) || rc=$?
echo "--check as $U, key file root's: status $rc: $out"
(( rc == 0 )) || fails+=("--check as $U needs to read root's key file (status $rc)")
grep -q "not read" <<<"$out" || fails+=("--check as $U did not say the key file was not read")
sed "s/user = \"$U\"/user = \"root\"/" "$D/a.conf" >"$D/r.conf"
rc=0; out=$(as_nobody "$ST_SCHEDTUN" --check -f "$D/r.conf" 2>&1) || rc=$?
echo "--check, tunnel.user root: status $rc: $out"
(( rc == 1 )) && grep -q "tunnel.user: 'root' is uid 0" <<<"$out" ||
	fails+=("tunnel.user = root was not refused as uid 0")

st_daemon_start b "$ST_NS_B" "$D/b.conf"
st_daemon_start a "$ST_NS_A" "$D/a.conf"
st_daemon_wait_ready b "$ST_TUN_B/24"
st_daemon_wait_ready a "$ST_TUN_A/24"
for d in a b; do
	st_wait_for 5 "daemon '$d' to drop its privileges" \
		grep -q "privileges: running as $U:$G (uid $uid, gid $gid)" "$ST_WORK/$d.log" ||
		{ st_daemon_log_tail "$d"; st_fail "daemon '$d' did not log its privilege drop"; }
done
out=$(timeout 20 ip netns exec "$ST_NS_A" ping -n -c 3 -i 0.2 -W 2 "$ST_TUN_B" 2>&1) ||
	{ echo "$out" >&2; st_fail "ping across the tunnel failed after the drop"; }

# ---- what the kernel says about each process
# proc_check WHAT PID: its status lines against the drop's promise.
proc_check() {
	local what=$1 pid=$2 st line
	st=$(cat "/proc/$pid/status") || { fails+=("$what: no /proc/$pid/status"); return; }
	for line in "Uid:	$uid	$uid	$uid	$uid" "Gid:	$gid	$gid	$gid	$gid" \
		    "Groups:	$gid " "CapInh:	0000000000000000" \
		    "CapPrm:	0000000000000000" "CapEff:	0000000000000000" \
		    "CapBnd:	0000000000000000" "CapAmb:	0000000000000000" \
		    "NoNewPrivs:	1" "Seccomp:	2"; do
		grep -qxF "$line" <<<"$st" || grep -qxF "${line% }" <<<"$st" ||
			fails+=("$what (pid $pid): '$(grep "^${line%%:*}:" <<<"$st")', expected '$line'")
	done
	echo "$what: $(grep -E '^(Uid|Gid|Groups|CapEff|CapBnd|NoNewPrivs|Seccomp):' <<<"$st" | tr '\t\n' ' ')"
}
proc_check "daemon A" "${ST_PIDS[a]}"
proc_check "daemon B" "${ST_PIDS[b]}"
writer=$(pgrep -P "${ST_PIDS[a]}" -x schedtun-plog) || fails+=("A's packet log writer not found")
[[ -n ${writer:-} ]] && proc_check "A's packet log writer" "$writer"
pol=$(chrt -p "${ST_PIDS[b]}" | tr '\n' ' ')
echo "daemon B: $pol"
grep -q "SCHED_FIFO" <<<"$pol" && grep -q "priority: 5" <<<"$pol" ||
	fails+=("B does not run under SCHED_FIFO 5: $pol")

st_bg "$ST_NS_A" ping -n -c 200 -i 0.05 -W 2 "$ST_TUN_B"
bgping=$ST_LAST_PID bgping_log=$ST_LAST_LOG

# ---- a reload as nobody: A swaps its scheduler
conf_a --sched prio
st_daemon_signal a HUP
st_wait_for 5 "A to apply the reload" grep -q "applied (scheduler prio)" "$ST_WORK/a.log" ||
	{ st_daemon_log_tail a; fails+=("A, as $U, did not apply a reload"); }

# ---- a re-key as nobody, one side at a time (key files stay nobody's)
st_rekey_pair "$ST_WORK/k2" "$D/a.key" "$D/b.key" -o "$U" -g "$G"
switched() { [[ $(st_field auth.switches "$1" 2>/dev/null) == 1 ]]; }
st_wait_for 5 "both daemons to send under the new key" \
	eval 'switched "$ST_STATS_A" && switched "$ST_STATS_B"' ||
	fails+=("the pair did not switch to the new key")

# ---- B's stats file rotated: moved away, created again at the SIGHUP
mv "$ST_STATS_B" "$ST_STATS_B.1"
st_daemon_signal b HUP
st_wait_stats "$ST_STATS_B" 2 5 || fails+=("B did not create its stats file again after the rotation")
owner=$(stat -c %U "$ST_STATS_B" 2>/dev/null || echo none)
echo "rotated stats file: $(st_stats_lines "$ST_STATS_B") lines, owner $owner"
[[ $owner == "$U" ]] || fails+=("the new stats file belongs to $owner, not $U")

# ---- refusals: what needs the privileges given up
applied_b() { grep -c "applied (scheduler" "$ST_WORK/b.log" || true; }
n_applied=$(applied_b)
conf_b 20 "$U" --sched prio
st_daemon_signal b HUP
st_wait_for 5 "B to refuse raising tunnel.realtime" \
	grep -q "tunnel.realtime 20: raising the real-time priority (now 5) needs the privileges" \
	"$ST_WORK/b.log" || fails+=("B did not refuse raising tunnel.realtime with the reason")
conf_b 5 daemon --sched prio
st_daemon_signal b HUP
st_wait_for 5 "B to refuse a new tunnel.user" \
	grep -q "tunnel.user: 'daemon': the daemon gave up the privileges" "$ST_WORK/b.log" ||
	fails+=("B did not refuse changing tunnel.user with the reason")
(( $(applied_b) == n_applied )) || fails+=("B applied a refused reload")
pol=$(chrt -p "${ST_PIDS[b]}" | tr '\n' ' ')
grep -q "priority: 5" <<<"$pol" || fails+=("B's real-time priority changed: $pol")
# lowering is every process's right: realtime 5 -> 0 applies as nobody
conf_b 0 "$U" --sched fifo
st_daemon_signal b HUP
st_wait_for 5 "B to turn the real-time mode off" \
	grep -q "realtime: off (SCHED_OTHER)" "$ST_WORK/b.log" ||
	fails+=("B, as $U, did not turn tunnel.realtime off at a reload")
pol=$(chrt -p "${ST_PIDS[b]}" | tr '\n' ' ')
echo "daemon B after realtime = 0: $pol"
grep -q "SCHED_OTHER" <<<"$pol" || fails+=("B still runs under $pol after realtime = 0")

st_bg_ping_done "$bgping" "$bgping_log" 200 "across the reloads, the re-key and the rotation"
st_ping_ok 3 "at the end"
st_pair_stop
cat "$ST_STATS_B.1" "$ST_STATS_B" >"$D/b-all.jsonl"
for f in "$ST_STATS_A" "$D/b-all.jsonl"; do
	echo "$(basename "$f"): auth.switches=$(st_field auth.switches "$f")"
done
recs=$(( $(wc -l <"$PLOG") - 1 ))
echo "packet log: $recs records"
(( recs > 400 )) || fails+=("A's packet log has $recs records (its writer, as $U, wrote none?)")
st_finish
