#include "child_steps.hpp"
#include "descriptor_passing.hpp"
#include "off_loopback_watch.hpp"
#include <oms/openat2.hpp>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>

#include <linux/close_range.h>

namespace oms::landlock {

namespace {

void append(char* buffer, size_t capacity, const char* text) {
    size_t used = strnlen(buffer, capacity);
    for (size_t i = 0; text[i] && used + 1 < capacity; ++i) buffer[used++] = text[i];
    buffer[used] = '\0';
}

// oms blocks SIGINT/SIGTERM/SIGHUP in its threads; the command must start
// from the defaults.
void reset_signals(const ChildSpec& spec) {
    sigset_t none;
    sigemptyset(&none);
    if (sigprocmask(SIG_SETMASK, &none, nullptr) != 0) child_fail(spec, "reset the signal mask");
    for (int sig = 1; sig < NSIG; ++sig) {
        if (sig == SIGKILL || sig == SIGSTOP) continue;
        signal(sig, SIG_DFL);  // fails harmlessly for the numbers libc reserves
    }
}

// The caller's descriptors become 0/1/2, whatever numbers they had.
void install_stdio(const ChildSpec& spec) {
    int moved[3];
    for (int i = 0; i < 3; ++i) {
        moved[i] = fcntl(spec.stdio[i], F_DUPFD_CLOEXEC, 10);
        if (moved[i] < 0) child_fail(spec, "take over the standard descriptors");
    }
    for (int i = 0; i < 3; ++i)
        if (dup2(moved[i], i) < 0) child_fail(spec, "install the standard descriptors");
}

}  // namespace

int format_decimal(uint32_t value, char* out) {
    char reversed[10];
    int n = 0;
    do {
        reversed[n++] = static_cast<char>('0' + value % 10);
        value /= 10;
    } while (value);
    for (int i = 0; i < n; ++i) out[i] = reversed[n - 1 - i];
    out[n] = '\0';
    return n;
}

void child_fail(const ChildSpec& spec, const char* step, const char* path, int error_number) {
    ChildFailure failure{};
    failure.error_number = error_number >= 0 ? error_number : errno;
    append(failure.step, sizeof failure.step, step);
    if (path) {
        append(failure.step, sizeof failure.step, " ");
        append(failure.step, sizeof failure.step, path);
    }
    ssize_t ignored = write(spec.error_fd, &failure, sizeof failure);
    (void)ignored;
    _exit(127);
}

// Whether oms has ended: the child cannot name its parent from inside its
// PID namespace (getppid() is 0), but oms holds the other end of the channel
// until the child has exec'd or failed.
bool parent_gone(const ChildSpec& spec) {
    pollfd hangup{spec.channel_fd, POLLRDHUP, 0};
    return poll(&hangup, 1, 0) != 0;
}

void run_child(const ChildSpec& spec) {
    if (spec.task_lock_fd >= 0) close(spec.task_lock_fd);
    // The child, its command and everything they start die with oms
    // (SIGKILL when the thread that started it ends; the PID namespace then
    // takes the rest): the command is never left running unwatched, and the
    // private HOME it uses is removed only once oms is gone (see the run
    // folder sweep). Nothing below changes a user or group id, which would
    // clear it; the user namespace and the capability drop do not.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (parent_gone(spec)) _exit(128 + SIGKILL);  // oms ended before the line above
    reset_signals(spec);
    install_stdio(spec);
    if (spec.namespaces) {
        enter_namespaces(spec);
        // Before the word to oms: once this run is a member, the task's next
        // runs may join, and their commands must find this run's resolver
        // address held (task_network.hpp).
        if (spec.own_network) {
            bring_loopback_up(spec);
            open_resolver(spec);
        }
        if (spec.tell_network_entered &&
            send_with_descriptors(spec.channel_fd, kNetworkEnteredTag, nullptr, 0, MSG_NOSIGNAL) != 1)
            child_fail(spec, "tell oms it is in its network");
        apply_mounts(spec);
        setup_loopback(spec);
    } else {
        become_subreaper(spec);
    }
    run_as_init(spec);
}

// The worktree, then the working folder below it, resolved beneath the
// worktree: a link a command planted there (`ln -s / sub`) stops the run
// instead of starting the next command outside.
void enter_working_dir(const ChildSpec& spec) {
    // No link on the way to the worktree either: one there now was swapped
    // in since the core checked the path (a nested worktree exchanged for a
    // link by a command of the task around it).
    const int worktree = sdk::open_no_links(spec.worktree);
    if (worktree < 0)
        child_fail(spec, errno == ELOOP ? "enter the worktree (a link appeared in its path)" : "enter the worktree",
                   spec.worktree);
    const bool in_worktree = fchdir(worktree) == 0;
    close(worktree);
    if (!in_worktree) child_fail(spec, "enter the worktree", spec.worktree);
    if (strcmp(spec.working_dir_below, ".") == 0) return;
    const int below = sdk::open_resolved(AT_FDCWD, spec.working_dir_below, O_PATH | O_DIRECTORY | O_CLOEXEC,
                                    RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS);
    if (below < 0) child_fail(spec, "enter the working folder inside the worktree", spec.working_dir_below);
    const bool entered = fchdir(below) == 0;
    close(below);
    if (!entered) child_fail(spec, "enter the working folder", spec.working_dir_below);
}

// strerror's words for what execve reports, without strerror (it may
// allocate for a translation, which the child must not).
const char* exec_error_text(int error) {
    switch (error) {
        case ENOENT: return "No such file or directory";
        case ENOTDIR: return "Not a directory";
        case EACCES: return "Permission denied";
        case ENOEXEC: return "Exec format error";
        case ELOOP: return "Too many levels of symbolic links";
        case E2BIG: return "Argument list too long";
        case ETXTBSY: return "Text file busy";
        case EPERM: return "Operation not permitted";
        default: return "cannot be executed";
    }
}

// "oms: PROGRAM: REASON" (or a whole prepared line) on the command's stderr,
// then the shell's status. Only system calls: the child may not allocate.
[[noreturn]] void exit_as_a_shell(const char* program_or_line, const char* reason, int status) {
    const char* parts[] = {reason ? "oms: " : "", program_or_line, reason ? ": " : "", reason ? reason : "",
                           reason ? " (inside the sandbox)\n" : ""};
    for (const char* part : parts) {
        ssize_t ignored = write(STDERR_FILENO, part, std::strlen(part));
        (void)ignored;
    }
    _exit(status);
}

void confine_and_exec(const ChildSpec& spec) {
    sigset_t none;
    sigemptyset(&none);
    if (sigprocmask(SIG_SETMASK, &none, nullptr) != 0) child_fail(spec, "reset the signal mask");
    enter_working_dir(spec);
    drop_capabilities(spec);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) child_fail(spec, "set no_new_privs");
    apply_landlock(spec);
    off_loopback_watch::install_in_command();  // report only: nothing when the init prepared none
    apply_seccomp(spec);
    // Descriptors inherited from oms (or its caller) must not reach the
    // command; the error pipe is CLOEXEC already and closes at exec.
    if (syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC) != 0)
        child_fail(spec, "mark inherited descriptors close-on-exec");
    if (spec.not_found) exit_as_a_shell(spec.not_found, nullptr, spec.not_found_status);
    execve(spec.program, spec.argv.data(), spec.envp.data());
    // As a shell does after the sandbox is in place: the command's own failure
    // (127 when the file is not there inside the sandbox, 126 when it cannot
    // be executed), said on its stderr, not a failure to start the sandbox.
    const int error = errno;
    exit_as_a_shell(spec.program, exec_error_text(error), error == ENOENT || error == ENOTDIR ? 127 : 126);
}

}  // namespace oms::landlock
