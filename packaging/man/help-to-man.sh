#!/bin/sh
# usage: help-to-man.sh OMS_BINARY USER_GUIDE OUTPUT.1.gz PAGE [COMMAND WORDS...]
# Writes the manual page PAGE (oms, oms-run, ...) from the built binary's own
# `oms [COMMAND WORDS] --help`, so the page and --help cannot say different
# things. The NAME line is the command's line in `oms --help`. Then the
# sections --help has no room for, in the same layout: the page's exit
# statuses and examples (pages/PAGE.txt), for the pages that run a command
# the exit statuses of a run (the user guide's table: one source), and the
# files every command reads (pages/files.txt).
set -eu
oms=$1
guide=$2
output=$3
page=$4
shift 4
pages=$(dirname "$0")/pages

# The user guide's "| status | meaning |" table, as "exit status:" items.
run_statuses() {
    echo "exit status:"
    awk '/^\| status \| meaning \|/ { on = 1; next }
         on && /^\|---/ { next }
         on && /^\|/ { split($0, cell, " *\\| *"); gsub(/`/, "", cell[3]); print "  " cell[2] "   " cell[3]; next }
         on { exit }' "$guide"
    echo
}

help=$("$oms" "$@" --help)
case $page in oms | oms-run | oms-sh) help="$help

$(run_statuses)" ;; esac
help="$help

$(cat "$pages/$page.txt")

$(cat "$pages/files.txt")"
version=$("$oms" --version | cut -d' ' -f2)
if [ $# -eq 0 ]; then
    summary="run a coding agent's shell commands under a sandbox, and show beforehand what they may do"
else
    summary=$("$oms" --help | awk -v command="$1" '$1 == command { $1 = ""; sub(/^ +/, ""); print; exit }')
fi
[ -n "$summary" ] || { echo "help-to-man: 'oms $1' is not in oms --help" >&2; exit 1; }
title=$(echo "$page" | tr a-z A-Z)

# roff needs backslashes and minus signs escaped, and no line may start with
# a dot or quote (a request).
roff_escape='s/\\/\\e/g; s/-/\\-/g; s/^\([.'"'"']\)/\\\&\1/'
{
    echo ".TH $title 1 \"\" \"oms $version\" \"User Commands\""
    echo ".SH NAME"
    echo "$page \\- $summary" | sed 's/\([^\\]\)-/\1\\-/g'
    description=$(echo "$summary" | sed "$roff_escape")
    echo "$help" | sed "$roff_escape; s/ *\$//" | awk -v description="$description" '
        # "usage: oms run [options] ..." opens the page; "options:" and
        # "commands:" open sections; an item is a line indented by two
        # (its term, two blanks or more, its text), continued by deeper lines.
        function flush() { if (text != "") print text; text = "" }
        NR == 1 { sub(/^usage: /, ""); print ".SH SYNOPSIS"; print ".B " $0; print ".SH DESCRIPTION"; print description "."; next }
        /^([a-z]+|exit status):/ {
            flush(); header = $0; sub(/:.*/, "", header); rest = $0; sub(/^[^:]*: */, "", rest)
            print ".SH " toupper(header); if (rest != "") print rest; next
        }
        /^$/ { flush(); print ".PP"; next }
        /^  [^ ]/ {
            flush(); line = substr($0, 3); gap = match(line, /   */)
            print ".TP"
            if (gap) { print ".B " substr(line, 1, gap - 1); text = substr(line, gap + RLENGTH) }
            else { print ".B " line }
            next
        }
        /^   / { sub(/^ +/, ""); text = (text == "" ? $0 : text " " $0); next }
        { flush(); print }
        END { flush() }'
    echo ".SH SEE ALSO"
    if [ $# -eq 0 ]; then
        echo "The commands: each has a page of its own, oms\\-run(1), oms\\-doctor(1) and the others named above."
    else
        echo ".BR oms (1)"
    fi
    echo "The user guide, docs/user\\-guide.md in the source tree, has the configuration reference."
} | gzip -9n > "$output"
