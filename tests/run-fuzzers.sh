#!/bin/sh
# Builds the libFuzzer targets (tests/fuzz, a project of its own built with
# clang-16, ASan and UBSan) and runs each one: first over its seed corpus
# (tests/fuzz/corpus/<target>, a regression run), then on new inputs for
# SECONDS (default 5). Any crash, sanitizer finding, broken property, leak
# or timeout fails the pass; the input is kept in <build-dir>/artifacts.
# New inputs the fuzzer finds go to <build-dir>/found/<target>, never into
# the checkout.
#
#   tests/run-fuzzers.sh <build-dir> [SECONDS]
#
# Part of tests/run-suite.sh (two to three minutes: about one of build, one
# of runs).
# A long run of one target: <build-dir>/<target>_fuzzer -max_total_time=600
#   <build-dir>/found/<target> tests/fuzz/corpus/<target> (docs/security-model.md).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 1 ] || { echo "usage: tests/run-fuzzers.sh <build-dir> [SECONDS]" >&2; exit 2; }
build=$1
seconds=${2:-5}
mkdir -p "$build"
build=$(cd "$build" && pwd)
CC=${FUZZ_CC:-clang-16} CXX=${FUZZ_CXX:-clang++-16} cmake -S "$here/tests/fuzz" -B "$build" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null

status=0
failed=""
mkdir -p "$build/artifacts"
for corpus in "$here"/tests/fuzz/corpus/*/; do
    target=$(basename "$corpus")
    mkdir -p "$build/found/$target"
    # One process, no forks: -jobs would share the machine's two cores with
    # the rest of the suite. -timeout: an input that takes 10 s is a hang.
    if "$build/${target}_fuzzer" "$build/found/$target" "$corpus" -max_total_time="$seconds" -timeout=10 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$build/artifacts/$target-" \
        >"$build/$target.log" 2>&1; then
        echo "run-fuzzers: $target: $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$build/$target.log" |
            grep -o '[0-9]*$') inputs, no finding"
    else
        status=1
        failed="$failed $target"
        echo "run-fuzzers: $target: FAILED (log: $build/$target.log)" >&2
        grep -E 'ERROR|property broken|runtime error|Test unit written' "$build/$target.log" | head -5 >&2 || true
    fi
done
[ -z "$failed" ] || echo "run-fuzzers: failed:$failed" >&2
exit "$status"
