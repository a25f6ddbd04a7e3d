#!/usr/bin/env bash
# check_golden.sh SCHEDTUN [--update] - `schedtun --check` output, byte for
# byte, over every configuration under tests/unit/data/{conf,pss,dwrr,check}
# against tests/unit/data/check.golden.
#
# The messages are a contract (DESIGN §2: FILE:LINE: key: problem (accepted:
# ...)); refactoring the configuration code must not change one of them.
# --update rewrites the golden file from the binary given, for a deliberate
# change of wording (review the diff).
set -euo pipefail
bin=${1:?usage: check_golden.sh SCHEDTUN [--update]}
cd "$(dirname "$0")/unit"
golden=data/check.golden
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for f in data/conf/*.conf data/pss/*.conf data/dwrr/*.conf data/check/*.conf; do
	rc=0
	printf '== %s\n' "$f" >>"$out"
	"$bin" --check -f "$f" >>"$out" 2>&1 || rc=$?
	printf -- '-- exit %d\n' "$rc" >>"$out"
done
if [ "${2:-}" = --update ]; then
	cp "$out" "$golden"
	echo "check_golden: wrote $golden ($(grep -c '^== ' "$golden") files)"
	exit 0
fi
if ! diff -u "$golden" "$out"; then
	echo "check_golden: --check output differs from $golden (see diff above)"
	exit 1
fi
echo "check_golden: $(grep -c '^== ' "$golden") files, output identical"
