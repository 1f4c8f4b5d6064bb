#!/bin/sh
# Build the docker backend's test image without a registry: a root filesystem
# made of /bin/busybox (busybox-static) and its applet links, an /etc/passwd
# with non-root users, imported with `docker import`. Prints the image ID
# (sha256:<64 hex>) on stdout, nothing else.
#
# Idempotent: the image is tagged with a hash of its inputs, so a second run
# prints the same ID without importing again.
set -eu

busybox=${OMS_TEST_BUSYBOX:-/bin/busybox}
if ! "$busybox" --list >/dev/null 2>&1; then
    echo "build-test-image: $busybox is not a working busybox (apt-get install busybox-static)" >&2
    exit 1
fi
# A dynamically linked busybox would need its libraries inside the image.
if ldd "$busybox" >/dev/null 2>&1; then
    echo "build-test-image: $busybox is dynamically linked; install busybox-static" >&2
    exit 1
fi

passwd='root:x:0:0:root:/root:/bin/sh
oms:x:1000:1000:oms test user:/home/oms:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/sh'
group='root:x:0:
oms:x:1000:
nogroup:x:65534:'

inputs_hash=$( { sha256sum "$busybox" | cut -d' ' -f1; echo "$passwd"; echo "$group"; echo v1; } \
    | sha256sum | cut -c1-16)
tag="oms-test-busybox:$inputs_hash"

existing=$(docker image inspect --format '{{.Id}}' "$tag" 2>/dev/null || true)
if [ -n "$existing" ]; then
    echo "$existing"
    exit 0
fi

rootfs=$(mktemp -d /tmp/oms-test-rootfs.XXXXXX)
trap 'rm -rf "$rootfs"' EXIT
mkdir -p "$rootfs/bin" "$rootfs/etc" "$rootfs/tmp" "$rootfs/root" "$rootfs/home/oms" \
    "$rootfs/proc" "$rootfs/sys" "$rootfs/dev"
cp "$busybox" "$rootfs/bin/busybox"
for applet in $("$busybox" --list); do
    [ "$applet" = busybox ] || ln -s busybox "$rootfs/bin/$applet"
done
printf '%s\n' "$passwd" >"$rootfs/etc/passwd"
printf '%s\n' "$group" >"$rootfs/etc/group"
chmod 1777 "$rootfs/tmp"
chown 1000:1000 "$rootfs/home/oms"

id=$(tar -C "$rootfs" -c . | docker import -c 'ENV PATH=/bin' -c 'CMD ["/bin/sh"]' - "$tag")
docker image inspect --format '{{.Id}}' "$id"
