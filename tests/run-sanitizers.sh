#!/bin/sh
# The sanitizer pass: builds oms, its plugins and the tests with
# AddressSanitizer, LeakSanitizer and UndefinedBehaviorSanitizer
# (-DOMS_SANITIZE=ON) in a build tree of its own, and runs, as the caller
# (root in CI: once is enough, the findings do not depend on the user), the
# tests that run code built with the sanitizers:
#
#   unit, abi, core    all of them
#   sdk                all but sdk_bwrap_example and sdk_docker_out_of_tree,
#                      which build plugins out of tree without sanitizers and
#                      run nothing this build made (the plain passes run them),
#                      and sdk_backend_check_docker (label docker, see below)
#   enforcement        all of them (landlock, seccomp, verify)
#   docker, package    not run: the docker tests' code under test runs in the
#                      container (the static runner, never sanitized) and they
#                      take longer than the rest together; the package tests
#                      check files a release build installs
#
# A finding fails the pass: ASan and UBSan stop the process at the first one
# (halt_on_error; UBSan's checks are not recoverable, -fno-sanitize-recover)
# with exit status 86. ASan's and LSan's reports go to files in
# <build>/sanitizer-reports, so a finding in a child process whose exit
# status a test does not look at fails the pass too. UBSan's do not: with
# GCC 12, UBSan linked beside ASan ignores log_path and writes to stderr (as
# measured), so the pass also fails on a "runtime error:" in the output
# ctest kept (Testing/Temporary/LastTest.log); one in the stderr of a child
# whose output a test throws away is caught only by its exit status.
#
#   tests/run-sanitizers.sh [build-dir]     (default: build-san next to build)
#
# Part of tests/run-suite.sh (and so of CI), after the two plain passes:
# about 19 minutes here, 13 of them the build.
#
# Binaries built without sanitizers on purpose, each with its reason where it
# is built: the docker runner and the test probes that run in a container
# (static), the probes that run inside the landlock sandbox (its seccomp
# filter refuses the ptrace LeakSanitizer needs at exit), the SDK's helper
# libraries (they link into those static binaries) and the seccomp generator
# (a build tool).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build-san}
mkdir -p "$build"
# -O1 -g1: line tables are all a report needs, and the build takes about 13
# minutes on CI's two cores instead of about 24 with -O2 -g (measured), so
# the pass fits in CI. No NDEBUG: assertions are checked too.
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1" -DOMS_BUILD_TESTS=ON -DOMS_BUILD_DOCKER_TESTS=OFF -DOMS_WERROR=ON -DOMS_SANITIZE=ON >/dev/null
cmake --build "$build" -j"$(nproc)"

reports=$build/sanitizer-reports
rm -rf "$reports"
mkdir -p "$reports"
# Tests run as another user would write here too (a command run as root
# drops nothing here, but keep the folder open to every writer).
chmod 1777 "$reports"
# exitcode 86: not 1, which many commands under test fail with on purpose.
export ASAN_OPTIONS="halt_on_error=1:exitcode=86:detect_leaks=1:log_path=$reports/asan"
export UBSAN_OPTIONS="halt_on_error=1:exitcode=86:print_stacktrace=1:log_path=$reports/ubsan"
export LSAN_OPTIONS="exitcode=86"

cd "$build"
status=0
ctest --output-on-failure -j2 --timeout 900 -L '^(unit|abi|core|sdk|enforcement)$' -LE '^docker$' \
    -E '^(sdk_bwrap_example|sdk_docker_out_of_tree)$' || status=$?
# The scan keepers the tests started run their leak check as they stop.
"$here/tests/stop-scan-keepers.sh" "$build" || status=1

log=Testing/Temporary/LastTest.log
if [ -f "$log" ] && grep -q "runtime error:" "$log"; then
    echo "run-sanitizers: UndefinedBehaviorSanitizer findings (in $build/$log):" >&2
    grep -B2 -A12 "runtime error:" "$log" >&2
    status=1
fi
# Only reports of an error count: the landlock sandbox's init (pid 1 there)
# runs on a stack of its own and ASan logs a warning about it (measured).
if grep -lq "ERROR: " "$reports"/* 2>/dev/null; then
    echo "run-sanitizers: sanitizer findings:" >&2
    for report in "$reports"/*; do
        echo "==== $report" >&2
        cat "$report" >&2
    done
    status=1
fi
exit "$status"
