#!/bin/sh
# Cost of one command in the docker backend's warm container, against a plain
# `docker run --rm` of the same command with the same hardening flags,
# measured in this one call. Target: warm <= 0.2x of docker run --rm.
#
#   bench/docker-warm.sh [RUNS]          (default 20 runs each)
#
# Needs: a running Docker daemon (tests/docker/start-dockerd.sh), hyperfine,
# and the built oms (OMS_BIN, else build*/bin/oms next to this script).
# The image is the test image from tests/docker/build-test-image.sh unless
# OMS_BENCH_IMAGE names another (pinned) one.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(dirname "$here")
runs=${1:-20}

find_oms() {
    if [ -n "${OMS_BIN:-}" ]; then echo "$OMS_BIN"; return; fi
    for candidate in "$source_dir"/build/bin/oms "$source_dir"/build-*/bin/oms; do
        if [ -x "$candidate" ]; then echo "$candidate"; return; fi
    done
    echo "docker-warm: no oms binary (set OMS_BIN)" >&2
    exit 1
}

oms=$(find_oms)
command -v hyperfine >/dev/null || { echo "docker-warm: hyperfine is not installed" >&2; exit 1; }
docker info >/dev/null 2>&1 || { echo "docker-warm: no Docker daemon (tests/docker/start-dockerd.sh)" >&2; exit 1; }
image=${OMS_BENCH_IMAGE:-$("$source_dir"/tests/docker/build-test-image.sh)}

work=$(mktemp -d /tmp/oms-bench-docker.XXXXXX)
cleanup() {
    HOME="$work/home" XDG_CONFIG_HOME="$work/config" XDG_STATE_HOME="$work/state" \
        "$oms" task end --worktree "$work/wt" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/home" "$work/config/oms" "$work/state" "$work/wt"
chown 65534:65534 "$work/wt" 2>/dev/null || true
printf 'image = "%s"\n' "$image" >"$work/runtime.toml"
write_config() {
    cat >"$work/config/oms/config.toml" <<TOML
[plugin.docker]
manifest = "$work/runtime.toml"
warm = $1
TOML
}

export HOME="$work/home" XDG_CONFIG_HOME="$work/config" XDG_STATE_HOME="$work/state"
# The flags every container gets (docs/backends/docker.md), for the baseline.
flags="--pull=never --init --read-only --cap-drop=ALL --security-opt=no-new-privileges --user=65534:65534
 --network=none --pids-limit=512 --memory=2g --memory-swap=2g --cpus=2
 --tmpfs=/tmp:rw,exec,nosuid,nodev,size=512m,mode=1777
 --mount=type=bind,source=$work/wt,target=$work/wt --workdir=$work/wt"

write_config true
# Start the warm container once, as the first command of a task does.
"$oms" run --sandbox docker --worktree "$work/wt" -- true
container=$(docker ps -q --filter "label=oms.worktree=$work/wt")
[ -n "$container" ] || { echo "docker-warm: the warm container did not start" >&2; exit 1; }
csv="$work/results.csv"
hyperfine --style basic --warmup 3 --runs "$runs" --export-csv "$csv" \
    -n "docker run --rm" "docker run --rm $(echo $flags) $image true" \
    -n "oms run (warm)" "$oms run --sandbox docker --worktree $work/wt -- true" \
    -n "docker exec (CLI)" "docker exec --user 65534:65534 $container true" \
    >&2

awk -F, 'NR > 1 { gsub(/"/, "", $1); mean[$1] = $2 * 1000 }
END {
    base = mean["docker run --rm"]
    printf "docker run --rm      %8.1f ms  (baseline)\n", base
    printf "oms run (warm)       %8.1f ms  %.3fx\n", mean["oms run (warm)"], mean["oms run (warm)"] / base
    printf "docker exec (CLI)    %8.1f ms  %.3fx\n", mean["docker exec (CLI)"], mean["docker exec (CLI)"] / base
    ratio = mean["oms run (warm)"] / base
    if (ratio <= 0.2) print "target met: warm <= 0.2x of docker run --rm"
    else { print "TARGET MISSED: warm is " ratio "x of docker run --rm (target 0.2x)"; exit 1 }
}' "$csv"
