// Landlock has no right for chmod, chown, utimes or extended attributes:
// outside the write roots those are stopped at the mount level instead, as
// a read-only root does in other sandboxes. Under a user namespace the
// inherited mounts are locked (read-only can be added, never removed), so
// the write roots are cloned first, the whole tree is made read-only, and
// the writable clones are put back on top. With a fresh /dev every mount is
// made nodev as well, the writable clones too: only the granted device
// files, cloned before (child_fresh_dev.cpp), still open.
#include "child_steps.hpp"
#include "mount_uapi.hpp"

#include <fcntl.h>
#include <unistd.h>

namespace oms::landlock {

void make_root_read_only(const ChildSpec& spec) {
    const size_t count = spec.writable_mounts.size();
    for (size_t i = 0; i < count; ++i) {
        int at = open_mount_path(spec, spec.writable_mounts[i]);
        spec.mount_fds[i] = mount_uapi::open_tree_clone(at);
        if (spec.mount_fds[i] < 0) child_fail(spec, "copy the write root", spec.writable_mounts[i]);
        if (spec.fresh_dev && mount_uapi::set_no_devices(spec.mount_fds[i]) != 0)
            child_fail(spec, "make the write root nodev", spec.writable_mounts[i]);
        close(at);
    }
    int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (root < 0 || mount_uapi::set_read_only(root, spec.fresh_dev) != 0) child_fail(spec, "make every mount read-only");
    close(root);
    for (size_t i = 0; i < count; ++i) {
        int to = open_mount_path(spec, spec.writable_mounts[i]);
        if (mount_uapi::move_mount_onto(spec.mount_fds[i], to) != 0)
            child_fail(spec, "put back the writable write root", spec.writable_mounts[i]);
        close(to);
        close(spec.mount_fds[i]);
    }
}

}  // namespace oms::landlock
