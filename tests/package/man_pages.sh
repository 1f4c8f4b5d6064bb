#!/bin/sh
# usage: man_pages.sh BUILD_DIR OMS_BINARY
# Every command that `oms --help` lists has a manual page in the build tree
# (share/man/man1, what the package installs), and each page holds every
# option of that command's --help. Rendered with `man -l` when man-db is
# there, else read as roff.
set -u
build=$1
oms=$2
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
    count=$((count + 1))
}

count=0
check_page oms
for command in $commands; do
    # The words before the first [ or capital of its usage line: "task end".
    words=$("$oms" "$command" --help | sed -n '1s/^usage: oms //p' | awk '{ for (i = 1; i <= NF && $i ~ /^[a-z]/; i++) printf "%s ", $i }')
    # shellcheck disable=SC2086
    check_page "oms-$command" $words
done
echo "$count manual pages, each with every option of its --help: ok"
