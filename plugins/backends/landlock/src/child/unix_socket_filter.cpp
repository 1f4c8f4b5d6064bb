#include "unix_socket_filter.hpp"

#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/syscall.h>

namespace oms::landlock {

namespace {

#if defined(__x86_64__)
constexpr uint32_t kOwnArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr uint32_t kOwnArch = AUDIT_ARCH_AARCH64;
#else
#error "the landlock backend knows x86_64 and aarch64 only"
#endif

sock_filter statement(uint16_t code, uint32_t k) { return sock_filter{code, 0, 0, k}; }
sock_filter jump(uint16_t code, uint32_t k, uint8_t if_true, uint8_t if_false) {
    return sock_filter{code, if_true, if_false, k};
}

}  // namespace

SeccompProgram build_unix_socket_refusal() {
    SeccompProgram program;
    // Another architecture's calls are killed by the first filter already.
    program.code = {
        statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
        jump(BPF_JMP | BPF_JEQ | BPF_K, kOwnArch, 0, 5),
        statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
        jump(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 0, 3),
        statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0])),
        jump(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 1),
        statement(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
        statement(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    program.summary = {"socket(AF_UNIX): EACCES (no mount hides the daemons' sockets without namespaces)"};
    return program;
}

}  // namespace oms::landlock
