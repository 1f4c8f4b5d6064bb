// The child starts as pid 1 of its own PID namespace (clone(CLONE_NEWPID) in
// the launcher): host processes cannot be named from inside (kill, prlimit,
// sched_setaffinity, /proc), and when it exits the kernel kills every process
// left in the namespace, setsid'd and double-forked daemons included. It
// must stay a small init: the kernel delivers to a namespace's init only the
// signals it handles, so it forwards them to the command, reaps orphans, and
// exits with the command's status. In a run with its own network it also
// answers DNS on 127.0.0.1:53 (dns_responder.hpp) and reports the names it
// answered, the loopback connects refused (refused_connect_watch.hpp) and
// those off the loopback (off_loopback_watch.hpp), and makes the sockets
// that carry the host's connections to a published port (published_sockets.hpp).
#include "child_steps.hpp"
#include "dns_responder.hpp"
#include "off_loopback_watch.hpp"
#include "published_sockets.hpp"
#include "refusal_reports.hpp"
#include "refused_connect_watch.hpp"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/close_range.h>

namespace oms::landlock {

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

const int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
constexpr int kMaxHolds = 64;  // relayed ports: one message's descriptors (descriptor_passing.hpp)

volatile pid_t command_pid = 0;

// Only signals a process sent (oms forwarding one, si_code <= 0) are passed
// on: a terminal's Ctrl-C (si_code SI_KERNEL) already reaches the command,
// which is in the terminal's foreground process group with oms.
void forward(int signal_number, siginfo_t* info, void*) {
    int saved = errno;
    if (command_pid > 0 && info && info->si_code <= 0) kill(command_pid, signal_number);
    errno = saved;
}

int command_entry(void* spec) { confine_and_exec(*static_cast<const ChildSpec*>(spec)); }

// The command shares this process's memory until it execs (no page tables
// to copy); this process is a copy of oms already, not oms itself.
pid_t start_command(const ChildSpec& spec) {
    if (kSanitized) {
        pid_t pid = fork();
        if (pid == 0) confine_and_exec(spec);
        return pid;
    }
    constexpr size_t kStackSize = 256 * 1024;
    void* stack = mmap(nullptr, kStackSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED) return -1;
    pid_t pid = clone(command_entry, static_cast<char*>(stack) + kStackSize, CLONE_VM | CLONE_VFORK | SIGCHLD,
                      const_cast<ChildSpec*>(&spec));
    munmap(stack, kStackSize);
    return pid;
}

int exit_code(int status) {
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return 1;
}

// Closes every descriptor but those in `keep` (-1 entries are skipped).
void close_all_but(int* keep, int count) {
    for (int i = 1; i < count; ++i)  // sorted, a handful: insertion sort
        for (int j = i; j > 0 && keep[j] < keep[j - 1]; --j) {
            const int t = keep[j];
            keep[j] = keep[j - 1];
            keep[j - 1] = t;
        }
    unsigned low = 0;
    for (int i = 0; i < count; ++i) {
        if (keep[i] < 0) continue;
        const unsigned fd = static_cast<unsigned>(keep[i]);
        if (fd > low) syscall(SYS_close_range, low, fd - 1, 0u);
        low = fd + 1;
    }
    syscall(SYS_close_range, low, ~0u, 0u);
}

void wake(int) {}  // SIGCHLD only has to interrupt ppoll

// The refusals already queued when the command ended: a refused connect's
// reset reaches the watch before the connect returns, but a command that
// ends at once (curl, then the shell) can end before the loop came round to
// read it.
void report_queued_refusals() {
    pollfd fds[16];
    const int count = refused_connect_watch::watch(fds, 0, 16);
    if (count > 0 && poll(fds, static_cast<nfds_t>(count), 0) > 0) refused_connect_watch::serve(fds, count);
}

// Once nothing of the run is left but this process: the command's exit
// code to oms (ChildSpec::end_fd), which then need not wait for this
// process's own exit.
void tell_end(const ChildSpec& spec, int code) {
    if (spec.end_fd < 0) return;
    while (write(spec.end_fd, &code, sizeof code) < 0 && errno == EINTR) {
    }
}

// Reaps every child that ended; exits with the command's status once it
// has, after ending every other process of the run: without a PID
// namespace (rung 3) nothing would end them with this process, and with
// one the kernel would, but only at its exit.
void reap(const ChildSpec& spec, pid_t command) {
    for (;;) {
        int status = 0;
        pid_t done = waitpid(-1, &status, WNOHANG);
        if (done == command) {
            report_queued_refusals();
            const bool all_ended = spec.namespaces ? end_namespace() : (end_leftovers(), true);
            if (all_ended) tell_end(spec, exit_code(status));
            _exit(exit_code(status));
        }
        if (done < 0 && errno == ECHILD) _exit(1);
        if (done <= 0) return;
    }
}

}  // namespace

void mount_fresh_proc(const ChildSpec& spec) {
    // Mounted by the namespace's pid 1: it shows this namespace only.
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, nullptr) != 0)
        child_fail(spec, "mount a /proc of its own PID namespace (without root, the kernel refuses this where "
                         "the visible /proc has parts covered, as in many containers)");
}

void run_as_init(const ChildSpec& spec) {
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    // Blocked until the handlers are in place: a signal arriving meanwhile
    // waits instead of being dropped (an init ignores unhandled ones).
    sigprocmask(SIG_BLOCK, &all, nullptr);
    // Before the command starts, so its first lookup is answered; with the
    // namespace's capabilities still held (port 53). CLOEXEC: the command
    // loses them at exec.
    if (spec.own_network) {  // the resolver is open since the network was entered (child_main.cpp)
        dns_responder::report_to(spec.report_fd);
        refusal_reports::write_to(spec.report_fd);
        refused_connect_watch::open(spec);
        if (spec.watch_connects) off_loopback_watch::prepare();
        if (!spec.publish_ports.empty()) published_sockets::serve_on(spec.channel_fd);
    }
    pid_t pid = start_command(spec);
    if (pid < 0) child_fail(spec, "start the command");
    command_pid = pid;
    off_loopback_watch::take_listener();
    // Holds nothing of the command's: its failure report pipe must reach EOF
    // at exec, its standard streams close when it and its children do.
    const dns_responder::Descriptors dns = dns_responder::descriptors();
    const refused_connect_watch::Descriptors watched = refused_connect_watch::descriptors();
    const int listener = off_loopback_watch::descriptor();
    const bool reporting = watched.v4 >= 0 || watched.v6 >= 0 || watched.unreachable_v4 >= 0 ||
                           watched.unreachable_v6 >= 0 || dns.udp >= 0 || listener >= 0;
    const int own[] = {dns.udp, dns.tcp, watched.v4, watched.v6, watched.unreachable_v4, watched.unreachable_v6,
                       listener, reporting ? spec.report_fd : -1, published_sockets::descriptor(), spec.end_fd};
    const int* holds = nullptr;
    const int hold_count = relayed_ipv6_holds(&holds);
    int keep[sizeof own / sizeof own[0] + kMaxHolds];
    int kept = 0;
    for (int fd : own) keep[kept++] = fd;
    for (int i = 0; i < hold_count && i < kMaxHolds; ++i) keep[kept++] = holds[i];
    close_all_but(keep, kept);
    struct sigaction action {};
    action.sa_sigaction = forward;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    for (int sig : kForwarded) sigaction(sig, &action, nullptr);
    struct sigaction child_ended {};
    child_ended.sa_handler = wake;
    sigemptyset(&child_ended.sa_mask);
    sigaction(SIGCHLD, &child_ended, nullptr);
    // SIGCHLD stays blocked except inside ppoll, so an end between the reap
    // and the wait is never missed.
    sigset_t only_child;
    sigemptyset(&only_child);
    sigaddset(&only_child, SIGCHLD);
    sigprocmask(SIG_SETMASK, &only_child, nullptr);
    pollfd fds[16];
    for (;;) {
        reap(spec, pid);
        int count = dns_responder::watch(fds, 16);
        count = refused_connect_watch::watch(fds, count, 16);
        count = off_loopback_watch::watch(fds, count, 16);
        count = published_sockets::watch(fds, count, 16);
        if (ppoll(fds, static_cast<nfds_t>(count), nullptr, &none) > 0) {
            // The connect watch first: a command's call waits for its answer.
            off_loopback_watch::serve(fds, count);
            dns_responder::serve(fds, count);
            refused_connect_watch::serve(fds, count);
            published_sockets::serve(fds, count);
        }
    }
}

}  // namespace oms::landlock
