// Private /tmp and /var/tmp: a fresh tmpfs each, gone with the run. What the
// policy names below them (a worktree or HOME under /tmp, the run's own
// HOME...) is cloned first, with the rights the read-only step gave it,
// and attached again at the same path inside the new tmpfs; the run's own
// TMPDIR is made there as an empty folder.
#include "child_steps.hpp"
#include "mount_uapi.hpp"

#include <errno.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

namespace oms::landlock {

namespace {

// Opens (making it when missing) the next component below `dir`; the
// folders made belong to the fresh tmpfs, nobody else can write there yet.
int step_into(const ChildSpec& spec, int dir, const char* name, bool last, bool folder, const char* path) {
    int flags = O_PATH | O_NOFOLLOW | O_CLOEXEC | (last && !folder ? 0 : O_DIRECTORY);
    int fd = openat(dir, name, flags);
    if (fd >= 0 || errno != ENOENT) {
        if (fd < 0) child_fail(spec, "open a mount point for", path);
        return fd;
    }
    if (last && !folder) {
        int made = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (made < 0) child_fail(spec, "make a mount point for", path);
        close(made);
    } else if (mkdirat(dir, name, 0755) != 0) {
        child_fail(spec, "make a mount point for", path);
    }
    fd = openat(dir, name, flags);
    if (fd < 0) child_fail(spec, "open a mount point for", path);
    return fd;
}

}  // namespace

int make_mount_point(const ChildSpec& spec, const char* path, bool folder) {
    int dir = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) child_fail(spec, "open /");
    char name[256];
    const char* at = path;
    while (*at) {
        while (*at == '/') ++at;
        size_t length = 0;
        while (at[length] && at[length] != '/') ++length;
        if (length == 0) break;
        if (length >= sizeof name) child_fail(spec, "make a mount point for (a name too long)", path, ENAMETOOLONG);
        for (size_t i = 0; i < length; ++i) name[i] = at[i];
        name[length] = '\0';
        at += length;
        bool last = true;
        for (const char* rest = at; *rest; ++rest)
            if (*rest != '/') last = false;
        int next = step_into(spec, dir, name, last, folder, path);
        close(dir);
        dir = next;
    }
    return dir;
}

void clone_keeps(const ChildSpec& spec, const std::vector<const char*>& paths, int* fds, char* folder) {
    for (size_t i = 0; i < paths.size(); ++i) {
        int at = open_mount_path(spec, paths[i]);
        struct stat st;
        if (fstat(at, &st) != 0) child_fail(spec, "inspect", paths[i]);
        folder[i] = S_ISDIR(st.st_mode) ? 1 : 0;
        fds[i] = mount_uapi::open_tree_clone(at);
        if (fds[i] < 0) child_fail(spec, "copy the mount for", paths[i]);
        close(at);
    }
}

void bind_back_keeps(const ChildSpec& spec, const std::vector<const char*>& paths, int* fds, const char* folder,
                     const char* step) {
    for (size_t i = 0; i < paths.size(); ++i) {
        int to = make_mount_point(spec, paths[i], folder[i] != 0);
        if (mount_uapi::move_mount_onto(fds[i], to) != 0) child_fail(spec, step, paths[i]);
        close(to);
        close(fds[i]);
    }
}

void set_up_private_temps(const ChildSpec& spec) {
    clone_keeps(spec, spec.temp_keeps, spec.mount_fds, spec.keep_is_folder);
    // nosuid: a setuid copy made there stays an ordinary file.
    for (const char* temp : spec.private_temps)
        if (mount("tmpfs", temp, "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") != 0)
            child_fail(spec, "mount a private temp folder on", temp);
    bind_back_keeps(spec, spec.temp_keeps, spec.mount_fds, spec.keep_is_folder,
                    "bind back into the private temp folder");
    for (const char* path : spec.temp_fresh) {  // 0700, as oms makes the host's
        close(make_mount_point(spec, path, true));
        if (chmod(path, 0700) != 0) child_fail(spec, "make private the run's temp folder", path);
    }
}

}  // namespace oms::landlock
