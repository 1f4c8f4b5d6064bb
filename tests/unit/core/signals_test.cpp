// Which signals oms sends on to the command (the rule behind "Ctrl-C reaches
// the command exactly once"; core_terminal_signals checks it end to end, but
// two deliveries microseconds apart can merge there, so the rule itself is
// pinned down here).
#include "oms/core/signals.hpp"

#include <catch2/catch.hpp>

using oms::core::should_forward;

namespace {
siginfo_t from(int code) {
    siginfo_t info{};
    info.si_signo = SIGINT;
    info.si_code = code;
    return info;
}
}  // namespace

TEST_CASE("a terminal's signal is not sent again to a command in oms's process group") {
    CHECK_FALSE(should_forward(from(SI_KERNEL), true));
}

TEST_CASE("signals sent to oms alone, or to a command in a group of its own, are forwarded") {
    CHECK(should_forward(from(SI_USER), true));    // kill(oms_pid, SIGINT)
    CHECK(should_forward(from(SI_QUEUE), true));   // sigqueue
    CHECK(should_forward(from(SI_TKILL), true));   // tgkill
    CHECK(should_forward(from(SI_KERNEL), false)); // the terminal's, but the command is elsewhere
    CHECK(should_forward(from(SI_USER), false));
}
