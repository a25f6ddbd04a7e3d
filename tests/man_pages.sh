#!/usr/bin/env bash
# man_pages.sh MANDIR SCHEDTUN SCHEDTUN_SIM SCHEDTUN_EFGEN - the built man
# pages (docs/man/, scripts/mkman.py) against the programs:
#   - each page passes `mandoc -T lint -W warning` and `groff -ww -z`;
#   - every key that `schedtun --help-conf-tsv` prints (the key tables the
#     parser uses) is in schedtun.conf(5) as rendered;
#   - every long option of each program's --help is in its page.
# Before that it proves the key check can fail: a page with one key taken
# out must be refused.
set -euo pipefail
dir=${1:?usage: man_pages.sh MANDIR SCHEDTUN SCHEDTUN_SIM SCHEDTUN_EFGEN}
st=$2 sim=$3 ef=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
pages=(schedtun.8 schedtun.conf.5 schedtun-sim.1 schedtun-efgen.1)

for p in "${pages[@]}"; do
	[ -s "$dir/$p" ] || { echo "man_pages: $dir/$p missing"; exit 1; }
	if ! out=$(mandoc -T lint -W warning "$dir/$p" 2>&1) || [ -n "$out" ]; then
		echo "man_pages: mandoc -T lint $p:"; echo "$out"; fail=1
	fi
	if ! out=$(groff -ww -z -mandoc "$dir/$p" 2>&1) || [ -n "$out" ]; then
		echo "man_pages: groff -ww $p:"; echo "$out"; fail=1
	fi
	# as a reader sees it: no hyphenation, one long line per paragraph
	MANWIDTH=1000 mandoc -T ascii -O width=1000 "$dir/$p" | col -bx >"$tmp/$p.txt"
done

# missing_keys KEYS_TSV RENDERED: the keys of KEYS_TSV not in RENDERED.
missing_keys() {
	awk -F'\t' '$1 != "@section" && NF == 4 { print $1 }' "$1" |
	while IFS= read -r k; do
		grep -qF -- "$k" "$2" || echo "$k"
	done
}

"$st" --help-conf-tsv >"$tmp/keys.tsv"
nkeys=$(awk -F'\t' '$1 != "@section"' "$tmp/keys.tsv" | wc -l)
[ "$nkeys" -ge 50 ] || { echo "man_pages: only $nkeys keys in --help-conf-tsv"; exit 1; }

# the check itself must fail on a page missing one key
victim=scheduler.pss.lm
grep -vF -- "$victim" "$tmp/schedtun.conf.5.txt" >"$tmp/broken.txt"
if [ "$(missing_keys "$tmp/keys.tsv" "$tmp/broken.txt")" != "$victim" ]; then
	echo "man_pages: self-test: a page without $victim was not caught"; exit 1
fi

miss=$(missing_keys "$tmp/keys.tsv" "$tmp/schedtun.conf.5.txt")
if [ -n "$miss" ]; then
	echo "man_pages: keys in the tables but not in schedtun.conf(5):"; echo "$miss"; fail=1
fi

# long options: every --word a program's --help names
check_opts() {
	local prog=$1 page=$2 o
	for o in $("$prog" --help 2>&1 | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
		grep -qF -- "$o" "$tmp/$page.txt" || { echo "man_pages: $page lacks $o"; fail=1; }
	done
}
check_opts "$st" schedtun.8
check_opts "$sim" schedtun-sim.1
check_opts "$ef" schedtun-efgen.1

[ $fail -eq 0 ] || exit 1
echo "man_pages: ${#pages[@]} pages lint-clean; $nkeys keys in schedtun.conf(5); every --help option in its page"
