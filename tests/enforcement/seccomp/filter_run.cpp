#include "filter_run.hpp"

#include <errno.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>

namespace oms::test {

namespace {

struct Answer {
    long result;
    int error;
};

[[noreturn]] void child(int out, Filter filter, const std::function<long()>& call) {
    // The test framework's fault handlers would report the child's fault as
    // the test's own: the parent reads the signal from the wait status.
    for (int sig = 1; sig < NSIG; ++sig) signal(sig, SIG_DFL);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) _exit(120);
    if (filter.code) {
        sock_fprog program{static_cast<unsigned short>(filter.size), const_cast<sock_filter*>(filter.code)};
        if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0) != 0) _exit(121);
    }
    errno = 0;
    Answer answer{call(), 0};
    answer.error = errno;
    ssize_t written = write(out, &answer, sizeof answer);
    _exit(written == sizeof answer ? 0 : 122);
}

}  // namespace

CallOutcome run_under(Filter filter, const std::function<long()>& call) {
    int ends[2];
    if (pipe(ends) != 0) throw std::runtime_error("pipe failed");
    pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
        close(ends[0]);
        child(ends[1], filter, call);
    }
    close(ends[1]);
    Answer answer{};
    ssize_t got = read(ends[0], &answer, sizeof answer);
    close(ends[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    CallOutcome outcome;
    if (WIFSIGNALED(status)) {
        outcome.killed_by = WTERMSIG(status);
        return outcome;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || got != sizeof answer)
        throw std::runtime_error("the probe child failed before its call (status " + std::to_string(status) + ")");
    outcome.result = answer.result;
    outcome.error = answer.error;
    return outcome;
}

long call_with_bad_arguments(long nr) {
    const long bad = -1;
    // init_module with a length of all ones would try to allocate it first.
    if (nr == SYS_init_module) return syscall(nr, bad, 0L, bad);
    return syscall(nr, bad, bad, bad, bad, bad, bad);
}

}  // namespace oms::test
