#!/bin/sh
# usage: hardening.sh BUILD_DIR
# The binaries the oms packages ship are hardened as Debian builds its own
# (what devscripts' hardening-check looks at): position-independent
# executables, full RELRO (a GNU_RELRO segment and BIND_NOW), the stack
# protector and FORTIFY's checked calls linked in. The static helpers (the
# docker runner, the kit's helper) are checked for the protector and the
# checked calls in their symbol tables.
set -u
build=$1
fail() { echo "TEST FAILURE: $1"; exit 1; }
checked=0

dynamic_symbols() { nm -D "$1" 2>/dev/null; }
all_symbols() { nm "$1" 2>/dev/null; nm -D "$1" 2>/dev/null; }

check_protections() {  # file, its symbol listing
    echo "$2" | grep -q "__stack_chk_fail" || fail "$1: no stack protector (__stack_chk_fail)"
    echo "$2" | grep -q "__[a-z0-9_]*_chk" || fail "$1: no FORTIFY checked call (__*_chk)"
}

check_dynamic() {  # file, "executable" or "library"
    file=$1
    header=$(readelf -h -l -d "$file") || fail "readelf $file"
    if [ "$2" = executable ]; then
        echo "$header" | grep -q "Type: *DYN" || fail "$file is not position-independent"
    fi
    echo "$header" | grep -q "GNU_RELRO" || fail "$file: no RELRO segment"
    echo "$header" | grep -Eq "\(BIND_NOW\)|\(FLAGS\).*BIND_NOW|\(FLAGS_1\).*NOW" || fail "$file: not BIND_NOW (partial RELRO only)"
    check_protections "$file" "$(dynamic_symbols "$file")"
    checked=$((checked + 1))
}

check_static() {
    check_protections "$1" "$(all_symbols "$1")"
    checked=$((checked + 1))
}

check_dynamic "$build/bin/oms" executable
check_dynamic "$build/bin/oms-backend-check" executable
check_dynamic "$build/lib/oms/plugins/oms-scan-keeper" executable
for plugin in "$build"/lib/oms/plugins/*.so; do check_dynamic "$plugin" library; done
check_static "$build/lib/oms/plugins/oms-docker-runner"
check_static "$build/bin/oms-backend-check-helper"
echo "$checked binaries hardened (PIE, full RELRO, stack protector, FORTIFY): ok"
