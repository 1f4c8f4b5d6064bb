#!/bin/sh
# Runs the landlock enforcement suite (the single-run escape corpus) inside
# one of refuse_syscalls.c's environments, so that every run it makes is a
# run of a lower rung of the confinement ladder, and prints what failed
# there: the per-rung corpus results docs/security-model.md gives.
#   landlock     no Landlock: rung 2 (namespaces without Landlock)
#   namespaces   namespaces refused: rung 3 (Landlock alone)
#   mounts       mounts refused in the namespace: rung 3
# A measurement, not part of the suite: some cases check what only the full
# mode does (Landlock's denial log, a private loopback) and are expected to
# fail on a lower rung; the ladder tests (landlock_ladder) hold each rung to
# what doctor says it gives.
#
#   tests/enforcement/landlock/run-on-rung.sh BUILD_DIR ENVIRONMENT [ctest arguments...]
set -eu
usage="usage: run-on-rung.sh BUILD_DIR landlock|namespaces|mounts [ctest arguments...]"
build=$(cd "${1:?$usage}" && pwd)
environment=${2:?$usage}
shift 2
cd "$build"
# The tests' own check for Landlock would stop them where it was taken away.
[ "$environment" = landlock ] && export OMS_TEST_ON_RUNG=2
status=0
"$build/bin/landlock_refuse_syscalls" "$environment" -- ctest -R '^landlock_enforcement' -j2 --timeout 900 "$@" ||
    status=$?
echo "run-on-rung: $environment, failed cases:" >&2
cat Testing/Temporary/LastTestsFailed.log 2>/dev/null >&2 || echo "  none" >&2
exit "$status"
