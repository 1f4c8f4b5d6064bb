#!/bin/sh
# Stop the dockerd that start-dockerd.sh started (found by its pidfile).
# A daemon started some other way is left alone. Idempotent.
set -eu

pidfile=/var/run/oms-dockerd.pid
if [ ! -f "$pidfile" ]; then
    echo "stop-dockerd: no daemon started by start-dockerd.sh" >&2
    exit 0
fi
pid=$(cat "$pidfile")
if kill "$pid" 2>/dev/null; then
    # dockerd stops its containers first; allow it the time to do so.
    for _ in $(seq 1 30); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 1
    done
fi
if kill -0 "$pid" 2>/dev/null; then
    echo "stop-dockerd: dockerd (pid $pid) still running after 30 s" >&2
    exit 1
fi
rm -f "$pidfile"
echo "stop-dockerd: stopped" >&2
