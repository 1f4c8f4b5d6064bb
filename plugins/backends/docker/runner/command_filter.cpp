#include "command_filter.hpp"

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <cerrno>
#include <cstddef>
#include <vector>

#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#define __NR_io_uring_enter 426
#define __NR_io_uring_register 427
#endif

namespace oms::docker::runner {

namespace {

#if defined(__x86_64__)
constexpr unsigned kNativeArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr unsigned kNativeArch = AUDIT_ARCH_AARCH64;
#else
#error "oms-docker-runner: add this architecture's audit arch"
#endif

const unsigned kNativeDenied[] = {__NR_ptrace, __NR_process_vm_readv, __NR_process_vm_writev,
                                  __NR_io_uring_setup, __NR_io_uring_enter, __NR_io_uring_register};
#if defined(__x86_64__)
// The 32-bit x86 numbers of the same calls (int 0x80 from a 64-bit process).
const unsigned kI386Denied[] = {26, 347, 348, 425, 426, 427};
constexpr unsigned kX32Bit = 0x40000000;
#endif

using Program = std::vector<sock_filter>;

sock_filter statement(unsigned short code, unsigned k) { return BPF_STMT(code, k); }
sock_filter jump(unsigned short code, unsigned k, unsigned char jt, unsigned char jf) {
    return BPF_JUMP(code, k, jt, jf);
}

const unsigned kDeny = SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA);

// Loads the call number, then refuses each of `denied` (and, with
// `refuse_above`, every number from it up); allows the rest.
template <size_t N>
Program number_checks(const unsigned (&denied)[N], unsigned refuse_above = 0) {
    Program p{statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr))};
    if (refuse_above != 0) {
        p.push_back(jump(BPF_JMP | BPF_JGE | BPF_K, refuse_above, 0, 1));
        p.push_back(statement(BPF_RET | BPF_K, kDeny));
    }
    for (unsigned nr : denied) {
        p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1));
        p.push_back(statement(BPF_RET | BPF_K, kDeny));
    }
    p.push_back(statement(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    return p;
}

// arch == native ? native checks : arch == i386 ? i386 checks : refuse.
Program filter() {
#if defined(__x86_64__)
    Program native = number_checks(kNativeDenied, kX32Bit);  // x32 calls share the x86-64 arch
#else
    Program native = number_checks(kNativeDenied);
#endif
    Program p{statement(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
              jump(BPF_JMP | BPF_JEQ | BPF_K, kNativeArch, 0, static_cast<unsigned char>(native.size()))};
    p.insert(p.end(), native.begin(), native.end());
#if defined(__x86_64__)
    Program i386 = number_checks(kI386Denied);
    p.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_I386, 0, static_cast<unsigned char>(i386.size())));
    p.insert(p.end(), i386.begin(), i386.end());
#endif
    p.push_back(statement(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)));
    return p;
}

}  // namespace

bool restrict_command() {
    umask(022);
    Program program = filter();
    sock_fprog fprog{static_cast<unsigned short>(program.size()), program.data()};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return false;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0) == 0;
}

}  // namespace oms::docker::runner
