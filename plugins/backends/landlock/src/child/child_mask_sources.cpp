// The sources the masks are cloned from (child_mounts.cpp): an empty folder,
// an empty file and the sandbox's resolv.conf (dns_responder.hpp). The child
// makes them in a tmpfs of its own, in its private mount namespace, so no
// other process ever holds a name for them: nothing on a shared file system
// to swap before the mounts, and no file made and removed on the host's
// disk for each run (on /tmp with `discard`, each removal waited for the
// device). The tmpfs is read-only before it is attached, then attached on
// /proc, where clones can be taken from it (a clone of a mount no namespace
// holds is refused before Linux 6.15), until the run's own /proc covers it.
#include "child_steps.hpp"
#include "mount_uapi.hpp"
#include <oms/dns_responder.hpp>

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

namespace oms::landlock {

namespace {

constexpr char kFolder[] = "empty-folder";
constexpr char kFile[] = "empty-file";
constexpr char kResolvConf[] = "resolv.conf";

// A detached, still writable tmpfs, small: it holds three entries.
int new_sources_mount(const ChildSpec& spec) {
    const int fs = mount_uapi::fs_open("tmpfs");
    if (fs < 0) child_fail(spec, "open a tmpfs for the masks");
    if (mount_uapi::fs_set(fs, "mode", "0555") != 0 || mount_uapi::fs_set(fs, "size", "16k") != 0 ||
        mount_uapi::fs_set(fs, "nr_inodes", "8") != 0 || mount_uapi::fs_create(fs) != 0)
        child_fail(spec, "configure the tmpfs of the masks");
    const int mount = mount_uapi::fs_mount(
        fs, mount_uapi::kMountAttrNoSuid | mount_uapi::kMountAttrNoDev | mount_uapi::kMountAttrNoExec);
    if (mount < 0) child_fail(spec, "mount the tmpfs of the masks");
    close(fs);
    return mount;
}

void write_file(const ChildSpec& spec, int folder, const char* name, const char* text) {
    const int fd = openat(folder, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
    if (fd < 0) child_fail(spec, "make the mask source", name);
    const size_t size = strlen(text);
    if (write(fd, text, size) != static_cast<ssize_t>(size)) child_fail(spec, "write the mask source", name);
    close(fd);
}

int open_source(const ChildSpec& spec, int mount, const char* name, bool folder) {
    const int fd = openat(mount, name, O_PATH | O_NOFOLLOW | O_CLOEXEC | (folder ? O_DIRECTORY : 0));
    if (fd < 0) child_fail(spec, "open the mask source", name);
    return fd;
}

}  // namespace

MaskSourceFds make_mask_sources(const ChildSpec& spec, bool masks, bool resolv_conf) {
    MaskSourceFds sources;
    if (!masks && !resolv_conf) return sources;
    const int mount = new_sources_mount(spec);
    if (mkdirat(mount, kFolder, 0555) != 0) child_fail(spec, "make the mask source", kFolder);
    write_file(spec, mount, kFile, "");
    if (resolv_conf) {
        char text[sizeof dns_responder::kSandboxResolvConf + 16];
        if (!dns_responder::resolv_conf_naming(spec.resolver_address, text, sizeof text))
            child_fail(spec, "name the run's resolver in", kResolvConf);
        write_file(spec, mount, kResolvConf, text);
    }
    if (mount_uapi::set_read_only_here(mount) != 0) child_fail(spec, "make the masks' tmpfs read-only");
    const int proc = open_mount_path(spec, "/proc");
    if (mount_uapi::move_mount_onto(mount, proc) != 0) child_fail(spec, "attach the masks' tmpfs on", "/proc");
    close(proc);
    if (masks) {
        sources.folder = open_source(spec, mount, kFolder, true);
        sources.file = open_source(spec, mount, kFile, false);
    }
    if (resolv_conf) sources.resolv_conf = open_source(spec, mount, kResolvConf, false);
    close(mount);
    return sources;
}

}  // namespace oms::landlock
