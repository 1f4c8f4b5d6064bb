#!/bin/sh
# usage: bwrap_example.sh SOURCE_DIR
# Installs the SDK alone to a temporary prefix, builds sdk/examples/bwrap-backend
# against it with find_package(oms-sdk), and runs the installed conformance
# kit on it: every obligation passes except the loopback port, which the
# example declares it cannot grant (NOT GRANTED, not FAIL); the four keypair
# attacks among them (kit_verdicts.sh).
set -u
source_dir=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "TEST FAILURE: $1"; exit 1; }
[ -x /usr/bin/bwrap ] || fail "bubblewrap is a test dependency: /usr/bin/bwrap is missing"

launcher=""
command -v ccache >/dev/null && launcher="-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"
{ cmake -S "$source_dir/sdk" -B "$work/sdk-build" -DCMAKE_INSTALL_PREFIX="$work/prefix" $launcher &&
  cmake --build "$work/sdk-build" -j2 && cmake --install "$work/sdk-build" &&
  cmake -S "$source_dir/sdk/examples/bwrap-backend" -B "$work/plugin" -DCMAKE_PREFIX_PATH="$work/prefix" $launcher &&
  cmake --build "$work/plugin" -j2; } >"$work/log" 2>&1 || { cat "$work/log"; fail "build"; }
plugin="$work/plugin/oms-example-bwrap.so"
[ -f "$plugin" ] || fail "no $plugin"

out=$("$work/prefix/bin/oms-backend-check" "$plugin" --id example-bwrap)
status=$?
echo "$out"
. "$source_dir/tests/sdk/kit_verdicts.sh"
problem=$(bwrap_example_verdict "$out" "$status")
[ -z "$problem" ] || fail "$problem"
echo "$out" | grep -q "^NOT GRANTED  network: the allowed port is not reachable, as the probe declares" ||
    fail "the loopback port should be NOT GRANTED"
# 22 obligations and 11 precedence rows.
[ "$(echo "$out" | grep -c '^PASS ')" -eq 33 ] || fail "wanted 33 PASS lines"
echo "bwrap example built out of tree and checked by the installed kit: ok"
