# Sourced by the kit's test scripts. A backend that finds keypair files by
# their names alone fails the kit's keypair attacks across runs
# (docs/backend-checklist.md) and, where it is otherwise sound, nothing else.
# name_walker_verdict OUT STATUS: prints why OUT is not that, or nothing.
name_walker_verdict() {
    kit_out=$1 kit_status=$2
    keypair_failed=$(echo "$kit_out" | grep -c -E '^FAIL +keypair-(hard-link|folder-name|link-to-file|rename-race):')
    other_failed=$(echo "$kit_out" | grep '^FAIL ' | grep -v -E '^FAIL +keypair-')
    if [ "$kit_status" -ne 1 ]; then echo "the kit should fail a name walker on the keypair attacks (exit $kit_status)"
    elif [ "$keypair_failed" -lt 3 ]; then echo "the kit failed only $keypair_failed of the four keypair attacks"
    elif [ -n "$other_failed" ]; then echo "the kit failed more than the keypair attacks: $other_failed"
    fi
}
