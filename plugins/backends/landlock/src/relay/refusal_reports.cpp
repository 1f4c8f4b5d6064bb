#include "refusal_reports.hpp"

#include <oms/refusal_log.hpp>

#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>

namespace oms::landlock::refusal_reports {

namespace {

constexpr size_t kMaxAddress = 16;  // an IPv6 address

struct Remembered {
    uint8_t address[kMaxAddress];
    uint16_t port;
    bool used;
};

int log_fd = -1;
Remembered recent[kRemembered];
int next_recent = 0;
int reports = 0;

bool seen_before(const uint8_t* address, size_t size, uint16_t port) {
    Remembered key{};
    memcpy(key.address, address, size < kMaxAddress ? size : kMaxAddress);
    key.port = port;
    key.used = true;
    for (const Remembered& r : recent)
        if (r.used && r.port == port && memcmp(r.address, key.address, kMaxAddress) == 0) return true;
    recent[next_recent] = key;
    next_recent = (next_recent + 1) % kRemembered;
    return false;
}

}  // namespace

void write_to(int report_fd) { log_fd = report_fd; }

int log_descriptor() { return log_fd; }

void report(int family, const uint8_t* address, size_t address_size, uint16_t port, const char* source,
            const char* rule) {
    if (log_fd < 0 || seen_before(address, address_size, port) || reports >= kMaxReports) return;
    ++reports;
    char text[INET6_ADDRSTRLEN] = {0};
    if (!inet_ntop(family, address, text, sizeof text)) return;
    refusal_log::append(log_fd, source, text, static_cast<size_t>(-1), port, rule);
}

}  // namespace oms::landlock::refusal_reports
