#!/usr/bin/env bash
# unit-score.sh - the systemd unit's exposure score, written into docs/install.md
# (the whole block) and README.md (its first line).
#
#   scripts/unit-score.sh                  # rewrite the blocks
#   scripts/unit-score.sh --check          # exit 1 if the block is stale
#   scripts/unit-score.sh --check --verify BUILD/schedtun
#                                          # also `systemd-analyze verify` the
#                                          # unit with BUILD/schedtun in it
#
# Renders conf/systemd/schedtun@.service.in as cmake --install would for the
# prefix /usr (the unit's other lines do not depend on it), runs
# `systemd-analyze security --offline=true` on the instance schedtun@score
# and replaces what lies between the lines `<!-- unit-score -->` and
# `<!-- /unit-score -->` of docs/install.md with the overall exposure and
# every directive that adds to it, and README.md's with the overall line.  Never edit that block by hand.  The
# score depends on systemd's version (its weights change): the block names
# the version it was computed with, and --check fails on another one.
# With --verify, the rendered unit names the given binary instead of
# /usr/sbin/schedtun and `systemd-analyze verify` must print nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

check=0 verify_bin=""
while (( $# )); do
	case $1 in
	--check) check=1; shift ;;
	--verify) verify_bin=${2:?--verify needs the schedtun binary}; shift 2 ;;
	-h|--help) sed -n '2,19p' "$0"; exit 0 ;;
	*) echo "unit-score: unknown argument $1" >&2; exit 2 ;;
	esac
done
command -v systemd-analyze >/dev/null ||
	{ echo "unit-score: systemd-analyze not found (package systemd; scripts/deps.sh)" >&2; exit 1; }

doc=docs/install.md
src='conf/systemd/schedtun@.service.in'
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# render UNITDIR SBINDIR : the unit as installed under the prefix /usr.
render() {
	sed -e "s|@SBINDIR@|$2|g; s|@DOCDIR@|/usr/share/doc/schedtun|g; /@MAN_DOCUMENTATION@/d" \
		"$src" >"$1/schedtun@.service"
}

if [[ -n $verify_bin ]]; then
	[[ -x $verify_bin ]] || { echo "unit-score: $verify_bin is not executable" >&2; exit 1; }
	mkdir "$tmp/v"
	render "$tmp/v" "$(cd "$(dirname "$verify_bin")" && pwd)"
	[[ $(basename "$verify_bin") == schedtun ]] ||
		{ echo "unit-score: --verify wants a file named schedtun" >&2; exit 1; }
	out=$(cd "$tmp/v" && systemd-analyze verify --man=no 'schedtun@verify.service' 2>&1) || {
		echo "$out" >&2; echo "unit-score: systemd-analyze verify failed" >&2; exit 1; }
	[[ -z $out ]] || { echo "$out" >&2; echo "unit-score: systemd-analyze verify is not clean" >&2; exit 1; }
fi

mkdir "$tmp/s"
render "$tmp/s" /usr/sbin
(cd "$tmp/s" && systemd-analyze security --offline=true --no-pager 'schedtun@score.service') \
	>"$tmp/security.txt"
version=$(systemd-analyze --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p')

python3 - "$tmp/security.txt" "$version" >"$tmp/block" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r"Overall exposure level for \S+: ([0-9.]+) (\S+)", text)
if not m:
    sys.exit("unit-score: no overall exposure in systemd-analyze's output")
rows = []
for line in text.splitlines():
    if not line.startswith("\u2717"):          # ✗: a directive that adds exposure
        continue
    f = re.match(r"\u2717 (\S+)\s+(.*?)\s+([0-9.]+)\s*$", line)
    if f:
        rows.append((-float(f.group(3)), f.group(1), f.group(2), f.group(3)))
rows.sort()
print("Overall exposure of `schedtun@.service`: **%s %s** (`systemd-analyze security"
      " --offline=true`, systemd %s; 0 is the best, 10 the worst)." % (m.group(1), m.group(2), sys.argv[2]))
print()
print("| not set | what systemd says | adds |")
print("|---|---|---|")
for _, name, desc, exp in rows:
    print("| `%s` | %s | %s |" % (name.replace("|", "\\|"), desc, exp))
PY

# docs/install.md gets the whole block, README.md its first line.
python3 - "$tmp/block" "$check" "$doc" README.md <<'PY'
import sys
block, check = open(sys.argv[1], encoding="utf-8").read(), sys.argv[2] == "1"
stale = 0
for doc in sys.argv[3:]:
    text = open(doc, encoding="utf-8").read()
    begin, end = "<!-- unit-score -->\n", "<!-- /unit-score -->"
    want = block if doc != "README.md" else block.split("\n", 1)[0] + "\n"
    i, j = text.find(begin), text.find(end)
    if i < 0 or j < i:
        sys.exit("unit-score: %s has no %s ... %s block" % (doc, begin.strip(), end))
    new = text[:i + len(begin)] + want + text[j:]
    if check:
        if new != text:
            print("unit-score: the block in %s is stale; run scripts/unit-score.sh. Now:" % doc)
            print(want)
            stale = 1
        else:
            print("unit-score: %s is up to date" % doc)
    elif new != text:
        open(doc, "w", encoding="utf-8").write(new)
        print("unit-score: %s rewritten" % doc)
    else:
        print("unit-score: %s unchanged" % doc)
sys.exit(stale)
PY
