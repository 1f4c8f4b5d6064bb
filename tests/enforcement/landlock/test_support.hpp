// Helpers shared by the landlock enforcement test files.
#pragma once
#include "landlock_sandbox.hpp"

#include <catch2/catch.hpp>

#include <string>

namespace oms::test {

// Replaces {home} {work} {other} {outside} {pinned} {probe} in a script.
std::string expand(const World& world, std::string script);

// Every line of `out` that starts with `prefix`.
std::vector<std::string> lines_starting(const std::string& out, const std::string& prefix);

// Fails with a clear message when this kernel has no Landlock, instead of
// letting every test fail in a confusing way (and never skipping silently).
void require_landlock();

}  // namespace oms::test

// Runs the body once per driver (plugin C ABI, and `oms run` when built).
#define FOR_EACH_DRIVER(driver)                         \
    for (::oms::test::Driver driver : ::oms::test::drivers()) \
        DYNAMIC_SECTION(::oms::test::driver_name(driver))
