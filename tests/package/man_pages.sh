#!/bin/sh
# usage: man_pages.sh BUILD_DIR OMS_BINARY USER_GUIDE
# Every command that `oms --help` lists has a manual page in the build tree
# (share/man/man1, what the package installs), and each page holds every
# option of that command's --help, EXIT STATUS, EXAMPLES (of that command)
# and FILES sections; the pages of commands that run one hold every status of
# the user guide's table. Rendered with `man -l` when man-db is there, else
# read as roff.
set -u
build=$1
oms=$2
guide=$3
fail() { echo "TEST FAILURE: $1"; exit 1; }
man_dir="$build/share/man/man1"
commands=$("$oms" --help | awk '/^commands:/ { on = 1; next } /^$/ { on = 0 } on { print $1 }')
[ -n "$commands" ] || fail "oms --help lists no commands"

# The page's text with plain hyphens, or its roff source with \- unescaped.
page_text() {
    if command -v man >/dev/null 2>&1; then
        LANG=C MANWIDTH=250 man -l "$1" 2>&1
    else
        gzip -dc "$1" | sed 's/\\-/-/g'
    fi
}

check_page() {  # page, then the command's words
    page=$1
    shift
    file="$man_dir/$page.1.gz"
    [ -f "$file" ] || fail "no manual page $page(1) at $file"
    text=$(page_text "$file") || fail "$page(1) does not render"
    echo "$text" | grep -q "^ *$page - " || { echo "$text"; fail "$page(1) has no NAME line"; }
    options=$("$oms" "$@" --help | grep -o -- '--[a-z][a-z-]*' | sort -u)
    [ -n "$options" ] || fail "oms $* --help shows no option"
    for option in $options; do
        echo "$text" | grep -q -- "$option" || { echo "$text"; fail "$page(1) lacks $option of oms $* --help"; }
    done
    for section in "EXIT STATUS" EXAMPLES FILES; do
        echo "$text" | grep -q "^$section\$" || { echo "$text"; fail "$page(1) has no $section section"; }
    done
    # Each example names the command the page is about.
    echo "$text" | sed -n '/^EXAMPLES$/,/^FILES$/p' | grep -q "^ *oms $*" ||
        { echo "$text"; fail "$page(1): no example of oms $*"; }
    count=$((count + 1))
}

# The pages of commands that run one show every status of the user guide's
# table of a run's exit statuses.
check_run_statuses() {
    text=$(page_text "$man_dir/$1.1.gz")
    statuses=$(awk '/^\| status \| meaning \|/ { on = 1; next } on && /^\|---/ { next }
                    on && /^\|/ { split($0, cell, " *\\| *"); print cell[2]; next } on { exit }' "$guide")
    [ "$(echo "$statuses" | wc -l)" -ge 6 ] || fail "the user guide's exit status table was not found"
    echo "$statuses" | while read -r status; do
        echo "$text" | sed -n '/^EXIT STATUS$/,/^EXAMPLES$/p' | grep -q "^ *$status" ||
            { echo "$text"; fail "$1(1) lacks exit status $status of the user guide"; }
    done || exit 1
}

count=0
check_page oms
for command in $commands; do
    # The words before the first [ or capital of its usage line: "task end".
    words=$("$oms" "$command" --help | sed -n '1s/^usage: oms //p' | awk '{ for (i = 1; i <= NF && $i ~ /^[a-z]/; i++) printf "%s ", $i }')
    # shellcheck disable=SC2086
    check_page "oms-$command" $words
done
for page in oms oms-run oms-sh; do check_run_statuses $page; done
echo "$count manual pages, each with every option of its --help, exit statuses, examples and files: ok"
