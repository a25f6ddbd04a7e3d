#!/usr/bin/env bash
# readme-keys.sh SCHEDTUN [--check] - the scheduler key tables of README.md,
# generated from the schedulers' own key tables (`schedtun --help-sched-md
# NAME`), so that the README, --help-sched and the parser cannot drift apart.
#
# Each block between `<!-- keys:NAME -->` and `<!-- /keys:NAME -->` is
# replaced by the reference of scheduler NAME.  With --check nothing is
# written: exit 1 and a diff when README.md is not what the binary prints.
set -euo pipefail
bin=${1:?usage: readme-keys.sh SCHEDTUN [--check]}
cd "$(dirname "$0")/.."
new=$(mktemp)
trap 'rm -f "$new"' EXIT
python3 - "$bin" README.md >"$new" <<'PY'
import re, subprocess, sys
bin, path = sys.argv[1], sys.argv[2]
text = open(path).read()
def table(m):
    name = m.group(1)
    out = subprocess.run([bin, "--help-sched-md", name], check=True,
                         capture_output=True, text=True).stdout
    return "<!-- keys:%s -->\n%s<!-- /keys:%s -->" % (name, out, name)
sys.stdout.write(re.sub(r"<!-- keys:(\w+) -->\n.*?<!-- /keys:\1 -->", table,
                        text, flags=re.S))
PY
if [ "${2:-}" = --check ]; then
	if ! diff -u README.md "$new"; then
		echo "readme-keys: README.md's key tables differ from $bin --help-sched-md (run scripts/readme-keys.sh $bin)"
		exit 1
	fi
	echo "readme-keys: $(grep -c '<!-- keys:' README.md) tables match the key tables"
	exit 0
fi
cp "$new" README.md
echo "readme-keys: README.md updated"
