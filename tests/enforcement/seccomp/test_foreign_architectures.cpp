// Every generated filter kills a system call of another architecture (the
// same treatment everywhere), while the native call next to it works.
#include "filter_run.hpp"
#include "foreign_calls.hpp"

#include <signal.h>
#include <unistd.h>

#include <oms_seccomp_filters.hpp>

#include <catch2/catch.hpp>

using namespace oms::test;

#if defined(__x86_64__)
TEST_CASE("seccomp filters kill 32-bit and x32 system calls", "[seccomp]") {
    const Filter unfiltered{};
    // Control: without a filter the 32-bit entry answers. A kernel without
    // that entry (no IA32 emulation, or ia32_emulation=0) faults instead, and
    // the kernel itself refuses every 32-bit call: only x32 is left to check.
    const bool has_i386_entry = run_under(unfiltered, [] { return i386_getpid(); }).worked();
    if (!has_i386_entry) WARN("this kernel has no 32-bit system call entry: the int 0x80 check is skipped");
    // x32 numbers reach seccomp whether or not the kernel serves them.
    CHECK_FALSE(run_under(unfiltered, [] { return x32_getpid(); }).killed_by == SIGSYS);
    for (Filter filter : {filter_of(oms::seccomp::kLandlockHostNetwork), filter_of(oms::seccomp::kLandlockOwnNetwork),
                          filter_of(oms::seccomp::kDockerRunnerCommand)}) {
        CHECK(run_under(filter, [] { return static_cast<long>(getpid()); }).worked());
        if (has_i386_entry) CHECK(run_under(filter, [] { return i386_getpid(); }).killed_by == SIGSYS);
        CHECK(run_under(filter, [] { return x32_getpid(); }).killed_by == SIGSYS);
    }
}
#endif
