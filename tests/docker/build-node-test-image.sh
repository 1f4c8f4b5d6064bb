#!/bin/sh
# Build the docker backend's second test image, for the tests that run node
# and npm in a container, without a registry: the busybox root filesystem of
# the first image (tests/docker/busybox-rootfs.sh) plus the host's own node
# (the binary and each library `ldd` lists, at the same paths) and npm's
# JavaScript tree, imported with `docker import`. Prints the image ID
# (sha256:<64 hex>) on stdout, nothing else.
#
# Needs node and npm on the host's PATH (Debian's nodejs and npm, or any
# package that installs them under a prefix). Idempotent: the image is tagged
# with a hash of its inputs, so a second run prints the same ID without
# importing again.
set -eu
. "$(dirname "$0")/busybox-rootfs.sh"
busybox_check

node=$(command -v node 2>/dev/null || true)
npm=$(command -v npm 2>/dev/null || true)
if [ -z "$node" ] || [ -z "$npm" ]; then
    echo "$0: node and npm must be on PATH (apt-get install nodejs npm)" >&2
    exit 1
fi
node=$(readlink -f "$node")
# npm's command is bin/npm-cli.js inside its package folder, at any prefix.
npm_cli=$(readlink -f "$npm")
npm_root=$(dirname "$(dirname "$npm_cli")")
if [ ! -f "$npm_root/package.json" ] || [ "$(basename "$npm_cli")" != npm-cli.js ]; then
    echo "$0: $npm does not lead to npm's bin/npm-cli.js (found $npm_cli)" >&2
    exit 1
fi
# Debian's npm keeps its dependencies as separate packages in these folders.
module_dirs=""
for d in /usr/share/nodejs /usr/lib/nodejs "/usr/lib/$(uname -m)-linux-gnu/nodejs"; do
    [ -d "$d" ] && module_dirs="$module_dirs $d"
done
# Each library the dynamic linker would load, resolved (the loader too).
libraries=$(ldd "$node" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' | sort -u)

inputs_hash=$( {
    busybox_rootfs_hash
    sha256sum "$node" | cut -d' ' -f1
    echo "$npm_root $module_dirs"
    cat "$npm_root/package.json" | sha256sum | cut -d' ' -f1
    for lib in $libraries; do echo "$lib $(sha256sum "$lib" | cut -d' ' -f1)"; done
    echo v1
} | sha256sum | cut -c1-16)
tag="oms-test-node:$inputs_hash"

existing=$(docker image inspect --format '{{.Id}}' "$tag" 2>/dev/null || true)
if [ -n "$existing" ]; then
    echo "$existing"
    exit 0
fi

rootfs=$(mktemp -d /tmp/oms-test-node-rootfs.XXXXXX)
trap 'rm -rf "$rootfs"' EXIT
busybox_rootfs "$rootfs"
# At the path ldd names (the loader's own path is fixed in the binary); a
# library reached through a link under /lib is also found there by its name.
for lib in $libraries; do
    mkdir -p "$rootfs$(dirname "$lib")"
    cp -L "$lib" "$rootfs$lib"
done
mkdir -p "$rootfs/usr/bin" "$rootfs$(dirname "$npm_root")"
cp "$node" "$rootfs/usr/bin/node"
cp -a "$npm_root" "$rootfs$npm_root"
for d in $module_dirs; do
    mkdir -p "$rootfs$(dirname "$d")"
    cp -a "$d" "$rootfs$d"
done
ln -s "$npm_cli" "$rootfs/usr/bin/npm"
# npm-cli.js starts with "#!/usr/bin/env node": busybox has env, under /bin.
ln -s /bin/env "$rootfs/usr/bin/env"

id=$(tar -C "$rootfs" -c . | docker import -c 'ENV PATH=/usr/bin:/bin' -c 'CMD ["/bin/sh"]' - "$tag")
docker image inspect --format '{{.Id}}' "$id"
