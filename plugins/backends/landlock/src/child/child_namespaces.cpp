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

// The task's network when a live run of the task has one (task_network.hpp):
// entered through its init's pidfd, so a run gone meanwhile is never
// mistaken for another process. False: this run makes a network of its own.
bool enter_task_network(const ChildSpec& spec) {
    if (spec.network_entered) return true;
    if (spec.join_pidfd < 0) return false;
    if (setns(spec.join_pidfd, CLONE_NEWNET) != 0) child_fail(spec, kJoinStep);
    return true;
}

}  // namespace

void enter_namespaces(const ChildSpec& spec) {
    // A user namespace entered by the joining helper has its id maps.
    if (spec.need_user_namespace && !spec.network_entered) map_user_namespace(spec);
    int flags = CLONE_NEWNS;
    if (spec.own_network && !enter_task_network(spec)) flags |= CLONE_NEWNET;
    if (unshare(flags) != 0) child_fail(spec, "create the mount/network namespaces");
}

}  // namespace oms::landlock
