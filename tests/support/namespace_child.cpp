#include "namespace_child.hpp"

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

namespace oms::test {

namespace {

bool write_text(const std::string& path, const std::string& text) {
    std::ofstream out(path);
    out << text;
    return static_cast<bool>(out.flush());
}

}  // namespace

bool enter_namespaces(int flags) {
    const uid_t uid = geteuid();
    const gid_t gid = getegid();
    if (uid == 0) return unshare(flags) == 0;
    if (unshare(CLONE_NEWUSER | flags) != 0) return false;
    return write_text("/proc/self/setgroups", "deny") &&
           write_text("/proc/self/uid_map", "0 " + std::to_string(uid) + " 1") &&
           write_text("/proc/self/gid_map", "0 " + std::to_string(gid) + " 1");
}

std::string facts_from_child(const std::function<std::string()>& observe) {
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0) return "setup=no pipe\n";
    const pid_t child = fork();
    if (child < 0) return "setup=no fork\n";
    if (child == 0) {
        close(pipe_fds[0]);
        const std::string facts = observe();
        const ssize_t written = write(pipe_fds[1], facts.data(), facts.size());
        _exit(written == static_cast<ssize_t>(facts.size()) ? 0 : 1);
    }
    close(pipe_fds[1]);
    std::string facts;
    char buffer[4096];
    for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) > 0;) facts.append(buffer, static_cast<size_t>(n));
    close(pipe_fds[0]);
    int status = 0;
    waitpid(child, &status, 0);
    return facts;
}

}  // namespace oms::test
