#include "one_shot_supervisor.hpp"

#include "command_connects.hpp"
#include "loopback_listeners.hpp"
#include "runner_protocol.hpp"

#include <oms/refusal_log.hpp>

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace oms::docker::runner {

namespace {

int connect_unix(const char* path, int type) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (std::strlen(path) >= sizeof address.sun_path) return -1;
    std::strcpy(address.sun_path, path);
    int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) return fd;
    if (fd >= 0) close(fd);
    return -1;
}

// Every signal the runner handles through the signalfd: the ones to forward and SIGCHLD.
sigset_t watched_signals() {
    sigset_t set;
    sigfillset(&set);
    for (int s : {SIGKILL, SIGSTOP, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT, SIGSYS}) sigdelset(&set, s);
    return set;
}

int exit_code(int status) { return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status); }

// SIGCHLD: true (and `code` set) when the command ended; other children
// (the helpers' intermediate forks, orphans) are reaped and forgotten.
bool command_ended(pid_t command, int& code) {
    int status = 0;
    pid_t pid;
    bool ended = false;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
        if (pid == command) ended = true, code = exit_code(status);
    return ended;
}

// The command's refused connects, as lines to oms (which takes the address
// and port, and says the rule itself). Never waits: a full queue drops the
// line.
class RefusedConnectLines {
public:
    explicit RefusedConnectLines(const char* path)
        : fd_(path ? connect_unix(path, SOCK_DGRAM | SOCK_NONBLOCK) : -1) {}
    void send(const oms::connect_watch::Call& call) {
        if (fd_ < 0 || !refused(call, looks_) || !told_.first_time(call)) return;
        const std::string host = address_text(call);
        refusal_log::append(fd_, call.off_loopback ? kRouteSource : kLoopbackSource, host.c_str(), host.size(),
                            call.port, "refused");
    }

private:
    int fd_;
    RoutesTold told_;
    ListenerLooks looks_;
};

}  // namespace

const char* lifeline_from(int& argi, int argc, char** argv) {
    constexpr const char* kFlag = "--lifeline=";
    if (argi >= argc || std::strncmp(argv[argi], kFlag, std::strlen(kFlag)) != 0) return nullptr;
    return argv[argi++] + std::strlen(kFlag);
}

void supervise(const char* lifeline, const char* connect_reports,
               const std::function<void(int connect_watch_channel)>& start_command) {
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    const int life = connect_unix(lifeline, SOCK_STREAM);
    if (life < 0) {
        std::fprintf(stderr, "oms: the container cannot reach oms at %s (%s); the command did not run\n", lifeline,
                     std::strerror(errno));
        _exit(125);
    }
    const sigset_t watched = watched_signals();
    sigset_t previous;
    sigprocmask(SIG_BLOCK, &watched, &previous);
    const int signals = signalfd(-1, &watched, SFD_CLOEXEC);
    ConnectWatch connects;
    const bool watched_connects = connect_reports && connects.open();
    const pid_t command = signals < 0 ? -1 : fork();
    if (command == 0) {
        sigprocmask(SIG_SETMASK, &previous, nullptr);
        start_command(watched_connects ? connects.command_end() : -1);
        _exit(126);
    }
    connects.forked();
    RefusedConnectLines refusals(watched_connects ? connect_reports : nullptr);
    if (command < 0) {
        std::fprintf(stderr, "oms: cannot start the command: %s\n", std::strerror(errno));
        _exit(126);
    }
    for (;;) {
        pollfd fds[3] = {{life, POLLIN, 0}, {signals, POLLIN, 0}, {connects.descriptor(), POLLIN, 0}};
        if (poll(fds, connects.descriptor() >= 0 ? 3 : 2, -1) < 0 && errno != EINTR) _exit(125);
        // First: a command's connect waits for its answer.
        if (fds[2].fd >= 0 && fds[2].revents)
            connects.serve(fds[2].revents, [&refusals](const oms::connect_watch::Call& call) { refusals.send(call); });
        // oms ended: so does the container (PID 1's exit kills everything in it).
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) _exit(137);
        if (!(fds[1].revents & POLLIN)) continue;
        signalfd_siginfo info{};
        if (read(signals, &info, sizeof info) != sizeof info) continue;
        const int sig = static_cast<int>(info.ssi_signo);
        int code = 0;
        if (sig == SIGCHLD) {
            if (command_ended(command, code)) _exit(code);
            continue;
        }
        // The terminal's own (Ctrl-C) reached the command's group already.
        if (info.ssi_code != SI_KERNEL) kill(command, sig);
    }
}

}  // namespace oms::docker::runner
