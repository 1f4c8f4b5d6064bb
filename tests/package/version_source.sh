#!/bin/sh
# usage: version_source.sh SOURCE_DIR BUILD_DIR OMS_BINARY
# The version is written once, in the top-level CMakeLists.txt: oms
# --version, every in-tree plugin's descriptor and the SDK's CMake package
# (built in the tree and on its own) all carry that one.
set -u
source_dir=$1
build=$2
oms=$3
fail() { echo "TEST FAILURE: $1"; exit 1; }
version=$(sed -n 's/^project(oms VERSION \([0-9.]*\) .*/\1/p' "$source_dir/CMakeLists.txt")
[ -n "$version" ] || fail "no 'project(oms VERSION' in $source_dir/CMakeLists.txt"

written=$(grep -rn 'version = "[0-9]' "$source_dir/plugins")
[ -z "$written" ] || fail "plugins write their own version: $written"

abi_major=$(sed -n 's/^#define OMS_ABI_MAJOR \([0-9]*\)/\1/p' "$source_dir/sdk/include/oms/sdk.h")
abi_minor=$(sed -n 's/^#define OMS_ABI_MINOR \([0-9]*\)/\1/p' "$source_dir/sdk/include/oms/sdk.h")
[ "$("$oms" --version)" = "oms $version (plugin ABI $abi_major.$abi_minor)" ] ||
    fail "oms --version prints '$("$oms" --version)', not 'oms $version (plugin ABI $abi_major.$abi_minor)'"

# Every plugin of the build tree's plugin folder, as oms lists them.
work=$(mktemp -d) || fail "mktemp"
trap 'rm -rf "$work"' EXIT
listing=$(env -i PATH=/usr/bin:/bin HOME="$work" XDG_CONFIG_HOME="$work/config" XDG_STATE_HOME="$work/state" \
    "$oms" plugins --worktree "$work")
count=0
for plugin in "$build"/lib/oms/plugins/oms-*.so; do
    id=$(basename "$plugin" .so | sed 's/^oms-//')
    row=$(echo "$listing" | awk -v id="$id" '$1 == id')
    [ -n "$row" ] || { echo "$listing"; fail "oms plugins does not list $id"; }
    [ "$(echo "$row" | awk '{ print $3 }')" = "$version" ] || fail "plugin $id has version '$row', not $version"
    count=$((count + 1))
done
[ "$count" -ge 9 ] || fail "only $count in-tree plugins in $build/lib/oms/plugins"

# The SDK's CMake package, in the tree and configured on its own.
grep -q "set(PACKAGE_VERSION \"$version\")" "$build/sdk/oms-sdk-config-version.cmake" ||
    fail "the in-tree SDK package is not version $version"
cmake -S "$source_dir/sdk" -B "$work/sdk" >"$work/log" 2>&1 || { cat "$work/log"; fail "the SDK alone does not configure"; }
grep -q "set(PACKAGE_VERSION \"$version\")" "$work/sdk/oms-sdk-config-version.cmake" ||
    fail "the SDK built on its own is not version $version"
echo "oms, $count plugins and the SDK are all version $version: ok"
