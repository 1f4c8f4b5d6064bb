# Sourced by the test image scripts: the busybox root filesystem both images
# start from (/bin/busybox and its applet links, an /etc/passwd with non-root
# users), so the two images agree on their users and shell.
#
#   busybox_check              exits 1 with a message unless $busybox is a static busybox
#   busybox_rootfs_hash        the inputs of that root filesystem, one line each
#   busybox_rootfs DIR         lays it out in DIR

busybox=${OMS_TEST_BUSYBOX:-/bin/busybox}

passwd='root:x:0:0:root:/root:/bin/sh
oms:x:1000:1000:oms test user:/home/oms:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/sh'
group='root:x:0:
oms:x:1000:
nogroup:x:65534:'

busybox_check() {
    if ! "$busybox" --list >/dev/null 2>&1; then
        echo "$0: $busybox is not a working busybox (apt-get install busybox-static)" >&2
        exit 1
    fi
    # A dynamically linked busybox would need its libraries inside the image.
    if ldd "$busybox" >/dev/null 2>&1; then
        echo "$0: $busybox is dynamically linked; install busybox-static" >&2
        exit 1
    fi
}

busybox_rootfs_hash() {
    sha256sum "$busybox" | cut -d' ' -f1
    echo "$passwd"
    echo "$group"
}

busybox_rootfs() {
    mkdir -p "$1/bin" "$1/etc" "$1/tmp" "$1/root" "$1/home/oms" "$1/proc" "$1/sys" "$1/dev"
    cp "$busybox" "$1/bin/busybox"
    for applet in $("$busybox" --list); do
        [ "$applet" = busybox ] || ln -s busybox "$1/bin/$applet"
    done
    printf '%s\n' "$passwd" >"$1/etc/passwd"
    printf '%s\n' "$group" >"$1/etc/group"
    chmod 1777 "$1/tmp"
    chown 1000:1000 "$1/home/oms"
}
