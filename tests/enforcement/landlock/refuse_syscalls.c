/* Runs a program inside the environments of
 * sdk/tools/backend-check/refused_syscalls.c, where oms's full mode cannot
 * start:
 *
 *   refuse_syscalls namespaces|mounts|landlock[,...] -- PROGRAM ARGS...
 *
 * oms and everything it starts live in that environment. */
#define _GNU_SOURCE
#include "refused_syscalls.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
    if (argc < 4 || strcmp(argv[2], "--") != 0) {
        fprintf(stderr, "usage: %s namespaces|mounts|landlock[,...] -- PROGRAM [ARGS...]\n", argv[0]);
        return 2;
    }
    if (oms_refuse_syscalls(argv[1]) != 0) {
        if (errno == EINVAL) fprintf(stderr, "refuse_syscalls: unknown environment in '%s'\n", argv[1]);
        else perror("refuse_syscalls: install the seccomp filter");
        return errno == EINVAL ? 2 : 1;
    }
    execvp(argv[3], argv + 3);
    perror("refuse_syscalls: exec");
    return 127;
}
