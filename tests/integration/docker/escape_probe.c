/* What a hostile command does to reach other processes of its container or
 * a large kernel surface; run inside the container by docker_escapes_test.
 * Statically linked: the test image has no libc.
 *
 *   escape_probe attack     try ptrace, /proc/PID/mem and process_vm_readv on
 *                           every other process; exit status = how many worked
 *   escape_probe self       control: ptrace attach to its own child (0 = worked)
 *   escape_probe io_uring   io_uring_setup: exit 0 refused with EPERM, 1 allowed,
 *                           2 another error (printed)
 *   escape_probe request SOCKET ARGV...
 *                           ask the warm runner on SOCKET for a command of its
 *                           own, as oms would; prints "connected", then
 *                           "refused" (closed at once), "served N" (its status)
 *                           or "accepted" (still running after 2 s: a process
 *                           left holding the connection keeps it alive)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <stdint.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/un.h>
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

/* The runner's request: a header (magic, payload size) carrying three
 * descriptors, then cwd, argc, argv, envc, env, each NUL-terminated
 * (plugins/backends/docker/runner/runner_protocol.hpp). */
static int request(const char* path, int argc, char** argv) {
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un address;
    memset(&address, 0, sizeof address);
    address.sun_family = AF_UNIX;
    snprintf(address.sun_path, sizeof address.sun_path, "%s", path);
    if (connect(fd, (struct sockaddr*)&address, sizeof address) != 0) {
        printf("connect: %s\n", strerror(errno));
        return 1;
    }
    printf("connected\n");
    char payload[8192];
    size_t n = 0;
    n += (size_t)snprintf(payload + n, sizeof payload - n, "/") + 1;
    n += (size_t)snprintf(payload + n, sizeof payload - n, "%d", argc) + 1;
    for (int i = 0; i < argc; ++i) n += (size_t)snprintf(payload + n, sizeof payload - n, "%s", argv[i]) + 1;
    n += (size_t)snprintf(payload + n, sizeof payload - n, "1") + 1;
    n += (size_t)snprintf(payload + n, sizeof payload - n, "PATH=/bin:/usr/bin") + 1;
    uint32_t header[2] = {0x6f6d7331, (uint32_t)n};
    int fds[3];
    for (int i = 0; i < 3; ++i) fds[i] = open("/dev/null", O_RDWR);
    char control[CMSG_SPACE(sizeof fds)];
    memset(control, 0, sizeof control);
    struct iovec io = {header, sizeof header};
    struct msghdr message;
    memset(&message, 0, sizeof message);
    message.msg_iov = &io;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    struct cmsghdr* c = CMSG_FIRSTHDR(&message);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof fds);
    memcpy(CMSG_DATA(c), fds, sizeof fds);
    if (sendmsg(fd, &message, MSG_NOSIGNAL) != (ssize_t)sizeof header ||
        send(fd, payload, n, MSG_NOSIGNAL) != (ssize_t)n) {
        printf("refused\n");
        return 0;
    }
    struct pollfd ready = {fd, POLLIN, 0};
    if (poll(&ready, 1, 2000) == 0) {
        printf("accepted\n");
        if (fork() == 0) {  /* holds the connection: the runner's handler waits on it */
            setsid();
            for (;;) pause();
        }
        return 0;
    }
    uint32_t status = 0;
    if (recv(fd, &status, sizeof status, MSG_WAITALL) == (ssize_t)sizeof status) printf("served %u\n", status);
    else printf("refused\n");
    return 0;
}

int main(int argc, char** argv) {
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc == 2 && strcmp(argv[1], "attack") == 0) return attack();
    if (argc == 2 && strcmp(argv[1], "self") == 0) return self_control();
    if (argc == 2 && strcmp(argv[1], "io_uring") == 0) return io_uring();
    if (argc >= 4 && strcmp(argv[1], "request") == 0) return request(argv[2], argc - 3, argv + 3);
    fprintf(stderr, "usage: escape_probe attack|self|io_uring|request SOCKET ARGV...\n");
    return 64;
}
