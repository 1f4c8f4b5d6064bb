#!/bin/sh
# Builds oms and runs the whole test suite: unit, core, ABI, SDK, the
# enforcement suites (landlock, host-null) and the docker integration tests
# against a real dockerd, which this script starts (and stops again if it
# started it). Run as root, the suite then runs a second time as an ordinary
# user (tests/run-as-user.sh): attacks and defences differ without root.
# Then the sanitizer pass (tests/run-sanitizers.sh: a build of its own with
# ASan, LSan and UBSan, as root; a finding fails the suite), and the fuzz
# targets (tests/run-fuzzers.sh: a clang build of their own, each target over
# its seed corpus and 5 seconds of new inputs; a finding fails the suite).
# Exit status: 0 when every pass passed.
#
#   tests/run-suite.sh [build-dir]        (default: build, or a folder outside
#                                         /tmp and /var/tmp when the checkout
#                                         is in one)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)

# True when $1 lies in a system temp folder. The landlock backend gives every
# command its own /tmp and /var/tmp, and the policy never trusts links or
# roots there (commands of other runs write them): test worlds built there
# would vanish inside the sandbox or be refused as roots.
in_temp_folder() {
    case "$1/" in /tmp/* | /var/tmp/* | /dev/shm/*) return 0 ;; *) return 1 ;; esac
}

# The build tree (the tests make their worlds in it): the checkout's build/,
# or, for a checkout in a temp folder, a folder of its own outside them.
default_build_dir() {
    in_temp_folder "$here" || { echo "$here/build"; return; }
    base=${XDG_CACHE_HOME:-$HOME/.cache}
    in_temp_folder "$base" && base=/var/lib
    echo "$base/oms-test-build/$(printf %s "$here" | cksum | cut -d' ' -f1)"
}
build=${1:-$(default_build_dir)}
[ "$build" = "$here/build" ] || echo "run-suite: building and testing in $build (outside the temp folders)" >&2
mkdir -p "$build"
"$here/tests/install-deps.sh"
# -Werror: a new compiler warning fails the suite (and CI) like a failed test.
# The release build's optimisation without its debug information, which costs
# a quarter of the compile time and no test reads.
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" -DOMS_BUILD_TESTS=ON -DOMS_WERROR=ON >/dev/null
cmake --build "$build" -j"$(nproc)"

started_dockerd=no
if ! docker info >/dev/null 2>&1; then
    if "$here/tests/docker/start-dockerd.sh"; then started_dockerd=yes; fi
fi
stop() {
    "$here/tests/stop-scan-keepers.sh" "$build" || true
    [ "$started_dockerd" = yes ] && "$here/tests/docker/stop-dockerd.sh" || true
}
trap stop EXIT

cd "$build"
status=0
# The failed tests of every pass, said again at the end: a log cut to its
# last lines (a CI page) still names what failed in the first passes.
failed_list="$build/Testing/Temporary/LastTestsFailed.log"
failures=""
note_failures() {
    [ -s "$failed_list" ] || return 0
    failures="$failures
run-suite: failed as $1: $(tr '\n' ';' < "$failed_list")
$(failure_lines "$(dirname "$failed_list")/LastTest.log")"
}
# The lines of a pass's log that say why its failed tests failed (a script's
# TEST FAILURE, the kit's FAIL verdicts, Catch2's FAILED with its expansion),
# at most 60: the reason reaches the end of a cut log along with the names.
failure_lines() {
    [ -s "$1" ] || return 0
    awk -v failed="$(cut -d: -f2- "$failed_list" | tr '\n' '|')" '
        BEGIN { n = split(failed, names, "|"); for (i = 1; i <= n; i++) wanted[names[i]] = 1 }
        /^[0-9]+\/[0-9]+ Testing: / { name = substr($0, index($0, ": ") + 2); after = 0; next }
        !(name in wanted) { next }
        /^(TEST FAILURE|FAIL  )|FAILED:/ { after = 4 }
        after > 0 { print "  | " name ": " $0; after-- }' "$1" | head -60
}
rm -f "$failed_list"
# The landlock scan keepers each pass started are stopped after it (the
# next pass starts its own, from its own build); one that does not stop on
# SIGTERM fails the suite.
ctest --output-on-failure -j2 --timeout 900 || { status=$?; note_failures root; }
"$here/tests/stop-scan-keepers.sh" "$build" || status=1
rm -f "$failed_list"
"$here/tests/run-as-user.sh" "$build" --output-on-failure -j2 --timeout 900 || { status=$?; note_failures "an ordinary user"; }
"$here/tests/stop-scan-keepers.sh" "$build" || status=1
san="$(dirname "$build")/$(basename "$build")-san"
rm -f "$san/Testing/Temporary/LastTestsFailed.log"
if ! "$here/tests/run-sanitizers.sh" "$san"; then
    status=1
    failed_list="$san/Testing/Temporary/LastTestsFailed.log"
    note_failures "root, with sanitizers"
fi
if ! "$here/tests/run-fuzzers.sh" "$(dirname "$build")/$(basename "$build")-fuzz" 5; then
    status=1
    failures="$failures
run-suite: failed: the fuzz targets (tests/run-fuzzers.sh)"
fi
[ -z "$failures" ] || echo "$failures" >&2
exit "$status"
