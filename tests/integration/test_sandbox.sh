#!/usr/bin/env bash
# test_sandbox.sh SCHEDTUN - the seccomp sandbox (tunnel.sandbox): on by
# default, the daemon works inside it, and a system call outside its list
# kills it with a line that names the call.
#
# 1. A keyed pair with the default sandbox (A with a packet log, a PSS
#    trace and a link trace profile): /proc/PID/status of both daemons
#    and of A's log writer says Seccomp: 2 (filter); a ping crosses;
#    while a ping of 100 requests runs, A reloads into PSS with a trace
#    file and a trace profile (files opened and created inside the
#    sandbox), B's stats file is rotated, both re-key one side at a time;
#    every reply comes back; both stop with exit status 0 (under the
#    sanitizers, LeakSanitizer's check at exit runs inside it too).
# 2. A test build's hook (SCHEDTUN_TEST_SYSCALL=socket: the daemon calls
#    socket() once at its first stats tick, as an exploited daemon
#    would), one daemon at a time:
#      sandbox on (default): the daemon dies of SIGSYS (wait status 159),
#        its last line is "sandbox: system call socket (41) is not
#        allowed: killed by SIGSYS (tunnel.sandbox = false ...)", and
#        the kernel's audit has the call (type 1326, code=0x30000: the
#        trap; an audit that cannot be read fails the test);
#      sandbox = false: it lives, Seccomp: 0, the call returned an error
#        of its own (not the sandbox's);
#      sandbox = "log": it lives, Seccomp: 2, and the kernel logged the
#        call (audit type 1326, syscall=41, code=0x7ffc0000, this pid).
set -euo pipefail
# shellcheck source=../../scripts/netns-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/netns-lib.sh"
st_test_begin "${1:-}" ping

fails=()
seccomp_of() { awk '/^Seccomp:/{print $2}' "/proc/$1/status"; }

st_ns_create
( umask 077; for k in k1 k2; do "$ST_SCHEDTUN" genkey >"$ST_WORK/$k"; done )
cp -p "$ST_WORK/k1" "$ST_WORK/a.key"; cp -p "$ST_WORK/k1" "$ST_WORK/b.key"
printf '0,20000000\n2,10000000\n4,20000000\n' >"$ST_WORK/rate.csv"

ST_STATS_A=$ST_WORK/a.jsonl ST_STATS_B=$ST_WORK/b.jsonl
common=(--rate 20Mbit --delay 10ms --stats-interval 0.5)
key() { echo "key_file = \"$1.key\"; key_grace = \"30s\";"; }
st_conf_write "$ST_WORK/a.conf" --address "$ST_TUN_A/24" --peer "$ST_UL_B:$ST_PORT" \
	--stats-file "$ST_STATS_A" --packet-log "$ST_WORK/a-plog.csv" "${common[@]}" \
	--tunnel-extra "$(key a)"
st_conf_write "$ST_WORK/b.conf" --address "$ST_TUN_B/24" --stats-file "$ST_STATS_B" \
	"${common[@]}" --tunnel-extra "$(key b)"

# ---- 1. the pair inside the sandbox
st_daemon_start b "$ST_NS_B" "$ST_WORK/b.conf"
st_daemon_start a "$ST_NS_A" "$ST_WORK/a.conf"
st_daemon_wait_ready b "$ST_TUN_B/24"
st_daemon_wait_ready a "$ST_TUN_A/24"
writer=$(pgrep -P "${ST_PIDS[a]}" -x schedtun-plog) || fails+=("A's packet log writer not found")
for p in "daemon A:${ST_PIDS[a]}" "daemon B:${ST_PIDS[b]}" "A's log writer:${writer:-0}"; do
	s=$(seccomp_of "${p##*:}" 2>/dev/null || echo none)
	echo "${p%%:*}: Seccomp: $s"
	[[ $s == 2 ]] || fails+=("${p%%:*} runs with Seccomp: $s, not 2 (filter)")
done
out=$(timeout 20 ip netns exec "$ST_NS_A" ping -n -c 3 -i 0.2 -W 2 "$ST_TUN_B" 2>&1) ||
	{ echo "$out" >&2; st_fail "ping across the sandboxed pair failed"; }

st_bg "$ST_NS_A" ping -n -c 100 -i 0.05 -W 2 "$ST_TUN_B"
bgping=$ST_LAST_PID bgping_log=$ST_LAST_LOG
st_conf_write "$ST_WORK/a.conf" --address "$ST_TUN_A/24" --peer "$ST_UL_B:$ST_PORT" \
	--stats-file "$ST_STATS_A" --packet-log "$ST_WORK/a-plog.csv" --delay 10ms \
	--stats-interval 0.5 --profile 'kind = "trace"; file = "rate.csv";' \
	--sched pss --sched-params "pss = { trace = \"$ST_WORK/pss-trace.csv\"; };" \
	--tunnel-extra "$(key a)"
st_daemon_signal a HUP
st_wait_for 5 "A to apply PSS with a trace inside the sandbox" \
	grep -q "applied (scheduler pss)" "$ST_WORK/a.log" ||
	{ st_daemon_log_tail a; fails+=("A did not apply a reload inside the sandbox"); }
[[ -f $ST_WORK/pss-trace.csv ]] || fails+=("the PSS trace file was not created inside the sandbox")
mv "$ST_STATS_B" "$ST_STATS_B.1"
st_daemon_signal b HUP
st_wait_stats "$ST_STATS_B" 2 5 || fails+=("B did not create its rotated stats file inside the sandbox")
st_rekey_pair "$ST_WORK/k2" "$ST_WORK/a.key" "$ST_WORK/b.key"
st_bg_ping_done "$bgping" "$bgping_log" 100 "across the reload, the rotation and the re-key"
for d in a b; do
	st_daemon_alive "$d" || fails+=("daemon $d died inside the sandbox: $(tail -n 2 "$ST_WORK/$d.log")")
done
st_pair_stop
grep -h "not allowed" "$ST_WORK/a.log" "$ST_WORK/b.log" &&
	fails+=("the sandbox refused a call of the working pair")

# ---- 2. a system call outside the list
# hook_run TAG SANDBOX_LINE : daemon A alone with SCHEDTUN_TEST_SYSCALL=socket;
# sets SOCKET_NR from its log (the number on this architecture).
hook_run() {
	st_conf_write "$ST_WORK/h-$1.conf" --address "$ST_TUN_A/24" \
		--peer "$ST_UL_B:$ST_PORT" --stats-interval 0.3 --tunnel-extra "$2" \
		--stats-file "$ST_WORK/h$1.jsonl"
	SCHEDTUN_TEST_SYSCALL=socket st_daemon_start "h$1" "$ST_NS_A" "$ST_WORK/h-$1.conf"
	st_wait_for 5 "daemon h$1 to announce the hook" \
		grep -q "test hook: will call socket (" "$ST_WORK/h$1.log" ||
		st_fail "daemon h$1 does not have the test hook (not a test build?)"
	SOCKET_NR=$(sed -n 's/.*test hook: will call socket (\([0-9]*\)).*/\1/p' "$ST_WORK/h$1.log")
}
hook_run on ""
rc=0
st_wait_pid_exit "${ST_PIDS[hon]}" 10 || rc=$?
unset "ST_PIDS[hon]"
last=$(tail -n 1 "$ST_WORK/hon.log")
echo "sandbox on: exit status $rc; last line: $last"
(( rc == 128 + 31 )) || fails+=("sandbox on: the daemon's exit status is $rc, not 159 (SIGSYS)")
grep -q "error: sandbox: system call socket ($SOCKET_NR) is not allowed: killed by SIGSYS (tunnel.sandbox = false turns the sandbox off" <<<"$last" ||
	fails+=("sandbox on: the last line does not name the call: $last")
kernel_log() {  # PID : the kernel's seccomp record of socket() by PID, if it can be read
	grep -qw "$2" /proc/sys/kernel/seccomp/actions_logged 2>/dev/null &&
		dmesg >/dev/null 2>&1 || return 2
	dmesg | grep "type=1326" | grep " pid=$1 " | grep " syscall=$SOCKET_NR " | tail -n 1
}
pid_on=$(sed -n 's/^schedtun\[\([0-9]*\)\]: error: sandbox:.*/\1/p' "$ST_WORK/hon.log" | tail -n 1)
rc=0; audit=$(kernel_log "$pid_on" trap) || rc=$?
echo "kernel log (on): ${audit:-none}"
if (( rc == 2 )); then
	fails+=("sandbox on: the kernel's audit cannot be read (dmesg as root, and 'trap' in /proc/sys/kernel/seccomp/actions_logged, are needed)")
else
	grep -q " code=0x30000" <<<"$audit" ||
		fails+=("sandbox on: no kernel audit record (type 1326, code=0x30000: SECCOMP_RET_TRAP) of socket() by pid $pid_on")
fi

hook_run off "sandbox = false;"
st_daemon_wait_ready hoff "$ST_TUN_A/24"
st_wait_for 5 "the hook to run with the sandbox off" grep -q "test hook: system call $SOCKET_NR returned" "$ST_WORK/hoff.log" ||
	fails+=("sandbox off: the hook did not run")
s=$(seccomp_of "${ST_PIDS[hoff]}")
echo "sandbox off: Seccomp: $s; $(grep 'test hook: system call' "$ST_WORK/hoff.log" | tail -n 1)"
[[ $s == 0 ]] || fails+=("sandbox = false: Seccomp: $s, not 0")
st_daemon_stop hoff || fails+=("sandbox off: the daemon did not stop with 0")

hook_run log 'sandbox = "log";'
st_daemon_wait_ready hlog "$ST_TUN_A/24"
st_wait_for 5 "the hook to run in log mode" grep -q "test hook: system call $SOCKET_NR returned" "$ST_WORK/hlog.log" ||
	fails+=("sandbox log: the hook did not run")
pid=${ST_PIDS[hlog]}
s=$(seccomp_of "$pid")
echo "sandbox log: Seccomp: $s"
[[ $s == 2 ]] || fails+=("sandbox = \"log\": Seccomp: $s, not 2")
st_daemon_stop hlog || fails+=("sandbox log: the daemon did not stop with 0")
rc=0; audit=$(kernel_log "$pid" log) || rc=$?
echo "kernel log (log): ${audit:-none}"
if (( rc == 2 )); then
	fails+=("sandbox log: the kernel's audit cannot be read (dmesg as root, and 'log' in /proc/sys/kernel/seccomp/actions_logged, are needed)")
else
	grep -q " code=0x7ffc0000" <<<"$audit" ||
		fails+=("sandbox log: no kernel audit record (code=0x7ffc0000: SECCOMP_RET_LOG) of socket() by pid $pid")
fi
st_finish
