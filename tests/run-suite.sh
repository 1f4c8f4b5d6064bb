#!/bin/sh
# Builds oms and runs the whole test suite: unit, core, ABI, SDK, the
# enforcement suites (landlock, host-null) and the docker integration tests
# against a real dockerd, which this script starts (and stops again if it
# started it). Run as root, the suite then runs a second time as an ordinary
# user (tests/run-as-user.sh): attacks and defences differ without root.
# Exit status: 0 when every pass passed.
#
#   tests/run-suite.sh [build-dir]        (default: build)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
"$here/tests/install-deps.sh"
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DOMS_BUILD_TESTS=ON >/dev/null
cmake --build "$build" -j"$(nproc)"

started_dockerd=no
if ! docker info >/dev/null 2>&1; then
    if "$here/tests/docker/start-dockerd.sh"; then started_dockerd=yes; fi
fi
stop() { [ "$started_dockerd" = yes ] && "$here/tests/docker/stop-dockerd.sh" || true; }
trap stop EXIT

cd "$build"
status=0
ctest --output-on-failure -j2 --timeout 900 || status=$?
"$here/tests/run-as-user.sh" "$build" --output-on-failure -j2 --timeout 900 || status=$?
exit "$status"
