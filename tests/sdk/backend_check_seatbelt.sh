#!/bin/sh
# usage: backend_check_seatbelt.sh CHECKER SEATBELT_PLUGIN ORACLE
# Seatbelt cannot run here, so the kit checks it with --render-only: the
# descriptor, its config keys, `render` of the kit's policy, and the
# precedence table decided by the rendered profile (ORACLE: the SBPL
# evaluator of tests/unit/seatbelt). The run obligations must say NOT RUN,
# never PASS, and the exit status must be 3, never 0. An oracle that allows
# everything must fail the table (the kit judges the answers), and without
# --render-only the kit must refuse to check a backend whose probe fails.
set -u
checker=$1 plugin=$2 oracle=$3
fail() { echo "TEST FAILURE: $1"; exit 1; }
out=$("$checker" "$plugin" --id seatbelt --render-only --decide-with "$oracle")
status=$?
echo "$out"
[ "$status" -eq 3 ] || fail "render-only should exit 3 (nothing failed, runs not executed), got $status"
for line in "PASS         abi: " "PASS         config-keys: 1 declared" "PASS         render: "; do
    echo "$out" | grep -q "^$line" || fail "no line: $line"
done
for row in P1 P2 P3 P4 P5 P6 P7 P8 P9 P10 P11; do
    echo "$out" | grep -q "^PASS         precedence $row: .*(by the rendered plan" || fail "precedence $row did not pass"
done
for obligation in environment exit-status command-not-found signal-forwarding descriptors stdio read-deny-home \
    network daemon-sockets leftovers private-home; do
    echo "$out" | grep -q "^NOT RUN      $obligation: not executed: --render-only" || fail "$obligation is not NOT RUN"
    echo "$out" | grep -q "^PASS         $obligation:" && fail "$obligation printed PASS without a run"
done
echo "$out" | grep -q "^RENDER-ONLY: 0 failed; 23 run obligation(s) NOT RUN" || fail "no RENDER-ONLY summary"
echo "$out" | grep -q "^OK:" && fail "render-only printed OK"

work=$(mktemp -d "${TMPDIR:-/tmp}/oms-kit-seatbelt.XXXXXX")
trap 'rm -rf "$work"' EXIT
printf '#!/bin/sh\nwhile read -r q; do echo allow; done\n' >"$work/allow-all"
chmod +x "$work/allow-all"
out=$("$checker" "$plugin" --id seatbelt --render-only --decide-with "$work/allow-all")
status=$?
[ "$status" -eq 1 ] || { echo "$out"; fail "an allow-everything oracle should fail the table (exit 1), got $status"; }
echo "$out" | grep -q "^FAIL         precedence P1: .*the read was allowed, the table says not allowed" ||
    { echo "$out"; fail "P1 should fail under an allow-everything oracle"; }

out=$("$checker" "$plugin" --id seatbelt 2>&1)
status=$?
[ "$status" -eq 2 ] && echo "$out" | grep -q "^FAIL         probe: the backend cannot run here" ||
    { echo "$out"; fail "without --render-only the kit must refuse (exit 2), got $status"; }
echo "seatbelt checked by its rendered profile, runs NOT RUN, never a pass: ok"
