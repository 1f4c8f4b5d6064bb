#!/bin/sh
# Start Debian's dockerd in the background for the docker backend's tests, unless
# a daemon already answers. Idempotent: running it twice starts one daemon.
#
#   tests/docker/start-dockerd.sh        # exit 0 once `docker info` answers
#
# Environment: OMS_DOCKERD_LOG (default /tmp/oms-dockerd.log),
#              OMS_DOCKERD_WAIT seconds to wait for the daemon (default 60).
# The storage driver is overlay2 when the kernel and the backing filesystem
# allow it, vfs otherwise (slow but works everywhere).
set -eu

log=${OMS_DOCKERD_LOG:-/tmp/oms-dockerd.log}
wait_seconds=${OMS_DOCKERD_WAIT:-60}
pidfile=/var/run/oms-dockerd.pid

daemon_answers() {
    docker info >/dev/null 2>&1
}

wait_for_daemon() {
    i=0
    while [ "$i" -lt "$wait_seconds" ]; do
        if daemon_answers; then return 0; fi
        # Stop waiting early when the daemon we started has died.
        if [ -n "${1:-}" ] && ! kill -0 "$1" 2>/dev/null; then return 1; fi
        sleep 1
        i=$((i + 1))
    done
    return 1
}

# dockerd needs containerd; it starts its own when none is running.
start_with_driver() {
    driver=$1
    echo "start-dockerd: starting dockerd (storage driver $driver), log $log" >&2
    dockerd --host=unix:///var/run/docker.sock --storage-driver="$driver" \
        --pidfile="$pidfile" >>"$log" 2>&1 &
    pid=$!
    if wait_for_daemon "$pid"; then
        echo "start-dockerd: daemon ready (pid $pid, driver $driver)" >&2
        return 0
    fi
    echo "start-dockerd: dockerd with $driver did not come up; last log lines:" >&2
    tail -n 5 "$log" >&2 || true
    kill "$pid" 2>/dev/null || true
    # Give it time to release the socket and pidfile before the next attempt.
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        kill -0 "$pid" 2>/dev/null || break
        sleep 1
    done
    rm -f "$pidfile"
    return 1
}

if daemon_answers; then
    echo "start-dockerd: a Docker daemon already answers" >&2
    exit 0
fi
if ! command -v dockerd >/dev/null 2>&1; then
    echo "start-dockerd: dockerd not found (apt-get install docker.io)" >&2
    exit 1
fi
if [ "$(id -u)" != 0 ]; then
    echo "start-dockerd: must run as root to start dockerd" >&2
    exit 1
fi

start_with_driver overlay2 || start_with_driver vfs || {
    echo "start-dockerd: no storage driver worked; see $log" >&2
    exit 1
}
