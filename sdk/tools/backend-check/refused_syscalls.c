/* The environments where a backend's full mode cannot start, made on any
 * machine by a seccomp filter the calling process installs on itself (and
 * every process it starts inherits; a filter cannot be removed):
 *
 *   namespaces  unshare and clone with a namespace flag fail with EPERM
 *               (user namespaces disabled for an ordinary user; root in a
 *               container without CAP_SYS_ADMIN); clone3, whose flags a
 *               filter cannot read, fails with ENOSYS, as under Docker's
 *               default profile, so that libc falls back to clone.
 *   mounts      mount(2) and the new mount API fail with EPERM (a user
 *               namespace without capabilities: Ubuntu 24.04's AppArmor
 *               restriction, a container without CAP_SYS_ADMIN).
 *   landlock    the Landlock system calls fail with ENOSYS (a kernel
 *               without Landlock).
 *
 * Used by oms-backend-check --refuse and by the landlock ladder tests. */
#define _GNU_SOURCE
#include "refused_syscalls.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define OWN_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define OWN_ARCH AUDIT_ARCH_AARCH64
#else
#error "refused_syscalls knows x86_64 and aarch64 only"
#endif

/* Numbers the 6.1 headers may lack (the same on x86_64 and aarch64). */
#define NR_OPEN_TREE 428
#define NR_MOVE_MOUNT 429
#define NR_FSOPEN 430
#define NR_FSCONFIG 431
#define NR_FSMOUNT 432
#define NR_FSPICK 433
#define NR_CLONE3 435
#define NR_MOUNT_SETATTR 442
#define NR_LANDLOCK_CREATE_RULESET 444
#define NR_LANDLOCK_ADD_RULE 445
#define NR_LANDLOCK_RESTRICT_SELF 446

#define NAMESPACE_FLAGS                                                                                    \
    (CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWCGROUP)

#define LOAD_NR BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))
#define LOAD_ARG0_LOW BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]))
#define RETURN(value) BPF_STMT(BPF_RET | BPF_K, (value))
#define ERRNO(number) RETURN(SECCOMP_RET_ERRNO | (number))
/* If the syscall number is `nr`, return `errno`; else go on. */
#define REFUSE(nr, number) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), ERRNO(number)

static const struct sock_filter arch_check[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, OWN_ARCH, 1, 0),
    RETURN(SECCOMP_RET_KILL_PROCESS),
};

/* unshare/clone: EPERM when arg0 holds a namespace flag (its low word). */
static struct sock_filter namespaces_filter[] = {
    LOAD_NR,
    REFUSE(NR_CLONE3, ENOSYS),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_unshare, 1, 0),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 3),
    LOAD_ARG0_LOW,
    BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, NAMESPACE_FLAGS, 0, 1),
    ERRNO(EPERM),
    RETURN(SECCOMP_RET_ALLOW),
};

static struct sock_filter mounts_filter[] = {
    LOAD_NR,
    REFUSE(__NR_mount, EPERM),
    REFUSE(NR_OPEN_TREE, EPERM),
    REFUSE(NR_MOVE_MOUNT, EPERM),
    REFUSE(NR_FSOPEN, EPERM),
    REFUSE(NR_FSCONFIG, EPERM),
    REFUSE(NR_FSMOUNT, EPERM),
    REFUSE(NR_FSPICK, EPERM),
    REFUSE(NR_MOUNT_SETATTR, EPERM),
    RETURN(SECCOMP_RET_ALLOW),
};

static struct sock_filter landlock_filter[] = {
    LOAD_NR,
    REFUSE(NR_LANDLOCK_CREATE_RULESET, ENOSYS),
    REFUSE(NR_LANDLOCK_ADD_RULE, ENOSYS),
    REFUSE(NR_LANDLOCK_RESTRICT_SELF, ENOSYS),
    RETURN(SECCOMP_RET_ALLOW),
};

static int install(const struct sock_filter* rules, size_t count) {
    struct sock_filter program[64];
    size_t arch = sizeof arch_check / sizeof arch_check[0];
    if (arch + count > sizeof program / sizeof program[0]) return -1;
    memcpy(program, arch_check, sizeof arch_check);
    memcpy(program + arch, rules, count * sizeof rules[0]);
    struct sock_fprog fprog = {(unsigned short)(arch + count), program};
    /* Without no_new_privs an ordinary user may not install a filter. */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog);
}

#define INSTALL(filter) install(filter, sizeof filter / sizeof filter[0])

/* One environment's filter, by name (`length` bytes of `name`). */
static int install_named(const char* name, size_t length) {
    if (length == strlen("namespaces") && strncmp(name, "namespaces", length) == 0) return INSTALL(namespaces_filter);
    if (length == strlen("mounts") && strncmp(name, "mounts", length) == 0) return INSTALL(mounts_filter);
    if (length == strlen("landlock") && strncmp(name, "landlock", length) == 0) return INSTALL(landlock_filter);
    errno = EINVAL;
    return -1;
}

int oms_refuse_syscalls(const char* environments) {
    if (!*environments) {
        errno = EINVAL;
        return -1;
    }
    for (const char* name = environments; *name;) {
        size_t length = strcspn(name, ",");
        if (length == 0 || install_named(name, length) != 0) return -1;
        name += length;
        if (*name == ',' && *++name == '\0') {
            errno = EINVAL;
            return -1;
        }
    }
    return 0;
}
