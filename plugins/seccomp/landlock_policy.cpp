// The landlock backend's filter: the calls no build or test needs (reading
// other processes, loading code into the kernel, undoing the mount
// namespace), namespace creation, setuid modes, terminal injection,
// sockets other than unix and TCP (plus UDP on a private lo), and port
// sharing (SO_REUSEPORT).
#include <errno.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "filter_context.hpp"
#include "policies.hpp"

namespace oms::seccomp_gen {

namespace {

constexpr uint32_t kCloneNewTime = 0x00000080u;  // older headers lack CLONE_NEWTIME
constexpr uint32_t kNamespaceFlags = CLONE_NEWNS | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWUTS |
                                     CLONE_NEWIPC | CLONE_NEWCGROUP | kCloneNewTime;

// Refused outright (EPERM). Names this architecture lacks (iopl on aarch64)
// are left out by libseccomp.
const char* const kRefused[] = {
    "ptrace", "process_vm_readv", "process_vm_writev", "io_uring_setup", "io_uring_enter",
    "io_uring_register", "bpf", "perf_event_open", "keyctl", "add_key", "request_key",
    "mount", "umount2", "pivot_root", "chroot", "open_tree", "move_mount",
    "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    "unshare", "setns", "kexec_load", "kexec_file_load", "init_module", "finit_module",
    "delete_module", "open_by_handle_at", "name_to_handle_at", "userfaultfd", "acct",
    "swapon", "swapoff", "reboot", "syslog", "quotactl", "settimeofday", "clock_settime",
    "adjtimex", "clock_adjtime", "pidfd_getfd", "lookup_dcookie", "fanotify_init",
    "iopl", "ioperm", "uselib", "create_module", "get_kernel_syms", "query_module",
    "nfsservctl", "vserver", "_sysctl",
};

// clone(flags, ...) with any namespace flag. clone3 passes a struct the
// filter cannot read, so it answers ENOSYS and libc falls back to clone.
void refuse_namespaces(FilterContext& f) {
    f.refuse("clone3", ENOSYS);
    f.refuse_when_any_bit("clone", EPERM, 0, kNamespaceFlags);
}

// Calls that set a file's mode with the setuid or setgid bit. Root keeps
// CAP_FOWNER, and a setuid-root file left in a write root (the worktree, a
// Cargo cache, a --rw mount) would stay on the host. openat2 passes its mode
// in a struct: ENOSYS, and callers fall back to openat.
void refuse_setuid_modes(FilterContext& f) {
    f.refuse("openat2", ENOSYS);
    struct ModeArgument {
        const char* call;
        unsigned index;
    };
    const ModeArgument calls[] = {{"fchmod", 1}, {"fchmodat", 2}, {"fchmodat2", 2}, {"openat", 3},
                                  {"mknodat", 2}, {"chmod", 1},   {"open", 2},      {"creat", 1},
                                  {"mknod", 1}};
    for (const ModeArgument& c : calls) f.refuse_when_any_bit(c.call, EPERM, c.index, S_ISUID | S_ISGID);
}

// ioctl(fd, TIOCSTI or TIOCLINUX): the request is an unsigned int, so only
// its low word counts (high bits cannot smuggle it past).
void refuse_terminal_injection(FilterContext& f) {
    for (uint32_t request : {static_cast<uint32_t>(TIOCSTI), static_cast<uint32_t>(TIOCLINUX)})
        f.refuse_when("ioctl", EPERM, {low_word_is(1, request)});
}

// socket(domain, type): AF_UNIX of any type; AF_INET/AF_INET6 with
// SOCK_STREAM, and SOCK_DGRAM too with `datagrams`; everything else EACCES.
// The domain is compared as a whole register: a value with high bits set is
// refused even when its low word names an allowed family.
void refuse_sockets(FilterContext& f, bool datagrams) {
    for (uint64_t domain = 0; domain <= AF_INET6; ++domain) {
        if (domain != AF_UNIX && domain != AF_INET && domain != AF_INET6)
            f.refuse_when("socket", EACCES, {equals(0, domain)});
    }
    f.refuse_when("socket", EACCES, {above(0, AF_INET6)});
    for (uint64_t domain : {AF_INET, AF_INET6}) {
        // The type's low four bits (SOCK_NONBLOCK and SOCK_CLOEXEC sit above).
        for (uint32_t type = 0; type <= 0xf; ++type) {
            if (type == SOCK_STREAM || (datagrams && type == SOCK_DGRAM)) continue;
            f.refuse_when("socket", EACCES, {equals(0, domain), masked_is(1, 0xf, type)});
        }
    }
    f.refuse_when("socketpair", EACCES, {scmp_arg_cmp{0, SCMP_CMP_NE, AF_UNIX, 0}});
}

// setsockopt(fd, SOL_SOCKET, SO_REUSEPORT): a socket with it may bind a
// port another holds with it too, and the relays' listeners have it (the
// runs sharing a task's network each bind the relayed ports): a command
// with it could take a share of the connections meant for the host's
// service. The level and name are ints: only their low words count.
void refuse_port_sharing(FilterContext& f) {
    f.refuse_when("setsockopt", EPERM, {low_word_is(1, SOL_SOCKET), low_word_is(2, SO_REUSEPORT)});
}

}  // namespace

std::vector<sock_filter> landlock_policy(bool datagrams) {
    FilterContext f;
    for (const char* call : kRefused) f.refuse(call, EPERM);
    refuse_namespaces(f);
    refuse_setuid_modes(f);
    refuse_terminal_injection(f);
    refuse_sockets(f, datagrams);
    refuse_port_sharing(f);
    return f.program();
}

}  // namespace oms::seccomp_gen
