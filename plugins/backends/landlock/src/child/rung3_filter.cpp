#include "rung3_filter.hpp"

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

// A call whose argument `target` names a process: refused unless it is 0
// (the caller itself). The kernel reads a pid as an int: the low word.
struct OtherProcessCall {
    int nr;
    uint32_t target;
};
const OtherProcessCall kOtherProcessCalls[] = {
    {__NR_prlimit64, 0}, {__NR_sched_setaffinity, 0}, {__NR_sched_setscheduler, 0}, {__NR_sched_setparam, 0},
    {__NR_sched_setattr, 0}, {__NR_setpriority, 1}, {__NR_ioprio_set, 1},
};

uint32_t low_word_of_arg(uint32_t index) { return static_cast<uint32_t>(offsetof(seccomp_data, args) + 8 * index); }

}  // namespace

SeccompProgram build_rung3_filter() {
    SeccompProgram program;
    const sock_filter load_nr = statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr));
    const sock_filter allow = statement(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    // Another architecture's calls are killed by the first filter already.
    program.code = {
        statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
        jump(BPF_JMP | BPF_JEQ | BPF_K, kOwnArch, 1, 0),
        allow,
        load_nr,
        jump(BPF_JMP | BPF_JEQ | BPF_K, __NR_socket, 0, 3),
        statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, args[0])),
        jump(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 1),
        statement(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
    };
    // Per call: reload nr; not this call: on to the next; this call with a
    // target of 0: allowed; else refused.
    for (const OtherProcessCall& call : kOtherProcessCalls) {
        program.code.push_back(load_nr);
        program.code.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<uint32_t>(call.nr), 0, 4));
        program.code.push_back(statement(BPF_LD | BPF_W | BPF_ABS, low_word_of_arg(call.target)));
        program.code.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1));
        program.code.push_back(allow);
        program.code.push_back(statement(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM));
    }
    program.code.push_back(allow);
    program.summary = {"socket(AF_UNIX): EACCES (no mount hides the daemons' sockets without namespaces)",
                       "prlimit64, sched_setaffinity, sched_setscheduler, sched_setparam, sched_setattr, setpriority, "
                       "ioprio_set on any process but the caller (pid 0): EPERM (no PID namespace keeps your other "
                       "processes out of reach)"};
    return program;
}

}  // namespace oms::landlock
