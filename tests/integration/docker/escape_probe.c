/* What a hostile command does to reach other processes of its container or
 * a large kernel surface; run inside the container by docker_escapes_test.
 * Statically linked: the test image has no libc.
 *
 *   escape_probe attack     try ptrace, /proc/PID/mem and process_vm_readv on
 *                           every other process; exit status = how many worked
 *   escape_probe self       control: ptrace attach to its own child (0 = worked)
 *   escape_probe io_uring   io_uring_setup: exit 0 refused with EPERM, 1 allowed,
 *                           2 another error (printed)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static int attack_one(pid_t pid) {
    int worked = 0;
    if (ptrace(PTRACE_ATTACH, pid, 0, 0) == 0) {
        printf("ptrace attach to %d worked\n", pid);
        waitpid(pid, 0, __WALL);  /* detach only once it stopped, or it stays stopped */
        ptrace(PTRACE_DETACH, pid, 0, 0);
        worked++;
    } else {
        printf("ptrace attach to %d: %s\n", pid, strerror(errno));
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/mem", pid);
    int fd = open(path, O_RDWR);
    if (fd >= 0) {
        printf("open %s read-write worked\n", path);
        close(fd);
        worked++;
    } else {
        printf("open %s: %s\n", path, strerror(errno));
    }
    char byte;
    struct iovec local = {&byte, 1}, remote = {(void*)0x400000, 1};
    if (process_vm_readv(pid, &local, 1, &remote, 1, 0) >= 0 || errno == EFAULT) {
        printf("process_vm_readv on %d got past the permission check\n", pid);
        worked++;
    } else {
        printf("process_vm_readv on %d: %s\n", pid, strerror(errno));
    }
    return worked;
}

static int attack(void) {
    int worked = 0;
    DIR* proc = opendir("/proc");
    if (!proc) return 100;
    struct dirent* e;
    while ((e = readdir(proc))) {
        pid_t pid = atoi(e->d_name);
        if (pid > 0 && pid != getpid()) worked += attack_one(pid);
    }
    closedir(proc);
    printf("worked: %d\n", worked);
    return worked > 99 ? 99 : worked;
}

static int self_control(void) {
    pid_t child = fork();
    if (child == 0) {
        pause();
        _exit(0);
    }
    usleep(10000);
    int ok = ptrace(PTRACE_ATTACH, child, 0, 0) == 0;
    if (!ok) printf("ptrace attach to own child: %s\n", strerror(errno));
    kill(child, SIGKILL);
    waitpid(child, 0, 0);
    return ok ? 0 : 1;
}

static int io_uring(void) {
    char params[120];
    memset(params, 0, sizeof params);
    long fd = syscall(425 /* io_uring_setup, the same number on x86-64 and arm64 */, 4, params);
    if (fd >= 0) {
        printf("io_uring_setup worked\n");
        return 1;
    }
    printf("io_uring_setup: %s\n", strerror(errno));
    return errno == EPERM ? 0 : 2;
}

int main(int argc, char** argv) {
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc == 2 && strcmp(argv[1], "attack") == 0) return attack();
    if (argc == 2 && strcmp(argv[1], "self") == 0) return self_control();
    if (argc == 2 && strcmp(argv[1], "io_uring") == 0) return io_uring();
    fprintf(stderr, "usage: escape_probe attack|self|io_uring\n");
    return 64;
}
