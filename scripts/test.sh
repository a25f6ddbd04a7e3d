#!/usr/bin/env bash
# test.sh - the whole test suite, from a fresh clone on a fresh Debian machine:
# installs missing packages, builds from scratch with AddressSanitizer and
# UBSan, runs the unit tests (cmocka, virtual clock) and the integration
# tests (root, network namespaces created and removed by each test), and
# the fuzz targets for a fixed number of executions each.
#
#   scripts/test.sh                 # everything (as root; or: sudo scripts/test.sh)
#   scripts/test.sh -L unit         # extra arguments go to ctest
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh
build=build-test
rm -rf "$build"
cmake -S . -B "$build" -DSCHEDTUN_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build "$build" -j"$(nproc)"
# The default build (README "Building by hand", the demo, the benchmark)
# must compile too: -O2
# turns on warnings (format truncation, ...) that the -O0 test build never
# sees, and -Werror makes each one fatal.
rel=build-test-rel
rm -rf "$rel"
cmake -S . -B "$rel" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$rel" -j"$(nproc)"
# The fuzz targets (docs/fuzzing.md): clang, libFuzzer, ASan + UBSan;
# only they are built here, each replays its corpus and explores a fixed
# number of executions from a fixed seed (ctest label fuzz).
fuzz=build-fuzz
rm -rf "$fuzz"
CC=clang cmake -S . -B "$fuzz" -DSCHEDTUN_FUZZ=ON -DSCHEDTUN_TESTS=OFF \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$fuzz" -j"$(nproc)" --target fuzz
# detect_leaks: every test and every daemon run must free what it allocated.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir "$build" --output-on-failure "$@"
ctest --test-dir "$fuzz" -L fuzz --output-on-failure "$@"
