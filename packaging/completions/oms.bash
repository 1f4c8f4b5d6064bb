# bash completion for oms. Commands and options are read from the oms being
# completed (its --help), backend ids from `oms plugins`, so they are the
# ones that oms has: nothing here needs changing when a command, an option
# or a plugin is added.

_oms_commands() {
    "$1" --help 2>/dev/null | awk '/^commands:/ { on = 1; next } /^$/ { on = 0 } on { print $1 }'
}

_oms_options() {  # oms, command
    "$1" "$2" --help 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u
}

# The options whose value is the next word ("--sandbox arg" in --help).
_oms_value_options() {  # oms, command
    "$1" "$2" --help 2>/dev/null | grep -o -- '--[a-z][a-z-]* arg' | cut -d' ' -f1
}

_oms_files() {  # the word being completed
    compopt -o filenames 2>/dev/null
    mapfile -t COMPREPLY < <(compgen -f -- "$1")
}

_oms_backends() {
    "$1" plugins 2>/dev/null | awk '$2 == "backend" { print $1 }'
}

_oms() {
    local oms=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
    local command="" command_at=0 i
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            -*) ;;
            *) command=${COMP_WORDS[i]} command_at=$i; break ;;
        esac
    done
    COMPREPLY=()
    if [[ -z $command ]]; then
        if [[ $cur == -* ]]; then
            mapfile -t COMPREPLY < <(compgen -W "--help --version" -- "$cur")
        else
            mapfile -t COMPREPLY < <(compgen -W "$(_oms_commands "$oms")" -- "$cur")
        fi
        return
    fi

    # The words after the command's options: the sandboxed command for run,
    # policy and verify; the question for explain.
    local value_options operands=0
    value_options=" $(_oms_value_options "$oms" "$command" | tr '\n' ' ') "
    for ((i = command_at + 1; i < COMP_CWORD; i++)); do
        local word=${COMP_WORDS[i]}
        if ((operands > 0)) || [[ $word == -- ]]; then
            operands=$((operands + 1))
        elif [[ $value_options == *" $word "* ]]; then
            i=$((i + 1))
        elif [[ $word != -* ]]; then
            operands=1
        fi
    done
    if ((operands == 0)); then
        case $prev in
            --sandbox)
                mapfile -t COMPREPLY < <(compgen -W "$(_oms_backends "$oms")" -- "$cur")
                return ;;
            --worktree | --cwd | --ro | --rw | --output)
                compopt -o filenames 2>/dev/null
                mapfile -t COMPREPLY < <(compgen -d -- "$cur")
                return ;;
            --env)
                mapfile -t COMPREPLY < <(compgen -v -- "$cur")
                return ;;
        esac
        if [[ $value_options == *" $prev "* ]]; then
            _oms_files "$cur"
            return
        fi
        if [[ $cur == -* ]]; then
            mapfile -t COMPREPLY < <(compgen -W "$(_oms_options "$oms" "$command")" -- "$cur")
            return
        fi
    fi
    case $command in
        run | policy | verify)
            if ((operands == 0)) || { ((operands == 1)) && [[ ${COMP_WORDS[COMP_CWORD - 1]} == -- ]]; }; then
                mapfile -t COMPREPLY < <(compgen -c -- "$cur")
            else
                _oms_files "$cur"
            fi ;;
        explain)
            if ((operands == 0)); then
                mapfile -t COMPREPLY < <(compgen -W "read write exec connect listen env" -- "$cur")
            else
                _oms_files "$cur"
            fi ;;
        task)
            ((operands == 0)) && mapfile -t COMPREPLY < <(compgen -W "end" -- "$cur") ;;
        hook)
            # The agent's name, then the options of its hook.
            if ((operands == 0)); then
                mapfile -t COMPREPLY < <(compgen -W "claude-code" -- "$cur")
            elif [[ $cur == -* ]]; then
                mapfile -t COMPREPLY < <(compgen -W "$(_oms_options "$oms" "$command")" -- "$cur")
            fi ;;
    esac
}
complete -F _oms oms
