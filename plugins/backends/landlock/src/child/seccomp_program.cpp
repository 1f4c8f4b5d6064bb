#include "seccomp_program.hpp"

#include <errno.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>

#include <iterator>

#include <oms_seccomp_filters.hpp>  // generated from plugins/seccomp/landlock_policy.cpp

namespace oms::landlock {

SeccompProgram build_seccomp_program(bool datagrams, bool watched_connects) {
    SeccompProgram program;
    if (datagrams) {
        program.code.assign(std::begin(seccomp::kLandlockOwnNetwork), std::end(seccomp::kLandlockOwnNetwork));
    } else {
        program.code.assign(std::begin(seccomp::kLandlockHostNetwork), std::end(seccomp::kLandlockHostNetwork));
    }
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
    if (watched_connects)
        program.summary.push_back(
            "connect (and sendto, sendmsg with MSG_FASTOPEN): the run's init reads the address first and reports "
            "one off the loopback (the kernel still answers the call; report only; [plugin.landlock] "
            "report_connects = false turns this off)");
    return program;
}

int install_seccomp_program(const SeccompProgram& program) {
    sock_fprog fprog{static_cast<unsigned short>(program.code.size()),
                     const_cast<sock_filter*>(program.code.data())};
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0) != 0) return errno;
    return 0;
}

}  // namespace oms::landlock
