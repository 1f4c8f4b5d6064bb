// The filter the docker runner stacks on Docker's profile for every command:
// the calls that reach into another process of the same uid (the runner is
// one, so are the other commands of the task; pidfd_getfd would take a copy
// of another process's socket) and io_uring (a large kernel surface older
// default profiles leave open).
#include <errno.h>

#include "filter_context.hpp"
#include "policies.hpp"

namespace oms::seccomp_gen {

std::vector<sock_filter> docker_runner_policy() {
    FilterContext f;
    for (const char* call : {"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "io_uring_setup",
                             "io_uring_enter", "io_uring_register"})
        f.refuse(call, EPERM);
    return f.program();
}

}  // namespace oms::seccomp_gen
