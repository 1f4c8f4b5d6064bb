/* Runs inside the docker test container (static: the image has no libc) and
 * prints one line per attempt, for the Surfnet relay tests:
 *   net_probe connect ADDRESS PORT MARKER   TCP: send MARKER, print the reply
 *   net_probe udp ADDRESS PORT              send one datagram
 *   net_probe listen PORT                   bind and listen on 127.0.0.1:PORT
 *   net_probe serve PORT                    the stand-in Surfnet: listen on
 *       127.0.0.1:PORT and answer every connection with "hello-<its line>"
 *   net_probe surfpool LISTEN_PORT CONNECT_PORT MARKER
 *       the stand-in Surfpool: listen on LISTEN_PORT, answer one connection
 *       made to it by itself, then connect to CONNECT_PORT
 *   net_probe relay-ask SOCKET PORT MARKER
 *       speak the relay's own protocol on its unix socket, as a hostile
 *       command would: ask oms for PORT, then send MARKER
 *   net_probe relay-hold SOCKET COUNT SECONDS
 *       open COUNT connections to the relay's socket, say nothing, wait
 *   net_probe lookup-flood COUNT
 *       ask 127.0.0.1:53 for COUNT different long names, each from a new
 *       UDP socket closed at once (no process holds it when the resolver
 *       looks for the asker)
 *   net_probe seccomp-listener
 *       install a seccomp filter of its own with a user-notification
 *       listener (EBUSY while the runner watches the command's connects) */
#include <arpa/inet.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

static int address_of(const char* text, int port, struct sockaddr_storage* out, socklen_t* size) {
    memset(out, 0, sizeof *out);
    struct sockaddr_in* v4 = (struct sockaddr_in*)out;
    struct sockaddr_in6* v6 = (struct sockaddr_in6*)out;
    if (inet_pton(AF_INET, text, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(port);
        *size = sizeof *v4;
        return AF_INET;
    }
    if (inet_pton(AF_INET6, text, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(port);
        *size = sizeof *v6;
        return AF_INET6;
    }
    return -1;
}

static const char* error_name(int e) {
    switch (e) {
    case ECONNREFUSED: return "ECONNREFUSED";
    case ECONNRESET: return "ECONNRESET";
    case ENETUNREACH: return "ENETUNREACH";
    case EHOSTUNREACH: return "EHOSTUNREACH";
    case EACCES: return "EACCES";
    case EPERM: return "EPERM";
    case EADDRINUSE: return "EADDRINUSE";
    case EADDRNOTAVAIL: return "EADDRNOTAVAIL";
    case ETIMEDOUT: return "ETIMEDOUT";
    case EAGAIN: return "EAGAIN";
    case EAFNOSUPPORT: return "EAFNOSUPPORT";
    default: return "other";
    }
}

static int do_connect(const char* host, int port, const char* marker) {
    struct sockaddr_storage address;
    socklen_t size;
    int family = address_of(host, port, &address, &size);
    if (family < 0) return printf("BAD address %s\n", host), 2;
    int fd = socket(family, SOCK_STREAM, 0);
    if (fd < 0) return printf("DENIED socket %s\n", error_name(errno)), 0;
    struct timeval limit = {5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
    if (connect(fd, (struct sockaddr*)&address, size) != 0)
        return printf("DENIED connect %s\n", error_name(errno)), 0;
    char line[256];
    snprintf(line, sizeof line, "%s\n", marker);
    if (send(fd, line, strlen(line), MSG_NOSIGNAL) < 0) return printf("DENIED send %s\n", error_name(errno)), 0;
    char reply[256];
    size_t got = 0;
    for (;;) {
        ssize_t n = recv(fd, reply + got, sizeof reply - 1 - got, 0);
        if (n < 0) return printf("DENIED recv %s\n", error_name(errno)), 0;
        if (n == 0) break;
        got += (size_t)n;
        if (got == sizeof reply - 1 || memchr(reply, '\n', got)) break;
    }
    reply[got] = '\0';
    char* end = strchr(reply, '\n');
    if (end) *end = '\0';
    if (got == 0) return printf("DENIED recv EOF\n"), 0;
    printf("OK reply=%s\n", reply);
    close(fd);
    return 0;
}

static int do_udp(const char* host, int port) {
    struct sockaddr_storage address;
    socklen_t size;
    int family = address_of(host, port, &address, &size);
    if (family < 0) return printf("BAD address\n"), 2;
    int fd = socket(family, SOCK_DGRAM, 0);
    if (fd < 0) return printf("DENIED socket %s\n", error_name(errno)), 0;
    if (sendto(fd, "x", 1, 0, (struct sockaddr*)&address, size) != 1)
        return printf("DENIED sendto %s\n", error_name(errno)), 0;
    printf("OK udp sent\n");
    return 0;
}

static int listen_on(int port) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int on = 1; /* a previous run's connection may linger in TIME_WAIT */
    if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (fd < 0 || bind(fd, (struct sockaddr*)&a, sizeof a) != 0 || listen(fd, 4) != 0) {
        printf("DENIED listen %s\n", error_name(errno));
        return -1;
    }
    printf("OK listen\n");
    return fd;
}

/* Answers one connection on `server` with "hello-<its line>". */
static void answer_one(int server) {
    int client = accept(server, NULL, NULL);
    if (client < 0) return;
    char line[128];
    ssize_t n = recv(client, line, sizeof line - 1, 0);
    if (n < 0) n = 0;
    line[n] = '\0';
    char* end = strchr(line, '\n');
    if (end) *end = '\0';
    char reply[160];
    snprintf(reply, sizeof reply, "hello-%s\n", line);
    send(client, reply, strlen(reply), MSG_NOSIGNAL);
    close(client);
}

static int relay_ask(const char* path, int port, const char* marker) {
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    strncpy(a.sun_path, path, sizeof a.sun_path - 1);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr*)&a, sizeof a) != 0)
        return printf("DENIED unix-connect %s\n", error_name(errno)), 0;
    struct timeval limit = {5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
    unsigned char request[2] = {(unsigned char)(port >> 8), (unsigned char)(port & 0xff)};
    unsigned char status = 0xff;
    send(fd, request, 2, MSG_NOSIGNAL);
    if (recv(fd, &status, 1, 0) != 1) return printf("DENIED no-status\n"), 0;
    if (status != 0) return printf("DENIED status %d\n", status), 0;
    char line[256];
    snprintf(line, sizeof line, "%s\n", marker);
    send(fd, line, strlen(line), MSG_NOSIGNAL);
    char reply[256];
    ssize_t n = recv(fd, reply, sizeof reply - 1, 0);
    if (n <= 0) return printf("DENIED recv\n"), 0;
    reply[n] = '\0';
    char* end = strchr(reply, '\n');
    if (end) *end = '\0';
    return printf("OK reply=%s\n", reply), 0;
}

static int relay_hold(const char* path, int count, int seconds) {
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    strncpy(a.sun_path, path, sizeof a.sun_path - 1);
    int held = 0;
    for (int i = 0; i < count; ++i) {
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (fd >= 0 && connect(fd, (struct sockaddr*)&a, sizeof a) == 0) ++held;
    }
    printf("HELD %d\n", held);
    sleep(seconds);
    return 0;
}

/* A DNS question for an A record of `name` (dotted), into `out`; its size. */
static size_t dns_question(const char* name, unsigned char* out) {
    static const unsigned char header[12] = {0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0};
    memcpy(out, header, sizeof header);
    size_t at = sizeof header;
    for (const char* label = name; *label;) {
        const char* dot = strchr(label, '.');
        size_t length = dot ? (size_t)(dot - label) : strlen(label);
        out[at++] = (unsigned char)length;
        memcpy(out + at, label, length);
        at += length;
        label += length + (dot ? 1 : 0);
    }
    out[at++] = 0;
    const unsigned char type_and_class[4] = {0, 1, 0, 1};
    memcpy(out + at, type_and_class, sizeof type_and_class);
    return at + sizeof type_and_class;
}

static int lookup_flood(int count) {
    struct sockaddr_storage resolver;
    socklen_t size;
    address_of("127.0.0.1", 53, &resolver, &size);
    const char* pad = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"; /* 60 */
    int sent = 0;
    for (int i = 0; i < count; ++i) {
        char name[256];
        snprintf(name, sizeof name, "n%d-%.50s.%s.%s.%s.test", i, pad, pad, pad, pad);
        unsigned char question[300];
        const size_t length = dns_question(name, question);
        int fd = socket(AF_INET, SOCK_DGRAM, 0);
        if (fd >= 0 && sendto(fd, question, length, 0, (struct sockaddr*)&resolver, size) == (ssize_t)length) ++sent;
        if (fd >= 0) close(fd);
        usleep(1000); /* the resolver's queue is not what is tested */
    }
    printf("SENT %d\n", sent);
    return 0;
}

/* A seccomp filter of its own with a user-notification listener, as a
 * supervisor inside the command would make; allows everything. */
static int seccomp_listener(void) {
    struct sock_filter allow[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
    struct sock_fprog program = {1, allow};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &program) < 0)
        return printf("DENIED seccomp-listener %s\n", errno == EBUSY ? "EBUSY" : error_name(errno)), 0;
    printf("OK seccomp-listener\n");
    return 0;
}

int main(int argc, char** argv) {
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc == 2 && strcmp(argv[1], "seccomp-listener") == 0) return seccomp_listener();
    if (argc == 5 && strcmp(argv[1], "connect") == 0) return do_connect(argv[2], atoi(argv[3]), argv[4]);
    if (argc == 4 && strcmp(argv[1], "udp") == 0) return do_udp(argv[2], atoi(argv[3]));
    if (argc == 5 && strcmp(argv[1], "relay-ask") == 0) return relay_ask(argv[2], atoi(argv[3]), argv[4]);
    if (argc == 5 && strcmp(argv[1], "relay-hold") == 0) return relay_hold(argv[2], atoi(argv[3]), atoi(argv[4]));
    if (argc == 3 && strcmp(argv[1], "lookup-flood") == 0) return lookup_flood(atoi(argv[2]));
    if (argc == 3 && strcmp(argv[1], "listen") == 0) return listen_on(atoi(argv[2])) < 0 ? 0 : 0;
    if (argc == 3 && strcmp(argv[1], "serve") == 0) {
        int server = listen_on(atoi(argv[2]));
        if (server < 0) return 1;
        for (;;) answer_one(server);
    }
    if (argc == 5 && strcmp(argv[1], "surfpool") == 0) {
        int server = listen_on(atoi(argv[2]));
        if (server >= 0) {
            pid_t child = fork();
            if (child == 0) {
                answer_one(server);
                _exit(0);
            }
            do_connect("127.0.0.1", atoi(argv[2]), "self");
        }
        return do_connect("127.0.0.1", atoi(argv[3]), argv[4]);
    }
    fprintf(stderr, "usage: net_probe connect|udp|listen|serve|surfpool|relay-ask ...\n");
    return 2;
}
