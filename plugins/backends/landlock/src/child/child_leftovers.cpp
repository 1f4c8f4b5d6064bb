// What a command leaves behind (a daemon it started, a double-forked
// child, a setsid'd one) ends with it. With a PID namespace the kernel would
// end it at the init's exit; the init ends it first (end_namespace), so it
// can say the run is over before its own exit.
//
// Rung 3 has no PID namespace to end what a command leaves behind (a
// daemon it started, a double-forked child, a setsid'd one). The init is
// made a child subreaper instead: every orphan below it is reparented to
// it, whatever session or group it moved to, so once the command has ended
// the init kills its children until it has none left. Only system calls:
// this runs in the forked child.
#include "child_steps.hpp"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace oms::landlock {

namespace {

// True when /proc says `pid` has ended (a zombie: state Z or X after the
// name in parentheses). A zombie keeps its place until reaped.
bool has_ended(long pid) {
    char path[40] = "/proc/";
    int at = 6;
    char digits[24];
    int n = 0;
    do digits[n++] = static_cast<char>('0' + pid % 10); while ((pid /= 10) > 0 && n < 20);
    while (n > 0) path[at++] = digits[--n];
    const char tail[] = "/stat";
    for (const char c : tail) path[at++] = c;
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return true;  // gone already
    char text[512];
    const ssize_t got = read(fd, text, sizeof text - 1);
    close(fd);
    if (got <= 0) return true;
    text[got] = '\0';
    const char* end = nullptr;  // the last ')': a name may hold one
    for (const char* c = text; *c; ++c)
        if (*c == ')') end = c;
    return end && end[1] == ' ' && (end[2] == 'Z' || end[2] == 'X');
}

struct Listed {
    long children = 0, living = 0;  // how many the list named; of them, not ended yet
};

// The kernel's list of this thread's children ("12 34 "), every one killed.
Listed kill_children() {
    int fd = open("/proc/thread-self/children", O_RDONLY | O_CLOEXEC);
    Listed listed;
    if (fd < 0) return listed;  // checked at the start (become_subreaper)
    char text[4096];
    ssize_t n;
    long pid = 0;
    auto end_one = [&listed](long child) {
        kill(static_cast<pid_t>(child), SIGKILL);
        ++listed.children;
        listed.living += !has_ended(child);
    };
    while ((n = read(fd, text, sizeof text)) > 0)
        for (ssize_t i = 0; i < n; ++i) {
            if (text[i] >= '0' && text[i] <= '9') {
                pid = pid * 10 + (text[i] - '0');
            } else if (pid > 0) {
                end_one(pid);
                pid = 0;
            }
        }
    if (pid > 0) end_one(pid);
    close(fd);
    return listed;
}

}  // namespace

void become_subreaper(const ChildSpec& spec) {
    if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) child_fail(spec, "become the run's subreaper");
    // Without the list of its children the init could not end them: the
    // run does not start (a kernel without CONFIG_PROC_CHILDREN).
    int fd = open("/proc/thread-self/children", O_RDONLY | O_CLOEXEC);
    if (fd < 0) child_fail(spec, "read /proc/thread-self/children (to end what the command leaves)");
    close(fd);
}

// Nothing is reaped while a child still lives: each killed child's zombie
// keeps its place (RLIMIT_NPROC, a pids cgroup), so a fork storm cannot
// fill the places a kill frees, and the orphans each death hands to the
// init are killed in the next round. Done when a round finds every child
// ended and no more children than the round before: with nothing reaped
// the list only grows, so it is the same list, whose members had all ended
// (and so handed over their own children) before it was read. Then all are
// reaped. (Reaping while killing let a storm refill every freed place: the
// init never finished. Reading the list again after each reaped end was
// quadratic in what was left.)
void end_leftovers() {
    for (long before = -1;;) {
        const Listed listed = kill_children();
        if (listed.living == 0 && listed.children == before) break;
        before = listed.children;
        if (listed.living > 0) sched_yield();  // the killed need the CPU to end
    }
    for (;;) {
        if (waitpid(-1, nullptr, 0) > 0) continue;
        if (errno == EINTR) continue;
        return;  // ECHILD: none left
    }
}

// One kill(-1) is enough, as at the kernel's own end of a namespace: a fork
// under way when it is sent either fails (its parent has SIGKILL pending) or
// makes a child that gets it too. Sending it again per reaped child would
// walk every process of the host once per process left: quadratic (16,000
// left took a minute, and slowed every fork on the host meanwhile).
bool end_namespace() {
    if (getpid() != 1) return false;
    kill(-1, SIGKILL);  // from pid 1: every process of the namespace but itself
    for (;;) {
        const pid_t done = waitpid(-1, nullptr, __WALL);
        if (done < 0 && errno == EINTR) continue;
        if (done < 0) return true;  // ECHILD: none left
    }
}

}  // namespace oms::landlock
