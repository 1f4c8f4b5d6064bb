#!/bin/sh
# usage: backend_check_config.sh CHECKER BWRAP_EXAMPLE_PLUGIN
# --config reaches the plugin through the host's config services, and a key
# the plugin does not declare, or a value of the wrong type, stops the kit
# with the key named (exit 2) before anything runs.
set -u
fail() { echo "TEST FAILURE: $1"; exit 1; }
out=$("$1" "$2" --config bwrap=/nonexistent/bwrap 2>&1); status=$?
echo "$out"
[ "$status" -eq 2 ] || fail "a bwrap path that does not exist should make probe fail (exit 2), got $status"
echo "$out" | grep -q "FAIL         probe: the backend cannot run here: example-bwrap: /nonexistent/bwrap is not an executable file" ||
    fail "the configured path did not reach the plugin"
out=$("$1" "$2" --config no_such_key=1 2>&1); status=$?
echo "$out"
[ "$status" -eq 2 ] && echo "$out" | grep -q -- "--config no_such_key: the plugin declares no such key" || fail "undeclared key"
# Control: the declared key with a good value runs the whole contract
# (kit_verdicts.sh: what the example passes).
. "$(dirname "$0")/kit_verdicts.sh"
out=$("$1" "$2" --config bwrap=/usr/bin/bwrap 2>&1); status=$?
problem=$(bwrap_example_verdict "$out" "$status")
[ -z "$problem" ] || { echo "$out"; fail "the good value should run the contract: $problem"; }
echo "--config reaches the plugin and is checked against its keys: ok"
