/* Runs a program on a "kernel without Landlock": a seccomp filter answers
 * the three Landlock system calls with ENOSYS, as a kernel built without it
 * does. Used to check what oms does when nothing can confine.
 * Usage: without_landlock PROGRAM [ARGS...] */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define RET_ENOSYS (SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA))

int main(int argc, char** argv) {
    if (argc < 2) return 2;
    /* landlock_create_ruleset 444, add_rule 445, restrict_self 446 (the same on every architecture). */
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 444, 0, 2),
        BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 446, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, RET_ENOSYS),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog program = {sizeof filter / sizeof filter[0], filter};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) {
        perror("without_landlock: seccomp");
        return 3;
    }
    execv(argv[1], argv + 1);
    perror("without_landlock: exec");
    return 127;
}
