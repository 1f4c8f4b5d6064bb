// The landlock backend's filters (a run on the host's network and one with
// its own network namespace) on the real kernel: each refused call gets the
// errno the policy gives it, and the allowed call next to it works.
#include "filter_run.hpp"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/netlink.h>

#include <oms_seccomp_filters.hpp>

#include "temp_dir.hpp"

#include <catch2/catch.hpp>

using namespace oms::test;

namespace {

const Filter kHostNetwork = filter_of(oms::seccomp::kLandlockHostNetwork);
const Filter kOwnNetwork = filter_of(oms::seccomp::kLandlockOwnNetwork);
const Filter kUnfiltered{};

const long kRefused[] = {
    SYS_ptrace, SYS_process_vm_readv, SYS_process_vm_writev, SYS_io_uring_setup, SYS_io_uring_enter,
    SYS_io_uring_register, SYS_bpf, SYS_perf_event_open, SYS_keyctl, SYS_add_key, SYS_request_key,
    SYS_mount, SYS_umount2, SYS_pivot_root, SYS_chroot, SYS_open_tree, SYS_move_mount, SYS_fsopen, SYS_fsconfig,
    SYS_fsmount, SYS_fspick, SYS_mount_setattr, SYS_unshare, SYS_setns, SYS_kexec_load, SYS_kexec_file_load,
    SYS_init_module, SYS_finit_module, SYS_delete_module, SYS_open_by_handle_at, SYS_name_to_handle_at,
    SYS_userfaultfd, SYS_acct, SYS_swapon, SYS_swapoff, SYS_reboot, SYS_syslog, SYS_quotactl,
    SYS_settimeofday, SYS_clock_settime, SYS_adjtimex, SYS_clock_adjtime, SYS_pidfd_getfd, SYS_lookup_dcookie,
    SYS_fanotify_init,
#if defined(__x86_64__)
    SYS_iopl, SYS_ioperm, SYS_uselib, SYS_create_module, SYS_get_kernel_syms, SYS_query_module, SYS_nfsservctl,
    SYS_vserver, SYS__sysctl,
#endif
};

// clone(flags) with a child that exits at once; the parent reaps it.
long clone_and_reap(unsigned long flags) {
    long pid = syscall(SYS_clone, flags | SIGCHLD, 0L, 0L, 0L, 0L);
    if (pid == 0) _exit(0);
    if (pid > 0) waitpid(static_cast<pid_t>(pid), nullptr, 0);
    return pid;
}

long make_socket(long domain, long type) { return syscall(SYS_socket, domain, type, 0L); }

}  // namespace

TEST_CASE("landlock filters: the refused calls answer EPERM, getpid works", "[seccomp]") {
    for (Filter filter : {kHostNetwork, kOwnNetwork}) {
        CHECK(run_under(filter, [] { return static_cast<long>(getpid()); }).worked());
        for (long nr : kRefused) {
            CAPTURE(nr);
            CHECK(run_under(filter, [nr] { return call_with_bad_arguments(nr); }).refused_with(EPERM));
        }
    }
    // Control, as root: the kernel's own answer to these arguments is another
    // errno, so the EPERM above is the filter's. (Without root the kernel
    // refuses many of them with EPERM itself.)
    if (geteuid() == 0) {
        for (long nr : kRefused) {
            CAPTURE(nr);
            CHECK_FALSE(run_under(kUnfiltered, [nr] { return call_with_bad_arguments(nr); }).refused_with(EPERM));
        }
    }
}

TEST_CASE("landlock filters: clone with a namespace flag answers EPERM, clone3 ENOSYS, fork works", "[seccomp]") {
    // Control: a user namespace is open to this user on this kernel.
    REQUIRE(run_under(kUnfiltered, [] { return clone_and_reap(CLONE_NEWUSER); }).worked());
    const unsigned long flags[] = {CLONE_NEWNS,  CLONE_NEWUSER,   CLONE_NEWPID, CLONE_NEWNET,
                                   CLONE_NEWUTS, CLONE_NEWIPC,    CLONE_NEWCGROUP,
                                   0x80 /* CLONE_NEWTIME */};
    for (Filter filter : {kHostNetwork, kOwnNetwork}) {
        CHECK(run_under(filter, [] { return clone_and_reap(0); }).worked());
        for (unsigned long flag : flags) {
            CAPTURE(flag);
            CHECK(run_under(filter, [flag] { return clone_and_reap(flag); }).refused_with(EPERM));
        }
        // High bits above the flag do not hide it.
        CHECK(run_under(filter, [] { return clone_and_reap(CLONE_NEWUSER | (1UL << 40)); }).refused_with(EPERM));
        CHECK(run_under(filter, [] { return syscall(SYS_clone3, 0L, 0L); }).refused_with(ENOSYS));
    }
    CHECK(run_under(kUnfiltered, [] { return syscall(SYS_clone3, 0L, 0L); }).refused_with(EINVAL));
}

TEST_CASE("landlock filters: a setuid or setgid mode answers EPERM, a plain mode works", "[seccomp]") {
    TempDir dir("oms-seccomp");
    const std::string file = dir / "file";
    int fd = open(file.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
    REQUIRE(fd >= 0);
    const char* path = file.c_str();
    int dirfd = open(dir.path().c_str(), O_DIRECTORY | O_CLOEXEC);
    REQUIRE(dirfd >= 0);
    for (Filter filter : {kHostNetwork, kOwnNetwork}) {
        for (mode_t bit : {S_ISUID, S_ISGID}) {
            CAPTURE(bit);
            const long mode = 0755 | bit;
            CHECK(run_under(filter, [&] { return syscall(SYS_fchmod, fd, mode); }).refused_with(EPERM));
            CHECK(run_under(filter, [&] { return syscall(SYS_fchmodat, dirfd, "file", mode); }).refused_with(EPERM));
            CHECK(run_under(filter, [&] { return syscall(452 /* fchmodat2 */, dirfd, "file", mode, 0L); })
                      .refused_with(EPERM));
            CHECK(run_under(filter, [&] { return syscall(SYS_openat, dirfd, "new", O_CREAT | O_WRONLY, mode); })
                      .refused_with(EPERM));
            CHECK(run_under(filter, [&] { return syscall(SYS_mknodat, dirfd, "fifo", S_IFIFO | mode, 0L); })
                      .refused_with(EPERM));
#if defined(__x86_64__)
            CHECK(run_under(filter, [&] { return syscall(SYS_chmod, path, mode); }).refused_with(EPERM));
            CHECK(run_under(filter, [&] { return syscall(SYS_open, (dir / "new").c_str(), O_CREAT | O_WRONLY, mode); })
                      .refused_with(EPERM));
            CHECK(run_under(filter, [&] { return syscall(SYS_creat, (dir / "new").c_str(), mode); })
                      .refused_with(EPERM));
            CHECK(run_under(filter, [&] { return syscall(SYS_mknod, (dir / "fifo").c_str(), S_IFIFO | mode, 0L); })
                      .refused_with(EPERM));
#endif
            struct stat st {};
            REQUIRE(stat(path, &st) == 0);
            CHECK((st.st_mode & (S_ISUID | S_ISGID)) == 0);
            CHECK(access((dir / "new").c_str(), F_OK) != 0);
            CHECK(access((dir / "fifo").c_str(), F_OK) != 0);
        }
        // openat2 carries its mode in a struct: ENOSYS, callers fall back.
        CHECK(run_under(filter, [&] { return syscall(437 /* openat2 */, dirfd, "file", 0L, 0L); })
                  .refused_with(ENOSYS));
        // Plain modes work, and the file really changes.
        CHECK(run_under(filter, [&] { return syscall(SYS_fchmod, fd, 0700L); }).worked());
        struct stat st {};
        REQUIRE(stat(path, &st) == 0);
        CHECK((st.st_mode & 07777) == 0700);
        CHECK(run_under(filter, [&] { return syscall(SYS_openat, dirfd, "plain", O_CREAT | O_WRONLY, 0644L); })
                  .worked());
        CHECK(access((dir / "plain").c_str(), F_OK) == 0);
        unlink((dir / "plain").c_str());
    }
    // Control: unfiltered, the same call sets the bit.
    CHECK(run_under(kUnfiltered, [&] { return syscall(SYS_fchmod, fd, 04755L); }).worked());
    struct stat st {};
    REQUIRE(stat(path, &st) == 0);
    CHECK((st.st_mode & S_ISUID) != 0);
    close(fd);
    close(dirfd);
}

TEST_CASE("landlock filters: ioctl TIOCSTI and TIOCLINUX answer EPERM, other ioctls work", "[seccomp]") {
    int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    REQUIRE(master >= 0);
    REQUIRE(grantpt(master) == 0);
    REQUIRE(unlockpt(master) == 0);
    int terminal = open(ptsname(master), O_RDWR | O_NOCTTY | O_CLOEXEC);
    REQUIRE(terminal >= 0);
    static const char key = 'x';
    for (Filter filter : {kHostNetwork, kOwnNetwork}) {
        CHECK(run_under(filter, [&] { return syscall(SYS_ioctl, terminal, TIOCSTI, &key); }).refused_with(EPERM));
        // The kernel reads the request as an unsigned int: high bits do not hide it.
        CHECK(run_under(filter, [&] {
                  return syscall(SYS_ioctl, terminal, (1UL << 32) | TIOCSTI, &key);
              }).refused_with(EPERM));
        CHECK(run_under(filter, [&] {
                  char subcode = 0;
                  return syscall(SYS_ioctl, terminal, TIOCLINUX, &subcode);
              }).refused_with(EPERM));
        CHECK(run_under(filter, [&] {
                  winsize size{};
                  return syscall(SYS_ioctl, terminal, TIOCGWINSZ, &size);
              }).worked());
    }
    close(terminal);
    close(master);
}

TEST_CASE("landlock filters: sockets other than unix and TCP answer EACCES, UDP only with its own network",
          "[seccomp]") {
    for (Filter filter : {kHostNetwork, kOwnNetwork}) {
        CHECK(run_under(filter, [] { return make_socket(AF_UNIX, SOCK_DGRAM); }).worked());
        CHECK(run_under(filter, [] { return make_socket(AF_UNIX, SOCK_SEQPACKET); }).worked());
        CHECK(run_under(filter, [] { return make_socket(AF_INET, SOCK_STREAM); }).worked());
        CHECK(run_under(filter, [] { return make_socket(AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC); })
                  .worked());
        CHECK(run_under(filter, [] { return make_socket(AF_INET, SOCK_RAW); }).refused_with(EACCES));
        CHECK(run_under(filter, [] { return make_socket(AF_INET6, SOCK_SEQPACKET); }).refused_with(EACCES));
        CHECK(run_under(filter, [] { return make_socket(AF_NETLINK, SOCK_RAW); }).refused_with(EACCES));
        CHECK(run_under(filter, [] { return make_socket(AF_PACKET, SOCK_DGRAM); }).refused_with(EACCES));
        CHECK(run_under(filter, [] { return make_socket(0, SOCK_STREAM); }).refused_with(EACCES));
        // A family with high bits set is refused, even when its low word is allowed.
        CHECK(run_under(filter, [] { return make_socket((1L << 32) | AF_INET, SOCK_STREAM); }).refused_with(EACCES));
        int pair[2];
        CHECK(run_under(filter, [&] { return syscall(SYS_socketpair, AF_UNIX, SOCK_STREAM, 0, pair); }).worked());
        CHECK(run_under(filter, [&] { return syscall(SYS_socketpair, AF_INET, SOCK_STREAM, 0, pair); })
                  .refused_with(EACCES));
    }
    CHECK(run_under(kHostNetwork, [] { return make_socket(AF_INET, SOCK_DGRAM); }).refused_with(EACCES));
    CHECK(run_under(kHostNetwork, [] { return make_socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC); }).refused_with(EACCES));
    CHECK(run_under(kOwnNetwork, [] { return make_socket(AF_INET, SOCK_DGRAM); }).worked());
    CHECK(run_under(kOwnNetwork, [] { return make_socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC); }).worked());
    // Control: unfiltered, a netlink socket opens for any user.
    CHECK(run_under(kUnfiltered, [] { return make_socket(AF_NETLINK, SOCK_RAW); }).worked());
}
