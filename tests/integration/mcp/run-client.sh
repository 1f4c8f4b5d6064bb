#!/bin/sh
# usage: run-client.sh OMS_BINARY CLIENT_DIR
# Plants a world (a HOME with a secret, a worktree with a keypair file) in
# the build tree and runs client.mjs with node. CLIENT_DIR is where
# install-sdk.sh put client.mjs and its node_modules. Fails, never skips,
# when node or the SDK is missing: CI must run this test.
set -u
oms=$1
client_dir=$2
fail() { echo "TEST FAILURE: $1"; exit 1; }
command -v node >/dev/null 2>&1 || fail "node is not installed (tests/install-deps.sh installs it)"
[ -f "$client_dir/node_modules/@modelcontextprotocol/sdk/package.json" ] ||
    fail "the MCP SDK is not installed in $client_dir (the mcp_sdk_install test runs npm ci there)"
world=$(mktemp -d "$client_dir/world-XXXXXX") || fail "mktemp"
trap 'rm -rf "$world"' EXIT
mkdir -p "$world/home/.ssh" "$world/work/.git" "$world/xdg-config/oms" "$world/xdg-state" "$world/temp"
printf 'SSH-PRIVATE-KEY-mcp-5e1d' > "$world/home/.ssh/id_rsa"
printf 'WORKTREE-KEYPAIR-mcp-77c2' > "$world/work/wallet-keypair.json"
printf 'WORKTREE-README' > "$world/work/README"
printf 'ref: refs/heads/main\n' > "$world/work/.git/HEAD"
# The build tree may sit below /tmp: a temp folder of the world's own, so
# /tmp does not become a write root over it.
printf '[plugin.write-roots]\ntemp_dirs = ["%s"]\n' "$world/temp" > "$world/xdg-config/oms/config.toml"
cd "$client_dir" || fail "cd $client_dir"
node client.mjs "$oms" "$world" || fail "the MCP SDK client failed against oms mcp"
