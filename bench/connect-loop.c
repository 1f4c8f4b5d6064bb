/* What one connect, or one datagram with a destination, costs: COUNT TCP
 * connects to a listener of its own on 127.0.0.1 (each accepted and both
 * ends closed), or COUNT UDP datagrams sent with sendto to a socket of its
 * own there (each received). Prints the nanoseconds per operation, timed
 * inside the loop (the process's start is not counted).
 *
 * Usage: connect-loop tcp|udp COUNT
 * Used by bench/connect-cost.sh, bare and inside `oms run`. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int bound_socket(int type, struct sockaddr_in* address) {
    int fd = socket(AF_INET, type, 0);
    socklen_t size = sizeof *address;
    memset(address, 0, sizeof *address);
    address->sin_family = AF_INET;
    address->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || bind(fd, (struct sockaddr*)address, sizeof *address) != 0 ||
        getsockname(fd, (struct sockaddr*)address, &size) != 0 || (type == SOCK_STREAM && listen(fd, 128) != 0)) {
        perror("connect-loop: socket");
        exit(2);
    }
    return fd;
}

static void tcp_once(int server, const struct sockaddr_in* address) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (const struct sockaddr*)address, sizeof *address) != 0) {
        perror("connect-loop: connect");
        exit(1);
    }
    int accepted = accept(server, NULL, NULL);
    close(accepted);
    close(fd);
}

static void udp_once(int receiver, int sender, const struct sockaddr_in* address) {
    char byte = 'x';
    if (sendto(sender, &byte, 1, 0, (const struct sockaddr*)address, sizeof *address) != 1 ||
        recv(receiver, &byte, 1, 0) != 1) {
        perror("connect-loop: sendto");
        exit(1);
    }
}

int main(int argc, char** argv) {
    if (argc != 3 || (strcmp(argv[1], "tcp") != 0 && strcmp(argv[1], "udp") != 0)) {
        fprintf(stderr, "usage: connect-loop tcp|udp COUNT\n");
        return 2;
    }
    const int tcp = strcmp(argv[1], "tcp") == 0;
    const long count = atol(argv[2]);
    struct sockaddr_in address;
    const int server = bound_socket(tcp ? SOCK_STREAM : SOCK_DGRAM, &address);
    const int sender = tcp ? -1 : socket(AF_INET, SOCK_DGRAM, 0);
    const long long start = now_ns();
    for (long i = 0; i < count; ++i) tcp ? tcp_once(server, &address) : udp_once(server, sender, &address);
    printf("%lld\n", (now_ns() - start) / (count > 0 ? count : 1));
    return 0;
}
