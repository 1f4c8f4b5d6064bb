#include "task_network.hpp"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace oms::landlock {

namespace {

// FNV-1a: a name for the key, not a secret (the folder is the user's own).
std::string key_of(const std::string& worktree, const std::vector<uint16_t>& relay_ports) {
    std::string text = std::to_string(getuid()) + '\0' + worktree + '\0';
    for (uint16_t port : relay_ports) text += std::to_string(port) + ',';
    uint64_t hash = 1469598103934665603ull;
    for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
    char hex[17];
    snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
    return hex;
}

bool make_private_folder(const std::string& path) {
    if (mkdir(path.c_str(), 0700) == 0) return true;
    struct stat st;
    return errno == EEXIST && lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid();
}

// The start time (clock ticks after boot, field 22 of /proc/PID/stat) of
// `pid`, 0 when unknown: with the pid, it names one process for good.
unsigned long long start_time_of(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t name_end = text.rfind(')');
    if (name_end == std::string::npos) return 0;
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

// A member file is a link whose text names its init; "" for anything else.
std::string link_text(const std::string& file) {
    char text[64];
    const ssize_t length = readlink(file.c_str(), text, sizeof text);
    return length > 0 && static_cast<size_t>(length) < sizeof text ? std::string(text, static_cast<size_t>(length))
                                                                    : std::string();
}

int open_pidfd(pid_t pid) { return static_cast<int>(syscall(SYS_pidfd_open, pid, 0)); }

bool all_digits(const char* name) {
    if (!*name) return false;
    for (const char* c = name; *c; ++c)
        if (*c < '0' || *c > '9') return false;
    return true;
}

}  // namespace

uint32_t joined_resolver_address(pid_t pid) {
    const uint32_t p = static_cast<uint32_t>(pid) & 0x3fffff;  // pid_max is at most 2^22
    return (127u << 24) | ((64u + (p >> 16)) << 16) | (p & 0xffff);
}

TaskNetwork::TaskNetwork(const std::string& state_dir, const std::string& worktree,
                         const std::vector<uint16_t>& relay_ports) {
    if (state_dir.empty() || !make_private_folder(state_dir + "/landlock-net")) return;
    const std::string folder = state_dir + "/landlock-net/" + key_of(worktree, relay_ports);
    if (!make_private_folder(folder)) return;
    lock_fd_ = open((folder + "/.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (lock_fd_ < 0) return;
    while (flock(lock_fd_, LOCK_EX) != 0)
        if (errno != EINTR) {
            release_lock();
            return;
        }
    folder_ = folder;
    if (join_first_live_member()) resolver_ = joined_resolver_address(getpid());
}

TaskNetwork::~TaskNetwork() {
    if (!member_file_.empty()) unlink(member_file_.c_str());
    if (join_pidfd_ >= 0) close(join_pidfd_);
    release_lock();
}

// A member file names a process only with its start time and network: a pid
// recycled since, or an init gone, is dropped, never joined.
bool TaskNetwork::join_first_live_member() {
    DIR* members = opendir(folder_.c_str());
    if (!members) return false;
    const unsigned long long own_network = network_inode_of("self");
    while (const dirent* entry = readdir(members)) {
        if (!all_digits(entry->d_name)) continue;
        const std::string file = folder_ + "/" + entry->d_name;
        unsigned long long start = 0, network = 0;
        std::istringstream(link_text(file)) >> start >> network;
        const pid_t pid = static_cast<pid_t>(atol(entry->d_name));
        const int pidfd = open_pidfd(pid);  // first: the checks below are then of this process
        if (pidfd >= 0 && start != 0 && start_time_of(pid) == start && network != own_network &&
            network_inode_of(entry->d_name) == network) {
            join_pidfd_ = pidfd;
            closedir(members);
            return true;
        }
        if (pidfd >= 0) close(pidfd);
        unlink(file.c_str());
    }
    closedir(members);
    return false;
}

void TaskNetwork::enroll(pid_t init_pid) {
    if (folder_.empty()) return;
    const std::string pid = std::to_string(init_pid);
    const unsigned long long start = start_time_of(init_pid), network = network_inode_of(pid);
    if (start != 0 && network != 0 && network != network_inode_of("self")) {
        // A link's text: made whole in one call, and read in one.
        const std::string file = folder_ + "/" + pid;
        unlink(file.c_str());  // a member of that pid that ended without removing its file
        if (symlink((std::to_string(start) + ' ' + std::to_string(network)).c_str(), file.c_str()) == 0)
            member_file_ = file;
    }
    release_lock();
}

void TaskNetwork::release_lock() {
    if (lock_fd_ >= 0) close(lock_fd_);
    lock_fd_ = -1;
}

}  // namespace oms::landlock
