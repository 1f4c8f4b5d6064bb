#!/usr/bin/env bash
# Real Seatbelt enforcement checks for the seatbelt backend. Needs a Mac with
# /usr/bin/sandbox-exec and a built oms; it is not part of ctest (no Mac in
# CI). Every block is checked next to a positive control, so a broken sandbox
# and a broken check cannot look alike.
#
#   tests/macos/seatbelt_enforcement.sh path/to/oms
#
# Exit status: 0 when every check passed, 1 otherwise.
set -u

oms=${1:?usage: $0 path/to/oms}
[ "$(uname -s)" = Darwin ] || { echo "skip: not macOS"; exit 0; }
[ -x /usr/bin/sandbox-exec ] || { echo "skip: no /usr/bin/sandbox-exec"; exit 0; }

scratch=$(mktemp -d /private/tmp/oms-seatbelt-XXXXXX)
trap 'kill ${listeners:-} 2>/dev/null; rm -rf "$scratch"' EXIT
home="$scratch/home"
worktree="$home/work/repo"
other="$home/work/other-repo"
mkdir -p "$worktree/tests" "$other" "$home/.ssh" "$home/.config/solana" "$scratch/state" "$scratch/config"
echo secret-ssh > "$home/.ssh/id_ed25519"
echo secret-wallet > "$home/.config/solana/id.json"
echo secret-keypair > "$worktree/dev-keypair.json"
echo other-code > "$other/main.rs"
echo code > "$worktree/main.rs"
echo pinned > "$worktree/tests/pinned.spec.ts"
echo neighbour > "$worktree/tests/other.spec.ts"
git -C "$worktree" init -q 2>/dev/null || mkdir -p "$worktree/.git"

failures=0
pass() { echo "ok   $1"; }
fail() { echo "FAIL $1"; failures=$((failures + 1)); }

# Runs a shell snippet under oms with the seatbelt backend, in the worktree.
confined() {
    HOME="$home" XDG_STATE_HOME="$scratch/state" XDG_CONFIG_HOME="$scratch/config" \
        "$oms" run --sandbox seatbelt --worktree "$worktree" --pinned "$worktree/tests/pinned.spec.ts" \
        -- /bin/sh -c "$1" 2>/dev/null
}

# check NAME SNIPPET-THAT-MUST-FAIL CONTROL-SNIPPET-THAT-MUST-SUCCEED
check() {
    if ! confined "$3" >/dev/null; then fail "$1 (positive control failed: $3)"; return; fi
    if confined "$2" >/dev/null; then fail "$1 (not blocked: $2)"; else pass "$1"; fi
}

check "keypair read in the worktree" "cat '$worktree/dev-keypair.json'" "cat '$worktree/main.rs'"
check "HOME/.ssh read" "cat '$home/.ssh/id_ed25519'" "cat '$worktree/main.rs'"
check "HOME/.config/solana read" "cat '$home/.config/solana/id.json'" "cat '$worktree/main.rs'"
check "other-repo read" "cat '$other/main.rs'" "cat '$worktree/main.rs'"
check "write outside the worktree" "echo x > '$home/outside.txt'" "echo x > '$worktree/inside.txt'"
check "write to a pinned verifier file" "echo x >> '$worktree/tests/pinned.spec.ts'" \
    "echo x >> '$worktree/tests/other.spec.ts'"
check "write to .git" "echo x > '$worktree/.git/evil'" "echo x > '$worktree/fine'"
check "rename a pinned file's folder" "mv '$worktree/tests' '$worktree/moved'" "mv '$worktree/tests/other.spec.ts' '$worktree/tests/o2.spec.ts'"
check "move HOME/.ssh away" "mv '$home/.ssh' '$worktree/ssh'" "mv '$worktree/inside.txt' '$worktree/inside2.txt'"
check "keychain lookup" "/usr/bin/security list-keychains" "true"
[ -f "$home/outside.txt" ] && fail "outside.txt exists after the blocked write"
[ "$(cat "$worktree/tests/pinned.spec.ts")" = pinned ] || fail "pinned file changed"

# Network: listeners outside the sandbox on the Surfnet port and another one.
nc -l 127.0.0.1 8899 >/dev/null 2>&1 & listeners="$!"
nc -l 127.0.0.1 8898 >/dev/null 2>&1 & listeners="$listeners $!"
sleep 1
check "loopback port other than Surfnet" "nc -z -w 2 127.0.0.1 8898" "nc -z -w 2 127.0.0.1 8899"
if curl -sS -o /dev/null --max-time 5 https://example.com 2>/dev/null; then
    if confined "curl -sS -o /dev/null --max-time 5 https://example.com"; then fail "internet reachable"; else pass "internet"; fi
else
    echo "skip internet (no connection outside the sandbox either)"
fi

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
