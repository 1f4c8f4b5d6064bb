#include "lookup_askers.hpp"

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

long monotonic_microseconds() {
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return long(now.tv_sec) * 1000000 + now.tv_nsec / 1000;
}

// Whether a deadline (microseconds, CLOCK_MONOTONIC; 0: none) has passed,
// asked every so often inside the search's loops.
bool passed(long deadline) { return deadline != 0 && monotonic_microseconds() >= deadline; }

// Up to `limit` bytes of `path`; `whole` says whether the file ended first.
std::string read_small_file(const std::string& path, size_t limit, bool* whole = nullptr, long deadline = 0) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return "";
    std::string text;
    char buffer[8192];
    ssize_t n = 0;
    while (text.size() < limit && !passed(deadline) && (n = read(fd, buffer, sizeof buffer)) > 0)
        text.append(buffer, size_t(n));
    close(fd);
    if (whole) *whole = n == 0;
    return text;
}

// One end of a socket in /proc/net/{udp,tcp}{,6}, as IPv4: the unspecified
// address is 0, an IPv4-mapped IPv6 address its IPv4 one.
struct Endpoint {
    uint32_t address = 0;  // host byte order
    uint16_t port = 0;
};

// "HEX:PORT", the address printed as the kernel's 32-bit words (network
// byte order in memory, printed as host integers). False for an IPv6
// address that is neither mapped nor unspecified: no 127.0.0.1 peer has one.
bool endpoint_of(const char* text, Endpoint& out) {
    const char* colon = std::strchr(text, ':');
    if (!colon) return false;
    const size_t digits = size_t(colon - text);
    uint32_t words[4] = {0, 0, 0, 0};
    if (digits != 8 && digits != 32) return false;
    for (size_t w = 0; w < digits / 8; ++w)
        words[w] = uint32_t(std::strtoul(std::string(text + 8 * w, 8).c_str(), nullptr, 16));
    uint32_t v4 = words[0];
    if (digits == 32) {
        const bool mapped = words[0] == 0 && words[1] == 0 && words[2] == htonl(0xffff);
        const bool unspecified = words[0] == 0 && words[1] == 0 && words[2] == 0 && words[3] == 0;
        if (!mapped && !unspecified) return false;
        v4 = words[3];
    }
    out.address = ntohl(v4);
    out.port = uint16_t(std::strtoul(colon + 1, nullptr, 16));
    return true;
}

constexpr uint32_t kLoopbackOne = 0x7f000001;  // 127.0.0.1, where the resolver listens

// Whether a table line's ends can be the asker's socket: its own address and
// port as the resolver saw them (or, for UDP, the port on the unspecified
// address: an unbound socket sends from 127.0.0.1), and for its peer the
// resolver or (UDP, not connected) none.
bool is_asker_socket(const Endpoint& local, const Endpoint& remote, const dns_responder::Asker& asker) {
    if (local.port != asker.port) return false;
    const bool resolver_peer = remote.address == kLoopbackOne && remote.port == 53;
    if (asker.tcp) return local.address == asker.address && resolver_peer;
    const bool no_peer = remote.address == 0 && remote.port == 0;
    return (local.address == asker.address || local.address == 0) && (resolver_peer || no_peer);
}

// Per table, at most this much is read (about 8,000 IPv4 or 6,000 IPv6
// sockets): a command holding more makes lookups unfound, not slow.
constexpr size_t kMaxTableBytes = 1u << 20;

// The inodes of the sockets in one /proc/net table that can be the asker's,
// added to `found`; false when the table was longer than is read.
bool asker_inodes_in(const char* table, const dns_responder::Asker& asker, std::vector<unsigned long>& found,
                     long deadline) {
    bool whole = false;
    const std::string text = read_small_file(table, kMaxTableBytes, &whole, deadline);
    if (!whole) return false;
    size_t at = text.find('\n');  // the header line
    while (at != std::string::npos) {
        const size_t end = text.find('\n', at + 1);
        if (end == std::string::npos) break;  // a line without its end: none is cut when the file was whole
        const std::string line = text.substr(at + 1, end - at - 1);
        at = end;
        char local[64], remote[64];
        unsigned long inode = 0;
        Endpoint here, there;
        // sl local rem st tx:rx tr:when retrnsmt uid timeout inode
        if (std::sscanf(line.c_str(), " %*s %63s %63s %*s %*s %*s %*s %*s %*s %lu", local, remote, &inode) == 3 &&
            inode != 0 && endpoint_of(local, here) && endpoint_of(remote, there) && is_asker_socket(here, there, asker))
            found.push_back(inode);
    }
    return true;
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
