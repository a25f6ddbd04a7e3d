#!/usr/bin/env bash
# deps.sh - install the Debian packages schedtun needs to build, test and demo.
#
# Idempotent: checks each package with `dpkg -s` first and does nothing when all
# are present; otherwise runs `apt-get update` once and installs only the
# missing ones, non-interactively.  Needs root (or sudo) only when something is
# missing.  Extra package names given as arguments are checked too.
#
#   scripts/deps.sh            # the default set
#   scripts/deps.sh tmux       # the default set plus tmux
set -euo pipefail

PKGS=(libevent-dev libconfig-dev libcmocka-dev iperf3 iputils-ping
      python3-matplotlib cmake gcc pkg-config iproute2
      make libc6-dev mininet clang libclang-rt-14-dev mandoc groff-base
      dpkg-dev file lintian systemd strace man-db debootstrap ethtool "$@")
# make, libc6-dev: cmake's generator and gcc's headers; mininet:
# mininet/geo.py (Debian 2.3); clang, libclang-rt-14-dev: the fuzz targets
# (libFuzzer and the sanitizer runtimes of Debian 12's clang 14);
# mandoc, groff-base: the man pages' lint (tests/man_pages.sh).
# The package and its unit (docs/install.md, test_install.sh):
# dpkg-dev (dpkg-shlibdeps, dpkg-buildflags) and file for
# `cpack -G DEB` with CPACK_DEBIAN_PACKAGE_SHLIBDEPS; lintian; systemd for
# systemd-analyze (verify, security: scripts/unit-score.sh); strace, which
# records the daemon's system calls and socket families under the unit's
# identity; man-db, whose man(1) systemd-analyze verify runs for the
# unit's man: lines.  setpriv is util-linux's (essential).
# debootstrap: test_install.sh installs the .deb on a fresh Debian 12.
# ethtool: test_tso.sh reads the tun's offload flags (ethtool -k).

missing=()
for p in "${PKGS[@]}"; do
	# `dpkg -s` also succeeds for removed-but-configured packages: check the status.
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done

if [ "${#missing[@]}" -eq 0 ]; then
	echo "deps: all ${#PKGS[@]} packages present"
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
