#include "seccomp_program.hpp"

#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>

namespace oms::landlock {

namespace {

#if defined(__x86_64__)
constexpr uint32_t kNativeArch = AUDIT_ARCH_X86_64;
// x32 syscalls share the x86_64 arch value but carry this bit in the number.
constexpr uint32_t kX32Bit = 0x40000000u;
#elif defined(__aarch64__)
constexpr uint32_t kNativeArch = AUDIT_ARCH_AARCH64;
constexpr uint32_t kX32Bit = 0;
#else
#error "the landlock backend's seccomp filter knows x86_64 and aarch64 only"
#endif

constexpr uint32_t kNamespaceFlags = CLONE_NEWNS | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWUTS |
                                     CLONE_NEWIPC | CLONE_NEWCGROUP | 0x00000080u /* CLONE_NEWTIME */;

sock_filter stmt(uint16_t code, uint32_t k) { return sock_filter{code, 0, 0, k}; }
sock_filter jump(uint16_t code, uint32_t k, uint8_t jt, uint8_t jf) { return sock_filter{code, jt, jf, k}; }

constexpr uint32_t errno_ret(int e) { return SECCOMP_RET_ERRNO | (static_cast<uint32_t>(e) & SECCOMP_RET_DATA); }

constexpr uint32_t kArg0Low = offsetof(seccomp_data, args[0]);
constexpr uint32_t kArg1Low = offsetof(seccomp_data, args[1]);
constexpr uint32_t kArg2Low = offsetof(seccomp_data, args[2]);
constexpr uint32_t kArg3Low = offsetof(seccomp_data, args[3]);

// Syscalls refused outright (EPERM), none of which a build or test needs.
const long kDenied[] = {
    SYS_ptrace, SYS_process_vm_readv, SYS_process_vm_writev, SYS_io_uring_setup, SYS_io_uring_enter,
    SYS_io_uring_register, SYS_bpf, SYS_perf_event_open, SYS_keyctl, SYS_add_key, SYS_request_key,
    SYS_mount, SYS_umount2, SYS_pivot_root, SYS_chroot, 428 /* open_tree */, 429 /* move_mount */,
    430 /* fsopen */, 431 /* fsconfig */, 432 /* fsmount */, 433 /* fspick */, 442 /* mount_setattr */,
    SYS_unshare, SYS_setns, SYS_kexec_load, SYS_kexec_file_load, SYS_init_module, SYS_finit_module,
    SYS_delete_module, SYS_open_by_handle_at, SYS_name_to_handle_at, SYS_userfaultfd, SYS_acct,
    SYS_swapon, SYS_swapoff, SYS_reboot, SYS_syslog, SYS_quotactl, SYS_settimeofday, SYS_clock_settime,
    SYS_adjtimex, SYS_clock_adjtime, SYS_pidfd_getfd, SYS_lookup_dcookie, SYS_fanotify_init,
#if defined(__x86_64__)
    SYS_iopl, SYS_ioperm, SYS_uselib, SYS_create_module, SYS_get_kernel_syms, SYS_query_module,
    SYS_nfsservctl, SYS_vserver, SYS__sysctl,
#endif
};

class Builder {
public:
    std::vector<sock_filter> code;

    void check_arch() {
        code.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)));
        code.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, kNativeArch, 1, 0));
        code.push_back(stmt(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
        load_nr();
        if (kX32Bit) {
            code.push_back(jump(BPF_JMP | BPF_JGE | BPF_K, kX32Bit, 0, 1));
            code.push_back(stmt(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
        }
    }
    void load_nr() { code.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr))); }
    void deny(long nr, int e) {
        code.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<uint32_t>(nr), 0, 1));
        code.push_back(stmt(BPF_RET | BPF_K, errno_ret(e)));
    }
    // clone(flags, ...): refuse any namespace flag. clone3 passes a struct the
    // filter cannot read, so it answers ENOSYS and libc falls back to clone.
    void clone_rules() {
        deny(SYS_clone3, ENOSYS);
        code.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_clone, 0, 4));
        code.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, kArg0Low));
        code.push_back(jump(BPF_JMP | BPF_JSET | BPF_K, kNamespaceFlags, 0, 1));
        code.push_back(stmt(BPF_RET | BPF_K, errno_ret(EPERM)));
        code.push_back(stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    }
    // Calls that set a file's mode: a mode with the setuid or setgid bit is
    // refused (EPERM). Root keeps CAP_FOWNER, and a setuid-root file left in
    // a write root (the worktree, a Cargo cache, a --rw mount) would stay on
    // the host. The mode is a 32-bit argument: its low word is all there is.
    void mode_rule(long nr, uint32_t mode_offset) {
        code.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<uint32_t>(nr), 0, 4));
        code.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, mode_offset));
        code.push_back(jump(BPF_JMP | BPF_JSET | BPF_K, S_ISUID | S_ISGID, 0, 1));
        code.push_back(stmt(BPF_RET | BPF_K, errno_ret(EPERM)));
        code.push_back(stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
    }
    void mode_rules() {
        // openat2 passes its mode in a struct the filter cannot read: ENOSYS,
        // and callers fall back to openat (glibc's open never uses it).
        deny(437 /* openat2 */, ENOSYS);
        mode_rule(SYS_fchmod, kArg1Low);
        mode_rule(SYS_fchmodat, kArg2Low);
        mode_rule(452 /* fchmodat2 */, kArg2Low);
        mode_rule(SYS_openat, kArg3Low);
        mode_rule(SYS_mknodat, kArg2Low);
#if defined(__x86_64__)
        mode_rule(SYS_chmod, kArg1Low);
        mode_rule(SYS_open, kArg2Low);
        mode_rule(SYS_creat, kArg1Low);
        mode_rule(SYS_mknod, kArg1Low);
#endif
    }
    // ioctl(fd, TIOCSTI/TIOCLINUX): the command is an unsigned int, so only
    // the low word of the argument counts.
    void ioctl_rules() {
        code.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_ioctl, 0, 5));
        code.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, kArg1Low));
        code.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, TIOCSTI, 2, 0));
        code.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, TIOCLINUX, 1, 0));
        code.push_back(stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
        code.push_back(stmt(BPF_RET | BPF_K, errno_ret(EPERM)));
    }
    // socket(domain, type): unix of any type; IPv4/IPv6 stream, and datagram
    // too when `datagrams` (the second type test repeats SOCK_STREAM
    // otherwise, so both programs have the same jumps).
    void socket_rules(bool datagrams) {
        code.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 10));
        code.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, kArg0Low));
        code.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 6, 0));
        code.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, AF_INET, 1, 0));
        code.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, AF_INET6, 0, 5));
        code.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, kArg1Low));
        code.push_back(stmt(BPF_ALU | BPF_AND | BPF_K, 0xf));  // drop SOCK_NONBLOCK/SOCK_CLOEXEC
        code.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, SOCK_STREAM, 1, 0));
        code.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, datagrams ? SOCK_DGRAM : SOCK_STREAM, 0, 1));
        code.push_back(stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
        code.push_back(stmt(BPF_RET | BPF_K, errno_ret(EACCES)));
        // socketpair only makes unix sockets.
        code.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, SYS_socketpair, 0, 3));
        code.push_back(stmt(BPF_LD | BPF_W | BPF_ABS, kArg0Low));
        code.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 1, 0));
        code.push_back(stmt(BPF_RET | BPF_K, errno_ret(EACCES)));
    }
};

}  // namespace

SeccompProgram build_seccomp_program(bool datagrams) {
    Builder b;
    b.check_arch();
    for (long nr : kDenied) b.deny(nr, EPERM);
    b.clone_rules();
    b.load_nr();
    b.mode_rules();
    b.load_nr();
    b.ioctl_rules();
    b.load_nr();
    b.socket_rules(datagrams);
    b.code.push_back(stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));

    SeccompProgram program;
    program.code = std::move(b.code);
    program.summary = {
        "other architectures and x32 syscalls: process killed",
        "refused (EPERM): ptrace, process_vm_readv/writev, io_uring_*, bpf, perf_event_open, keyctl, "
        "add_key, request_key, mount, umount2, pivot_root, chroot, open_tree, move_mount, fsopen, "
        "fsconfig, fsmount, fspick, mount_setattr, unshare, setns, kexec_*, init/finit/delete_module, "
        "open_by_handle_at, name_to_handle_at, userfaultfd, pidfd_getfd, acct, swapon/off, reboot, "
        "syslog, quotactl, clock/time setting, fanotify_init, iopl/ioperm",
        "clone with any namespace flag: EPERM; clone3: ENOSYS (libc falls back to clone)",
        "chmod, fchmod, fchmodat(2), open, openat, creat, mknod(at) with a setuid or setgid mode bit: EPERM "
        "(no setuid file can be left in a write root); openat2: ENOSYS (its mode is out of the filter's "
        "reach; callers fall back to openat)",
        "ioctl TIOCSTI and TIOCLINUX: EPERM",
        datagrams ? "socket: AF_UNIX, or AF_INET/AF_INET6 with SOCK_STREAM or SOCK_DGRAM (UDP, only on the "
                    "private lo); anything else (raw, netlink, packet) EACCES; socketpair: AF_UNIX only"
                  : "socket: AF_UNIX, or AF_INET/AF_INET6 with SOCK_STREAM only; anything else (UDP, raw, netlink, "
                    "packet) EACCES; socketpair: AF_UNIX only",
    };
    return program;
}

int install_seccomp_program(const SeccompProgram& program) {
    sock_fprog fprog{static_cast<unsigned short>(program.code.size()),
                     const_cast<sock_filter*>(program.code.data())};
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0) != 0) return errno;
    return 0;
}

}  // namespace oms::landlock
