// The verify launcher (oms/verify_launch.hpp), the inside half of `oms
// verify`: runs as the sandboxed command, starts the
// Surfnet in the background, waits until its port answers, runs the check,
// stops the Surfnet and exits with the check's status. On landlock it runs
// as the only child of the PID namespace's init, which kills whatever is
// left (a Surfnet that ignored SIGTERM, its children) when this exits.
//
// usage: LAUNCHER PORT WAIT_MS COUNT SURFNET_ARGV(COUNT) -- CHECK...
#include <oms/verify_launch.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {
volatile pid_t check_pid = 0;

void forward(int signal_number) {
    if (check_pid > 0) kill(check_pid, signal_number);
}
}  // namespace

namespace oms::verify_launch {

namespace {

constexpr int kLaunchFailed = 69;  // kExitUnavailable: the check did not run

bool port_answers(uint16_t port) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    close(fd);
    return ok;
}

std::vector<char*> c_argv(std::vector<std::string>& args) {
    std::vector<char*> out;
    for (auto& a : args) out.push_back(a.data());
    out.push_back(nullptr);
    return out;
}

// The Surfnet's output goes to $OMS_OUTPUT_DIR/surfnet.log (else stderr),
// so it never mixes with the check's own output.
pid_t start_surfnet(std::vector<std::string> argv) {
    const char* output = std::getenv("OMS_OUTPUT_DIR");
    int log = output ? open((std::string(output) + "/surfnet.log").c_str(),
                            O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644)
                     : -1;
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0) dup2(null, STDIN_FILENO);
        if (log >= 0) {
            dup2(log, STDOUT_FILENO);
            dup2(log, STDERR_FILENO);
        }
        setpgid(0, 0);  // its own group: stopping it reaches its children too
        auto args = c_argv(argv);
        execvp(args[0], args.data());
        std::fprintf(stderr, "oms verify: cannot start the Surfnet %s: %s\n", args[0], std::strerror(errno));
        _exit(127);
    }
    if (log >= 0) close(log);
    return pid;
}

void sleep_ms(long ms) {
    timespec t{ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, nullptr);
}

// True once the port answers; false when the Surfnet exited or time ran out.
bool wait_for_surfnet(pid_t surfnet, uint16_t port, int wait_ms, std::string& why) {
    for (int waited = 0; waited <= wait_ms; waited += 50) {
        int status = 0;
        if (waitpid(surfnet, &status, WNOHANG) == surfnet) {
            why = "it exited (status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)) +
                  ") before its port answered";
            return false;
        }
        if (port_answers(port)) return true;
        sleep_ms(50);
    }
    why = "its port " + std::to_string(port) + " did not answer within " + std::to_string(wait_ms) + " ms";
    return false;
}

void stop_surfnet(pid_t surfnet) {
    kill(-surfnet, SIGTERM);
    kill(surfnet, SIGTERM);
    for (int i = 0; i < 40; ++i) {
        if (waitpid(surfnet, nullptr, WNOHANG) == surfnet) return;
        sleep_ms(50);
    }
    kill(-surfnet, SIGKILL);
    kill(surfnet, SIGKILL);
    waitpid(surfnet, nullptr, 0);
}

int run_check(std::vector<std::string> argv) {
    pid_t pid = fork();
    if (pid == 0) {
        auto args = c_argv(argv);
        execvp(args[0], args.data());
        std::fprintf(stderr, "oms verify: cannot run the check %s: %s\n", args[0], std::strerror(errno));
        _exit(127);
    }
    if (pid < 0) return kLaunchFailed;
    check_pid = pid;
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    check_pid = 0;
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
}

}  // namespace

int run(const std::vector<std::string>& args) {
    if (args.size() < 5) {
        std::fprintf(stderr, "usage: LAUNCHER PORT WAIT_MS COUNT SURFNET... -- CHECK...\n");
        return 2;
    }
    const long port_number = std::strtol(args[0].c_str(), nullptr, 10);
    const int wait_ms = static_cast<int>(std::strtol(args[1].c_str(), nullptr, 10));
    const size_t count = std::strtoul(args[2].c_str(), nullptr, 10);
    if (port_number < 1 || port_number > 65535 || wait_ms < 0) {
        std::fprintf(stderr, "oms verify: malformed launcher arguments\n");
        return 2;
    }
    const uint16_t port = static_cast<uint16_t>(port_number);
    if (count == 0 || 3 + count + 1 >= args.size() || args[3 + count] != "--") {
        std::fprintf(stderr, "oms verify: malformed launcher arguments\n");
        return 2;
    }
    std::vector<std::string> surfnet(args.begin() + 3, args.begin() + 3 + static_cast<long>(count));
    std::vector<std::string> check(args.begin() + 4 + static_cast<long>(count), args.end());
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) signal(sig, forward);
    // A Surfnet already answering would be someone else's: never judge against it.
    if (port_answers(port)) {
        std::fprintf(stderr, "oms verify: something already listens on 127.0.0.1:%u before the Surfnet started; "
                             "the check did not run\n", port);
        return kLaunchFailed;
    }
    pid_t surfnet_pid = start_surfnet(surfnet);
    if (surfnet_pid < 0) return kLaunchFailed;
    std::string why;
    if (!wait_for_surfnet(surfnet_pid, port, wait_ms, why)) {
        std::fprintf(stderr, "oms verify: the Surfnet (%s) did not come up: %s; the check did not run%s\n",
                     surfnet[0].c_str(), why.c_str(),
                     std::getenv("OMS_OUTPUT_DIR") ? " (its output: $OMS_OUTPUT_DIR/surfnet.log)" : "");
        stop_surfnet(surfnet_pid);
        return kLaunchFailed;
    }
    const int status = run_check(check);
    stop_surfnet(surfnet_pid);
    return status;
}

}  // namespace oms::verify_launch
