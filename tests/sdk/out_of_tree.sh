#!/bin/sh
# usage: out_of_tree.sh SOURCE_DIR OMS_BINARY
set -eu
source_dir=$1
oms=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 1. The SDK on its own: configure, build (the conformance kit), install. No
# Boost, spdlog or toml++ needed.
launcher=""
command -v ccache >/dev/null && launcher="-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"
cmake -S "$source_dir/sdk" -B "$work/sdk-build" -DCMAKE_INSTALL_PREFIX="$work/prefix" $launcher >"$work/log" 2>&1 || { cat "$work/log"; exit 1; }
cmake --build "$work/sdk-build" -j2 >>"$work/log" 2>&1 || { cat "$work/log"; exit 1; }
cmake --install "$work/sdk-build" >>"$work/log" 2>&1 || { cat "$work/log"; exit 1; }
test -f "$work/prefix/include/oms/sdk.h"
test -x "$work/prefix/bin/oms-backend-check" || { echo "FAIL: the conformance kit is not installed"; exit 1; }
# Its in-sandbox helper, static so it runs in an image without a C library.
helper="$work/prefix/bin/oms-backend-check-helper"
test -x "$helper" || { echo "FAIL: the kit's in-sandbox helper is not installed"; exit 1; }
if ldd "$helper" >/dev/null 2>&1; then echo "FAIL: $helper is dynamically linked"; exit 1; fi
env -i OMS_X=1 "$helper" env | grep -qx "OMS_X=1" || { echo "FAIL: the helper does not print the environment"; exit 1; }
test -f "$work/prefix/lib/cmake/oms-sdk/oms-sdk-config.cmake" || test -f "$work/prefix/lib/x86_64-linux-gnu/cmake/oms-sdk/oms-sdk-config.cmake"

# 2. The example plugin, against the installed prefix alone.
cmake -S "$source_dir/sdk/examples/dotenv-policy" -B "$work/plugin" -DCMAKE_PREFIX_PATH="$work/prefix" >>"$work/log" 2>&1 || { cat "$work/log"; exit 1; }
cmake --build "$work/plugin" >>"$work/log" 2>&1 || { cat "$work/log"; exit 1; }
plugin="$work/plugin/oms-example-dotenv.so"
test -f "$plugin"
# Only the entry symbol is exported: every defined dynamic symbol, of any type.
exported=$(nm -D --defined-only "$plugin" | awk '{ print $NF }' | sort -u)
[ "$exported" = "oms_plugin_entry" ] || { echo "exports: $exported"; exit 1; }

# 3. oms loads it and uses its rules.
mkdir -p "$work/home/task" "$work/state" "$work/config"
export HOME="$work/home" XDG_STATE_HOME="$work/state" XDG_CONFIG_HOME="$work/config" OMS_PLUGIN_PATH="$work/plugin"
doctor=$("$oms" doctor --sandbox host-null --worktree "$work/home/task")
echo "$doctor" | grep -A1 "example-dotenv" | grep -q "loaded" || { echo "$doctor"; echo "FAIL: plugin not loaded"; exit 1; }
mkdir -p "$work/config/oms" && printf '[plugin.example-dotenv]\nextra_names = [".env.local"]\n' > "$work/config/oms/config.toml"
policy=$("$oms" policy --sandbox host-null --worktree "$work/home/task")
echo "$policy" | grep -q "read-deny-suffix  *\/\.env .*example-dotenv" || { echo "$policy"; echo "FAIL: no .env rule"; exit 1; }
echo "$policy" | grep -q "read-deny-suffix  *\/\.env\.local" || { echo "$policy"; echo "FAIL: config key not applied"; exit 1; }
echo "out-of-tree plugin built against the installed SDK and loaded: ok"
