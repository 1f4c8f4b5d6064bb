#include "task_network.hpp"

#include "detached_program.hpp"
#include "task_members.hpp"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

namespace oms::landlock {

namespace {

namespace members = task_members;

constexpr char kHolderProgram[] = "oms-landlock-net-holder";
constexpr int kHolderStartMilliseconds = 1000;  // its exec, setns and link: about a millisecond
constexpr int kLockWaitMilliseconds = 2000;
constexpr int kMaxHolders = 64;  // a user's, over all tasks: each is a process and a network

// FNV-1a: a name, not a secret (the folder is the user's own).
std::string hash_of(const std::string& text) {
    uint64_t hash = 1469598103934665603ull;
    for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
    char hex[17];
    snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
    return hex;
}

// "WORKTREE-PORTS": the task's networks share the first half (task end).
std::string task_part(const std::string& worktree) { return hash_of(std::to_string(getuid()) + '\0' + worktree); }

std::string key_of(const std::string& worktree, const std::vector<uint16_t>& relay_ports) {
    std::string ports;
    for (uint16_t port : relay_ports) ports += std::to_string(port) + ',';
    return task_part(worktree) + "-" + hash_of(ports);
}

std::string networks_folder(const std::string& state_dir) { return state_dir + "/landlock-net"; }

bool make_private_folder(const std::string& path) {
    if (mkdir(path.c_str(), 0700) == 0) return true;
    struct stat st;
    return errno == EEXIST && lstat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid();
}

unsigned long long namespace_inode(int fd) {
    struct stat st;
    return fstat(fd, &st) == 0 ? st.st_ino : 0;
}

// What a member runs: oms (a run's init is a copy of it) or the holder.
std::vector<std::string> member_programs() { return {"/proc/self/exe", helper_program_beside_plugin(kHolderProgram)}; }

int open_namespace(pid_t pid, const char* kind) {
    return open(("/proc/" + std::to_string(pid) + "/ns/" + kind).c_str(), O_RDONLY | O_CLOEXEC);
}

}  // namespace

uint32_t joined_resolver_address() {
    uint32_t random = 0;
    if (getrandom(&random, sizeof random, 0) != static_cast<ssize_t>(sizeof random)) random = static_cast<uint32_t>(getpid());
    return (127u << 24) | (64u << 16) | (random & 0x3fffff);  // 127.64.0.0/10
}

TaskNetwork::TaskNetwork(const std::string& state_dir, const std::string& worktree,
                         const std::vector<uint16_t>& relay_ports, long idle_seconds)
    : idle_seconds_(idle_seconds) {
    if (state_dir.empty() || !make_private_folder(networks_folder(state_dir))) return;
    const std::string folder = networks_folder(state_dir) + "/" + key_of(worktree, relay_ports);
    if (!make_private_folder(folder)) return;
    lock_fd_ = open(members::lock_file(folder).c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    // Held by another run for a moment (its look and its start); longer,
    // and this run does not wait: a network of its own.
    if (lock_fd_ < 0 || !members::lock_for_writing(lock_fd_, kLockWaitMilliseconds)) {
        release_lock();
        return;
    }
    folder_ = folder;
    if (join_first_live_member()) resolver_ = joined_resolver_address();
}

TaskNetwork::~TaskNetwork() {
    if (!member_file_.empty()) unlink(member_file_.c_str());
    if (join_pidfd_ >= 0) close(join_pidfd_);
    release_lock();
}

bool TaskNetwork::join_first_live_member() {
    DIR* listing = opendir(folder_.c_str());
    if (!listing) return false;
    const unsigned long long own_network = members::network_inode_of("self");
    while (const dirent* entry = readdir(listing)) {
        if (!members::is_member_name(entry->d_name)) continue;
        join_pidfd_ = members::open_live_member(folder_, entry->d_name, own_network, member_programs());
        if (join_pidfd_ >= 0) break;
    }
    closedir(listing);
    return join_pidfd_ >= 0;
}

// The lock is held until the holder is a member too: a run that looks next
// finds it even when this run's command has ended already.
void TaskNetwork::enroll(pid_t init_pid) {
    if (folder_.empty() || enrolled_) return;
    enrolled_ = true;
    member_file_ = members::enroll(folder_, init_pid);
    if (!member_file_.empty() && join_pidfd_ < 0 && idle_seconds_ > 0 && holders_below_limit())
        start_holder(init_pid);
    wait_for_holder();
    release_lock();
}

// Each holder is a process and a network of the user's: past kMaxHolders,
// a task's network lives only while its runs do.
bool TaskNetwork::holders_below_limit() const {
    const std::string base = folder_.substr(0, folder_.rfind('/'));
    const std::string holder = helper_program_beside_plugin(kHolderProgram);
    int holders = 0;
    DIR* networks = opendir(base.c_str());
    while (const dirent* network = networks ? readdir(networks) : nullptr) {
        if (network->d_name[0] == '.') continue;
        const std::string folder = base + "/" + network->d_name;
        DIR* listing = opendir(folder.c_str());
        while (const dirent* entry = listing ? readdir(listing) : nullptr) {
            if (!members::is_member_name(entry->d_name)) continue;
            const int pidfd = members::open_live_member(folder, entry->d_name, 0, {holder});
            if (pidfd >= 0) {
                close(pidfd);
                ++holders;
            }
        }
        if (listing) closedir(listing);
    }
    if (networks) closedir(networks);
    return holders < kMaxHolders;
}

// The network (and the user namespace that owns it, when it is not ours)
// opened from the init just enrolled: the holder enters them from these
// descriptors, whether the run has ended by then or not.
void TaskNetwork::start_holder(pid_t init_pid) {
    const std::string program = helper_program_beside_plugin(kHolderProgram);
    if (program.empty()) return;
    const int network = open_namespace(init_pid, "net");
    const int user = open_namespace(init_pid, "user");
    const int own_user = open("/proc/self/ns/user", O_RDONLY | O_CLOEXEC);
    // Checked after the opens: the pid still names the member enrolled (its
    // start time), so what was opened is its, not a recycled pid's.
    const int member = members::open_live_member(folder_, std::to_string(init_pid).c_str(), 0, member_programs());
    int ready[2] = {-1, -1};
    if (member >= 0 && network >= 0 && user >= 0 && own_user >= 0 &&
        namespace_inode(network) == members::network_inode_of(std::to_string(init_pid)) &&
        pipe2(ready, O_CLOEXEC) == 0) {
        start_detached({program, folder_, std::to_string(idle_seconds_)},
                       {network, namespace_inode(user) == namespace_inode(own_user) ? -1 : user, ready[1]});
        holder_ready_ = ready[0];
    }
    for (int fd : {member, network, user, own_user, ready[1]})
        if (fd >= 0) close(fd);
}

// The holder says it is a member, or ends, within a millisecond or two.
void TaskNetwork::wait_for_holder() {
    if (holder_ready_ < 0) return;
    pollfd ready{holder_ready_, POLLIN, 0};
    while (poll(&ready, 1, kHolderStartMilliseconds) < 0 && errno == EINTR) {
    }
    close(holder_ready_);
    holder_ready_ = -1;
}

void TaskNetwork::release_lock() {
    if (lock_fd_ >= 0) close(lock_fd_);
    lock_fd_ = -1;
}

void end_task_networks(const std::string& state_dir, const std::string& worktree) {
    const std::string base = networks_folder(state_dir);
    DIR* networks = opendir(base.c_str());
    if (!networks) return;
    const std::string prefix = task_part(worktree) + "-";
    while (const dirent* network = readdir(networks)) {
        if (std::string(network->d_name).rfind(prefix, 0) != 0) continue;
        const std::string folder = base + "/" + network->d_name;
        DIR* listing = opendir(folder.c_str());
        if (!listing) continue;
        while (const dirent* entry = readdir(listing)) {
            if (!members::is_member_name(entry->d_name)) continue;
            const pid_t pid = static_cast<pid_t>(atol(entry->d_name));
            char exe[4096];
            const ssize_t length = readlink(("/proc/" + std::to_string(pid) + "/exe").c_str(), exe, sizeof exe - 1);
            const std::string program = length > 0 ? std::string(exe, static_cast<size_t>(length)) : "";
            const std::string tail = std::string("/") + kHolderProgram;
            if (program.size() >= tail.size() && program.compare(program.size() - tail.size(), tail.size(), tail) == 0)
                unlink((folder + "/" + entry->d_name).c_str());
        }
        closedir(listing);
    }
    closedir(networks);
}

}  // namespace oms::landlock
