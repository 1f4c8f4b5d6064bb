// /dev is a fresh tmpfs holding only the device files the path rules grant
// (fresh_dev_plan.hpp), each bound from the host's /dev, and the links every
// shell expects; then the tmpfs is made read-only. The clones are taken
// before make_root_read_only makes every other mount nodev, so they alone
// still open: a device file the rules do not grant (a disk, /dev/kmsg) has
// no name in /dev, and one elsewhere does not open.
#include "child_steps.hpp"
#include "mount_uapi.hpp"
#include <oms/openat2.hpp>

#include <errno.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

namespace oms::landlock {

namespace {

// The links a shell and its tools open by name: /dev/fd/N, /dev/stdin...
struct DevLink {
    const char* name;
    const char* text;
};
const DevLink kDevLinks[] = {
    {"fd", "/proc/self/fd"},
    {"stdin", "/proc/self/fd/0"},
    {"stdout", "/proc/self/fd/1"},
    {"stderr", "/proc/self/fd/2"},
};

}  // namespace

// A copy of each granted device file that exists (-1 for one that does
// not: no right is given for what is not there), taken before the root is
// made nodev and before the tmpfs covers the host's /dev.
void copy_granted_devices(const ChildSpec& spec) {
    for (size_t i = 0; i < spec.fresh_dev_keeps.size(); ++i) {
        const char* path = spec.fresh_dev_keeps[i];
        spec.dev_fds[i] = -1;
        const int at = sdk::open_no_links(path);
        if (at < 0) {
            if (errno == ENOENT) continue;
            child_fail(spec, "open the device file", path);
        }
        struct stat st;
        if (fstat(at, &st) != 0) child_fail(spec, "inspect the device file", path);
        spec.dev_is_folder[i] = S_ISDIR(st.st_mode) ? 1 : 0;
        spec.dev_fds[i] = mount_uapi::open_tree_clone(at);
        if (spec.dev_fds[i] < 0) child_fail(spec, "copy the mount for", path);
        close(at);
    }
}

namespace {

void bind_granted_devices(const ChildSpec& spec) {
    for (size_t i = 0; i < spec.fresh_dev_keeps.size(); ++i) {
        if (spec.dev_fds[i] < 0) continue;
        const char* path = spec.fresh_dev_keeps[i];
        const int to = make_mount_point(spec, path, spec.dev_is_folder[i] != 0);
        if (mount_uapi::move_mount_onto(spec.dev_fds[i], to) != 0) child_fail(spec, "bind into the fresh /dev", path);
        close(to);
        close(spec.dev_fds[i]);
    }
}

}  // namespace

void mount_fresh_dev(const ChildSpec& spec) {
    const unsigned long flags = MS_NOSUID | MS_NODEV | MS_NOEXEC;
    if (mount("tmpfs", "/dev", "tmpfs", flags, "mode=0755") != 0) child_fail(spec, "mount a fresh /dev");
    bind_granted_devices(spec);
    const int dev = open("/dev", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dev < 0) child_fail(spec, "open the fresh /dev");
    for (const DevLink& link : kDevLinks)
        if (symlinkat(link.text, dev, link.name) != 0) child_fail(spec, "make a link in the fresh /dev", link.name);
    close(dev);
    // The tmpfs alone (the device files bound on it keep their own mounts).
    if (mount(nullptr, "/dev", nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY | flags, nullptr) != 0)
        child_fail(spec, "make the fresh /dev read-only");
}

}  // namespace oms::landlock
