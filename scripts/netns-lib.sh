# netns-lib.sh - network-namespace helpers for schedtun tests and benches.
# shellcheck shell=bash
#
# Source this file from a bash script (it does not run anything by itself):
#
#   set -euo pipefail
#   source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/netns-lib.sh"
#   st_test_begin "${1:-}" ping     # = st_require_root (st_skip if not root
#                                   # or no /dev/net/tun), st_init "$1" (schedtun
#                                   # binary; names, work dir, traps),
#                                   # st_require_cmd ping
#   st_ns_create                    # two namespaces + veth underlay
#   st_pair_start --rate 20Mbit --delay 250ms --sched fifo   # daemons a, b
#   ip netns exec "$ST_NS_A" ping -c 3 "$ST_TUN_B"
#   st_daemon_stop a; st_daemon_stop b
#
# Topology (everything lives in two namespaces created here, nothing is
# added to the caller's namespace):
#
#   ns $ST_NS_A                                   ns $ST_NS_B
#   st0 10.10.0.1/24  (daemon "a")                st0 10.10.0.2/24  (daemon "b")
#   ul0 10.0.0.1/24  <======== veth ========>     ul0 10.0.0.2/24
#
# Namespace names are "st-<pid>-a" / "st-<pid>-b" with <pid> the sourcing
# script's pid, so concurrent runs never collide.  st_cleanup (registered on
# EXIT, INT and TERM by st_init) kills every process in both namespaces
# (`ip netns pids`) and deletes them; it is idempotent.
#
# Readiness is always polled against a deadline (st_wait_for); nothing here
# sleeps a fixed time hoping that something is ready.  IPv6 is disabled in
# both namespaces (no router solicitations or MLD reports crossing the
# tunnel, so counts are exact) unless ST_IPV6=1.  ST_KEEP=1 keeps the work
# directory (configs, stats, logs); on a failing exit the logs' last lines
# are printed.
#
# API (see each function's comment):
#   st_test_begin BIN [CMD...], ST_ROOT, ST_STATS_PY (the stats.py command, an array)
#   st_require_root, st_require_cmd CMD..., st_init BIN, st_on_cleanup CMD
#   st_ns_create, st_cleanup
#   st_conf_write FILE [--rate R|--profile BODY] [--delay D] [--sched S] ...
#   st_daemon_start NAME NS CONF, st_daemon_wait_ready NAME ADDR/N [T]
#   st_daemon_alive NAME, st_daemon_signal NAME SIG, st_daemon_stop NAME [T]
#   st_daemon_log_tail NAME, st_pair_start [...], st_pair_stop
#   st_stats_lines FILE, st_wait_stats FILE N [T]
#   st_bg NS CMD..., st_run_bounded T NS CMD..., st_wait_pid_exit PID T
#   st_wait_listen NS tcp|udp PORT [T]
#   st_udp_flood NS DST SECONDS PORT:TOS:RATE_BPS:BYTES...
#   st_stats_last FILE PYEXPR, st_class_seen FILE CLASS
#   st_field PATH FILE, st_tun_rx_packets NS, st_rx_pkts FILE,
#   st_rx_checks FILE TUN_RX EXPECT REASON..., st_finish,
#   st_bg_ping_done PID LOG COUNT WHAT, st_ping_ok COUNT WHAT
#   st_iperf_mix_start FILE DST SECONDS [options], st_iperf_mix_wait,
#   st_servers_stop T PID...
#   st_wait_for T DESC CMD..., st_log, st_fail, st_skip
#
# Conventions: functions are st_*, internal ones st__*; globals ST_*.
# Functions return non-zero on failure with a message on stderr; st_fail
# prints "FAIL: ..." and exits 1.

# ---------------------------------------------------------------- globals
ST_UL_A=10.0.0.1            # underlay addresses (veth)
ST_UL_B=10.0.0.2
ST_TUN_A=10.10.0.1          # tunnel (inner) addresses
ST_TUN_B=10.10.0.2
ST_TUN_NAME=st0
ST_PORT=5000                # daemon UDP listen port on both sides
ST_NS_A=""
ST_NS_B=""
ST_WORK=""                  # per-run temporary directory
ST_SCHEDTUN=""              # path of the schedtun binary
ST_NAME=${ST_NAME:-$(basename "${0:-schedtun}" .sh)}   # prefix for messages
ST_LAST_PID=""
ST_LAST_LOG=""
declare -gA ST_PIDS=()      # daemon name -> pid
declare -gA ST_NS_OF=()     # daemon name -> namespace
declare -ga ST_CLEANUP_HOOKS=()
declare -ga ST_CHILDREN=()  # every background child started here (reaped by cleanup)
ST__CLEANED=0

# ---------------------------------------------------------------- messages
st_log()  { printf '%s: %s\n' "$ST_NAME" "$*" >&2; }
st_fail() { printf 'FAIL: %s: %s\n' "$ST_NAME" "$*" >&2; exit 1; }
# st_skip [--part] REASON: this machine cannot run the test (--part: one
# part of it).  A test that cannot run fails: "FAIL: NAME: cannot run:
# REASON", exit 1.  Only a caller who declared the machine unable, with
# SCHEDTUN_TEST_ALLOW_SKIP=WHY in the environment (never set by CI; see
# docs/testing.md), gets a skip: "SKIP: NAME: REASON" on stderr (the line
# scripts/test.sh lists), then exit 77 (ctest: Not Run), or, with --part,
# the test goes on without that part.
st_skip() {
	local part=0
	[[ ${1:-} == --part ]] && { part=1; shift; }
	if [[ -z ${SCHEDTUN_TEST_ALLOW_SKIP:-} ]]; then
		printf 'FAIL: %s: cannot run: %s (a test that cannot run fails; on a machine that cannot run it, set SCHEDTUN_TEST_ALLOW_SKIP=REASON to accept the skip)\n' \
			"$ST_NAME" "$*" >&2
		exit 1
	fi
	printf 'SKIP: %s: %s\n' "$ST_NAME" "$*" >&2
	(( part )) || exit 77
}

# The machine cannot run the integration tests at all: st_skip (a failure
# unless SCHEDTUN_TEST_ALLOW_SKIP is set), with what is missing and what to do.
st_require_root() {
	[[ $(id -u) -eq 0 ]] ||
		st_skip "needs root (network namespaces, tun devices): run it as root, or with sudo"
	[[ -c /dev/net/tun ]] ||
		st_skip "/dev/net/tun is missing (load the tun module: modprobe tun; in a container, pass the device in)"
}

# st_require_cmd CMD... : fail (not skip) when a tool the test needs is absent.
st_require_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 ||
			st_fail "required command '$c' not found (install it: see README)"
	done
}

# ---------------------------------------------------------------- polling
# st_now_ms: monotonic-enough wall clock in milliseconds (bash 5 EPOCHREALTIME).
st_now_ms() {
	local t=${EPOCHREALTIME/[.,]/}
	echo $(( t / 1000 ))
}

# st_wait_for TIMEOUT_S DESCRIPTION CMD [ARGS...]
# Runs CMD every 50 ms until it succeeds (returns 0) or TIMEOUT_S elapses
# (returns 1 with a message).  TIMEOUT_S may be fractional.
st_wait_for() {
	local timeout=$1 desc=$2; shift 2
	local deadline now
	deadline=$(( $(st_now_ms) + $(awk -v t="$timeout" 'BEGIN{printf "%d", t*1000}') ))
	while :; do
		if "$@"; then return 0; fi
		now=$(st_now_ms)
		if (( now >= deadline )); then
			st_log "timed out after ${timeout}s waiting for: $desc"
			return 1
		fi
		sleep 0.05
	done
}

# ---------------------------------------------------------------- set-up
ST_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)   # the repository
ST_STATS_PY=(python3 "$ST_ROOT/scripts/stats.py")           # stats.py, to run

# st_test_begin SCHEDTUN_BINARY [CMD...]
# The opening every integration test shares, after `set -euo pipefail` and
# sourcing this file: ST_NAME from the test script's name, st_skip (a
# failure unless SCHEDTUN_TEST_ALLOW_SKIP is set) unless root with a tun
# device (st_require_root), st_init SCHEDTUN_BINARY, then
# fail unless each CMD the test runs is installed (st_require_cmd).
st_test_begin() {
	ST_NAME=$(basename "${BASH_SOURCE[1]}" .sh)
	st_require_root
	st_init "${1:-}"
	shift || true
	st_require_cmd "$@"
}

# st_init SCHEDTUN_BINARY
# Picks namespace names, creates the work directory and registers st_cleanup.
st_init() {
	local bin=${1:-}
	[[ -n $bin ]] || st_fail "usage: $0 /path/to/schedtun"
	[[ -x $bin ]] || st_fail "schedtun binary '$bin' is not an executable file"
	ST_SCHEDTUN=$(readlink -f "$bin")
	ST_NS_A="st-$$-a"
	ST_NS_B="st-$$-b"
	ST_WORK=$(mktemp -d "${TMPDIR:-/tmp}/schedtun-${ST_NAME}.XXXXXX")
	# the daemons' user must read and create files there after the drop
	[[ -z ${ST_DAEMON_USER:-} ]] || chown "$ST_DAEMON_USER" "$ST_WORK"
	ST__CLEANED=0
	trap 'st__on_exit' EXIT
	trap 'st__on_signal 130' INT
	trap 'st__on_signal 143' TERM
}

# st_on_cleanup 'COMMAND' : run COMMAND (eval'd) first during cleanup.
st_on_cleanup() { ST_CLEANUP_HOOKS+=("$1"); }

# st_experiment_lock FORCE ARGS... : what a measuring script (a benchmark,
# an example whose numbers go into the docs) does first.  Takes the
# experiment lock ST_EXPERIMENT_LOCK on fd 9 for the rest of the script (as
# mininet/schedlab/lock.py takes it; the lock goes with the process, also
# on a crash), names the holder in it ("pid N: $0 ARGS"), empties it at
# cleanup as lock.py's release() does, and refuses a busy machine
# (schedtun, iperf3 or Mininet running: scripts/plog-bench.py idle) unless
# FORCE is 1, when it says it runs beside them.
ST_EXPERIMENT_LOCK=/run/schedtun-experiment.lock
st_experiment_lock() {
	local force=$1; shift
	exec 9<>"$ST_EXPERIMENT_LOCK" ||
		st_fail "experiment lock $ST_EXPERIMENT_LOCK: cannot open (run as root)"
	flock -n 9 || st_fail "experiment lock $ST_EXPERIMENT_LOCK: held by $(cat "$ST_EXPERIMENT_LOCK" 2>/dev/null || echo '?'); wait for it to finish"
	printf 'pid %d: %s\n' "$$" "$0 $*" >"$ST_EXPERIMENT_LOCK"
	# shellcheck disable=SC2016  # eval'd by st_cleanup
	st_on_cleanup ': >"$ST_EXPERIMENT_LOCK"'
	if ! /usr/bin/python3 "$ST_ROOT/scripts/plog-bench.py" idle; then
		(( force )) || st_fail "the machine is busy (above); stop them, or --force to run anyway"
		st_log "--force: running beside them; the results say so"
	fi
}

# st__sweep_stale: namespaces "st-<pid>-a|b" whose <pid> is gone are left
# over by a run killed without cleanup (SIGKILL).  Empty ones are deleted;
# ones still holding processes are only reported (not ours to kill).
st__sweep_stale() {
	local ns pid
	for ns in $(ip netns list 2>/dev/null | awk '{print $1}'); do
		[[ $ns =~ ^st-([0-9]+)-[ab]$ ]] || continue
		pid=${BASH_REMATCH[1]}
		[[ $pid == "$$" || -d /proc/$pid ]] && continue
		if [[ -z $(ip netns pids "$ns" 2>/dev/null) ]]; then
			ip netns del "$ns" 2>/dev/null && st_log "deleted stale empty namespace $ns"
		else
			st_log "warning: stale namespace $ns (pid $pid is gone) still has processes: $(ip netns pids "$ns" | tr '\n' ' ')"
		fi
	done
}

# st_ns_create: both namespaces, lo up, the veth underlay, addresses, link up.
st_ns_create() {
	local ns
	st__sweep_stale
	for ns in "$ST_NS_A" "$ST_NS_B"; do
		# Same name => same pid => a stale leftover of a dead run: remove it.
		if ip netns list | awk '{print $1}' | grep -qx -- "$ns"; then
			st_log "removing stale namespace $ns"
			st__ns_destroy "$ns"
		fi
		ip netns add "$ns" || st_fail "ip netns add $ns failed"
		ip -n "$ns" link set lo up || st_fail "lo up in $ns failed"
		# No IPv6 on new interfaces (st0): the kernel's own router
		# solicitations and MLD reports would be stray tunnel traffic
		# that makes exact counts racy.  ST_IPV6=1 keeps IPv6.
		if [[ -z ${ST_IPV6:-} ]]; then
			ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.disable_ipv6=1 \
				net.ipv6.conf.all.disable_ipv6=1 2>/dev/null || true
		fi
	done
	ip -n "$ST_NS_A" link add ul0 type veth peer name ul0 netns "$ST_NS_B" ||
		st_fail "cannot create the veth pair between $ST_NS_A and $ST_NS_B"
	ip -n "$ST_NS_A" addr add "$ST_UL_A/24" dev ul0
	ip -n "$ST_NS_B" addr add "$ST_UL_B/24" dev ul0
	ip -n "$ST_NS_A" link set ul0 up
	ip -n "$ST_NS_B" link set ul0 up
	st_wait_for 5 "veth ul0 up in both namespaces" st__veth_up ||
		st_fail "veth underlay did not come up"
}

st__veth_up() {
	ip -n "$ST_NS_A" -o link show ul0 2>/dev/null | grep -q 'LOWER_UP' &&
	ip -n "$ST_NS_B" -o link show ul0 2>/dev/null | grep -q 'LOWER_UP'
}

# ---------------------------------------------------------------- config
# st_conf_write FILE [options]   writes a schedtun config (libconfig syntax).
#   --tun NAME          (st0)            --address A/N   (none)
#   --mtu N             (1400)           --listen H:P    (0.0.0.0:5000)
#   --pool N            (omitted: the daemon's default)
#   --offload BOOL      (omitted: the daemon's default, on) tunnel.offload
#   --tun-gro BOOL      (omitted: the daemon's default, on) tunnel.tun_gro
#   --realtime N        (omitted: the daemon's default, 0 = off) tunnel.realtime
#   --peer H:P          (none: the daemon pins the first valid sender)
#   --rate RATE         (20Mbit)         --profile 'BODY' (instead of rate:
#                                          kind = "cosine"; mean = ...; ...)
#   --delay D           (0ms)            --sched NAME    (fifo)
#   --slack D           (omitted: the daemon's default, 0) link.slack
#   --sched-params 'TEXT'  extra members of the scheduler group
#   --classes 'TEXT'       body of the classes group (default: omitted)
#   --stats-file F      (none: stdout)   --stats-interval S (1.0, seconds)
#   --link-extra 'TEXT'    extra members of the link group (e.g. spin = "1ms";)
#   --tunnel-extra 'TEXT'  extra members of the tunnel group (key_file = ...;)
#   --extra 'TEXT'         appended verbatim at the end
st_conf_write() {
	local file=$1; shift
	local tun=$ST_TUN_NAME address="" mtu=1400 listen="0.0.0.0:$ST_PORT" peer="" pool=""
	local rate=20Mbit profile="" delay=0ms sched=fifo sched_params="" classes=""
	local stats_file="" stats_interval=1.0 extra="" offload="" tun_gro="" slack=""
	local link_extra="" realtime="" packet_log="" tunnel_extra=""
	while (( $# )); do
		[[ $# -ge 2 ]] || st_fail "st_conf_write: option $1 needs a value"
		case $1 in
		--tun) tun=$2 ;;
		--address) address=$2 ;;
		--mtu) mtu=$2 ;;
		--pool) pool=$2 ;;
		--offload) offload=$2 ;;
		--tun-gro) tun_gro=$2 ;;
		--slack) slack=$2 ;;
		--realtime) realtime=$2 ;;
		--listen) listen=$2 ;;
		--peer) peer=$2 ;;
		--rate) rate=$2 ;;
		--profile) profile=$2 ;;
		--delay) delay=$2 ;;
		--sched) sched=$2 ;;
		--sched-params) sched_params=$2 ;;
		--classes) classes=$2 ;;
		--stats-file) stats_file=$2 ;;
		--stats-interval) stats_interval=$2 ;;
		--packet-log) packet_log=$2 ;;
		--extra) extra=$2 ;;
		--link-extra) link_extra=$2 ;;
		--tunnel-extra) tunnel_extra=$2 ;;
		*) st_fail "st_conf_write: unknown option $1" ;;
		esac
		shift 2
	done
	# libconfig: "1" is an int, "1.0" a float; the interval is a float.
	[[ $stats_interval == *.* ]] || stats_interval="$stats_interval.0"
	{
		echo "# generated by netns-lib.sh st_conf_write"
		echo "tunnel = {"
		echo "  tun     = \"$tun\";"
		[[ -n $address ]] && echo "  address = \"$address\";"
		echo "  mtu     = $mtu;"
		echo "  listen  = \"$listen\";"
		[[ -n $peer ]] && echo "  peer    = \"$peer\";"
		[[ -n $pool ]] && echo "  pool    = $pool;"
		[[ -n $offload ]] && echo "  offload = $offload;"
		[[ -n $tun_gro ]] && echo "  tun_gro = $tun_gro;"
		[[ -n $realtime ]] && echo "  realtime = $realtime;"
		[[ -n $tunnel_extra ]] && echo "  $tunnel_extra"
		# ST_DAEMON_USER: every daemon gives up root to it (a survey of
		# the whole label under the privilege drop; docs/testing.md)
		[[ -n ${ST_DAEMON_USER:-} && $tunnel_extra != *"user ="* ]] &&
			echo "  user = \"$ST_DAEMON_USER\";"
		echo "};"
		echo "link = {"
		if [[ -n $profile ]]; then
			echo "  profile = { $profile };"
		else
			echo "  rate  = \"$rate\";"
		fi
		echo "  delay = \"$delay\";"
		[[ -n $slack ]] && echo "  slack = \"$slack\";"
		[[ -n $link_extra ]] && echo "  $link_extra"
		echo "};"
		[[ -n $classes ]] && printf 'classes = {\n%s\n};\n' "$classes"
		echo "scheduler = {"
		echo "  name = \"$sched\";"
		[[ -n $sched_params ]] && echo "  $sched_params"
		echo "};"
		echo "stats = {"
		echo "  interval = $stats_interval;"
		[[ -n $stats_file ]] && echo "  file = \"$stats_file\";"
		[[ -n $packet_log ]] && echo "  packet_log = \"$packet_log\";"
		echo "};"
		[[ -n $extra ]] && echo "$extra"
		true
	} >"$file.tmp.$$" || st_fail "cannot write $file"
	mv -f "$file.tmp.$$" "$file"    # atomic: a SIGHUP never sees half a file
}

# ---------------------------------------------------------------- daemons
# st_daemon_start NAME NS CONF
# Starts `schedtun -f CONF` in namespace NS in the background (stdout and
# stderr to $ST_WORK/NAME.log).  Sets ST_PIDS[NAME] and ST_LAST_PID.
# Must not be called in a subshell ($(...)): the daemon must be our child.
st_daemon_start() {
	local name=$1 ns=$2 conf=$3
	[[ -z ${ST_PIDS[$name]:-} ]] || st_fail "daemon '$name' already running"
	local log="$ST_WORK/$name.log"
	# `ip netns exec` execs in place: $! is the daemon's own pid.
	ip netns exec "$ns" "$ST_SCHEDTUN" -f "$conf" >>"$log" 2>&1 &
	ST_LAST_PID=$!
	ST_CHILDREN+=("$ST_LAST_PID")
	ST_PIDS[$name]=$ST_LAST_PID
	ST_NS_OF[$name]=$ns
}

# st_daemon_alive NAME : 0 when the daemon process still runs (not a zombie).
st_daemon_alive() { st__pid_alive "${ST_PIDS[$1]:-}"; }

st__pid_alive() {
	local pid=$1 state
	[[ -n $pid ]] || return 1
	kill -0 "$pid" 2>/dev/null || return 1
	state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) || return 1
	[[ $state != Z && $state != X ]]
}

# st_daemon_wait_ready NAME ADDR/PREFIX [TIMEOUT_S]
# Polls until the daemon's tun carries ADDR/PREFIX and is up; fails early
# (with the log) if the daemon exits meanwhile.
st_daemon_wait_ready() {
	local name=$1 addr=$2 timeout=${3:-15}
	st_wait_for "$timeout" "daemon '$name': $ST_TUN_NAME has $addr and is up" \
		st__daemon_ready "$name" "$addr" || {
		st_daemon_log_tail "$name"
		if st_daemon_alive "$name"; then
			st_fail "daemon '$name' did not configure $ST_TUN_NAME within ${timeout}s"
		fi
		local rc=0; wait "${ST_PIDS[$name]}" || rc=$?
		unset "ST_PIDS[$name]"
		st_fail "daemon '$name' exited with status $rc during start-up"
	}
}

st__daemon_ready() {
	local name=$1 addr=$2 ns=${ST_NS_OF[$1]}
	st_daemon_alive "$name" || return 2
	ip -n "$ns" -o addr show dev "$ST_TUN_NAME" 2>/dev/null | grep -qF " $addr " || return 1
	ip -n "$ns" -o link show dev "$ST_TUN_NAME" 2>/dev/null | grep -q '[<,]UP[,>]'
}

# st_stats_lines FILE : number of complete (newline-terminated) lines.
st_stats_lines() {
	[[ -f $1 ]] || { echo 0; return; }
	wc -l <"$1" | tr -d ' '
}

# st_wait_stats FILE N [TIMEOUT_S] : wait until FILE has at least N lines.
st_wait_stats() {
	local file=$1 n=$2 timeout=${3:-10}
	st_wait_for "$timeout" "$n stats line(s) in $file" st__stats_ge "$file" "$n"
}
st__stats_ge() { (( $(st_stats_lines "$1") >= $2 )); }

# st_daemon_signal NAME SIG
st_daemon_signal() {
	local pid=${ST_PIDS[$1]:-}
	[[ -n $pid ]] || st_fail "daemon '$1' is not running"
	kill -s "$2" "$pid" || st_fail "cannot send SIG$2 to daemon '$1' (pid $pid)"
}

# st_daemon_stop NAME [TIMEOUT_S]
# SIGTERM, wait (bounded) for the exit, reap it; returns 0 only if the
# daemon exited with status 0.  On timeout it is SIGKILLed and 1 returned.
st_daemon_stop() {
	local name=$1 timeout=${2:-10}
	local pid=${ST_PIDS[$name]:-}
	[[ -n $pid ]] || { st_log "daemon '$name' is not running"; return 1; }
	kill -TERM "$pid" 2>/dev/null || true
	if ! st_wait_for "$timeout" "daemon '$name' (pid $pid) to exit after SIGTERM" \
		st__pid_gone "$pid"; then
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		unset "ST_PIDS[$name]"
		st_daemon_log_tail "$name"
		return 1
	fi
	local rc=0
	wait "$pid" 2>/dev/null || rc=$?
	unset "ST_PIDS[$name]"
	if (( rc != 0 )); then
		st_log "daemon '$name' exited with status $rc after SIGTERM (expected 0)"
		st_daemon_log_tail "$name"
		return 1
	fi
	return 0
}
st__pid_gone() { ! st__pid_alive "$1"; }

# st_daemon_log_tail NAME [LINES]
st_daemon_log_tail() {
	local log="$ST_WORK/$1.log"
	[[ -f $log ]] || return 0
	echo "----- last ${2:-30} lines of $1.log -----" >&2
	tail -n "${2:-30}" "$log" >&2
	echo "-----" >&2
}

# st_pair_start [--no-peer-b] [--tag T] [--plog-a FILE] [--plog-b FILE]
#               [st_conf_write options...]
# Writes $ST_WORK/aT.conf and bT.conf (same options; a: 10.10.0.1/24, peer
# b's underlay; b: 10.10.0.2/24, peer a's underlay unless --no-peer-b),
# stats to $ST_WORK/aT.jsonl and bT.jsonl (T empty unless --tag), starts
# both daemons ("a" in $ST_NS_A, "b" in $ST_NS_B) and waits until both tuns
# are ready.  Sets ST_CONF_A/B and ST_STATS_A/B to those paths.  --plog-a/-b:
# that daemon's stats.packet_log.
ST_CONF_A=""; ST_CONF_B=""; ST_STATS_A=""; ST_STATS_B=""
st_pair_start() {
	local peer_b=(--peer "$ST_UL_A:$ST_PORT") tag="" plog_a=() plog_b=()
	while (( $# )); do
		case $1 in
		--no-peer-b) peer_b=(); shift ;;
		--tag) tag=$2; shift 2 ;;
		--plog-a) plog_a=(--packet-log "$2"); shift 2 ;;
		--plog-b) plog_b=(--packet-log "$2"); shift 2 ;;
		*) break ;;
		esac
	done
	ST_CONF_A="$ST_WORK/a$tag.conf";   ST_CONF_B="$ST_WORK/b$tag.conf"
	ST_STATS_A="$ST_WORK/a$tag.jsonl"; ST_STATS_B="$ST_WORK/b$tag.jsonl"
	rm -f "$ST_STATS_A" "$ST_STATS_B"
	st_conf_write "$ST_CONF_A" --address "$ST_TUN_A/24" \
		--peer "$ST_UL_B:$ST_PORT" --stats-file "$ST_STATS_A" "${plog_a[@]}" "$@"
	st_conf_write "$ST_CONF_B" --address "$ST_TUN_B/24" "${peer_b[@]}" \
		--stats-file "$ST_STATS_B" "${plog_b[@]}" "$@"
	st_daemon_start b "$ST_NS_B" "$ST_CONF_B"
	st_daemon_start a "$ST_NS_A" "$ST_CONF_A"
	st_daemon_wait_ready b "$ST_TUN_B/24"
	st_daemon_wait_ready a "$ST_TUN_A/24"
}

# st_pair_stop : stop a then b, failing the test unless both exit 0.
st_pair_stop() {
	local ok=1
	st_daemon_stop a || ok=0
	st_daemon_stop b || ok=0
	(( ok )) || st_fail "a daemon did not stop cleanly (SIGTERM -> exit 0)"
}

# ---------------------------------------------------------------- traffic
# st_bg NS CMD... : run CMD in namespace NS in the background, output to
# $ST_WORK/bgN-CMD.log; sets ST_LAST_PID and ST_LAST_LOG.  Cleanup kills it
# with the namespace.
st_bg() {
	local ns=$1; shift
	local log
	ST__BGN=$(( ${ST__BGN:-0} + 1 ))
	log="$ST_WORK/bg$ST__BGN-$(basename "$1").log"
	ip netns exec "$ns" "$@" >"$log" 2>&1 &
	ST_LAST_PID=$!
	# shellcheck disable=SC2034  # for callers
	ST_LAST_LOG=$log
	ST_CHILDREN+=("$ST_LAST_PID")
}

# st_wait_listen NS tcp|udp PORT [TIMEOUT_S] : a socket listens/binds on PORT.
st_wait_listen() {
	local ns=$1 proto=$2 port=$3 timeout=${4:-10}
	st_wait_for "$timeout" "$proto port $port bound in $ns" \
		st__listening "$ns" "$proto" "$port"
}
st__listening() {
	local flag=-t; [[ $2 == udp ]] && flag=-u
	[[ -n $(ip netns exec "$1" ss -Hln "$flag" "sport = :$3" 2>/dev/null) ]]
}

# st_wait_pid_exit PID TIMEOUT_S : bounded wait for a background child;
# returns its exit status (or 124 after killing it on timeout).
st_wait_pid_exit() {
	local pid=$1 timeout=$2 rc=0
	if ! st_wait_for "$timeout" "pid $pid to finish" st__pid_gone "$pid"; then
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		return 124
	fi
	wait "$pid" 2>/dev/null || rc=$?
	return "$rc"
}

# st_run_bounded TIMEOUT_S NS CMD... : runs CMD in NS and waits for it at
# most TIMEOUT_S (then SIGKILL, status 124); output in $ST_LAST_LOG.  Unlike
# a foreground command, the wait is a polling loop, so INT/TERM traps (and
# the cleanup) run at once instead of after CMD ends.
st_run_bounded() {
	local timeout=$1; shift
	st_bg "$@"
	st_wait_pid_exit "$ST_LAST_PID" "$timeout"
}

# st_field PATH FILE : the numeric stats field PATH (dotted, e.g.
# io.tun_segments) summed over the lines of stats file FILE.
st_field() {
	"${ST_STATS_PY[@]}" field "$1" "$2"
}

# st_tun_rx_packets NS : the kernel's RX packet counter of NS's tun (read it
# before the daemon stops: the tun goes with it).
st_tun_rx_packets() {
	ip netns exec "$1" cat "/sys/class/net/$ST_TUN_NAME/statistics/rx_packets"
}

# st_rx_pkts FILE : the packets a daemon wrote to its tun, by its stats
# lines (rx.ef + rx.af + rx.cs0 .pkts over the file).
st_rx_pkts() {
	echo $(( $(st_field rx.ef.pkts "$1") + $(st_field rx.af.pkts "$1") +
		 $(st_field rx.cs0.pkts "$1") ))
}

# st_rx_checks FILE TUN_RX EXPECT_NAME REASON... : every drops.REASON of the
# stats FILE against the associative array named EXPECT_NAME (0 when not
# in it), and TUN_RX (st_tun_rx_packets, read before the stop) against
# st_rx_pkts FILE: nothing refused reached the tun.  Prints each value;
# appends a message per mismatch to the caller's `fails` array.
st_rx_checks() {
	local file=$1 tun_rx=$2 r got exp sum
	local -n want=$3
	shift 3
	for r in "$@"; do
		got=$(st_field "drops.$r" "$file")
		exp=${want[$r]:-0}
		echo "$(basename "$file" .jsonl) drops.$r=$got expected=$exp"
		(( got == exp )) || fails+=("$(basename "$file"): drops.$r = $got, expected $exp")
	done
	sum=$(st_rx_pkts "$file")
	echo "tun_rx_packets=$tun_rx stats_rx_pkts=$sum"
	(( tun_rx == sum )) || fails+=("the tun received $tun_rx packets but $(basename "$file") counts $sum written (refused datagrams reached the tun?)")
}

# st_bg_ping_done PID LOG COUNT WHAT : waits (at most COUNT / 10 + 20 s) for
# a background ping of COUNT requests started with st_bg; prints its
# summary; appends to the caller's `fails` unless it exited 0 with all
# COUNT replies.  WHAT says when it ran ("during the garbage").
st_bg_ping_done() {
	local pid=$1 log=$2 count=$3 what=$4 rc=0
	st_wait_pid_exit "$pid" $(( count / 10 + 20 )) || rc=$?
	echo "$what: $(grep 'packets transmitted' "$log" || echo 'no summary')"
	(( rc == 0 )) || fails+=("the ping $what failed (status $rc)")
	grep -q " $count received" "$log" || fails+=("the ping $what lost replies")
}

# st_ping_ok COUNT WHAT : COUNT pings from A to B's tunnel address, 0.2 s
# apart; prints the summary; a failure goes to the caller's `fails`.
st_ping_ok() {
	local out
	out=$(timeout 20 ip netns exec "$ST_NS_A" ping -n -c "$1" -i 0.2 -W 2 "$ST_TUN_B" 2>&1) ||
		{ echo "$out" >&2; fails+=("ping $2 failed"); }
	echo "$2: $(echo "$out" | grep 'packets transmitted')"
}

# st_rekey_pair NEWKEY KEYFILE_A KEYFILE_B [install options...] : the
# lossless re-key by SIGHUP, one side at a time (docs/security.md): NEWKEY
# into A's key file (install(1) with the options, default mode 0600),
# SIGHUP A, wait until A's stats ($ST_STATS_A) show it accepting B's
# datagrams under its previous key (auth.prev_key > 0: the half-way
# state, observed), then the same for B.  Fails the test when a daemon
# does not log reading the new key.
st_rekey_pair() {
	local key=$1 ka=$2 kb=$3; shift 3
	st__rekey a "$key" "$ka" "$@"
	st_wait_for 5 "A to accept datagrams under its previous key" st__prev_key_seen ||
		st_fail "A, re-keyed first, did not accept the peer's old-key datagrams"
	st__rekey b "$key" "$kb" "$@"
}
st__rekey() {
	local name=$1 key=$2 file=$3; shift 3
	install -m 600 "$@" "$key" "$file.new" && mv -f "$file.new" "$file" ||
		st_fail "cannot write the new key into $file"
	st_daemon_signal "$name" HUP
	st_wait_for 5 "daemon '$name' to read its new key" \
		grep -q "a new key from" "$ST_WORK/$name.log" ||
		{ st_daemon_log_tail "$name"; st_fail "daemon '$name' did not re-key on SIGHUP"; }
}
st__prev_key_seen() {
	local v
	v=$(st_field auth.prev_key "$ST_STATS_A" 2>/dev/null) || return 1
	(( ${v:-0} > 0 ))
}

# st_finish : FAIL lines for the caller's `fails` and exit 1, or PASS.
st_finish() {
	local f
	if (( ${#fails[@]} )); then
		for f in "${fails[@]}"; do echo "FAIL: $ST_NAME: $f" >&2; done
		exit 1
	fi
	echo "PASS: $ST_NAME"
}

# st_iperf_tcp TAG DST SECS [iperf3 client options...]
# One iperf3 TCP transfer (cubic, port 5201) from $ST_NS_A to DST, the
# server in $ST_NS_B for that one test; the client's JSON is kept in
# $ST_WORK/iperf-TAG.json.  Sets ST_IPERF_RX_BYTES to the bytes the server
# received (0 when unknown); status 1 when the client failed.
ST_IPERF_RX_BYTES=0
st_iperf_tcp() {
	local tag=$1 dst=$2 secs=$3 rc=0; shift 3
	local json="$ST_WORK/iperf-$tag.json" srv
	st_bg "$ST_NS_B" iperf3 -s -1 -p 5201
	srv=$ST_LAST_PID
	st_wait_listen "$ST_NS_B" tcp 5201 || st_fail "iperf3 server did not start"
	st_run_bounded $(( secs + 30 )) "$ST_NS_A" iperf3 -c "$dst" -p 5201 \
		-C cubic -t "$secs" -J --connect-timeout 5000 "$@" || rc=1
	cp "$ST_LAST_LOG" "$json"
	st_wait_pid_exit "$srv" 5 || echo "WARN: iperf3 server did not exit by itself" >&2
	ST_IPERF_RX_BYTES=$(python3 -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["end"]["sum_received"]["bytes"]))' "$json" 2>/dev/null || echo 0)
	return "$rc"
}

# st_udp_flood NS DST DURATION_S FLOW...
# Paced UDP sender (python3, stdlib) run in namespace NS, in the foreground.
# FLOW is PORT:TOS:RATE_BPS:PAYLOAD_BYTES, e.g. 6000:0xb8:2000000:1000.
# Prints one line per flow: "flow port=P tos=T sent_pkts=N sent_bytes=B".
st_udp_flood() {
	local ns=$1 dst=$2 dur=$3; shift 3
	ip netns exec "$ns" python3 -c "$ST__PY_FLOOD" "$dst" "$dur" "$@"
}

ST__PY_FLOOD='
import socket, sys, time
dst, dur = sys.argv[1], float(sys.argv[2])
flows = []
for spec in sys.argv[3:]:
    port, tos, rate, size = spec.split(":")
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.IPPROTO_IP, socket.IP_TOS, int(tos, 0))
    size = int(size)
    flows.append({"s": s, "port": int(port), "tos": tos, "size": size,
                  "gap": size * 8.0 / float(rate), "next": 0.0, "n": 0, "b": 0,
                  "payload": bytes(size)})
t0 = time.monotonic()
for f in flows:
    f["next"] = t0
end = t0 + dur
while True:
    f = min(flows, key=lambda x: x["next"])
    if f["next"] >= end:
        break
    now = time.monotonic()
    if f["next"] > now:
        time.sleep(f["next"] - now)
    elif now - f["next"] > 0.2:
        f["next"] = now          # fell far behind (descheduled): no burst
    try:
        f["s"].sendto(f["payload"], (dst, f["port"]))
        f["n"] += 1
        f["b"] += f["size"]
    except OSError:
        pass                     # ENOBUFS etc.: counted as not sent
    f["next"] += f["gap"]
for f in flows:
    print("flow port=%d tos=%s sent_pkts=%d sent_bytes=%d"
          % (f["port"], f["tos"], f["n"], f["b"]))
'

# ---------------------------------------------------------------- stats, iperf3 mix
# st_stats_last FILE PYEXPR : evaluates PYEXPR (python, the parsed last
# complete line is `o`) on FILE's last complete stats line and prints it;
# prints nothing when the file has no complete line yet.
st_stats_last() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
try:
    lines = [l for l in open(sys.argv[1]).read().split("\n")[:-1] if l.strip()]
except OSError:
    lines = []
if lines:
    print(eval(sys.argv[2], {"o": json.loads(lines[-1])}))
EOF
}

# st_class_seen FILE CLASS : 0 when FILE's last stats line shows packets of
# CLASS read from the tun (classes.CLASS.in_pkts > 0).
st_class_seen() {
	[[ $(st_stats_last "$1" "int(o['classes']['$2']['in_pkts'] > 0)") == 1 ]]
}

# st_iperf_mix_start STATS DST SECONDS [--ef-bps R] [--ef-len N] [--af N]
#                    [--cs0 N] [--ef-extra S]
# The EF + AF + CS0 mix of DESIGN §4 from ns A to DST (in ns B), with iperf3:
#   EF   one UDP CBR flow, --tos 0xb8, R bit/s at the IP level (iperf3's -b
#        counts payload: -b = R * N / (N + 28)), N-byte payloads (default
#        4000000 and 1200); it runs SECONDS + S s (--ef-extra, default 4),
#        so it outlasts the TCP flows;
#   AF   N TCP cubic flows, --tos 0x28 (AF11) (default 4; 0: none);
#   CS0  N TCP cubic flows, unmarked (default 4; 0: none);
# servers on ports 5201 (EF), 5202 (AF), 5203 (CS0) in ns B.  Started in
# that order, each once the sender's STATS show the previous class's
# packets, so that every iperf3 control connection (unmarked: class CS0)
# is set up before CS0's queue fills.  Sets ST_MIX_CLIENTS / ST_MIX_LOGS
# (class -> pid / log) and ST_MIX_SERVERS; st_iperf_mix_wait waits for them.
declare -gA ST_MIX_CLIENTS=() ST_MIX_LOGS=()
declare -ga ST_MIX_SERVERS=()
ST_MIX_SECONDS=0
st_iperf_mix_start() {
	local stats=$1 dst=$2 secs=$3; shift 3
	local ef_bps=4000000 ef_len=1200 n_af=4 n_cs0=4 ef_extra=4
	while (( $# )); do
		[[ $# -ge 2 ]] || st_fail "st_iperf_mix_start: option $1 needs a value"
		case $1 in
		--ef-bps) ef_bps=$2 ;;
		--ef-len) ef_len=$2 ;;
		--af) n_af=$2 ;;
		--cs0) n_cs0=$2 ;;
		--ef-extra) ef_extra=$2 ;;
		*) st_fail "st_iperf_mix_start: unknown option $1" ;;
		esac
		shift 2
	done
	grep -qw cubic /proc/sys/net/ipv4/tcp_available_congestion_control ||
		st_fail "TCP cubic is not available (load tcp_cubic)"
	ST_MIX_CLIENTS=(); ST_MIX_LOGS=(); ST_MIX_SERVERS=()
	ST_MIX_SECONDS=$(( secs + ef_extra ))
	local port
	for port in 5201 5202 5203; do
		st_bg "$ST_NS_B" iperf3 -s -1 -p "$port"
		ST_MIX_SERVERS+=("$ST_LAST_PID")
		st_wait_listen "$ST_NS_B" tcp "$port" || st_fail "iperf3 server $port did not start"
	done
	st_bg "$ST_NS_A" iperf3 -c "$dst" -p 5201 -u -b $(( ef_bps * ef_len / (ef_len + 28) )) \
		-l "$ef_len" --tos 0xb8 -t $(( secs + ef_extra )) --connect-timeout 5000
	ST_MIX_CLIENTS[ef]=$ST_LAST_PID; ST_MIX_LOGS[ef]=$ST_LAST_LOG
	st_wait_for 10 "EF packets in $stats" st_class_seen "$stats" ef ||
		st_fail "the EF flow never reached the sender's scheduler (see $ST_LAST_LOG)"
	if (( n_af > 0 )); then
		st_bg "$ST_NS_A" iperf3 -c "$dst" -p 5202 -C cubic -P "$n_af" --tos 0x28 \
			-t "$secs" --connect-timeout 5000
		ST_MIX_CLIENTS[af]=$ST_LAST_PID; ST_MIX_LOGS[af]=$ST_LAST_LOG
		st_wait_for 10 "AF packets in $stats" st_class_seen "$stats" af ||
			st_fail "the AF flows never reached the sender's scheduler (see $ST_LAST_LOG)"
	fi
	if (( n_cs0 > 0 )); then
		st_bg "$ST_NS_A" iperf3 -c "$dst" -p 5203 -C cubic -P "$n_cs0" \
			-t "$secs" --connect-timeout 5000
		ST_MIX_CLIENTS[cs0]=$ST_LAST_PID; ST_MIX_LOGS[cs0]=$ST_LAST_LOG
	fi
}

# st_iperf_mix_wait : bounded wait for the mix's clients and servers.  An
# iperf3 client's own verdict is only a warning (its control connection
# crosses the congested tunnel): tests assert on the daemons' statistics.
st_iperf_mix_wait() {
	local c p
	for c in ef af cs0; do
		p=${ST_MIX_CLIENTS[$c]:-}
		[[ -n $p ]] || continue
		if ! st_wait_pid_exit "$p" $(( ST_MIX_SECONDS + 20 )); then
			echo "WARN: $ST_NAME: iperf3 $c client did not finish cleanly:" >&2
			tail -n 5 "${ST_MIX_LOGS[$c]}" >&2
		fi
	done
	st_servers_stop 5 "${ST_MIX_SERVERS[@]}"
	ST_MIX_CLIENTS=(); ST_MIX_SERVERS=()
}

# st_servers_stop TIMEOUT_S PID... : a one-off server (iperf3 -s -1) exits
# once its test is over; one whose client failed would wait for ever: a
# bounded wait for each, then SIGTERM, then a bounded reap.
st_servers_stop() {
	local timeout=$1 p; shift
	for p in "$@"; do
		if ! st_wait_for "$timeout" "server $p to finish" st__pid_gone "$p" 2>/dev/null; then
			kill -TERM "$p" 2>/dev/null || true
		fi
		st_wait_pid_exit "$p" 5 || true
	done
}

# ---------------------------------------------------------------- cleanup
st__ns_destroy() {
	local ns=$1 pids p i
	ip netns list 2>/dev/null | awk '{print $1}' | grep -qx -- "$ns" || return 0
	pids=$(ip netns pids "$ns" 2>/dev/null || true)
	if [[ -n $pids ]]; then
		for p in $pids; do kill -TERM "$p" 2>/dev/null || true; done
		# bounded wait (2 s) for them to go, then SIGKILL the rest
		for (( i = 0; i < 40; i++ )); do
			[[ -z $(ip netns pids "$ns" 2>/dev/null) ]] && break
			sleep 0.05
		done
		for p in $(ip netns pids "$ns" 2>/dev/null || true); do
			kill -KILL "$p" 2>/dev/null || true
		done
		for (( i = 0; i < 40; i++ )); do
			[[ -z $(ip netns pids "$ns" 2>/dev/null) ]] && break
			sleep 0.05
		done
	fi
	ip netns del "$ns" 2>/dev/null || st_log "warning: could not delete namespace $ns"
}

# st_cleanup: idempotent; safe to call any time, also from traps.
st_cleanup() {
	(( ST__CLEANED )) && return 0
	ST__CLEANED=1
	local h
	set +e
	for h in "${ST_CLEANUP_HOOKS[@]}"; do eval "$h" 2>/dev/null; done
	[[ -n $ST_NS_A ]] && st__ns_destroy "$ST_NS_A"
	[[ -n $ST_NS_B ]] && st__ns_destroy "$ST_NS_B"
	# reap our children (they lived in the namespaces, so they are gone;
	# SIGKILL anything that is not, so that no wait can block)
	local p
	for p in "${ST_CHILDREN[@]}"; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	ST_CHILDREN=()
	ST_PIDS=()
	if [[ -n $ST_WORK && -d $ST_WORK ]]; then
		if [[ -n ${ST_KEEP:-} ]]; then
			st_log "keeping work directory $ST_WORK (ST_KEEP set)"
		else
			rm -rf -- "$ST_WORK"
		fi
	fi
	return 0
}

st__on_exit() {
	local rc=$?
	set +e
	if (( rc != 0 && rc != 77 )) && [[ -n $ST_WORK && -d $ST_WORK ]]; then
		local f
		for f in "$ST_WORK"/*.log; do
			[[ -f $f ]] || continue
			echo "----- $(basename "$f") (last 20 lines) -----" >&2
			tail -n 20 "$f" >&2
		done
	fi
	st_cleanup
	exit "$rc"
}

st__on_signal() {
	trap "" INT TERM        # no second signal may cut the cleanup short
	st_log "interrupted"
	st_cleanup
	exit "$1"
}

# ---- receiver-side checks (issue 19) ----
# Checks whose measured value comes from the receiving side (B's rx
# counters, the kernel's counters in B's namespace, iperf3's receiver
# report), compared with the sender's counters or the configured rate,
# never a daemon's number with itself (scripts/stats.py does the sums).

# st_udp_rcvbuf_errors NS : the kernel's Udp RcvbufErrors in namespace NS
# (/proc/net/snmp is per namespace): datagrams, or with UDP GRO whole
# buffers, that a full socket buffer dropped.
st_udp_rcvbuf_errors() {
	ip netns exec "$1" awk '/^Udp:/ { if (!n++) { for (i = 1; i <= NF; i++) col[$i] = i }
		else print $col["RcvbufErrors"] }' /proc/net/snmp
}

# st_link_check TX_STATS RX_STATS [RCVBUF_ERRORS [PER_BUFFER]] : stats.py
# link-check: the receiver's rx pkts + lost equal what the sender put on
# the link minus its delay line at the end, and every lost datagram is a
# send_error of the sender or a receiver socket drop (RCVBUF_ERRORS, each
# up to PER_BUFFER datagrams).  Prints the numbers; on failure sets
# ST_CHECK_MSG to the reasons and returns 1.  Run it after both daemons
# stopped (the sender first, its delay line drained).
ST_CHECK_MSG=""
st_link_check() {
	local out rc=0
	out=$("${ST_STATS_PY[@]}" link-check "$1" "$2" --rcvbuf-errors "${3:-0}" \
		--per-buffer "${4:-1}" 2>&1) || rc=$?
	echo "$out"
	ST_CHECK_MSG=$(grep '^link-check: ' <<<"$out" | sed 's/^link-check: //' | paste -sd ';' -)
	[[ $rc == 0 ]] || { [[ -n $ST_CHECK_MSG ]] || ST_CHECK_MSG=$out; return 1; }
}

# st_rx_rate_check RX_STATS TX_STATS DELAY_S TOL MIN_INTERVALS RATE-OPTION... :
# stats.py check-rx-rate: every receiver interval that lies (on the
# sender's clock: origins from the lines' wall - t, + DELAY_S) inside a
# stretch of the sender's saturated intervals carries C(t)'s mean over it,
# measured as the receiver's sum(rx.*.bytes) (inner bytes, what the link
# is charged), within TOL of the (mean) rate.  RATE-OPTION: --rate R or
# --cosine MEAN AMP PERIOD.  Both daemons must have stopped (the origin is
# read from each file's last write).  Sets ST_CHECK_MSG on failure.
st_rx_rate_check() {
	local rx=$1 tx=$2 delay=$3 tol=$4 min=$5 out rc=0; shift 5
	out=$("${ST_STATS_PY[@]}" check-rx-rate "$rx" --sender "$tx" --delay "$delay" \
		--tol "$tol" --min-intervals "$min" "$@" 2>&1) || rc=$?
	echo "$out"
	ST_CHECK_MSG=$(grep '^check-rx-rate: ' <<<"$out" | sed 's/^check-rx-rate: //' | paste -sd ';' -)
	[[ $rc == 0 ]] || { [[ -n $ST_CHECK_MSG ]] || ST_CHECK_MSG=$(tail -n 1 <<<"$out"); return 1; }
}

# st_iperf_json_rx_bytes JSON : bytes the iperf3 server received, from the
# client's -J report (end.sum_received for TCP, end.sum for UDP, where
# iperf3 reports the server's count); 0 when unknown.
st_iperf_json_rx_bytes() {
	python3 -c 'import json,sys
e = json.load(open(sys.argv[1]))["end"]
s = e.get("sum_received") or e.get("sum") or {}
print(int(s.get("bytes", 0)))' "$1" 2>/dev/null || echo 0
}

# st_sender_drained STATS : 0 when the last complete line of a sender's
# STATS shows an empty scheduler and an empty delay line (for polling with
# st_wait_for before stopping the pair, so that everything the sender put
# on the link reached the receiver, which link-check then counts).
st_sender_drained() {
	[[ $(st_stats_last "$1" "sum(o['classes'][c]['qlen_pkts'] for c in ('ef','af','cs0')) + o['link']['inflight_pkts']") == 0 ]]
}

# st_iperf_udp_app_check JSON RX_STATS CTRL_MAX : the application's view of
# an iperf3 UDP test A -> B: the datagrams the iperf3 server received (the
# client's -J report, end.sum_received.packets - lost_packets) against the
# receiving daemon's rx.cs0.pkts (what it wrote to its tun: the UDP flow,
# unmarked, plus the iperf3 control connection's segments A -> B, also
# CS0).  The difference must be in [0, CTRL_MAX].  Prints the numbers;
# sets ST_CHECK_MSG and returns 1 otherwise.
st_iperf_udp_app_check() {
	local json=$1 rx=$2 max=$3 app b diff
	app=$(python3 -c 'import json,sys
s = json.load(open(sys.argv[1]))["end"]["sum_received"]
print(int(s["packets"]) - int(s["lost_packets"]))' "$json" 2>/dev/null || echo -1)
	b=$(st_field rx.cs0.pkts "$rx")
	diff=$(( b - app ))
	echo "iperf3 server received $app datagrams; the receiving daemon's rx.cs0.pkts $b (difference $diff, allowed [0, $max])"
	ST_CHECK_MSG="the iperf3 server received $app datagrams, the receiving daemon wrote $b CS0 packets to its tun: difference $diff, expected within [0, $max] (the control connection)"
	(( app >= 0 && diff >= 0 && diff <= max ))
}

# ---- Mininet tests (test_geo_smoke.sh, test_mn_link.sh, test_geo_demo.sh) ----

# st_mininet_begin NAME BIN: what every Mininet test checks first, with
# the one skip rule: BIN an executable (usage error otherwise), root and
# /dev/net/tun (st_skip: a failure unless SCHEDTUN_TEST_ALLOW_SKIP), the
# tools (iperf3 ping ss mnexec timeout) and Mininet importable under
# /usr/bin/python3 (failures: scripts/deps.sh installs them).  Defines
# fail() for the test, naming NAME.
st_mininet_begin() {
	local name=$1 bin=$2 c
	eval 'fail() { echo "FAIL: '"$name"': $*" >&2; exit 1; }'
	[[ -n $bin && -x $bin ]] || fail "usage: $0 /path/to/schedtun"
	[[ $(id -u) -eq 0 ]] ||
		ST_NAME=$name st_skip "needs root (Mininet, tun): run it as root, or with sudo"
	[[ -c /dev/net/tun ]] || ST_NAME=$name st_skip "/dev/net/tun is missing (modprobe tun)"
	for c in iperf3 ping ss mnexec timeout; do
		command -v "$c" >/dev/null 2>&1 || fail "required command '$c' not found (scripts/deps.sh)"
	done
	/usr/bin/python3 -c 'import mininet.net' 2>/dev/null ||
		fail "Mininet does not import under /usr/bin/python3 (scripts/deps.sh)"
}

# st_mininet_finish RC PID LOG WORK CLEANUP... : a Mininet test's EXIT
# trap.  Stops the run PID when it still runs (SIGTERM: it cleans up, then
# reaped), runs CLEANUP (the runner's --cleanup, which kills what a killed
# run left; its failure ignored), prints LOG's last 40 lines when the test
# failed (RC != 0), and removes WORK unless KEEP is set.
st_mininet_finish() {
	local rc=$1 pid=$2 log=$3 work=$4; shift 4
	if [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null; then
		kill -TERM "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	"$@" >/dev/null 2>&1 || true
	if (( rc != 0 )) && [[ -f $log ]]; then
		echo "--- $(basename "$log") (last 40 lines):" >&2
		tail -n 40 "$log" >&2
	fi
	[[ -n ${KEEP:-} ]] || rm -rf "$work"
}
