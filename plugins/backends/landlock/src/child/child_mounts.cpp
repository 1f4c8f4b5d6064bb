#include "child_steps.hpp"
#include "mount_uapi.hpp"
#include <oms/openat2.hpp>

#include <errno.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace oms::landlock {

// Opens a mount path with no link in it, or ends the child saying why.
int open_mount_path(const ChildSpec& spec, const char* path) {
    int fd = sdk::open_no_links(path);
    if (fd < 0) child_fail(spec, errno == ELOOP ? "bind-mount onto (a link appeared in its path)" : "bind-mount onto", path);
    return fd;
}

namespace {

// Attaches a copy of `source` onto the open `to` (closed here).
void attach_copy(const ChildSpec& spec, int source, int to, const char* target, bool read_only) {
    int tree = mount_uapi::open_tree_clone(source);
    if (tree < 0) child_fail(spec, "copy the mount for", target);
    if (read_only && mount_uapi::set_read_only(tree) != 0) child_fail(spec, "make read-only", target);
    if (mount_uapi::move_mount_onto(tree, to) != 0) child_fail(spec, "bind-mount onto", target);
    close(tree);
    close(to);
}

}  // namespace

// Binds `source` (an open descriptor) onto `target`, read-only when asked.
// Through descriptors: the target is opened with no link allowed in its path
// (the worktree and the temp folder are writable by commands, so a folder on
// the way could have been swapped for a link since planning), the copy of
// the source is made read-only before it is attached (no moment where it is
// writable), and it is attached to exactly the folder or file opened.
void bind_fd(const ChildSpec& spec, int source, const char* target, bool read_only) {
    attach_copy(spec, source, open_mount_path(spec, target), target, read_only);
}

// A bind of a path onto itself; the source is opened with no link allowed.
void bind_in_place(const ChildSpec& spec, const char* path, bool read_only) {
    int source = open_mount_path(spec, path);
    bind_fd(spec, source, path, read_only);
    close(source);
}

namespace {

// Covers `target` with `source` if it is still the object the keypair search
// matched (`id`: st_dev, st_ino; 0, 0 for a path hidden by name). The path is
// opened once, checked, and the mask attached to that very object: a folder
// on the way renamed and a decoy put at the path (by a concurrent command,
// on the host's file system) either shows here as another inode, which stops
// the run, or comes after the mount, which then moved with the key.
void mask_matched(const ChildSpec& spec, int source, const char* target, const unsigned long long* id) {
    int to = open_mount_path(spec, target);
    struct stat st;
    if (id[1] != 0 && (fstat(to, &st) != 0 || st.st_dev != id[0] || st.st_ino != id[1]))
        child_fail(spec, "hide the keypair (it is not the file the search found: it was moved or replaced since)",
                   target, ESTALE);
    attach_copy(spec, source, to, target, true);
}

// /dev/null, as a source for masks that refuse to open: on a nodev mount
// a device fails to open with EACCES, whoever asks (root's capabilities
// included), so a command that reads a hidden keypair sees "Permission
// denied", as a denied read, and not an empty file it may take for the key.
int open_device_null(const ChildSpec& spec) {
    const int fd = open("/dev/null", O_PATH | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode) || st.st_rdev != makedev(1, 3))
        child_fail(spec, "open /dev/null as the keypairs' mask (it is missing or not the null device)", "/dev/null",
                   EPERM);
    return fd;
}

// A file the keypair search found (its identity known): covered by
// /dev/null on a nodev mount, checked to be that file first.
void refuse_matched(const ChildSpec& spec, int null_device, const char* target, const unsigned long long* id) {
    int to = open_mount_path(spec, target);
    struct stat st;
    if (fstat(to, &st) != 0 || st.st_dev != id[0] || st.st_ino != id[1])
        child_fail(spec, "hide the keypair (it is not the file the search found: it was moved or replaced since)",
                   target, ESTALE);
    int tree = mount_uapi::open_tree_clone(null_device);
    if (tree < 0) child_fail(spec, "copy the mount for", target);
    if (mount_uapi::set_unopenable_device(tree) != 0) child_fail(spec, "make unopenable", target);
    if (mount_uapi::move_mount_onto(tree, to) != 0) child_fail(spec, "bind-mount onto", target);
    close(tree);
    close(to);
}

}  // namespace

void apply_mounts(const ChildSpec& spec) {
    // Nothing done here may leak back to the host's mount table.
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
        child_fail(spec, "make the mount namespace private");
    const bool masks = !spec.hide_folders.empty() || !spec.hide_files.empty();
    int null_device = spec.hide_files.empty() ? -1 : open_device_null(spec);
    if (spec.fresh_dev) copy_granted_devices(spec);
    make_root_read_only(spec);
    set_up_private_temps(spec);
    // After the private temps (HOME may lie in one) and before everything
    // that lands below HOME (overlays, pins, read-only binds, masks), so
    // those are made on the bound-back paths.
    set_up_home_skeleton(spec);
    // The folder oms was started in may now lie under a cover (the real HOME
    // below its skeleton, the host's /tmp): the init keeps no hold on it.
    if (chdir("/") != 0) child_fail(spec, "enter / of the mount namespace");
    // Attached on /proc right before the run's own /proc covers them; after
    // the write roots are put back, so a --rw folder below /proc still is.
    const MaskSourceFds sources = make_mask_sources(spec, masks, spec.resolv_conf_target != nullptr);
    const int folder = sources.folder, file = sources.file, resolv = sources.resolv_conf;
    mount_fresh_proc(spec);
    if (spec.fresh_dev) mount_fresh_dev(spec);
    mount_scratch_trees(spec);
    // Last, so they end up on top of everything above.
    // A mount point cannot be renamed or removed (EBUSY): this pins the
    // folders holding read-only files, so a rename of a parent can't swap them.
    for (const char* path : spec.pin_in_place) bind_in_place(spec, path, false);
    for (const char* path : spec.read_only) bind_in_place(spec, path, true);
    if (resolv >= 0) {  // names 127.0.0.1, answered by the init (dns_responder.hpp)
        bind_fd(spec, resolv, spec.resolv_conf_target, true);
        close(resolv);
    }
    if (!masks) return;
    for (size_t i = 0; i < spec.hide_folders.size(); ++i)
        mask_matched(spec, folder, spec.hide_folders[i], &spec.hide_folder_ids[2 * i]);
    // A file the search matched refuses to open; one hidden by path (a
    // read deny of the policy: credentials a tool may read at every start)
    // reads as empty, so that tool still starts.
    for (size_t i = 0; i < spec.hide_files.size(); ++i) {
        const unsigned long long* id = &spec.hide_file_ids[2 * i];
        if (id[1] != 0)
            refuse_matched(spec, null_device, spec.hide_files[i], id);
        else
            mask_matched(spec, file, spec.hide_files[i], id);
    }
    close(folder);
    close(file);
    if (null_device >= 0) close(null_device);
}

}  // namespace oms::landlock
