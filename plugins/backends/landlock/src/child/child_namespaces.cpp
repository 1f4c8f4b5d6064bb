#include "child_steps.hpp"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

namespace oms::landlock {

namespace {

// Writes "<id> <id> 1" without formatting functions (the child may not allocate).
void write_id_map(const ChildSpec& spec, const char* file, uint32_t id) {
    char digits[11];
    const int n = format_decimal(id, digits);
    char line[48];
    int used = 0;
    for (int copy = 0; copy < 2; ++copy) {
        for (int i = 0; i < n; ++i) line[used++] = digits[i];
        line[used++] = ' ';
    }
    line[used++] = '1';
    line[used++] = '\n';
    int fd = open(file, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, line, used) != used) child_fail(spec, "write", file);
    close(fd);
}

// The launcher made the user namespace (with the PID namespace, so that one
// belongs to it and /proc can be mounted); only the id maps are left.
void map_user_namespace(const ChildSpec& spec) {
    int fd = open("/proc/self/setgroups", O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, "deny", 4) != 4) child_fail(spec, "write /proc/self/setgroups");
    close(fd);
    write_id_map(spec, "/proc/self/uid_map", spec.uid);
    write_id_map(spec, "/proc/self/gid_map", spec.gid);
}

}  // namespace

void enter_namespaces(const ChildSpec& spec) {
    if (spec.need_user_namespace) map_user_namespace(spec);
    int flags = CLONE_NEWNS | (spec.own_network ? CLONE_NEWNET : 0);
    if (unshare(flags) != 0) child_fail(spec, "create the mount/network namespaces");
}

}  // namespace oms::landlock
