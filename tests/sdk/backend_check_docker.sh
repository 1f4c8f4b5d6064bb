#!/bin/sh
# usage: backend_check_docker.sh CHECKER DOCKER_PLUGIN SOURCE_DIR
# The conformance kit against the docker backend on a real daemon, with the
# busybox test image (tests/docker/build-test-image.sh: no C library, so the
# kit's in-sandbox helper must be static), one-shot and warm. Every obligation
# must PASS (docker relays the port) except the two allows docker declares
# it cannot grant (rule-semantics.md R3 and W5), which must show as NOT
# GRANTED, never as PASS, and nothing NOT CHECKED.
# Without a daemon: skipped (77), or failed when OMS_REQUIRE_DOCKER=1.
set -u
checker=$1 plugin=$2 source_dir=$3
fail() { echo "TEST FAILURE: $1"; exit 1; }
if ! docker info >/dev/null 2>&1; then
    [ "${OMS_REQUIRE_DOCKER:-}" = 1 ] && fail "no Docker daemon, and OMS_REQUIRE_DOCKER=1 (tests/docker/start-dockerd.sh)"
    echo "skipped: no Docker daemon"
    exit 77
fi
image=$("$source_dir/tests/docker/build-test-image.sh") || fail "cannot build the test image"
work=$(mktemp -d "${TMPDIR:-/tmp}/oms-kit-docker.XXXXXX")
trap 'rm -rf "$work"' EXIT
printf 'image = "%s"\n' "$image" >"$work/runtime.toml"
# As root the worktree is given to 1000:1000 (a container never runs as
# root; docker runs the command as the worktree's owner); as a user it is the
# user's own.
for warm in false true; do
    echo "== warm = $warm"
    out=$("$checker" "$plugin" --id docker --config "manifest=$work/runtime.toml" --config "warm=$warm" \
          --scene-owner 1000:1000)
    status=$?
    echo "$out"
    [ "$status" -eq 0 ] || fail "warm=$warm: the kit exited $status"
    echo "$out" | grep "^NOT " | grep -v -e "^NOT GRANTED  precedence P5: " -e "^NOT GRANTED  precedence P7: " &&
        fail "warm=$warm: an obligation was not checked or not granted beyond P5 and P7"
    for row in P5 P7; do
        echo "$out" | grep -q "^NOT GRANTED  precedence $row: .*as the probe declares" ||
            fail "warm=$warm: precedence $row should be NOT GRANTED by docker's declaration"
    done
    for row in P1 P2 P3 P4 P6 P8 P9 P10 P11; do
        echo "$out" | grep -q "^PASS         precedence $row: " || fail "warm=$warm: precedence $row did not pass"
    done
    echo "$out" | grep -q "^PASS         private-home: " || fail "warm=$warm: no private-home line"
    echo "$out" | grep -q "^OK: 0 obligation(s) failed" || fail "warm=$warm: no OK line"
    passed=$(echo "$out" | grep -c "^PASS ")
    [ "$passed" -ge 28 ] || fail "warm=$warm: only $passed PASS lines"
done
leftover=$(docker ps -aq --filter "label=oms.worktree" --filter "label=oms.managed=warm" | while read -r id; do
    docker inspect --format '{{index .Config.Labels "oms.worktree"}}' "$id"; done | grep -c "oms-backend-check-" || true)
[ "$leftover" -eq 0 ] || fail "the kit's warm container outlived its task (end_task)"
echo "the docker backend passes the kit, one-shot and warm: ok"
