/* What a launch waits for in this machine's kernel, apart from oms: the
 * medians (microseconds) of a packet socket's bind and close on a fresh
 * network namespace's lo (each waits for an RCU grace period: seconds of
 * launch cost on some machines, nothing on others, depending on whether
 * grace periods are expedited), of a raw IP socket's open and close (what
 * oms's loopback watch uses instead), of a plain fork + exec of
 * /bin/true (the floor of any launcher), and of making and removing a file
 * in a folder of TEMP (default /tmp), where every run makes its folder: a
 * run makes about twenty entries there and removes them. ext4 without a
 * journal searches past every inode freed in the last seconds for each new
 * one, so on such a /tmp that cost grows with the rate of runs; on tmpfs or
 * a journalled ext4 it does not.
 *
 * Usage: kernel-waits [ROUNDS [TEMP]]   (root, or an ordinary user where
 * user namespaces are allowed). Used by bench/landlock-launch.sh. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static int compare(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

static double median(double* v, int n) {
    qsort(v, (size_t)n, sizeof *v, compare);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void write_file(const char* path, const char* text) {
    const int fd = open(path, O_WRONLY);
    if (fd >= 0) {
        if (write(fd, text, strlen(text)) < 0) perror(path);
        close(fd);
    }
}

/* A network namespace of our own (a user namespace first when not root). */
static int enter_network_namespace(void) {
    if (geteuid() == 0) return unshare(CLONE_NEWNET);
    const uid_t uid = geteuid();
    if (unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) return -1;
    char map[64];
    write_file("/proc/self/setgroups", "deny");
    snprintf(map, sizeof map, "0 %u 1", (unsigned)uid);
    write_file("/proc/self/uid_map", map);
    return 0;
}

/* Median microseconds to make and remove one file, in a fresh folder of
 * TEMP per round, twenty files a round, as runs make their folders. */
static double file_churn_us(const char* temp, int rounds) {
    static double churn_us[1000 * 20];
    char folder[4096];
    int n = 0;
    for (int i = 0; i < rounds; ++i) {
        snprintf(folder, sizeof folder, "%s/kernel-waits-%d-%d", temp, (int)getpid(), i);
        if (mkdir(folder, 0700) != 0) return -1;
        const int dir = open(folder, O_PATH | O_DIRECTORY | O_CLOEXEC);
        for (int f = 0; f < 20; ++f) {
            char name[16];
            snprintf(name, sizeof name, "f%d", f);
            const double start = now_us();
            const int fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
            if (fd >= 0) close(fd);
            unlinkat(dir, name, 0);
            churn_us[n++] = now_us() - start;
        }
        close(dir);
        rmdir(folder);
    }
    return median(churn_us, n);
}

int main(int argc, char** argv) {
    const int rounds = argc > 1 ? atoi(argv[1]) : 15;
    if (rounds < 1 || rounds > 1000) return 2;
    const char* temp = argc > 2 ? argv[2] : "/tmp";
    const double churn = file_churn_us(temp, rounds);
    if (churn < 0) {
        perror(temp);
        return 1;
    }
    double bind_us[1000], close_us[1000], raw_us[1000], exec_us[1000];
    for (int i = 0; i < rounds; ++i) {  /* fork + exec first, in the caller's namespaces */
        const double start = now_us();
        const pid_t child = fork();
        if (child == 0) {
            execl("/bin/true", "true", (char*)NULL);
            _exit(127);
        }
        waitpid(child, NULL, 0);
        exec_us[i] = now_us() - start;
    }
    if (enter_network_namespace() != 0) {
        perror("kernel-waits: a network namespace");
        return 1;
    }
    const unsigned index = if_nametoindex("lo");
    for (int i = 0; i < rounds; ++i) {
        double start = now_us();
        const int packet = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_IP));
        struct sockaddr_ll address = {.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_IP), .sll_ifindex = (int)index};
        if (packet < 0 || bind(packet, (struct sockaddr*)&address, sizeof address) != 0) {
            perror("kernel-waits: a packet socket");
            return 1;
        }
        bind_us[i] = now_us() - start;
        start = now_us();
        close(packet);
        close_us[i] = now_us() - start;
        start = now_us();
        const int raw = socket(AF_INET, SOCK_RAW, IPPROTO_TCP);
        close(raw);
        raw_us[i] = now_us() - start;
    }
    printf("packet socket bind %.0f us, close %.0f us; raw socket open+close %.0f us; fork+exec of true %.0f us; "
           "a file made and removed in %s %.0f us\n",
           median(bind_us, rounds), median(close_us, rounds), median(raw_us, rounds), median(exec_us, rounds), temp,
           churn);
    return 0;
}
