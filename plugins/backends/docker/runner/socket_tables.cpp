#include "socket_tables.hpp"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace oms::docker::runner {

long monotonic_microseconds() {
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return long(now.tv_sec) * 1000000 + now.tv_nsec / 1000;
}

bool passed(long deadline) { return deadline != 0 && monotonic_microseconds() >= deadline; }

std::string read_small_file(const std::string& path, size_t limit, bool* whole, long deadline) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return "";
    std::string text;
    char buffer[8192];
    ssize_t n = -1;  // whole only once a read found the end, not when the deadline came first
    while (text.size() < limit && !passed(deadline) && (n = read(fd, buffer, sizeof buffer)) > 0)
        text.append(buffer, size_t(n));
    close(fd);
    if (whole) *whole = n == 0;
    return text;
}

// The address printed as the kernel's 32-bit words (network byte order in
// memory, printed as host integers).
bool endpoint_of(const char* text, Endpoint& out) {
    const char* colon = std::strchr(text, ':');
    if (!colon) return false;
    const size_t digits = size_t(colon - text);
    uint32_t words[4] = {0, 0, 0, 0};
    if (digits != 8 && digits != 32) return false;
    for (size_t w = 0; w < digits / 8; ++w)
        words[w] = uint32_t(std::strtoul(std::string(text + 8 * w, 8).c_str(), nullptr, 16));
    uint32_t v4 = words[0];
    out.ipv6_loopback = false;
    if (digits == 32) {
        const bool upper_zero = words[0] == 0 && words[1] == 0;
        const bool mapped = upper_zero && words[2] == htonl(0xffff);
        const bool unspecified = upper_zero && words[2] == 0 && words[3] == 0;
        out.ipv6_loopback = upper_zero && words[2] == 0 && words[3] == htonl(1);
        if (!mapped && !unspecified && !out.ipv6_loopback) return false;
        v4 = out.ipv6_loopback ? 0 : words[3];
    }
    out.address = ntohl(v4);
    out.port = uint16_t(std::strtoul(colon + 1, nullptr, 16));
    return true;
}

bool for_each_socket(const char* table, const std::function<void(const TableSocket&)>& each, long deadline) {
    if (access(table, F_OK) != 0 && errno == ENOENT) return true;  // no IPv6 here: no socket of it either
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
        TableSocket socket;
        // sl local rem st tx:rx tr:when retrnsmt uid timeout inode
        if (std::sscanf(line.c_str(), " %*s %63s %63s %x %*s %*s %*s %*s %*s %lu", local, remote, &socket.state,
                        &socket.inode) == 4 &&
            endpoint_of(local, socket.local) && endpoint_of(remote, socket.remote))
            each(socket);
    }
    return true;
}

}  // namespace oms::docker::runner
