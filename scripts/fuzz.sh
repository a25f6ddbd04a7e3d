#!/usr/bin/env bash
# fuzz.sh - runs the libFuzzer targets long (docs/fuzzing.md).
#
#   scripts/fuzz.sh [TARGET|all] [SECONDS]     # default: all, 600 s each
#   scripts/fuzz.sh -h
#
# TARGET is udp, tun, conf, trace, tso, tungro, udpgro, efgen or simspec
# (tests/fuzz/fuzz_TARGET.c).  Builds
# build-fuzz first if needed (clang, SCHEDTUN_FUZZ=ON; `cmake --build` is
# incremental), then runs one target at a time under nice: new inputs go
# to a scratch directory and are merged (-merge=1) into the committed
# corpus tests/fuzz/corpus/TARGET only when they add coverage, so it
# stays small (inputs are capped at 4096 bytes); a crash, leak or failed
# invariant is written to tests/fuzz/crashes/TARGET-* (libFuzzer stops at
# the first).  Prints per
# target the executions, coverage (cov: edges, ft: features) and crashes;
# exits 1 when any target found something.
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
	sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
}

target=all secs=600
case "${1:-}" in
-h|--help) usage; exit 0 ;;
"") ;;
*) target=$1 ;;
esac
[ $# -ge 2 ] && secs=$2
all=(udp tun conf trace tso tungro udpgro efgen simspec)
if [ "$target" = all ]; then
	targets=("${all[@]}")
elif [[ " ${all[*]} " == *" $target "* ]]; then
	targets=("$target")
else
	echo "fuzz.sh: unknown target '$target' (accepted: ${all[*]}, all)" >&2
	exit 2
fi
if ! [[ "$secs" =~ ^[1-9][0-9]*$ ]]; then
	echo "fuzz.sh: '$secs' is not a number of seconds (accepted: an integer > 0)" >&2
	exit 2
fi

build=build-fuzz
if [ ! -f "$build/CMakeCache.txt" ]; then
	CC=clang cmake -S . -B "$build" -DSCHEDTUN_FUZZ=ON -DSCHEDTUN_TESTS=OFF \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
nice -n 19 cmake --build "$build" -j"$(nproc)" --target fuzz >/dev/null

here=tests/fuzz
mkdir -p "$here/crashes"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS="suppressions=$PWD/$here/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/schedtun-fuzz-run.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

found=0
summary=()
for t in "${targets[@]}"; do
	bin=$build/fuzz_$t
	mkdir -p "$scratch/$t" "$here/corpus/$t"
	dict=()
	[ -f "$here/$t.dict" ] && dict=(-dict="$here/$t.dict")
	before=$(ls "$here/crashes" | grep -c "^$t-" || true)
	echo "== $t: $secs s"
	rc=0
	nice -n 19 "$bin" -max_total_time="$secs" -max_len=4096 -print_final_stats=1 \
		-timeout=25 "${dict[@]}" -artifact_prefix="$here/crashes/$t-" \
		"$scratch/$t" "$here/corpus/$t" >"$scratch/$t.log" 2>&1 || rc=$?
	grep -E '^#[0-9]+[[:space:]].*(NEW|DONE|pulse)|^stat::|ERROR|invariant|SUMMARY' \
		"$scratch/$t.log" | tail -8
	# Only inputs that add coverage to the committed corpus are kept.
	nice -n 19 "$bin" -merge=1 -max_len=4096 "${dict[@]}" "$here/corpus/$t" "$scratch/$t" \
		>"$scratch/$t.merge.log" 2>&1 || echo "fuzz.sh: $t: merge failed" >&2
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$scratch/$t.log" | tail -1)
	last=$(grep -E '^#[0-9]+[[:space:]]' "$scratch/$t.log" | tail -1)
	cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
	ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
	crashes=$(( $(ls "$here/crashes" | grep -c "^$t-" || true) - before ))
	[ "$rc" -ne 0 ] && [ "$crashes" -eq 0 ] && crashes="exit $rc"
	[ "$rc" -ne 0 ] && found=1
	summary+=("$(printf '%-6s %4ss  executions %-10s cov %-6s ft %-6s crashes %s' \
		"$t" "$secs" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$crashes")")
done
echo "== summary"
printf '%s\n' "${summary[@]}"
[ "$found" -eq 0 ] || echo "fuzz.sh: findings in $here/crashes/ (reproduce: $build/fuzz_TARGET FILE)" >&2
exit "$found"
