#!/usr/bin/env bash
# test_soak.sh SCHEDTUN - the soak (scripts/soak.sh) in short: 50 s of
# churn (10 steps of 5 s: every scheduler once with non-default keys, the
# three link profiles, B restarted 5 times with garbage from its address
# while down, garbage from a stranger every step, two /dev/full stats
# phases, a dry pool all along), about 65 s in all.  Every assertion of
# the soak applies (see its header); exit 77 when not root, as the others.
set -euo pipefail
SOAK_NAME=$(basename "${BASH_SOURCE[0]}" .sh) \
	exec bash "$(dirname "${BASH_SOURCE[0]}")/../../scripts/soak.sh" \
	"${SOAK_SECONDS:-50}" "${1:-}"
