#!/usr/bin/env bash
# test.sh - the whole test suite, from a fresh clone on a fresh Debian machine:
# installs missing packages, builds from scratch with AddressSanitizer and
# UBSan, runs the unit tests (cmocka, virtual clock) and the integration
# tests (root, network namespaces created and removed by each test), and
# the fuzz targets for a fixed number of executions each.
#
#   scripts/test.sh                 # everything (as root; or: sudo scripts/test.sh)
#   scripts/test.sh -L unit         # the unit tests only (root not needed)
#   scripts/test.sh -R test_pss     # extra arguments go to both ctest runs
#
# Every test must run.  The run fails when a test it selected did not run:
# ctest's "Not Run" (an integration test's exit 77, a missing executable),
# a part of a test skipped ("SKIP: NAME: REASON" in its output), a cmocka
# or Python unittest test skipped, or, in a run without arguments, a
# test file under tests/unit, tests/integration or tests/fuzz with no
# result (scripts/test-skips.py reads ctest's JUnit results).  The tests
# themselves fail rather than skip (netns-lib.sh's st_skip, test_rt).
# Only SCHEDTUN_TEST_ALLOW_SKIP=REASON (a machine declared unable, e.g.
# "container without SCHED_FIFO"; CI never sets it) turns those into
# skips that pass.  The last line says what was skipped and why, or that
# nothing was.
#
# As non-root it stops at once (exit 1) with what it needs, unless the
# arguments are `-L unit` (the unit label alone), which it then runs.
# The unit test test_rt needs SCHED_FIFO (root, CAP_SYS_NICE or ulimit -r
# 20): without it, it fails unless SCHEDTUN_TEST_ALLOW_SKIP is set.
set -euo pipefail
cd "$(dirname "$0")/.."

allow=${SCHEDTUN_TEST_ALLOW_SKIP:-}

# Is this `-L unit` and no other label selection?
unit_only=0
labels=0 unit_label=0
args=("$@")
for (( i = 0; i < ${#args[@]}; i++ )); do
	case ${args[i]} in
	-L | --label-regex)
		labels=$(( labels + 1 ))
		[[ ${args[i + 1]:-} == unit ]] && unit_label=1 ;;
	-L* | --label-regex=*)
		labels=$(( labels + 1 )) ;;
	esac
done
(( labels == 1 && unit_label )) && unit_only=1

if (( $(id -u) != 0 )); then
	if (( ! unit_only )); then
		cat >&2 <<-EOF
		test.sh: not root (uid $(id -u)): the integration tests need root (network
		namespaces, tun devices, SCHED_FIFO, Mininet), and a run where they do not
		run fails.  Nothing was built or run.
		  as root:              scripts/test.sh
		  with sudo:            sudo scripts/test.sh
		  the unit tests only:  scripts/test.sh -L unit   (two of them need root
		                        too; SCHEDTUN_TEST_ALLOW_SKIP=REASON skips them)
		EOF
		exit 1
	fi
	echo "test.sh: not root: running the unit tests only (-L unit), as asked;" \
		"the integration tests and the fuzz targets do not run." \
		"unit.test_rt needs SCHED_FIFO (root, CAP_SYS_NICE or ulimit -r 20)" \
		"and unit.test_netdev a network namespace and tun devices of its own" \
		"(root); each fails without them unless SCHEDTUN_TEST_ALLOW_SKIP is set"
fi
if [[ -n $allow ]]; then
	echo "test.sh: SCHEDTUN_TEST_ALLOW_SKIP='$allow': a test that cannot run here is skipped, not failed, and listed at the end"
fi

scripts/deps.sh
build=build-test
rm -rf "$build"
cmake -S . -B "$build" -DSCHEDTUN_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build "$build" -j"$(nproc)"
# The default build (README "Building by hand", the demo, the benchmark)
# must compile too: -O2
# turns on warnings (format truncation, ...) that the -O0 test build never
# sees, and -Werror makes each one fatal.  test_realtime.sh checks the
# memory lock with its daemon (ASan makes mlockall a no-op).
rel=build-test-rel
rm -rf "$rel"
cmake -S . -B "$rel" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$rel" -j"$(nproc)"
# The fuzz targets (docs/fuzzing.md): clang, libFuzzer, ASan + UBSan;
# only they are built here, each replays its corpus and explores a fixed
# number of executions from a fixed seed (ctest label fuzz).
fuzz=build-fuzz
rm -rf "$fuzz"
if (( unit_only )); then
	mkdir -p "$fuzz"
	echo "test.sh: fuzz targets not built (-L unit)"
else
	CC=clang cmake -S . -B "$fuzz" -DSCHEDTUN_FUZZ=ON -DSCHEDTUN_TESTS=OFF \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build "$fuzz" -j"$(nproc)" --target fuzz
fi

# What must have a result: in a run without arguments, one test per file
# (CMakeLists.txt registers them so); with `-L unit`, the unit ones.
expect=()
if (( $# == 0 || unit_only )); then
	for f in tests/unit/test_*.c; do expect+=(--expect "unit.$(basename "$f" .c)"); done
fi
if (( $# == 0 )); then
	for f in tests/integration/test_*.sh; do
		expect+=(--expect "integration.$(basename "$f" .sh)")
	done
	for f in tests/fuzz/fuzz_*.c; do
		[[ $f == */fuzz_common.c ]] && continue
		expect+=(--expect "fuzz.$(basename "$f" .c | sed 's/^fuzz_//')")
	done
fi

# detect_leaks: every test and every daemon run must free what it allocated.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Each run writes its JUnit results with every test's whole output (ctest
# keeps only the first 1 KiB of a passing test's output by default).
# Without arguments a run that finds no test fails; with arguments a
# selection may leave one of the two runs empty.
none=error
(( $# == 0 )) || none=ignore
junit_t=$PWD/$build/junit.xml
junit_f=$PWD/$fuzz/junit.xml
ctest_run() {   # ctest_run DIR JUNIT ARGS...
	local dir=$1 junit=$2; shift 2
	ctest --test-dir "$dir" --output-on-failure --no-tests="$none" \
		--output-junit "$junit" --test-output-size-passed 16777216 \
		--test-output-size-failed 16777216 "$@"
}
rc_t=0 rc_f=0
ctest_run "$build" "$junit_t" "$@" || rc_t=$?
if (( unit_only )); then
	printf '<?xml version="1.0"?>\n<testsuite name="fuzz, not selected" tests="0">\n</testsuite>\n' >"$junit_f"
else
	ctest_run "$fuzz" "$junit_f" -L fuzz "$@" || rc_f=$?
fi

# The verdict: what did not run, from both runs' results.
skips=""
if ! skips=$(python3 scripts/test-skips.py "${expect[@]}" "$junit_t" "$junit_f"); then
	echo "test.sh: FAIL: cannot read ctest's results ($junit_t, $junit_f): whether every test ran is unknown" >&2
	exit 1
fi
count() { grep -c '<testcase ' "$1" || true; }
n_t=$(count "$junit_t") n_f=$(count "$junit_f")
n_skip=0 list=none
if [[ -n $skips ]]; then
	n_skip=$(wc -l <<<"$skips")
	echo "test.sh: did not run ($n_skip):"
	sed 's/\t/: /; s/^/  /' <<<"$skips"
	list=$(awk -F'\t' '{ printf "%s%s (%s)", (NR > 1 ? "; " : ""), $1, $2 }' <<<"$skips")
fi
failed=""
(( rc_t == 0 )) || failed+=" ctest $build: exit $rc_t;"
(( rc_f == 0 )) || failed+=" ctest $fuzz: exit $rc_f;"
(( n_t + n_f > 0 )) || failed+=" no test selected;"
if (( n_skip > 0 )) && [[ -z $allow ]]; then
	failed+=" $n_skip test(s) did not run and SCHEDTUN_TEST_ALLOW_SKIP is not set;"
fi
results="$((n_t + n_f)) test results ($build $n_t, $fuzz $n_f)"
if [[ -n $failed ]]; then
	echo "test.sh: FAIL:${failed} $results; skipped: $list"
	exit 1
fi
if (( n_skip > 0 )); then
	echo "test.sh: PASS with skips allowed by SCHEDTUN_TEST_ALLOW_SKIP='$allow': $results; skipped: $list"
else
	echo "test.sh: PASS: $results; skipped: none"
fi
