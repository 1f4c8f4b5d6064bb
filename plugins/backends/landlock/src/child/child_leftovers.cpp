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
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace oms::landlock {

namespace {

// The kernel's list of this thread's children ("12 34 "), every one killed;
// returns how many were.
long kill_children() {
    int fd = open("/proc/thread-self/children", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;  // checked at the start (become_subreaper)
    char text[4096];
    ssize_t n;
    long pid = 0, killed = 0;
    while ((n = read(fd, text, sizeof text)) > 0)
        for (ssize_t i = 0; i < n; ++i) {
            if (text[i] >= '0' && text[i] <= '9') {
                pid = pid * 10 + (text[i] - '0');
            } else if (pid > 0) {
                killed += kill(static_cast<pid_t>(pid), SIGKILL) == 0;
                pid = 0;
            }
        }
    if (pid > 0) killed += kill(static_cast<pid_t>(pid), SIGKILL) == 0;
    close(fd);
    return killed;
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

// Round after round: every child listed now is killed, then as many ends
// are reaped (each killed child ends, so these waits never block for good)
// before the list is read again for the orphans reparented meanwhile. The
// list was once read again after each end: quadratic in what was left.
void end_leftovers() {
    for (;;) {
        const long killed = kill_children();
        for (long reaped = 0; reaped < killed;) {
            if (waitpid(-1, nullptr, 0) > 0) ++reaped;
            else if (errno != EINTR) return;  // ECHILD: none left
        }
        // None listed: done once nothing is left to reap (a child not
        // listed yet, reparented while the list was read, comes round again).
        if (killed == 0 && waitpid(-1, nullptr, WNOHANG) < 0 && errno == ECHILD) return;
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
