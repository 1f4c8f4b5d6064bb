#include "detached_program.hpp"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

namespace oms::landlock {

std::string helper_program_beside_plugin(const char* name) {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&helper_program_beside_plugin), &info) == 0 || !info.dli_fname) return "";
    std::string path = info.dli_fname;
    const size_t slash = path.rfind('/');
    if (slash == std::string::npos) return "";
    path = path.substr(0, slash + 1) + name;
    return access(path.c_str(), X_OK) == 0 ? path : "";
}

void start_detached(const std::vector<std::string>& argv, const std::vector<int>& passed) {
    constexpr size_t kMaxPassed = 8;
    if (argv.empty() || passed.size() > kMaxPassed) return;
    const size_t count = passed.size();
    // Made before the fork: a threaded process's child may only make
    // async-signal-safe calls.
    std::vector<std::string> environment_text = {"PATH=/usr/bin:/bin"};
    for (const char* name : {"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"})
        if (const char* value = getenv(name)) environment_text.push_back(std::string(name) + "=" + value);
    std::vector<const char*> environment, arguments;
    for (const auto& entry : environment_text) environment.push_back(entry.c_str());
    environment.push_back(nullptr);
    for (const auto& argument : argv) arguments.push_back(argument.c_str());
    arguments.push_back(nullptr);
    const pid_t middle = fork();
    if (middle < 0) return;
    if (middle == 0) {
        setsid();
        if (fork() == 0) {
            // oms blocks the signals it forwards to its command: an exec keeps
            // the mask (and what is ignored), and a helper deaf to SIGTERM
            // would outlive every attempt to stop it.
            sigset_t none;
            sigemptyset(&none);
            sigprocmask(SIG_SETMASK, &none, nullptr);
            for (int signal_number = 1; signal_number < NSIG; ++signal_number) signal(signal_number, SIG_DFL);
            // Nothing of the launcher's place kept busy (a worktree on a
            // mount could not be unmounted while the helper lives).
            if (chdir("/") != 0) _exit(1);
            // Moved above every number they go to first, so that no dup2
            // overwrites one not moved yet.
            int moved[kMaxPassed];
            for (size_t i = 0; i < count; ++i)
                if ((moved[i] = passed[i] < 0 ? -1 : fcntl(passed[i], F_DUPFD, 16)) < 0 && passed[i] >= 0) _exit(1);
            const int null = open("/dev/null", O_RDWR);
            for (int fd = 0; fd < 3; ++fd) dup2(null, fd);
            // A -1 slot is closed: never a descriptor of the caller's there.
            for (size_t i = 0; i < count; ++i)
                if (moved[i] >= 0) dup2(moved[i], 3 + static_cast<int>(i));
                else close(3 + static_cast<int>(i));
            closefrom(3 + static_cast<int>(count));
            execve(arguments[0], const_cast<char* const*>(arguments.data()),
                   const_cast<char* const*>(environment.data()));
        }
        _exit(0);
    }
    int status = 0;
    while (waitpid(middle, &status, 0) < 0 && errno == EINTR) {
    }
}

}  // namespace oms::landlock
