// HOME's skeleton (home_skeleton_plan.hpp): the granted paths below HOME are
// cloned with the rights the earlier steps gave them (read-only, or the
// writable write roots put back), a fresh tmpfs is attached on HOME, the
// clones are attached again at their paths inside it (the folders on the way
// made empty), the user's links there that lead into a granted path are made
// again, and the tmpfs itself becomes read-only. Everything else the
// real HOME holds has no name inside. The tmpfs is made and attached through
// descriptors (fsopen, fsmount, move_mount), onto HOME opened with no link in
// its path; its options are numbers only.
#include "child_steps.hpp"
#include "mount_uapi.hpp"

#include <unistd.h>

namespace oms::landlock {

namespace {

// "0" followed by the octal digits of `mode`, NUL-terminated (room for 8).
void format_octal(uint32_t mode, char* out) {
    char digits[8];
    int n = 0;
    do {
        digits[n++] = static_cast<char>('0' + (mode & 7));
        mode >>= 3;
    } while (mode && n < 7);
    out[0] = '0';
    for (int i = 0; i < n; ++i) out[1 + i] = digits[n - 1 - i];
    out[1 + n] = '\0';
}

// A detached tmpfs with HOME's mode (and, as root, its owner); nosuid,
// nodev, noexec: it only ever holds empty folders and mount points.
int new_skeleton_mount(const ChildSpec& spec) {
    int fs = mount_uapi::fs_open("tmpfs");
    if (fs < 0) child_fail(spec, "open a tmpfs for HOME's skeleton");
    char mode[12], uid[12], gid[12];
    format_octal(spec.home_mode & 07777, mode);
    format_decimal(spec.home_owner[0], uid);
    format_decimal(spec.home_owner[1], gid);
    bool configured = mount_uapi::fs_set(fs, "mode", mode) == 0 && mount_uapi::fs_set(fs, "size", "1m") == 0;
    // In a user namespace the mount already belongs to the caller's own id.
    if (configured && !spec.need_user_namespace)
        configured = mount_uapi::fs_set(fs, "uid", uid) == 0 && mount_uapi::fs_set(fs, "gid", gid) == 0;
    if (!configured || mount_uapi::fs_create(fs) != 0) child_fail(spec, "configure the tmpfs of HOME's skeleton");
    int mount = mount_uapi::fs_mount(fs, mount_uapi::kMountAttrNoSuid | mount_uapi::kMountAttrNoDev |
                                             mount_uapi::kMountAttrNoExec);
    if (mount < 0) child_fail(spec, "mount the tmpfs of HOME's skeleton");
    close(fs);
    return mount;
}

}  // namespace

void set_up_home_skeleton(const ChildSpec& spec) {
    if (!spec.home_skeleton) return;
    clone_keeps(spec, spec.home_keeps, spec.mount_fds, spec.keep_is_folder);
    const int skeleton = new_skeleton_mount(spec);
    const int home = open_mount_path(spec, spec.home_skeleton);
    if (mount_uapi::move_mount_onto(skeleton, home) != 0) child_fail(spec, "cover HOME with its skeleton", spec.home_skeleton);
    close(home);
    bind_back_keeps(spec, spec.home_keeps, spec.mount_fds, spec.keep_is_folder, "bind back into HOME's skeleton");
    // The links are only text: what they lead to is decided where they lead.
    for (size_t i = 0; i < spec.home_link_names.size(); ++i) {
        const int folder = make_mount_point(spec, spec.home_link_folders[i], true);
        if (symlinkat(spec.home_link_texts[i], folder, spec.home_link_names[i]) != 0)
            child_fail(spec, "make again in HOME's skeleton the link", spec.home_link_names[i]);
        close(folder);
    }
    // Only the skeleton's own mount: the writable roots bound back keep their rights.
    if (mount_uapi::set_read_only_here(skeleton) != 0) child_fail(spec, "make HOME's skeleton read-only");
    close(skeleton);
}

}  // namespace oms::landlock
