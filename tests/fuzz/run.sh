#!/usr/bin/env bash
# run.sh - one fuzz target for a fixed number of executions from a fixed
# seed over its committed corpus (the ctest replay; CMakeLists.txt):
#
#   tests/fuzz/run.sh BINARY NAME RUNS SCRATCH
#
# New inputs go to SCRATCH/NAME, never into tests/fuzz/corpus/NAME (libFuzzer
# writes to the first corpus directory it is given), so the committed corpus
# only changes through scripts/fuzz.sh's merge.  The dictionary
# tests/fuzz/NAME.dict is used when it exists.
set -euo pipefail
bin=$1 name=$2 runs=$3 scratch=$4
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "${scratch:?}/$name"
mkdir -p "$scratch/$name"
# libconfig leaks we cannot fix (lsan.supp says which).
export LSAN_OPTIONS="suppressions=$here/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
dict=()
[ -f "$here/$name.dict" ] && dict=(-dict="$here/$name.dict")
exec "$bin" -runs="$runs" -seed=1 -max_len=4096 -timeout=25 -print_final_stats=1 \
	"${dict[@]}" -artifact_prefix="$scratch/crash-$name-" \
	"$scratch/$name" "$here/corpus/$name"
