#!/bin/sh
# Stops the landlock scan keepers a build's tests started (root's and the
# ordinary user's; the build's own and those of packages unpacked below it),
# and waits until they are gone: each removes its socket
# and, in a sanitized build, runs its leak check as it exits, so the next
# pass starts keepers of its own build and a sanitizer report is written
# before anyone reads the reports.
#
#   tests/stop-scan-keepers.sh BUILD_DIR
set -u
keeper="^$(cd "$1" && pwd)/[^ ]*/oms-scan-keeper "
pkill -TERM -f "$keeper" 2>/dev/null || exit 0
for _ in $(seq 50); do
    pgrep -f "$keeper" >/dev/null || exit 0
    sleep 0.1
done
echo "stop-scan-keepers: a keeper of $1 did not stop on SIGTERM" >&2
pkill -KILL -f "$keeper" 2>/dev/null
exit 1
