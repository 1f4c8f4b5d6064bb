// The docker runner's command filter on the real kernel: the calls that reach
// into another process (pidfd_getfd too) and io_uring answer EPERM; calls next to them work.
#include "filter_run.hpp"

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <oms_seccomp_filters.hpp>

#include <catch2/catch.hpp>

using namespace oms::test;

TEST_CASE("docker runner filter: ptrace, process_vm_*, pidfd_getfd and io_uring_* answer EPERM", "[seccomp]") {
    const Filter filter = filter_of(oms::seccomp::kDockerRunnerCommand);
    const Filter unfiltered{};
    for (long nr : {SYS_ptrace, SYS_process_vm_readv, SYS_process_vm_writev, SYS_pidfd_getfd, SYS_io_uring_setup,
                    SYS_io_uring_enter, SYS_io_uring_register}) {
        CAPTURE(nr);
        CHECK(run_under(filter, [nr] { return call_with_bad_arguments(nr); }).refused_with(EPERM));
        // Control: the kernel's own answer to these arguments is another one.
        CHECK_FALSE(run_under(unfiltered, [nr] { return call_with_bad_arguments(nr); }).refused_with(EPERM));
    }
    CHECK(run_under(filter, [] { return static_cast<long>(getppid()); }).worked());
    // A real call that is allowed: a pipe, written and read back.
    CHECK(run_under(filter, [] {
              int ends[2];
              if (pipe(ends) != 0) return -1L;
              char c = 'x';
              if (write(ends[1], &c, 1) != 1) return -1L;
              c = 0;
              return read(ends[0], &c, 1) == 1 && c == 'x' ? 0L : -1L;
          }).worked());
}
