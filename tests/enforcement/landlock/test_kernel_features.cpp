// How each Landlock ABI degrades: the doctor summary, the missing lines and
// which gaps make spawn refuse (pure logic, no kernel call).
#include "kernel_features.hpp"

#include <catch2/catch.hpp>

using namespace oms::landlock;

TEST_CASE("summary and gaps for every Landlock ABI", "[landlock][features]") {
    CHECK(summary_line(features_for_abi(7, true)) == "host (landlock ABI 7: filesystem, TCP ports, scoped; seccomp)");
    CHECK(summary_line(features_for_abi(4, true)) == "host (landlock ABI 4: filesystem, TCP ports; seccomp)");
    CHECK(summary_line(features_for_abi(1, false)) == "host (landlock ABI 1: filesystem; no seccomp)");
    CHECK(summary_line(features_for_abi(0, true)) == "host (no Landlock in this kernel; seccomp)");

    CHECK(missing_guarantees(features_for_abi(6, true)).empty());
    CHECK(unenforceable(features_for_abi(7, true)).empty());
    // ABI 5 lacks only scopes; ABI 4 also device ioctls (reported, not refused).
    CHECK(missing_guarantees(features_for_abi(5, true)).size() == 1);
    CHECK(unenforceable(features_for_abi(5, true)).size() == 1);
    CHECK(missing_guarantees(features_for_abi(4, true)).size() == 2);
    CHECK(unenforceable(features_for_abi(4, true)).size() == 1);
    // ABI 1: refer (stricter, not refused), truncate, TCP, ioctl, scopes.
    CHECK(missing_guarantees(features_for_abi(1, true)).size() == 5);
    CHECK(unenforceable(features_for_abi(1, true)).size() == 3);
    // No seccomp is always a refusal.
    CHECK(unenforceable(features_for_abi(7, false)).size() == 1);
}
