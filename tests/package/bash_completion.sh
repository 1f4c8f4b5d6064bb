#!/bin/bash
# usage: bash_completion.sh COMPLETION_FILE OMS_BINARY
# Sources the bash completion and completes as bash would: commands and
# options come from the oms found on PATH, backend ids from `oms plugins`.
set -u
completion=$1
oms=$2
fail() { echo "TEST FAILURE: $1"; exit 1; }
work=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$work"' EXIT
export HOME="$work" XDG_CONFIG_HOME="$work/config" XDG_STATE_HOME="$work/state" PATH="$(dirname "$oms"):$PATH"
unset OMS_PLUGIN_PATH OMS_SANDBOX
cd "$work" || fail "cd"
# shellcheck disable=SC1090
. "$completion" || fail "sourcing $completion"
complete -p oms | grep -q -- "-F _oms" || fail "no completion registered for oms"

# complete WORD... : COMPREPLY for the last word (empty: a new word).
complete_line() {
    COMP_WORDS=("$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMPREPLY=()
    _oms
    printf '%s\n' "${COMPREPLY[@]}"
}
offers() {  # wanted, then the words
    wanted=$1
    shift
    got=$(complete_line "$@")
    echo "$got" | grep -qx -- "$wanted" || fail "completing '$*' offers [$(echo $got)], not $wanted"
}
refuses() {  # unwanted, then the words
    unwanted=$1
    shift
    got=$(complete_line "$@")
    echo "$got" | grep -qx -- "$unwanted" && fail "completing '$*' offers $unwanted: [$(echo $got)]"
    return 0
}

offers run oms r
refuses doctor oms r
offers landlock oms run --sandbox ""
offers host-null oms run --sandbox ""
refuses env-allowlist oms run --sandbox ""   # a policy, not a backend
offers landlock oms doctor --sandbox l
offers --sandbox oms run --sa
offers --probe oms doctor --p
refuses --probe oms run --p
offers read oms explain ""
offers end oms task ""
offers mcp oms m
offers --worktree oms mcp --w
offers claude-code oms hook ""
offers --ask oms hook claude-code --a
offers --version oms --v
# The sandboxed command's own words are its, not oms's.
refuses --sandbox oms run ls --sa
echo "bash completion: commands, options and backend ids: ok"
