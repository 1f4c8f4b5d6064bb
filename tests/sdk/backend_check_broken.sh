#!/bin/sh
# usage: backend_check_broken.sh CHECKER BROKEN_PLUGIN
# The kit must fail a backend that breaks the contract, with one clear FAIL
# line per broken obligation, and still pass what it does right.
set -u
out=$("$1" "$2")
status=$?
echo "$out"
fail() { echo "TEST FAILURE: $1"; exit 1; }
[ "$status" -eq 1 ] || fail "exit status $status, wanted 1"
for line in \
    "FAIL         environment: the command's environment is not exactly the policy's: added OMS_CHECK_PARENT_SECRET (set in the caller only)" \
    "FAIL         descriptors: descriptors open in the caller reached the command: " \
    "FAIL         command-not-found: a missing command must fail spawn or end with 127, status 1" \
    "FAIL         read-deny-home: a file under HOME" \
    "FAIL         read-deny-keypair: " \
    "FAIL         write-deny-outside: " \
    "FAIL         write-deny-git: " \
    "FAIL         write-deny-pinned: " \
    "FAIL         network: a host listener on a port the policy does not allow" \
    "FAIL         daemon-sockets: " \
    "FAIL         pid-namespace: " \
    "FAIL         no-new-privs: " \
    "FAIL         leftovers: " \
    "FAIL         precedence P1: a READ_DENY beats a deeper READ_ALLOW_TREE (R1 before R4): the read was allowed" \
    "FAIL         precedence P3: " \
    "FAIL         precedence P4: " \
    "FAIL         precedence P6: " \
    "FAIL         precedence P8: " \
    "FAIL         precedence P9: " \
    "FAIL         precedence P10: " \
    "PASS         precedence P2: " \
    "PASS         precedence P11: " \
    "PASS         exit-status: " \
    "PASS         stdio: " \
    "FAILED: "; do
    echo "$out" | grep -q "^$line" || fail "no line matching: $line"
done
echo "the broken fixture fails the kit, one line per broken obligation: ok"
