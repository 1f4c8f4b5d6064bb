#!/bin/sh
# usage: help-to-man.sh OMS_BINARY OUTPUT.1.gz PAGE [COMMAND WORDS...]
# Writes the manual page PAGE (oms, oms-run, ...) from the built binary's own
# `oms [COMMAND WORDS] --help`, so the page and --help cannot say different
# things. The NAME line is the command's line in `oms --help`.
set -eu
oms=$1
output=$2
page=$3
shift 3

help=$("$oms" "$@" --help)
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
        /^[a-z]+:/ {
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
