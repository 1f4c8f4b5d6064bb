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

# bwrap_example_verdict OUT STATUS: the SDK's bwrap example finds keypair
# files with the SDK's search and checks each mask's folder inside the
# sandbox (sdk/examples/bwrap-backend/README.md), so it must pass every
# obligation, the four keypair attacks among them. Prints why OUT is not that.
bwrap_example_verdict() {
    kit_out=$1 kit_status=$2
    other_failed=$(echo "$kit_out" | grep '^FAIL ')
    for attack in hard-link folder-name link-to-file rename-race; do
        echo "$kit_out" | grep -q "^PASS *keypair-$attack: " || echo "keypair-$attack did not pass"
    done
    if [ -n "$other_failed" ]; then echo "the kit failed: $other_failed"
    elif [ "$kit_status" -ne 0 ]; then echo "the kit did not pass it (exit $kit_status)"
    fi
}
