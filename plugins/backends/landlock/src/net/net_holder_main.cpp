// oms-landlock-net-holder FOLDER IDLE-SECONDS: keeps a task's network
// (task_network.hpp) between its runs. It enters the network given as
// descriptor 3 (after the user namespace that owns it, descriptor 4, for an
// ordinary user), gives up every capability, becomes a member itself (and
// says so on descriptor 5), and
// leaves once no other member has been alive for IDLE-SECONDS, when its
// link is removed (`oms task end`), or at SIGTERM. It holds no socket and
// starts nothing: the task's next runs only enter the network through it.
#include "task_members.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <string>

namespace members = oms::landlock::task_members;

namespace {

volatile sig_atomic_t asked_to_stop = 0;
void stop(int) { asked_to_stop = 1; }

long now_seconds() {
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec;
}

constexpr int kNetwork = 3, kUserNamespace = 4, kReady = 5;

// The task's network, and first the user namespace that owns it when given.
bool enter() {
    if (fcntl(kUserNamespace, F_GETFD) >= 0 && setns(kUserNamespace, CLONE_NEWUSER) != 0) return false;
    const bool entered = setns(kNetwork, CLONE_NEWNET) == 0;
    close(kNetwork);
    close(kUserNamespace);
    return entered;
}

// Entering a user namespace gives every capability in it: none is needed.
bool drop_capabilities() {
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct none[2] = {};
    return syscall(SYS_capset, &header, none) == 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0;
}

// Only runs keep the network busy, not another holder of it (two holders of
// one key would keep each other for ever: there is one, see main).
bool another_member_alive(const std::string& folder, const std::string& own) {
    DIR* listing = opendir(folder.c_str());
    if (!listing) return false;
    bool alive = false;
    while (const dirent* entry = readdir(listing)) {
        if (!members::is_member_name(entry->d_name) || own == entry->d_name) continue;
        const int pidfd = members::open_live_member(folder, entry->d_name, 0);
        if (pidfd < 0) continue;
        close(pidfd);
        if (members::runs_one_of(entry->d_name, {"/proc/self/exe"})) continue;  // a holder
        alive = true;
        break;
    }
    closedir(listing);
    return alive;
}

// Under the key's lock, so that no run is between its look and its start
// when the network loses its holder.
bool leave_if_still_idle(const std::string& folder, const std::string& own_link, const std::string& own) {
    const int lock = open(members::lock_file(folder).c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (lock < 0 || !members::lock_for_writing(lock, 0)) {
        if (lock >= 0) close(lock);
        return false;
    }
    const bool idle = !another_member_alive(folder, own);
    if (idle) unlink(own_link.c_str());
    close(lock);
    return idle;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) return 2;
    const std::string folder = argv[1];
    const long idle_seconds = atol(argv[2]);
    // Descriptors 3 and 4 first (enter() takes them), then one holder per
    // key, for its life: a second one leaves at once.
    if (idle_seconds <= 0 || !enter()) return 1;
    const int holding = open(members::holder_lock_file(folder).c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (holding < 0 || !members::lock_for_writing(holding, 0) || !drop_capabilities()) return 1;
    struct sigaction on_stop {};
    on_stop.sa_handler = stop;
    sigaction(SIGTERM, &on_stop, nullptr);
    sigaction(SIGINT, &on_stop, nullptr);
    const std::string own = std::to_string(getpid());
    const std::string own_link = members::enroll(folder, getpid());
    if (own_link.empty()) return 1;
    // The run that started it waits for this before its own link goes.
    ssize_t told = write(kReady, "", 1);
    (void)told;
    close(kReady);
    long last_busy = now_seconds();
    for (;;) {
        const timespec second{1, 0};
        nanosleep(&second, nullptr);
        struct stat st;
        if (asked_to_stop || lstat(own_link.c_str(), &st) != 0) break;
        if (another_member_alive(folder, own)) last_busy = now_seconds();
        else if (now_seconds() - last_busy >= idle_seconds && leave_if_still_idle(folder, own_link, own)) return 0;
    }
    unlink(own_link.c_str());
    return 0;
}
