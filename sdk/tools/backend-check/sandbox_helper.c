/* oms-backend-check-helper: what the conformance kit runs INSIDE the sandbox
 * when a shell alone cannot do it. Linked statically, so it runs in any
 * runtime a backend offers (a container image without a C library, say):
 * the kit copies it into the worktree before the first run.
 *
 *   oms-backend-check-helper env                 print the environment, one entry a line
 *   oms-backend-check-helper connect tcp PORT    connect to 127.0.0.1:PORT, send "oms-check"
 *   oms-backend-check-helper connect unix PATH   the same on a unix socket
 *
 * connect prints "connected" or "refused: REASON" and exits 0 or 1. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

extern char** environ;

static int print_environment(void) {
    for (char** entry = environ; *entry; ++entry) printf("%s\n", *entry);
    return 0;
}

static int open_connection(const char* kind, const char* target) {
    int fd = -1;
    if (strcmp(kind, "tcp") == 0) {
        struct sockaddr_in address;
        memset(&address, 0, sizeof address);
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        address.sin_port = htons((unsigned short)atoi(target));
        fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd >= 0 && connect(fd, (struct sockaddr*)&address, sizeof address) != 0) {
            close(fd);
            fd = -1;
        }
    } else if (strcmp(kind, "unix") == 0) {
        struct sockaddr_un address;
        memset(&address, 0, sizeof address);
        address.sun_family = AF_UNIX;
        snprintf(address.sun_path, sizeof address.sun_path, "%s", target);
        fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (fd >= 0 && connect(fd, (struct sockaddr*)&address, sizeof address) != 0) {
            close(fd);
            fd = -1;
        }
    } else {
        errno = EINVAL;
    }
    return fd;
}

static int connect_and_send(const char* kind, const char* target) {
    int fd = open_connection(kind, target);
    if (fd < 0) {
        printf("refused: %s\n", strerror(errno));
        return 1;
    }
    static const char message[] = "oms-check\n";
    ssize_t sent = write(fd, message, sizeof message - 1);
    /* A relay may accept before the host does: wait for the far end to close
     * (or a second) so the message gets through before the run ends. */
    struct pollfd closed = {fd, POLLIN, 0};
    poll(&closed, 1, 1000);
    char ignored;
    if (read(fd, &ignored, 1) < 0) { /* only waiting */ }
    close(fd);
    printf(sent > 0 ? "connected\n" : "refused: write failed\n");
    return sent > 0 ? 0 : 1;
}

int main(int argc, char** argv) {
    if (argc == 2 && strcmp(argv[1], "env") == 0) return print_environment();
    if (argc == 4 && strcmp(argv[1], "connect") == 0) return connect_and_send(argv[2], argv[3]);
    fprintf(stderr, "usage: oms-backend-check-helper env | connect tcp PORT | connect unix PATH\n");
    return 2;
}
