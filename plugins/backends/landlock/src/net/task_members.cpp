#include "task_members.hpp"

#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <sstream>

#include <oms/text_file.hpp>

namespace oms::landlock::task_members {

namespace {

// A member link's text; "" for anything else.
std::string link_text(const std::string& file) {
    char text[64];
    const ssize_t length = readlink(file.c_str(), text, sizeof text);
    return length > 0 && static_cast<size_t>(length) < sizeof text ? std::string(text, static_cast<size_t>(length))
                                                                    : std::string();
}

int open_pidfd(pid_t pid) { return static_cast<int>(syscall(SYS_pidfd_open, pid, 0)); }

}  // namespace

unsigned long long start_time_of(pid_t pid) {
    // A read, not a stream: a process that ends between the open and the
    // read fails the read (ESRCH), which a stream throws as an exception
    // (it failed another run's start while runs came and went).
    const std::string text = sdk::read_text_file("/proc/" + std::to_string(pid) + "/stat").value_or("");
    const size_t name_end = text.rfind(')');
    if (name_end == std::string::npos || name_end + 2 > text.size()) return 0;
    std::istringstream fields(text.substr(name_end + 2));  // from field 3, the state
    std::string field;
    for (int i = 3; i < 22 && fields >> field;) ++i;
    unsigned long long start = 0;
    fields >> start;
    return start;
}

unsigned long long network_inode_of(const std::string& process) {
    struct stat st;
    return stat(("/proc/" + process + "/ns/net").c_str(), &st) == 0 ? st.st_ino : 0;
}

bool runs_one_of(const std::string& process, const std::vector<std::string>& programs) {
    if (programs.empty()) return true;
    struct stat running, program;
    if (stat(("/proc/" + process + "/exe").c_str(), &running) != 0) return false;
    for (const std::string& path : programs)
        if (!path.empty() && stat(path.c_str(), &program) == 0 && program.st_dev == running.st_dev &&
            program.st_ino == running.st_ino)
            return true;
    return false;
}

bool is_member_name(const char* name) {
    if (!*name) return false;
    for (const char* c = name; *c; ++c)
        if (*c < '0' || *c > '9') return false;
    return true;
}

int open_live_member(const std::string& folder, const char* name, unsigned long long refused_network,
                     const std::vector<std::string>& programs) {
    const std::string file = folder + "/" + name;
    unsigned long long start = 0, network = 0;
    std::istringstream(link_text(file)) >> start >> network;
    const pid_t pid = static_cast<pid_t>(atol(name));
    const int pidfd = open_pidfd(pid);  // first: the checks below are then of this process
    if (pidfd >= 0 && start != 0 && start_time_of(pid) == start && network != refused_network &&
        network_inode_of(name) == network && runs_one_of(name, programs))
        return pidfd;
    if (pidfd >= 0) close(pidfd);
    // Gone, or another process now: never to be joined again. A member that
    // is alive but elsewhere (it cannot be: a network is not left) stays.
    if (pidfd < 0 || start_time_of(pid) != start) unlink(file.c_str());
    return -1;
}

std::string enroll(const std::string& folder, pid_t pid) {
    const std::string name = std::to_string(pid);
    const unsigned long long start = start_time_of(pid), network = network_inode_of(name);
    if (start == 0 || network == 0) return "";
    // A link's text: made whole in one call, and read in one.
    const std::string file = folder + "/" + name;
    unlink(file.c_str());  // a member of that pid that ended without removing its link
    if (symlink((std::to_string(start) + ' ' + std::to_string(network)).c_str(), file.c_str()) != 0) return "";
    return file;
}

std::string lock_file(const std::string& folder) { return folder + "/.lock"; }

std::string holder_lock_file(const std::string& folder) { return folder + "/.holder"; }

bool lock_for_writing(int fd, int milliseconds) {
    struct flock whole {};
    whole.l_type = F_WRLCK;
    whole.l_whence = SEEK_SET;
    constexpr int kStepMilliseconds = 2;
    for (int waited = 0;; waited += kStepMilliseconds) {
        if (fcntl(fd, F_OFD_SETLK, &whole) == 0) return true;
        if ((errno != EAGAIN && errno != EACCES && errno != EINTR) || waited >= milliseconds) return false;
        const timespec step{0, kStepMilliseconds * 1000000L};
        nanosleep(&step, nullptr);
    }
}

}  // namespace oms::landlock::task_members
