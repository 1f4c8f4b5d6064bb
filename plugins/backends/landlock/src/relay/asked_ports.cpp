#include "asked_ports.hpp"

#include <time.h>

namespace oms::landlock::asked_ports {

namespace {

struct Asked {
    uint16_t port;
    long at;  // seconds, CLOCK_MONOTONIC
};

bool filtering = false;
Asked asked[kRemembered];
int used = 0, next = 0;

long now_seconds() {
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec;
}

}  // namespace

void start_filtering() { filtering = true; }

void remember(uint16_t port) {
    asked[next] = Asked{port, now_seconds()};
    next = (next + 1) % kRemembered;
    if (used < kRemembered) ++used;
}

bool may_be_ours(uint16_t port) {
    if (!filtering) return true;
    const long now = now_seconds();
    for (int i = 0; i < used; ++i)
        if (asked[i].port == port && now - asked[i].at <= kRememberedSeconds) return true;
    return false;
}

}  // namespace oms::landlock::asked_ports
