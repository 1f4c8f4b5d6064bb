#!/bin/sh
# Build the docker backend's test image without a registry: a root filesystem
# made of /bin/busybox (busybox-static) and its applet links, an /etc/passwd
# with non-root users (tests/docker/busybox-rootfs.sh), imported with
# `docker import`. Prints the image ID (sha256:<64 hex>) on stdout, nothing
# else.
#
# Idempotent: the image is tagged with a hash of its inputs, so a second run
# prints the same ID without importing again.
set -eu
. "$(dirname "$0")/busybox-rootfs.sh"
busybox_check

inputs_hash=$( { busybox_rootfs_hash; echo v1; } | sha256sum | cut -c1-16)
tag="oms-test-busybox:$inputs_hash"

existing=$(docker image inspect --format '{{.Id}}' "$tag" 2>/dev/null || true)
if [ -n "$existing" ]; then
    echo "$existing"
    exit 0
fi

rootfs=$(mktemp -d /tmp/oms-test-rootfs.XXXXXX)
trap 'rm -rf "$rootfs"' EXIT
busybox_rootfs "$rootfs"

id=$(tar -C "$rootfs" -c . | docker import -c 'ENV PATH=/bin' -c 'CMD ["/bin/sh"]' - "$tag")
docker image inspect --format '{{.Id}}' "$id"
