#!/usr/bin/env bash
# deps.sh - install the Debian packages schedtun needs, by purpose.
#
#   scripts/deps.sh                    # all sets: what scripts/test.sh needs
#   scripts/deps.sh build              # only what compiles the daemon
#   scripts/deps.sh experiments        # build + Mininet, iperf3, the Python
#                                      # experiment library's modules
#   scripts/deps.sh tests fuzz tmux    # two sets plus an extra package
#   scripts/deps.sh --list SET...      # print the packages, install nothing
#
# Sets (each includes build):
#   build        compiler, CMake, libevent, libconfig, libsodium, libseccomp
#   experiments  what an experiment runs (scripts/reproduce.sh, geo.py and
#                its front end geo-demo.sh, bench.sh): Mininet, iperf3, ping, iproute2,
#                ethtool, matplotlib, libconf (configuration files), SciPy
#                (Student t intervals)
#   tests        experiments + cmocka and the package/man-page/unit tools
#                the test suite checks with
#   fuzz         clang 14 and its sanitizer runtime (libFuzzer): Debian 12
#                only, which is why an experiment does not ask for it
#   all          every set (the default)
# Any other argument is an extra package name, checked too; with only
# extras, the default set is "all" (as before sets existed).
#
# Idempotent: checks each package with dpkg-query first and does nothing
# when all are present; otherwise runs `apt-get update` once and installs
# only the missing ones, non-interactively.  Needs root (or sudo) only
# when something is missing.
set -euo pipefail

BUILD=(libevent-dev libconfig-dev libsodium-dev libseccomp-dev cmake gcc pkg-config
       make libc6-dev)
# make, libc6-dev: cmake's generator and gcc's headers.
EXPERIMENTS=(iperf3 iputils-ping iproute2 ethtool mininet python3-matplotlib
	     python3-libconf python3-scipy)
# mininet: mininet/geo.py (Debian 2.3, under /usr/bin/python3, which is
# also the interpreter of python3-libconf and python3-scipy); ethtool:
# the tun's offload flags (test_tso.sh, bench.sh).
TESTS=(libcmocka-dev mandoc groff-base dpkg-dev file lintian systemd strace
       man-db debootstrap)
# mandoc, groff-base: the man pages' lint (tests/man_pages.sh).
# The package and its unit (docs/install.md, test_install.sh):
# dpkg-dev (dpkg-shlibdeps, dpkg-buildflags) and file for
# `cpack -G DEB` with CPACK_DEBIAN_PACKAGE_SHLIBDEPS; lintian; systemd for
# systemd-analyze (verify, security: scripts/unit-score.sh); strace, which
# records the daemon's system calls and socket families under the unit's
# identity; man-db, whose man(1) systemd-analyze verify runs for the
# unit's man: lines.  setpriv is util-linux's (essential).
# debootstrap: test_install.sh installs the .deb on a fresh Debian 12.
FUZZ=(clang libclang-rt-14-dev)
# clang, libclang-rt-14-dev: the fuzz targets (libFuzzer and the
# sanitizer runtimes of Debian 12's clang 14).

list=0
sets=()
extra=()
for a in "$@"; do
	case $a in
	--list) list=1 ;;
	build | experiments | tests | fuzz | all) sets+=("$a") ;;
	-*) echo "deps: unknown option '$a' (accepted: --list, and the sets build experiments tests fuzz all)" >&2
	    exit 2 ;;
	*) extra+=("$a") ;;
	esac
done
(( ${#sets[@]} )) || sets=(all)

PKGS=("${BUILD[@]}")
for s in "${sets[@]}"; do
	case $s in
	build) ;;
	experiments) PKGS+=("${EXPERIMENTS[@]}") ;;
	tests) PKGS+=("${EXPERIMENTS[@]}" "${TESTS[@]}") ;;
	fuzz) PKGS+=("${FUZZ[@]}") ;;
	all) PKGS+=("${EXPERIMENTS[@]}" "${TESTS[@]}" "${FUZZ[@]}") ;;
	esac
done
PKGS+=("${extra[@]}")
# each package once, in first-seen order
mapfile -t PKGS < <(printf '%s\n' "${PKGS[@]}" | awk '!seen[$0]++')

if (( list )); then
	printf '%s\n' "${PKGS[@]}"
	exit 0
fi

missing=()
for p in "${PKGS[@]}"; do
	# `dpkg -s` also succeeds for removed-but-configured packages: check the status.
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done

if [ "${#missing[@]}" -eq 0 ]; then
	echo "deps: all ${#PKGS[@]} packages present (${sets[*]})"
	exit 0
fi

echo "deps: missing: ${missing[*]}"
SUDO=()
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		SUDO=(sudo)
	else
		echo "deps: not root and no sudo: install these by hand: ${missing[*]}" >&2
		exit 1
	fi
fi

export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -q
# iperf3's postinst asks whether to start a daemon: answer no.
echo 'iperf3 iperf3/start_daemon boolean false' | "${SUDO[@]}" debconf-set-selections 2>/dev/null || true
"${SUDO[@]}" apt-get install -y -q "${missing[@]}"
echo "deps: installed: ${missing[*]}"
