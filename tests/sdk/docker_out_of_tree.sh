#!/bin/sh
# usage: docker_out_of_tree.sh SOURCE_DIR
# The docker backend builds against the installed SDK alone: the SDK goes to
# a temporary prefix, and a copy of plugins/backends/docker, outside oms's
# tree (so no relative path can reach core/ or another plugin), is
# configured and built against that prefix. The plugin exports its entry
# alone, the runner is static and its verify launcher (the SDK's
# oms::verify-launch) works.
set -eu
source_dir=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
quiet() { "$@" >>"$work/log" 2>&1 || { cat "$work/log"; fail "$*"; }; }

launcher=""
# Paths below the temporary folder, so ccache finds the last run's objects.
command -v ccache >/dev/null && launcher="-DCMAKE_CXX_COMPILER_LAUNCHER=ccache" && export CCACHE_BASEDIR="$work"
quiet cmake -S "$source_dir/sdk" -B "$work/sdk-build" -DCMAKE_INSTALL_PREFIX="$work/prefix" $launcher
quiet cmake --build "$work/sdk-build" -j2
quiet cmake --install "$work/sdk-build"
for header in verify_launch.hpp dns_responder.hpp connect_watch.hpp; do
    test -f "$work/prefix/include/oms/$header" || fail "the SDK installs no oms/$header"
done

cp -r "$source_dir/plugins/backends/docker" "$work/docker-src"
# The seccomp generator is a build tool the runner's filter comes from; it is
# copied too, so nothing is read from oms's own tree.
cp -r "$source_dir/plugins/seccomp" "$work/seccomp-src"
quiet cmake -S "$work/docker-src" -B "$work/docker-build" -DCMAKE_PREFIX_PATH="$work/prefix" \
    -DOMS_SECCOMP_SOURCE_DIR="$work/seccomp-src" $launcher
quiet cmake --build "$work/docker-build" -j2 --target oms-plugin-docker oms-docker-runner
grep -q "$source_dir/core\|$source_dir/plugins" "$work/docker-build/CMakeCache.txt" &&
    fail "the build refers to oms's source tree"

plugin="$work/docker-build/oms-docker.so"
runner="$work/docker-build/oms-docker-runner"
test -f "$plugin" || fail "no $plugin"
test -x "$runner" || fail "no $runner"
exported=$(nm -D --defined-only "$plugin" | awk '{ print $NF }' | sort -u)
[ "$exported" = "oms_plugin_entry" ] || fail "the plugin exports: $exported"
if ldd "$runner" >/dev/null 2>&1; then fail "$runner is dynamically linked"; fi

# The launcher: a Surfnet that exits at once never comes up, so the check
# must not run (exit 69); a Surfnet that answers lets it run (its status).
status=0
"$runner" --verify-launch 1 200 1 /bin/false -- /bin/sh -c "touch '$work/ran'" 2>"$work/err" || status=$?
[ "$status" = 69 ] || { cat "$work/err"; fail "the launcher exited $status, not 69, for a dead Surfnet"; }
grep -q "did not come up" "$work/err" || { cat "$work/err"; fail "no reason printed"; }
test ! -e "$work/ran" || fail "the check ran without its Surfnet"
if command -v python3 >/dev/null; then
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    status=0
    "$runner" --verify-launch "$port" 15000 6 python3 -m http.server --bind 127.0.0.1 "$port" -- \
        /bin/sh -c "touch '$work/ran'; exit 5" 2>"$work/err" || status=$?
    [ "$status" = 5 ] || { cat "$work/err"; fail "the launcher exited $status, not the check's 5"; }
    test -e "$work/ran" || fail "the check did not run next to its Surfnet"
fi
echo "docker backend built against the installed SDK alone: ok"
