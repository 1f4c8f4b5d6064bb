#!/bin/sh
# usage: install-sdk.sh SOURCE_DIR CLIENT_DIR
# Installs the MCP TypeScript SDK (the versions package-lock.json pins) with
# `npm ci` into CLIENT_DIR in the build tree, next to a copy of client.mjs,
# so node finds it from there. Needs only the npm registry.
set -eu
source_dir=$1
client_dir=$2
command -v npm >/dev/null 2>&1 || { echo "TEST FAILURE: npm is not installed (tests/install-deps.sh installs it)"; exit 1; }
mkdir -p "$client_dir"
cp "$source_dir/package.json" "$source_dir/package-lock.json" "$source_dir/client.mjs" "$client_dir/"
cd "$client_dir"
npm ci --no-audit --no-fund --loglevel=error
