#!/bin/sh
# usage: keypair_attacks_docs.sh CHECKER SEATBELT_PLUGIN ORACLE SOURCE_DIR
# The kit's keypair attacks, the SDK search's rules, the rule semantics and
# the checklist must name the same attacks: each keypair-* obligation the kit
# runs (read from its own output, --render-only on seatbelt) has a row in
# docs/backend-checklist.md, a row in the R2 table of docs/rule-semantics.md
# and a rule in sdk/include/oms/secret_search.hpp; and every keypair-* name
# those three give is one the kit runs.
set -u
checker=$1 plugin=$2 oracle=$3 source_dir=$4
fail() { echo "TEST FAILURE: $1"; exit 1; }
out=$("$checker" "$plugin" --id seatbelt --render-only --decide-with "$oracle")
attacks=$(echo "$out" | sed -n 's/^NOT RUN *\(keypair-[a-z-]*\): .*/\1/p' | sort -u)
[ "$(echo "$attacks" | grep -c .)" -ge 4 ] || fail "the kit ran fewer than four keypair attacks: $attacks"
checklist=$source_dir/docs/backend-checklist.md
semantics=$source_dir/docs/rule-semantics.md
search=$source_dir/sdk/include/oms/secret_search.hpp
for attack in $attacks; do
    grep -q "^| \`$attack\` |" "$checklist" || fail "$attack has no row in docs/backend-checklist.md"
    grep -q "^| .*(\`$attack\`) |" "$semantics" || fail "$attack has no row in the R2 table of docs/rule-semantics.md"
    grep -q "($attack)" "$search" || fail "$attack has no rule in oms/secret_search.hpp"
done
named=$( { grep -o "^| \`keypair-[a-z-]*\` |" "$checklist"; grep -o "(\`keypair-[a-z-]*\`) |" "$semantics";
           grep -o "(keypair-[a-z-]*)" "$search"; } | grep -o "keypair-[a-z-]*" | sort -u)
for name in $named; do
    echo "$attacks" | grep -qx "$name" || fail "$name is named in the docs but the kit runs no such attack"
done
echo "keypair attacks named alike in the kit, the search, the rule semantics and the checklist: $(echo $attacks)"
