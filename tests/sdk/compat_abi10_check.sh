#!/bin/sh
# usage: compat_abi10_check.sh CHECKER PLUGIN ID
# A backend written for ABI 1.0 and rebuilt against today's SDK: the kit sees
# a plugin targeting 1.0 without a declaration (the frozen kinds 1 to 10),
# lowers the policy's WRITE_DENY_NAME '.git' into WRITE_DENY paths the way
# oms does, and every obligation passes, the nested .git row (P9) included,
# except the keypair attacks across runs: it finds keypair files by their
# names alone, as the 1.0 documents showed, and the kit must catch that.
set -u
fail() { echo "TEST FAILURE: $1"; exit 1; }
. "$(dirname "$0")/kit_verdicts.sh"
[ -x /usr/bin/bwrap ] || fail "bubblewrap is a test dependency: /usr/bin/bwrap is missing"
out=$("$1" "$2" --id "$3" 2>&1)
status=$?
echo "$out"
problem=$(name_walker_verdict "$out" "$status")
[ -z "$problem" ] || fail "the rebuilt 1.0 backend: $problem"
echo "$out" | grep -q "^abi          targets ABI 1.0; rule kinds declared: READ_DENY_TREE, .*, IPC_DENY_SERVICE$" ||
    fail "the kit should report a 1.0 target with the frozen kinds 1 to 10"
echo "$out" | grep -q "^lowered      WRITE_DENY_NAME (11) '.git' -> 2 WRITE_DENY path(s) found now below " ||
    fail "the kit should report the nested .git lowered into WRITE_DENY paths"
echo "$out" | grep -q "^PASS         precedence P9: a WRITE_DENY_NAME entry present at run start beats the write root" ||
    fail "the nested .git must be read-only"
echo "$out" | grep -q "^PASS         precedence P11: a write root takes writes" || fail "control: the worktree takes writes"
echo "$out" | grep -q "^PASS         write-deny-git:" || fail "the worktree's .git must be read-only"
echo "rebuilt ABI 1.0 backend $3 passes the kit but for the keypair attacks, nested .git included: ok"
