#!/usr/bin/env bash
# test_install.sh SCHEDTUN - the Debian package and its systemd unit, end to end.
#
# SCHEDTUN (the build's daemon) is not what runs here: the test builds the
# tree once more the way a package is built and runs what the package
# installs.
#   1. configures and builds this source tree in a temporary directory
#      (RelWithDebInfo, no sanitizers, Debian's build flags from
#      dpkg-buildflags with hardening=+all), `cpack -G DEB`;
#   2. lintian on the .deb: an error fails, warnings and notes are listed;
#   3. `apt-get install ./schedtun_V_ARCH.deb` (this machine must not have
#      schedtun installed already: the test refuses to replace it);
#   4. checks the installed files: the programs (stripped, each answering
#      --version), the unit, the four man pages gzipped, the
#      docs, the examples (each passes `schedtun --check`), and runs
#      `systemd-analyze verify` on the installed unit;
#   5. starts a pair exactly as the unit would, with no systemd: reads
#      ExecStartPre and ExecStart from the installed unit, substitutes %i,
#      and runs them in two network namespaces made here, under setpriv
#      with the unit's identity (DynamicUser: a uid of its own, no groups;
#      the unit's AmbientCapabilities and CapabilityBoundingSet;
#      NoNewPrivileges) in a mount namespace that reproduces the unit's
#      file system: everything read-only (ProtectSystem=strict), a private
#      /tmp, /root and /home hidden, /var/lib/schedtun/%i writable
#      (StateDirectory), and /dev/net/tun with mode 0666, as Debian's udev
#      makes it (this machine has no udev: its /dev/net/tun is 0600, which
#      the unit's transient user could not open).  The configurations are
#      /etc/schedtun/NAME.conf, written from the installed examples
#      geo-sender.conf and geo-receiver.conf (peer and stats file set);
#   6. a ping crosses the tunnel, both daemons write statistics into their
#      state directories, a SIGHUP reloads, SIGTERM stops both with exit 0;
#   7. the real-time drop-in the package ships (examples/systemd/
#      realtime.conf): daemon B again with tunnel.realtime = 50 and the
#      capabilities of unit + drop-in runs under SCHED_FIFO (only a kernel
#      that refuses SCHED_FIFO to a holder of CAP_SYS_NICE makes this part
#      a note instead of a check);
#   8. strace recorded every system call of --check and of the daemons: each
#      must be one the unit's SystemCallFilter allows (with the drop-in's
#      for the real-time run), every socket family one of its
#      RestrictAddressFamilies, no writable-and-executable memory
#      (MemoryDenyWriteExecute), no new namespace (RestrictNamespaces);
#   9. `apt-get remove --purge -y schedtun`: no file of the package is
#      left, nor anything the test wrote to /etc/schedtun;
#  10. a fresh Debian 12 (debootstrap --variant=minbase bookworm from this
#      machine's own Debian mirror, into the test's directory): apt-get
#      installs the .deb there, pulling its Depends from the mirror, the
#      daemon answers --version and checks an installed example, and the
#      purge leaves none of its files: the Depends are complete, not
#      satisfied by what this (development) machine happens to have.
# Cleanup (trap, also on failure): the namespaces, the test's files in
# /etc/schedtun, and the package if the test installed it.  Takes about
# 2 minutes on 2 cores, most of it the build.
set -euo pipefail
# shellcheck source=../../scripts/netns-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/netns-lib.sh"
st_test_begin "${1:-}" cmake cpack lintian apt-get dpkg dpkg-query dpkg-buildflags \
	dpkg-shlibdeps file systemd-analyze setpriv unshare strace mknod findmnt ping \
	python3 gzip debootstrap chroot

PKG=schedtun
ARCH=$(dpkg --print-architecture)
NAME_A="st-$$-a"          # instance names: /etc/schedtun/NAME.conf
NAME_B="st-$$-b"
UID_A=61901               # the transient users (DynamicUser's range is 61184-65519)
UID_B=61902
ETC=/etc/schedtun
ETC_CREATED=0
PKG_INSTALLED=0

# ---------------------------------------------------------------- cleanup
install_cleanup() {
	rm -f "$ETC/$NAME_A.conf" "$ETC/$NAME_B.conf"
	(( ETC_CREATED )) && rmdir "$ETC" 2>/dev/null
	if (( PKG_INSTALLED )) && dpkg-query -W -f='${Status}' "$PKG" 2>/dev/null | grep -q installed; then
		st_log "cleanup: purging the package the test installed"
		DEBIAN_FRONTEND=noninteractive apt-get remove --purge -y -q "$PKG" >/dev/null 2>&1
	fi
}
st_on_cleanup install_cleanup

# Never replace an operator's schedtun.
if dpkg-query -W -f='${Status}' "$PKG" 2>/dev/null | grep -qv '^unknown'; then
	st_fail "package $PKG is already on this machine ($(dpkg-query -W -f='${Status}' "$PKG")); this test installs and purges it: remove it first"
fi
for f in "$ETC/$NAME_A.conf" "$ETC/$NAME_B.conf"; do
	[[ ! -e $f ]] || st_fail "$f exists already"
done

t0=$SECONDS
phase() { st_log "[$(( SECONDS - t0 ))s] $*"; }

# ---------------------------------------------------------------- 1. build, package
phase "configure and build $ST_ROOT"
BLD=$ST_WORK/build
(
	# Debian's flags, as a package build gets them (FORTIFY, stack
	# protector, relro and bindnow: lintian's hardening checks).
	eval "$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --export=sh)"
	export CFLAGS="$CFLAGS $CPPFLAGS"
	cmake -S "$ST_ROOT" -B "$BLD" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DSCHEDTUN_SANITIZE=OFF -DSCHEDTUN_TESTS=OFF
	cmake --build "$BLD" -j"$(nproc)"
) >"$ST_WORK/build.log" 2>&1 || { tail -n 40 "$ST_WORK/build.log" >&2; st_fail "the build failed"; }
phase "cpack -G DEB"
(cd "$BLD" && cpack -G DEB) >"$ST_WORK/cpack.log" 2>&1 ||
	{ tail -n 40 "$ST_WORK/cpack.log" >&2; st_fail "cpack -G DEB failed"; }
version=$("$BLD/schedtun" --version | awk '{print $2}')
deb="$BLD/${PKG}_${version}_${ARCH}.deb"
[[ -f $deb ]] || st_fail "cpack made no $deb: $(ls "$BLD"/*.deb 2>/dev/null)"
dpkg-deb -I "$deb" >"$ST_WORK/control.txt"
for field in "Package: $PKG" "Version: $version" "Architecture: $ARCH" "Section: net" \
	"Maintainer: " "Depends: " "Description: "; do
	grep -q "^ $field" "$ST_WORK/control.txt" || st_fail "control has no '$field': $(cat "$ST_WORK/control.txt")"
done
depends=$(sed -n 's/^ Depends: //p' "$ST_WORK/control.txt")
for lib in libc6 libconfig9 libevent-core libsodium23 procps; do
	[[ $depends == *"$lib"* ]] || st_fail "Depends lacks $lib: $depends"
done
echo "package: $(basename "$deb") ($(stat -c %s "$deb") bytes), Depends: $depends"

# ---------------------------------------------------------------- 2. lintian
phase "lintian"
lrc=0
lintian --info --pedantic --fail-on warning "$deb" \
	>"$ST_WORK/lintian.txt" 2>&1 || lrc=$?
grep -v -e '^running with root privileges' -e '^N:' "$ST_WORK/lintian.txt" | sed 's/^/lintian: /' || true
if grep -q '^E:' "$ST_WORK/lintian.txt" || (( lrc != 0 )); then
	st_fail "lintian found errors (exit $lrc)"
fi
echo "lintian: $(grep -c '^W:' "$ST_WORK/lintian.txt" || true) warning(s), no error"

# ---------------------------------------------------------------- 3. install
phase "apt-get install"
# apt reads the file as the _apt user: give it a directory it can enter.
PKGDIR=$ST_WORK/pkg
mkdir -m 0755 "$PKGDIR"
chmod 0711 "$ST_WORK"
install -m 0644 "$deb" "$PKGDIR/"
PKG_INSTALLED=1
DEBIAN_FRONTEND=noninteractive apt-get install -y -q -o DPkg::Lock::Timeout=60 \
	"$PKGDIR/$(basename "$deb")" >"$ST_WORK/apt-install.log" 2>&1 ||
	{ tail -n 30 "$ST_WORK/apt-install.log" >&2; st_fail "apt-get install of the package failed"; }
dpkg-query -W -f='${Status} ${Version}\n' "$PKG" | grep -q "install ok installed $version" ||
	st_fail "dpkg does not list $PKG $version as installed"
dpkg -L "$PKG" >"$ST_WORK/files.txt"

# ---------------------------------------------------------------- 4. the files
phase "installed files"
DAEMON=/usr/sbin/schedtun
UNIT=/lib/systemd/system/schedtun@.service
DOC=/usr/share/doc/schedtun
want=("$DAEMON" /usr/bin/schedtun-sim /usr/bin/schedtun-efgen "$UNIT"
	"$DOC/README.md" "$DOC/copyright" "$DOC/changelog.gz" "$DOC/docs/install.md"
	"$DOC/examples/geo-sender.conf" "$DOC/examples/geo-receiver.conf"
	"$DOC/examples/traces/geo-rain.csv" "$DOC/examples/systemd/realtime.conf")
# The man pages (docs/man/, SCHEDTUN_MAN_PAGES, gzipped by the build):
# all four, each readable by man(1) from where it is installed.
mans=(schedtun.8 schedtun.conf.5 schedtun-sim.1 schedtun-efgen.1)
for page in "${mans[@]}"; do
	want+=("/usr/share/man/man${page##*.}/$page.gz")
done
for f in "${want[@]}"; do
	[[ -f $f ]] || st_fail "$f is not installed"
	grep -qxF "$f" "$ST_WORK/files.txt" || st_fail "$f is not in dpkg -L $PKG"
done
for page in "${mans[@]}"; do
	out=$(MANWIDTH=80 man "${page##*.}" "${page%.*}" 2>&1 | head -1) ||
		st_fail "man ${page##*.} ${page%.*} failed: $out"
	name=${page%.*} sec=${page##*.}
	[[ $out == *"${name^^}($sec)"* ]] || st_fail "man $sec $name shows '$out'"
done
echo "man pages: ${mans[*]} installed and shown by man(1)"
for p in "$DAEMON" /usr/bin/schedtun-sim /usr/bin/schedtun-efgen; do
	out=$("$p" --version) || st_fail "$p --version failed"
	[[ $out == "$(basename "$p") $version" ]] || st_fail "$p --version says '$out'"
	file -b "$p" | grep -q ', stripped' || st_fail "$p is not stripped: $(file -b "$p")"
done
grep -q '^/etc' "$ST_WORK/files.txt" && st_fail "the package installs into /etc: $(grep '^/etc' "$ST_WORK/files.txt")"
nex=0
for conf in "$DOC"/examples/*.conf; do
	"$DAEMON" --check -f "$conf" >"$ST_WORK/check.out" 2>&1 ||
		st_fail "installed example $conf fails --check: $(cat "$ST_WORK/check.out")"
	nex=$(( nex + 1 ))
done
echo "examples: $nex configurations pass --check"

# systemd-analyze verify: offline, on the installed unit by name, with
# the man: pages its Documentation= names.
man_opt=--man=yes
vout=$(systemd-analyze verify "$man_opt" "schedtun@$NAME_A.service" 2>&1) ||
	{ echo "$vout" >&2; st_fail "systemd-analyze verify failed on the installed unit"; }
[[ -z $vout ]] || { echo "$vout" >&2; st_fail "systemd-analyze verify is not clean"; }
echo "systemd-analyze verify $man_opt schedtun@$NAME_A.service: clean"

# ---------------------------------------------------------------- 5. the unit, read
phase "the unit's commands and identity"
# unit_values KEY : the values of KEY= in the installed unit, one a line.
unit_values() { sed -n "s/^$1=//p" "$UNIT"; }
# unit_cmd KEY NAME : KEY's command line with %i = NAME, into CMD (array).
unit_cmd() {
	local line
	line=$(unit_values "$1")
	[[ -n $line && $(unit_values "$1" | wc -l) -eq 1 ]] || st_fail "the unit needs exactly one $1= (has: $line)"
	[[ $line == /* ]] || st_fail "$1=$line: the test runs only plain absolute commands (no - @ + ! prefix)"
	line=${line//%i/$2}
	[[ $line != *%* && $line != *[\'\"\\\$]* ]] || st_fail "$1=$line: specifiers or quoting the test does not emulate"
	read -r -a CMD <<<"$line"
}
[[ $(unit_values DynamicUser) == yes ]] || st_fail "the unit does not say DynamicUser=yes (the identity this test emulates)"
[[ $(unit_values NoNewPrivileges) == yes ]] || st_fail "the unit does not say NoNewPrivileges=yes"
[[ $(unit_values ProtectSystem) == strict ]] || st_fail "the unit does not say ProtectSystem=strict"
[[ $(unit_values PrivateTmp) == yes ]] || st_fail "the unit does not say PrivateTmp=yes"
[[ $(unit_values StateDirectory) == 'schedtun/%i' ]] ||
	st_fail "the unit's StateDirectory is '$(unit_values StateDirectory)', not schedtun/%i (the stats files below)"
# capability names: CAP_NET_ADMIN -> net_admin, for setpriv
caps_of() { unit_values "$1" | tr ' ' '\n' | sed -n 's/^CAP_//p' | tr 'A-Z' 'a-z' | paste -sd, -; }
amb=$(caps_of AmbientCapabilities)
bound=$(caps_of CapabilityBoundingSet)
[[ -n $amb && -n $bound ]] || st_fail "no AmbientCapabilities / CapabilityBoundingSet in the unit"
echo "identity: uid $UID_A / $UID_B, no groups, ambient {$amb}, bounding {$bound}, no_new_privs"

# ---------------------------------------------------------------- 5. the pair
st_ns_create
if [[ ! -d $ETC ]]; then ETC_CREATED=1; fi
mkdir -p "$ETC"
# conf_from EXAMPLE NAME PEER|"" : /etc/schedtun/NAME.conf from an installed
# example, the stats file in the instance's state directory.
conf_from() {
	local src="$DOC/examples/$1" dst="$ETC/$2.conf" peer=$3
	sed -e "s|^\(  file = \)\"\";|\1\"/var/lib/schedtun/$2/stats.jsonl\";|" \
		-e "s|^\(  peer    = \)\"[^\"]*\";|\1\"$peer\";|" "$src" >"$dst"
	grep -q "\"/var/lib/schedtun/$2/stats.jsonl\"" "$dst" || st_fail "cannot set stats.file in $dst"
	[[ -z $peer ]] || grep -q "^  peer    = \"$peer\";" "$dst" || st_fail "cannot set tunnel.peer in $dst"
	grep -q "address = \"$4/24\"" "$dst" || st_fail "$src does not give $4/24 as tunnel.address"
	chmod 0644 "$dst"
}
conf_from geo-sender.conf "$NAME_A" "$ST_UL_B:$ST_PORT" "$ST_TUN_A"
conf_from geo-receiver.conf "$NAME_B" "" "$ST_TUN_B"

# The unit's mount namespace, made by root before setpriv drops to the
# transient user: sandbox.sh STATE_SRC NAME CMD...
cat >"$ST_WORK/sandbox.sh" <<'EOF'
set -euo pipefail
state=$1 name=$2; shift 2
mount --make-rprivate /
# StateDirectory=schedtun/%i (the rest of /var/lib is not needed: hidden)
mount -t tmpfs -o mode=0755 tmpfs /var/lib
mkdir -p "/var/lib/schedtun/$name"
mount --bind "$state" "/var/lib/schedtun/$name"
# /dev/net/tun as Debian's udev makes it (50-udev-default.rules: MODE="0666")
mount -t tmpfs -o mode=0755 tmpfs /dev/net
mknod -m 0666 /dev/net/tun c 10 200
# PrivateTmp, ProtectHome
mount -t tmpfs -o mode=1777 tmpfs /tmp
for h in /root /home /run/user; do
	[[ -d $h ]] && mount -t tmpfs -o mode=0000 tmpfs "$h"
done
# ProtectSystem=strict: every other mount read-only (API file systems and
# the writable places above excepted)
findmnt -rn -o TARGET | while read -r m; do
	case $m in
	/proc|/proc/*|/sys|/sys/*|/dev|/dev/*|/tmp|/var/lib/schedtun/*|/root|/home|/run/user) continue ;;
	esac
	[[ $m == *\\x* ]] && continue            # escaped names: none of ours
	mount -o remount,bind,ro "$m" 2>/dev/null || mount -o remount,ro "$m" ||
		{ echo "sandbox: cannot make $m read-only" >&2; exit 97; }
done
umask 0077                                  # UMask=0077
exec "$@"
EOF

# run_unit NAME NS UID STRACE_LOG CMD... : CMD in the unit's sandbox in NS,
# under strace, in the background; sets RUN_PID (strace's pid, whose exit
# status is CMD's).
run_unit() {
	local name=$1 ns=$2 uid=$3 log=$4; shift 4
	local state="$ST_WORK/state/$name"
	mkdir -p "$state"
	chown "$uid:$uid" "$state"
	chmod 0700 "$state"
	ip netns exec "$ns" strace -f -qq -o "$log" \
		unshare -m --propagation private -- bash "$ST_WORK/sandbox.sh" "$state" "$name" \
		setpriv --reuid="$uid" --regid="$uid" --clear-groups --no-new-privs \
		--inh-caps="-all,+${amb//,/,+}" --ambient-caps="-all,+${amb//,/,+}" \
		--bounding-set="-all,+${bound//,/,+}" \
		-- "$@" >>"$ST_WORK/$name.log" 2>&1 &
	RUN_PID=$!
	ST_CHILDREN+=("$RUN_PID")
}

# start NAME NS UID : ExecStartPre (must exit 0), then ExecStart in the
# background; sets DPID[NAME] (the daemon) and SPID[NAME] (its strace).
declare -A DPID=() SPID=()
start() {
	local name=$1 ns=$2 uid=$3 rc=0 p
	unit_cmd ExecStartPre "$name"
	echo "$name: ExecStartPre: ${CMD[*]}"
	run_unit "$name" "$ns" "$uid" "$ST_WORK/$name-pre.strace" "${CMD[@]}"
	st_wait_pid_exit "$RUN_PID" 20 || rc=$?
	(( rc == 0 )) || { st_daemon_log_tail "$name"; st_fail "$name: ExecStartPre exited $rc"; }
	unit_cmd ExecStart "$name"
	echo "$name: ExecStart: ${CMD[*]}"
	run_unit "$name" "$ns" "$uid" "$ST_WORK/$name.strace" "${CMD[@]}"
	SPID[$name]=$RUN_PID
	st_wait_for 10 "$name: the daemon under strace" daemon_pid "$name" ||
		{ st_daemon_log_tail "$name"; st_fail "$name: the daemon did not start"; }
}
daemon_pid() {
	local c
	for c in $(pgrep -P "${SPID[$1]}" 2>/dev/null); do
		if [[ $(readlink "/proc/$c/exe" 2>/dev/null) == "$DAEMON" ]]; then
			DPID[$1]=$c
			return 0
		fi
	done
	return 1
}
ready() {   # NAME NS ADDR : the tun has the address and is up
	kill -0 "${DPID[$1]}" 2>/dev/null || return 2
	ip -n "$2" -o addr show dev "$ST_TUN_NAME" 2>/dev/null | grep -qF " $3/24 " &&
	ip -n "$2" -o link show dev "$ST_TUN_NAME" 2>/dev/null | grep -q '[<,]UP[,>]'
}
stop() {    # NAME : SIGTERM, exit 0 expected
	local rc=0
	kill -TERM "${DPID[$1]}"
	st_wait_pid_exit "${SPID[$1]}" 10 || rc=$?
	(( rc == 0 )) || { st_daemon_log_tail "$1"; st_fail "$1: exit $rc after SIGTERM (expected 0)"; }
}

phase "start the pair from the unit"
start "$NAME_B" "$ST_NS_B" "$UID_B"
start "$NAME_A" "$ST_NS_A" "$UID_A"
for n in "$NAME_A:$ST_NS_A:$ST_TUN_A" "$NAME_B:$ST_NS_B:$ST_TUN_B"; do
	IFS=: read -r name ns addr <<<"$n"
	st_wait_for 10 "$name: $ST_TUN_NAME up with $addr" ready "$name" "$ns" "$addr" ||
		{ st_daemon_log_tail "$name"; st_fail "$name: the tun was not configured"; }
	id=$(awk '/^Uid:/{u=$2} /^Gid:/{g=$2} /^Groups:/{s=$2} /^CapEff:/{e=$2} /^NoNewPrivs:/{n=$2} END{print u, g, (s==""?"-":s), e, n}' "/proc/${DPID[$name]}/status")
	echo "$name: pid ${DPID[$name]}, uid gid groups capeff nnp = $id"
done
for n in "$NAME_A:$UID_A" "$NAME_B:$UID_B"; do
	IFS=: read -r name uid <<<"$n"
	read -r u g s e nn < <(awk '/^Uid:/{u=$2} /^Gid:/{g=$2} /^Groups:/{s=$2} /^CapEff:/{e=$2} /^NoNewPrivs:/{n=$2} END{print u, g, (s==""?"-":s), e, n}' "/proc/${DPID[$name]}/status")
	[[ $u == "$uid" && $g == "$uid" && $s == - && $nn == 1 ]] ||
		st_fail "$name runs as uid $u gid $g groups $s nnp $nn, not the unit's identity"
	# The unit grants CAP_NET_ADMIN; the daemon gives it up after set-up.
	[[ $e == 0000000000000000 ]] || st_fail "$name: effective capabilities $e after set-up, not none (the daemon gives up the unit's CAP_NET_ADMIN)"
done

# ---------------------------------------------------------------- 6. traffic, reload, stop
phase "ping across the tunnel"
out=$(timeout 30 ip netns exec "$ST_NS_A" ping -n -c 3 -i 0.3 -W 3 "$ST_TUN_B" 2>&1) ||
	{ echo "$out" >&2; st_fail "ping across the tunnel failed"; }
echo "$out" | tail -n 2
echo "$out" | grep -q ' 3 received' || st_fail "not every echo came back"
STATS_A="$ST_WORK/state/$NAME_A/stats.jsonl"
STATS_B="$ST_WORK/state/$NAME_B/stats.jsonl"
st_wait_stats "$STATS_A" 2 10 || st_fail "$NAME_A wrote no statistics in its state directory"
st_wait_stats "$STATS_B" 2 10 || st_fail "$NAME_B wrote no statistics in its state directory"
# ExecReload (kill -HUP $MAINPID): the file is re-read and applied
[[ $(unit_values ExecReload) == '/bin/kill -HUP $MAINPID' ]] || st_fail "ExecReload is '$(unit_values ExecReload)'"
kill -HUP "${DPID[$NAME_A]}"
st_wait_for 5 "$NAME_A: reload logged" grep -q 'reload: .* applied' "$ST_WORK/$NAME_A.log" ||
	st_fail "$NAME_A did not apply its configuration on SIGHUP"
phase "stop the pair"
stop "$NAME_A"
stop "$NAME_B"
for s in "$STATS_A:$UID_A" "$STATS_B:$UID_B"; do
	IFS=: read -r f uid <<<"$s"
	[[ $(stat -c '%u %a' "$f") == "$uid 600" ]] ||
		st_fail "$f is $(stat -c '%u %a' "$f"), not the unit user's with UMask=0077 (600)"
	python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$f" ||
		st_fail "$f is not JSON lines"
done
rx=$(st_field rx.cs0.pkts "$STATS_B")
(( ${rx%.*} >= 3 )) || st_fail "$NAME_B counted $rx packets from its peer (>= 3 echo requests expected)"
echo "stats: $(st_stats_lines "$STATS_A") + $(st_stats_lines "$STATS_B") lines; B received $rx packets from A"

# ---------------------------------------------------------------- 7. what the daemon did
# ---------------------------------------------------------------- 7. the real-time drop-in
# The drop-in the package ships for tunnel.realtime, on top of the unit:
# daemon B again with realtime = 50 and the identity unit + drop-in give.
phase "the real-time drop-in"
DROPIN=$DOC/examples/systemd/realtime.conf
cat "$UNIT" "$DROPIN" >"$ST_WORK/unit+realtime.service"
UNIT_SAVED=$UNIT
UNIT=$ST_WORK/unit+realtime.service
amb=$(caps_of AmbientCapabilities)
bound=$(caps_of CapabilityBoundingSet)
[[ $(unit_values RestrictRealtime | tail -n 1) == no ]] || st_fail "the drop-in does not lift RestrictRealtime"
memlock=$(unit_values LimitMEMLOCK | tail -n 1)
[[ $memlock == infinity ]] || st_fail "the drop-in sets LimitMEMLOCK '$memlock', not infinity (a reload after the privilege drop locks new memory within it)"
UNIT=$UNIT_SAVED
[[ ,$amb, == *,sys_nice,* && ,$amb, == *,ipc_lock,* ]] ||
	st_fail "unit + drop-in grant {$amb}: not CAP_SYS_NICE and CAP_IPC_LOCK"
echo "drop-in: ambient {$amb}, bounding {$bound}"
sed -i 's/^  # realtime = 50; /  realtime = 50;   /' "$ETC/$NAME_B.conf"
grep -q '^  realtime = 50;' "$ETC/$NAME_B.conf" || st_fail "cannot set tunnel.realtime in $ETC/$NAME_B.conf"
unit_cmd ExecStart "$NAME_B"
run_unit "$NAME_B" "$ST_NS_B" "$UID_B" "$ST_WORK/realtime.strace-rt" "${CMD[@]}"
SPID[$NAME_B]=$RUN_PID
st_wait_for 10 "$NAME_B: the daemon under strace" daemon_pid "$NAME_B" ||
	{ st_daemon_log_tail "$NAME_B"; st_fail "$NAME_B: the daemon did not start"; }
rt_ok=0
if st_wait_for 10 "$NAME_B: realtime applied" grep -q 'realtime: SCHED_FIFO 50, memory locked' "$ST_WORK/$NAME_B.log"; then
	policy=$(awk '{print $41}' "/proc/${DPID[$NAME_B]}/stat")   # 1 = SCHED_FIFO
	[[ $policy == 1 ]] || st_fail "$NAME_B logged SCHED_FIFO but runs with policy $policy"
	stop "$NAME_B"
	rt_ok=1
	echo "$NAME_B: SCHED_FIFO 50 and memory locked under the unit + drop-in"
else
	rc=0; st_wait_pid_exit "${SPID[$NAME_B]}" 5 || rc=$?
	st_daemon_log_tail "$NAME_B"
	# With CAP_SYS_NICE granted, only the kernel (RT throttling, a cgroup
	# without an RT budget) can still refuse SCHED_FIFO: noted, and the rest
	# of the test goes on.  Any other failure is the drop-in's.
	(( rc == 2 )) && grep -q 'sched_setscheduler(SCHED_FIFO' "$ST_WORK/$NAME_B.log" ||
		st_fail "$NAME_B did not start in real-time mode under the drop-in (exit $rc)"
	echo "NOTE: $ST_NAME: the kernel refused SCHED_FIFO to the daemon holding CAP_SYS_NICE: the drop-in's run was not checked" >&2
	rm -f "$ST_WORK/realtime.strace-rt"
fi

# ---------------------------------------------------------------- 8. what the daemon did
phase "system calls and socket families against the unit"
cat >"$ST_WORK/calls.py" <<'PY'
import re, subprocess, sys
unit, daemon, logs = sys.argv[1], sys.argv[2], sys.argv[3:]
lines = open(unit).read().splitlines()
def values(key):
    return [l.split("=", 1)[1] for l in lines if l.startswith(key + "=")]

# the groups, as this systemd knows them
groups, cur = {}, None
for l in subprocess.run(["systemd-analyze", "syscall-filter"], capture_output=True,
                        text=True, check=True).stdout.splitlines():
    if l.startswith("@"):                   # a group; its members are indented
        cur = l.split()[0]; groups[cur] = []
    elif not l.startswith((" ", "\t")):
        cur = None                          # comments, the unlisted calls
    elif cur and l.strip() and not l.strip().startswith("#"):
        groups[cur].append(l.split()[0])
def expand(item, seen=()):
    if item.startswith("@"):
        out = set()
        for m in groups[item]:
            if m not in seen:
                out |= expand(m, seen + (item,))
        return out
    return {item}
# SystemCallFilter: the first line decides allow-list or deny-list; then
# each line adds (allow) or removes (~) names, in order.
allowed, mode = None, None
for v in values("SystemCallFilter"):
    neg = v.startswith("~")
    names = set().union(*(expand(t) for t in v.lstrip("~").split()))
    if allowed is None:
        mode = "deny" if neg else "allow"
        allowed = set() if mode == "allow" else set()
    if mode == "allow":
        allowed = allowed - names if neg else allowed | names
    else:
        allowed = allowed | names if neg else allowed - names
families = set(" ".join(values("RestrictAddressFamilies")).split())
bad = []
for log in logs:
    pid, calls, fams = None, {}, set()
    for l in open(log):
        m = re.match(r"(\d+) +(.*)", l)
        if not m:
            continue
        p, rest = m.groups()
        if pid is None:
            if re.match(r'execve\("%s"' % re.escape(daemon), rest) and "= 0" in rest:
                pid = p
            continue
        if p != pid:
            continue
        c = re.match(r"(?:<\.\.\. )?([a-z0-9_]+)(?:\(| resumed>)", rest)
        if not c:
            continue
        name = c.group(1)
        calls[name] = calls.get(name, 0) + 1
        f = re.match(r"socket\((AF_[A-Z0-9]+)", rest)
        if f:
            fams.add(f.group(1))
        if re.match(r"(mmap|mprotect|pkey_mprotect)\(", rest) and "PROT_EXEC" in rest and \
           (name != "mmap" or "PROT_WRITE" in rest):
            bad.append("%s: MemoryDenyWriteExecute would refuse: %s" % (log, rest.strip()))
        if re.match(r"(clone3?|unshare|setns)\(", rest) and "CLONE_NEW" in rest:
            bad.append("%s: RestrictNamespaces would refuse: %s" % (log, rest.strip()))
    if pid is None:
        bad.append("%s: no execve of %s" % (log, daemon))
        continue
    if mode == "allow":
        for n in sorted(set(calls) - allowed):
            bad.append("%s: system call %s (x%d) is not in the unit's SystemCallFilter" % (log, n, calls[n]))
    elif mode == "deny":
        for n in sorted(set(calls) & allowed):
            bad.append("%s: system call %s is denied by the unit's SystemCallFilter" % (log, n))
    for fam in sorted(fams - families):
        bad.append("%s: socket family %s is not in RestrictAddressFamilies" % (log, fam))
    print("%s: %d system calls of %d kinds, socket families %s" % (
        log.rsplit("/", 1)[-1], sum(calls.values()), len(calls), " ".join(sorted(fams)) or "none"))
print("unit: SystemCallFilter allows %d system calls; RestrictAddressFamilies %s" % (
    len(allowed or ()), " ".join(sorted(families))))
for b in bad:
    print("FAIL: test_install:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
python3 "$ST_WORK/calls.py" "$UNIT" "$DAEMON" "$ST_WORK"/*.strace ||
	st_fail "the daemon did what the unit forbids"
if (( rt_ok )); then
	python3 "$ST_WORK/calls.py" "$ST_WORK/unit+realtime.service" "$DAEMON" "$ST_WORK/realtime.strace-rt" ||
		st_fail "the real-time daemon did what the unit and its drop-in forbid"
fi

# ---------------------------------------------------------------- 9. purge
phase "apt-get remove --purge"
rm -f "$ETC/$NAME_A.conf" "$ETC/$NAME_B.conf"
if (( ETC_CREATED )); then rmdir "$ETC"; ETC_CREATED=0; fi
DEBIAN_FRONTEND=noninteractive apt-get remove --purge -y -q -o DPkg::Lock::Timeout=60 "$PKG" \
	>"$ST_WORK/apt-remove.log" 2>&1 ||
	{ tail -n 30 "$ST_WORK/apt-remove.log" >&2; st_fail "apt-get remove --purge failed"; }
PKG_INSTALLED=0
if dpkg-query -W -f='${Status}' "$PKG" 2>/dev/null | grep -qv '^unknown\|not-installed'; then
	st_fail "dpkg still knows $PKG: $(dpkg-query -W -f='${Status}' "$PKG")"
fi
dpkg -L "$PKG" >/dev/null 2>&1 && st_fail "dpkg -L $PKG still lists files"
left=()
while read -r f; do
	# files and links; directories such as /lib (a link on merged-/usr
	# Debian) are shared with other packages
	if [[ ! -d $f ]] && [[ -e $f || -L $f ]]; then left+=("$f"); fi
done <"$ST_WORK/files.txt"
[[ -d $DOC ]] && left+=("$DOC")
[[ -e $ETC/$NAME_A.conf || -e $ETC/$NAME_B.conf ]] && left+=("$ETC/$NAME_A.conf or $NAME_B.conf")
(( ${#left[@]} == 0 )) || st_fail "left after the purge: ${left[*]}"
echo "purged: none of the package's $(wc -l <"$ST_WORK/files.txt") paths is left"

# ---------------------------------------------------------------- 10. fresh
phase "a fresh Debian 12: debootstrap, apt-get install, purge"
# The machine's own mirror (deb822 sources or the one-line list).
mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[[ -n $mirror ]] || mirror=$(awk '$1 == "deb" && $3 ~ /^bookworm$/ { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)
[[ -n $mirror ]] || st_fail "no Debian mirror in /etc/apt/sources.list(.d): the fresh-system check needs one"
fresh=$ST_WORK/fresh
debootstrap --variant=minbase bookworm "$fresh" "$mirror" >"$ST_WORK/debootstrap.log" 2>&1 ||
	{ tail -n 20 "$ST_WORK/debootstrap.log" >&2; st_fail "debootstrap bookworm from $mirror failed"; }
cp "$deb" "$fresh/tmp/"
cp /etc/resolv.conf "$fresh/etc/resolv.conf"
fresh_deb=/tmp/$(basename "$deb")
chroot "$fresh" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
	sh -c "apt-get update -q && apt-get install -y -q $fresh_deb" >"$ST_WORK/fresh-install.log" 2>&1 ||
	{ tail -n 30 "$ST_WORK/fresh-install.log" >&2; st_fail "apt-get install of the .deb failed on a fresh Debian 12"; }
pulled=$(grep -oE '^Setting up [^ ]+' "$ST_WORK/fresh-install.log" | awk '{print $3}' | tr '\n' ' ')
out=$(chroot "$fresh" /usr/sbin/schedtun --version) || st_fail "schedtun --version failed on the fresh system"
[[ $out == "schedtun $version" ]] || st_fail "schedtun --version on the fresh system says '$out'"
chroot "$fresh" /usr/sbin/schedtun --check -f "$DOC/examples/pss-sender.conf" >"$ST_WORK/fresh-check.log" 2>&1 ||
	{ cat "$ST_WORK/fresh-check.log" >&2; st_fail "an installed example fails --check on the fresh system"; }
chroot "$fresh" /usr/bin/schedtun-sim -q -d 2 -w 0 -f "$DOC/examples/pss-sender.conf" --ef cbr:2Mbit \
	--af greedy --cs0 greedy -o /dev/null >"$ST_WORK/fresh-sim.log" 2>&1 ||
	{ cat "$ST_WORK/fresh-sim.log" >&2; st_fail "schedtun-sim fails on the fresh system"; }
chroot "$fresh" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
	apt-get remove --purge -y -q "$PKG" >"$ST_WORK/fresh-remove.log" 2>&1 ||
	{ tail -n 20 "$ST_WORK/fresh-remove.log" >&2; st_fail "apt-get remove --purge failed on the fresh system"; }
left=()
while read -r f; do
	if [[ ! -d $fresh$f ]] && [[ -e $fresh$f || -L $fresh$f ]]; then left+=("$f"); fi
done <"$ST_WORK/files.txt"
(( ${#left[@]} == 0 )) || st_fail "left on the fresh system after the purge: ${left[*]}"
echo "fresh Debian 12 (minbase, $mirror): installed with ${pulled}; --version, --check, schedtun-sim ran; purged clean"
phase "done"
echo "PASS: $ST_NAME"
