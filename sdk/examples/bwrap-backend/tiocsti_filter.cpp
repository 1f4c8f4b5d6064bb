#include "tiocsti_filter.hpp"

#include <oms/sdk.hpp>

#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

namespace bwrap_example {
namespace {

#if defined(__x86_64__)
constexpr unsigned kNativeArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr unsigned kNativeArch = AUDIT_ARCH_AARCH64;
#else
#error "add this architecture's AUDIT_ARCH value"
#endif

}  // namespace

int tiocsti_filter_descriptor() {
    const sock_filter program[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kNativeArch, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
#if defined(__x86_64__)
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1),  // x32 system calls
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
#endif
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ioctl, 0, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[1])),  // low half of the request
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TIOCSTI, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0) throw oms::sdk::Error(OMS_ERR_FAILED, "example-bwrap: pipe failed");
    // A few dozen bytes: far below the pipe's buffer, so the write cannot block.
    ssize_t written = write(ends[1], program, sizeof program);
    close(ends[1]);
    if (written != static_cast<ssize_t>(sizeof program)) {
        close(ends[0]);
        throw oms::sdk::Error(OMS_ERR_FAILED, "example-bwrap: cannot write the seccomp program");
    }
    return ends[0];
}

}  // namespace bwrap_example
