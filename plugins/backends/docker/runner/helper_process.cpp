#include "helper_process.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace oms::docker::runner {

pid_t fork_helper(bool detached, const char* what, const std::function<void()>& serve,
                  const std::vector<int>& not_for_helper) {
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid == 0) {
        for (int fd : not_for_helper) close(fd);
        if (detached) {
            if (fork() != 0) _exit(0);  // the container's init adopts the helper
        } else {
            prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
            if (getppid() != parent) _exit(0);
        }
        prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
        signal(SIGPIPE, SIG_IGN);
        signal(SIGCHLD, SIG_DFL);
        for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) signal(s, SIG_IGN);  // ends with its parent
        setpgid(0, 0);
        serve();
        _exit(0);
    }
    if (pid < 0) {
        std::fprintf(stderr, "oms: cannot start %s: %s\n", what, std::strerror(errno));
        return -1;
    }
    if (!detached) return pid;
    int status = 0;
    waitpid(pid, &status, 0);
    return 1;
}

}  // namespace oms::docker::runner
