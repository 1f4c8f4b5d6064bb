#!/bin/sh
# usage: zsh_completion.sh COMPLETION_FILE OMS_BINARY
# Runs the zsh completion function with zsh's completion builtins (compadd,
# _describe, _files...) replaced by ones that print what they are given: the
# candidates _oms offers for a command line, before zsh filters them by the
# prefix. Skipped (77) without zsh.
set -u
completion=$1
oms=$2
fail() { echo "TEST FAILURE: $1"; exit 1; }
command -v zsh >/dev/null 2>&1 || { echo "zsh is not installed: skipped"; exit 77; }
zsh -n "$completion" || fail "$completion is not valid zsh"
work=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$work"' EXIT
cat > "$work/drive.zsh" <<'DRIVE'
compadd() { if [[ $1 == -a ]]; then print -l -- ${(P)2}; else [[ $1 == -- ]] && shift; print -l -- "$@"; fi }
_describe() { local array=${@[-1]}; print -l -- ${${(P)array}%%:*} }
_files() { print FILES }
_command_names() { print COMMANDS }
_parameters() { print PARAMETERS }
source "$1" >/dev/null 2>&1
shift
words=("$@"); CURRENT=${#words}; PREFIX=${words[-1]}
_oms
DRIVE
offers() {  # wanted, then the words
    wanted=$1
    shift
    got=$(cd "$work" && HOME="$work" XDG_CONFIG_HOME="$work/config" XDG_STATE_HOME="$work/state" \
        PATH="$(dirname "$oms"):$PATH" zsh -f "$work/drive.zsh" "$completion" "$@")
    echo "$got" | grep -qx -- "$wanted" || fail "completing '$*' offers [$(echo $got)], not $wanted"
    case $wanted in
        landlock) echo "$got" | grep -qx env-allowlist && fail "'$*' offers the policy env-allowlist" ;;
    esac
    return 0
}
offers run oms ""
offers task oms ""
offers landlock oms run --sandbox ""
offers host-null oms run --sandbox ""
offers --sandbox oms run --s
offers --probe oms doctor --p
offers COMMANDS oms run --sandbox landlock ""
offers FILES oms run ls ""
offers read oms explain ""
offers end oms task ""
offers mcp oms ""
offers claude-code oms hook ""
offers --shell oms hook claude-code --s
echo "zsh completion: commands, options and backend ids: ok"
