#include "lookup_askers.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace oms::docker::runner {

namespace {

std::string read_small_file(const std::string& path, size_t limit) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return "";
    std::string text;
    char buffer[8192];
    ssize_t n;
    while (text.size() < limit && (n = read(fd, buffer, sizeof buffer)) > 0) text.append(buffer, size_t(n));
    close(fd);
    return text;
}

// The hex port after the colon of "ADDRESS:PORT".
unsigned port_of(const char* address) {
    const char* colon = std::strchr(address, ':');
    return colon ? unsigned(std::strtoul(colon + 1, nullptr, 16)) : 0;
}

// The inode of the socket whose local port is `port` in one /proc/net table
// (for TCP, the one connected to port 53: the asker's end, not a listener).
unsigned long inode_in(const char* table, uint16_t port, bool tcp) {
    const std::string text = read_small_file(table, 4u << 20);
    size_t at = text.find('\n');  // the header line
    while (at != std::string::npos && at + 1 < text.size()) {
        const size_t end = text.find('\n', at + 1);
        const std::string line = text.substr(at + 1, end == std::string::npos ? std::string::npos : end - at - 1);
        at = end;
        char local[64], remote[64];
        unsigned long inode = 0;
        // sl local rem st tx:rx tr:when retrnsmt uid timeout inode
        if (std::sscanf(line.c_str(), " %*s %63s %63s %*s %*s %*s %*s %*s %*s %lu", local, remote, &inode) != 3)
            continue;
        if (port_of(local) == port && (!tcp || port_of(remote) == 53) && inode != 0) return inode;
    }
    return 0;
}

// A command can hold many descriptors to make each lookup's search slow;
// past this many, the asker counts as not found (and every command is told).
constexpr int kMaxDescriptorsLooked = 20000;

// The first process with a descriptor on socket `inode`.
pid_t holder_of(unsigned long inode) {
    const std::string wanted = "socket:[" + std::to_string(inode) + "]";
    DIR* proc = opendir("/proc");
    if (!proc) return 0;
    pid_t found = 0;
    int looked = 0;
    char target[64];
    while (dirent* e = readdir(proc)) {
        if (found || looked >= kMaxDescriptorsLooked || e->d_name[0] < '1' || e->d_name[0] > '9') continue;
        const std::string fds = std::string("/proc/") + e->d_name + "/fd";
        DIR* dir = opendir(fds.c_str());
        if (!dir) continue;  // gone, or not ours to read
        while (dirent* f = readdir(dir)) {
            if (f->d_name[0] == '.') continue;
            if (++looked > kMaxDescriptorsLooked) break;
            const ssize_t n = readlink((fds + "/" + f->d_name).c_str(), target, sizeof target - 1);
            if (n > 0 && wanted.compare(0, std::string::npos, target, size_t(n)) == 0) {
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

AskerProcess process_of(const dns_responder::Asker& asker) {
    if (asker.port == 0) return {};
    unsigned long inode = 0;
    static const char* const kTcp[] = {"/proc/net/tcp", "/proc/net/tcp6"};
    static const char* const kUdp[] = {"/proc/net/udp", "/proc/net/udp6"};
    for (const char* table : asker.tcp ? kTcp : kUdp)
        if (!inode) inode = inode_in(table, asker.port, asker.tcp);
    AskerProcess found;
    if (!inode || !(found.pid = holder_of(inode))) return {};
    pid_t parent = 0;
    if (!stat_of(found.pid, parent, found.session)) return {};
    return found;
}

pid_t parent_of(pid_t pid) {
    pid_t parent = 0, session = 0;
    return stat_of(pid, parent, session) ? parent : 0;
}

}  // namespace oms::docker::runner
