#include "lookup_askers.hpp"

#include "socket_tables.hpp"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace oms::docker::runner {

namespace {

constexpr uint32_t kLoopbackOne = 0x7f000001;  // 127.0.0.1, where the resolver listens

// Whether a table line's ends can be the asker's socket: its own address and
// port as the resolver saw them (or, for UDP, the port on the unspecified
// address: an unbound socket sends from 127.0.0.1), and for its peer the
// resolver or (UDP, not connected) none.
bool is_asker_socket(const Endpoint& local, const Endpoint& remote, const dns_responder::Asker& asker) {
    if (local.port != asker.port || local.ipv6_loopback || remote.ipv6_loopback) return false;
    const bool resolver_peer = remote.address == kLoopbackOne && remote.port == 53;
    if (asker.tcp) return local.address == asker.address && resolver_peer;
    const bool no_peer = remote.address == 0 && remote.port == 0;
    return (local.address == asker.address || local.address == 0) && (resolver_peer || no_peer);
}

// The inodes of the sockets in one /proc/net table that can be the asker's,
// added to `found`; false when the table was longer than is read.
bool asker_inodes_in(const char* table, const dns_responder::Asker& asker, std::vector<unsigned long>& found,
                     long deadline) {
    return for_each_socket(
        table,
        [&](const TableSocket& s) {
            if (s.inode != 0 && is_asker_socket(s.local, s.remote, asker)) found.push_back(s.inode);
        },
        deadline);
}

// A command can hold many descriptors to make each lookup's search slow;
// past this many, the asker counts as not found (and every command is told).
constexpr int kMaxDescriptorsLooked = 20000;

// The first process with a descriptor on socket `inode`. A stat of the
// descriptor's /proc link, not a readlink: the link of a file deep in a
// tree of folders would make the kernel build a path thousands of names
// long, for every descriptor.
pid_t holder_of(unsigned long inode, long deadline) {
    DIR* proc = opendir("/proc");
    if (!proc) return 0;
    pid_t found = 0;
    int looked = 0;
    while (dirent* e = readdir(proc)) {
        if (found || looked >= kMaxDescriptorsLooked || e->d_name[0] < '1' || e->d_name[0] > '9') continue;
        const std::string fds = std::string("/proc/") + e->d_name + "/fd";
        DIR* dir = opendir(fds.c_str());
        if (!dir) continue;  // gone, or not ours to read
        while (dirent* f = readdir(dir)) {
            if (f->d_name[0] == '.') continue;
            if (++looked > kMaxDescriptorsLooked || (looked % 64 == 0 && passed(deadline))) {
                looked = kMaxDescriptorsLooked;
                break;
            }
            struct stat st;
            if (fstatat(dirfd(dir), f->d_name, &st, 0) == 0 && S_ISSOCK(st.st_mode) && st.st_ino == inode) {
                found = pid_t(std::atoi(e->d_name));
                break;
            }
        }
        closedir(dir);
    }
    closedir(proc);
    return found;
}

// Fields 4 (ppid) and 6 (session) of /proc/PID/stat, after the name's ')'.
bool stat_of(pid_t pid, pid_t& parent, pid_t& session) {
    const std::string text = read_small_file("/proc/" + std::to_string(pid) + "/stat", 4096);
    const size_t close = text.rfind(')');
    if (close == std::string::npos) return false;
    int ppid = 0, group = 0, sid = 0;
    if (std::sscanf(text.c_str() + close + 1, " %*c %d %d %d", &ppid, &group, &sid) != 3) return false;
    parent = ppid;
    session = sid;
    return true;
}

}  // namespace

unsigned long asker_inode(const dns_responder::Asker& asker, long deadline) {
    static const char* const kTcp[] = {"/proc/net/tcp", "/proc/net/tcp6"};
    static const char* const kUdp[] = {"/proc/net/udp", "/proc/net/udp6"};
    std::vector<unsigned long> found;
    for (const char* table : asker.tcp ? kTcp : kUdp)
        if (!asker_inodes_in(table, asker, found, deadline)) return 0;
    return found.size() == 1 ? found.front() : 0;
}

AskerProcess process_of(const dns_responder::Asker& asker, long deadline) {
    if (asker.port == 0) return {};
    const unsigned long inode = asker_inode(asker, deadline);
    AskerProcess found;
    if (!inode || !(found.pid = holder_of(inode, deadline))) return {};
    pid_t parent = 0;
    if (!stat_of(found.pid, parent, found.session)) return {};
    return found;
}

AskerProcess SearchBudget::process_of(const dns_responder::Asker& asker) {
    const long start = monotonic_microseconds();
    if (start - window_start_ >= 1000000) window_start_ = start, spent_ = 0;
    if (spent_ >= kMicrosecondsEachSecond) return {};
    // The search stops where the budget ends, not only before it starts.
    const AskerProcess found = runner::process_of(asker, start + (kMicrosecondsEachSecond - spent_));
    spent_ += monotonic_microseconds() - start;
    return found;
}

pid_t parent_of(pid_t pid) {
    pid_t parent = 0, session = 0;
    return stat_of(pid, parent, session) ? parent : 0;
}

}  // namespace oms::docker::runner
