// The sandbox's DNS responder (see dns_responder.hpp): every well-formed query
// gets NXDOMAIN, anything else FORMERR or NOTIMP. Static buffers,
// non-blocking sockets, nothing that could block the loop it is served from
// (landlock's init also reaps the command there). A TCP client that
// sends nothing, or never closes, only holds one of a few slots, the oldest
// of which is dropped for a new connection.
#include <oms/dns_responder.hpp>
#include <oms/refusal_log.hpp>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

namespace oms::dns_responder {

namespace {

constexpr size_t kHeader = 12;
constexpr size_t kMaxMessage = 512;
constexpr int kTcpSlots = 8;
// A command may open many connections at once (a resolver pool, or one
// trying to stall the responder) while this loop waits for a CPU: a full
// accept queue drops the next SYN, and the client's connect then waits a
// second for its retry. So the queue is deep, and each wake takes all of it.
constexpr int kAcceptBacklog = 128;
constexpr int kAcceptsPerWake = 64;
constexpr uint8_t kNxDomain = 3, kFormErr = 1, kNotImp = 4;

struct TcpClient {
    int fd = -1;
    uint16_t port = 0;  // the client's own address and port, for the refusal hook
    uint32_t address = 0;
    size_t have = 0;
    uint8_t buffer[2 + kMaxMessage];
};

int udp_fd = -1, tcp_fd = -1;
TcpClient clients[kTcpSlots];
int next_victim = 0;

// The refusal report: the names said recently (A and AAAA, and a
// resolver's retries, ask the same name again) and how many were written.
constexpr size_t kMaxName = 254;
int report_fd = -1;
int reports = 0;
RefusalHook hook = nullptr;
Asker asking{false, 0, 0};  // the client whose question is being answered
char recent[kRememberedNames][kMaxName + 1];
int next_recent = 0;

constexpr uint8_t kTypeA = 1, kTypeAaaa = 28;

// True when /etc/hosts names `name` (any case) on a line of its own: such a
// name resolves from the file, and a question for its other family's
// address is no refusal. Read for each AAAA question that may be reported
// (with a refusal hook, every one: the hook's owner keeps once-per-name), into
// static storage, 64 KiB at most: a small read, not worth a cache that a
// changed file would make wrong.
bool hosts_file_names(const char* name) {
    static char text[64 * 1024 + 1];
    const int fd = ::open("/etc/hosts", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return false;
    const ssize_t got = ::read(fd, text, sizeof text - 1);
    ::close(fd);
    if (got <= 0) return false;
    text[got] = '\0';
    const size_t length = strlen(name);
    bool first_word = true, comment = false;
    for (char* at = text; *at;) {
        if (*at == '\n') {
            first_word = true, comment = false, ++at;
            continue;
        }
        if (*at == ' ' || *at == '\t' || *at == '\r') {
            ++at;
            continue;
        }
        if (*at == '#') comment = true;
        const char* word = at;
        while (*at && *at != ' ' && *at != '\t' && *at != '\r' && *at != '\n') ++at;
        const size_t size = static_cast<size_t>(at - word);
        if (!comment && !first_word && size == length && strncasecmp(word, name, length) == 0) return true;
        first_word = false;  // the address; the names follow it
    }
    return false;
}

// The question's name, dotted ("pkg.test"), in `out`, and its type; the
// name's length (0: the root or unreadable).
size_t question_name(const uint8_t* message, size_t size, char* out, uint16_t* type) {
    size_t at = kHeader, n = 0;
    while (at < size && message[at] != 0 && message[at] <= 63) {
        const size_t label = message[at];
        if (at + 1 + label > size || n + label + 1 > kMaxName) return 0;
        if (n) out[n++] = '.';
        memcpy(out + n, message + at + 1, label);
        n += label;
        at += 1 + label;
    }
    out[n] = '\0';
    if (at + 3 > size || message[at] != 0) return 0;
    *type = static_cast<uint16_t>((message[at + 1] << 8) | message[at + 2]);
    return n;
}

// An address question answered "no such host" is a refusal: for IPv4 (A)
// always, for IPv6 (AAAA) unless /etc/hosts names the host (getent hosts
// localhost asks AAAA here although the file answers it for IPv4).
void report(const uint8_t* message, size_t size) {
    if (!hook && (report_fd < 0 || reports >= kMaxReports)) return;
    char name[kMaxName + 1];
    uint16_t type = 0;
    const size_t length = question_name(message, size, name, &type);
    if (length == 0 || (type != kTypeA && type != kTypeAaaa)) return;
    if (hook && !(type == kTypeAaaa && hosts_file_names(name))) hook(name, length, asking);
    if (report_fd < 0 || reports >= kMaxReports) return;
    for (const char* seen : recent)
        if (strcmp(seen, name) == 0) return;
    if (type == kTypeAaaa && hosts_file_names(name)) return;
    memcpy(recent[next_recent], name, length + 1);
    next_recent = (next_recent + 1) % kRememberedNames;
    ++reports;
    refusal_log::append(report_fd, "resolver", name, length, 0, kNoSuchHost);
}

// Length of the one question after the header, or 0 when malformed.
size_t question_length(const uint8_t* message, size_t size) {
    size_t at = kHeader;
    while (at < size && message[at] != 0) {
        if (message[at] > 63) return 0;  // a compression pointer or a bad label
        at += 1 + message[at];
    }
    if (at >= size || at + 1 + 4 > size) return 0;
    return at + 1 + 4 - kHeader;
}

// Turns the query in `message` into the answer, in place; returns its size
// (0: no answer).
size_t answer(uint8_t* message, size_t size) {
    if (size < kHeader || (message[2] & 0x80)) return 0;  // too short, or a response
    const uint8_t opcode = (message[2] >> 3) & 0x0f;
    const bool one_question = message[4] == 0 && message[5] == 1;
    const size_t question = one_question && opcode == 0 ? question_length(message, size) : 0;
    uint8_t code = kNxDomain;
    if (opcode != 0) code = kNotImp;
    else if (question == 0) code = kFormErr;
    message[2] = static_cast<uint8_t>(0x80 | (message[2] & 0x79));  // QR, keep opcode and RD
    message[3] = static_cast<uint8_t>(0x80 | code);                // RA, the code
    if (question == 0) message[4] = message[5] = 0;
    memset(message + 6, 0, 6);  // no answer, authority or additional records
    if (code == kNxDomain) report(message, kHeader + question);
    return kHeader + question;
}

int listener(int type, uint32_t on) {
    int fd = socket(AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(53);
    address.sin_addr.s_addr = htonl(on);
    if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        (type == SOCK_STREAM && listen(fd, kAcceptBacklog) != 0)) {
        close(fd);
        return -1;
    }
    return fd;
}

void drop(TcpClient& client) {
    if (client.fd >= 0) close(client.fd);
    client.fd = -1;
    client.have = 0;
}

void serve_udp() {
    uint8_t message[kMaxMessage];
    for (int i = 0; i < 16; ++i) {
        sockaddr_storage from{};
        socklen_t from_size = sizeof from;
        ssize_t n = recvfrom(udp_fd, message, sizeof message, 0, reinterpret_cast<sockaddr*>(&from), &from_size);
        if (n <= 0) return;
        const auto* peer = reinterpret_cast<const sockaddr_in*>(&from);
        const bool v4 = from.ss_family == AF_INET;
        asking = Asker{false, v4 ? ntohs(peer->sin_port) : uint16_t(0), v4 ? ntohl(peer->sin_addr.s_addr) : 0u};
        size_t size = answer(message, static_cast<size_t>(n));
        if (size) sendto(udp_fd, message, size, MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&from), from_size);
    }
}

// Takes one pending connection into a slot, the victim's when all are taken;
// false when none is pending.
bool accept_one() {
    sockaddr_in peer{};
    socklen_t peer_size = sizeof peer;
    int fd = accept4(tcp_fd, reinterpret_cast<sockaddr*>(&peer), &peer_size, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return false;
    TcpClient* slot = nullptr;
    for (TcpClient& c : clients)
        if (c.fd < 0) slot = &c;
    if (!slot) {
        slot = &clients[next_victim];
        next_victim = (next_victim + 1) % kTcpSlots;
        drop(*slot);
    }
    slot->fd = fd;
    slot->port = ntohs(peer.sin_port);
    slot->address = ntohl(peer.sin_addr.s_addr);
    slot->have = 0;
    return true;
}
void accept_tcp() {
    for (int i = 0; i < kAcceptsPerWake && accept_one(); ++i) {
    }
}
// Answers every complete query received so far; a resolver sends several on
// one connection (glibc: the A and AAAA queries back to back) and reads the
// answers in order, so the connection stays open until the client closes it.
void read_tcp(TcpClient& client) {
    ssize_t n = read(client.fd, client.buffer + client.have, sizeof client.buffer - client.have);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;  // nothing yet
    if (n <= 0) return drop(client);
    client.have += static_cast<size_t>(n);
    while (client.have >= 2) {
        const size_t length = (static_cast<size_t>(client.buffer[0]) << 8) | client.buffer[1];
        if (length < kHeader || length > kMaxMessage) return drop(client);
        if (client.have < 2 + length) return;
        uint8_t reply[2 + kMaxMessage];
        memcpy(reply + 2, client.buffer + 2, length);
        asking = Asker{true, client.port, client.address};
        size_t size = answer(reply + 2, length);
        if (size) {
            reply[0] = static_cast<uint8_t>(size >> 8);
            reply[1] = static_cast<uint8_t>(size & 0xff);
            // Small, and the client reads: fits the socket buffer, or the client is dropped.
            if (send(client.fd, reply, 2 + size, MSG_DONTWAIT | MSG_NOSIGNAL) != static_cast<ssize_t>(2 + size))
                return drop(client);
        }
        client.have -= 2 + length;
        memmove(client.buffer, client.buffer + 2 + length, client.have);
    }
}

}  // namespace

bool open(uint32_t address) {
    udp_fd = listener(SOCK_DGRAM, address);
    tcp_fd = listener(SOCK_STREAM, address);
    if (udp_fd >= 0 && tcp_fd >= 0) return true;
    // Half a responder is not kept: the init then holds no descriptor.
    if (udp_fd >= 0) close(udp_fd);
    if (tcp_fd >= 0) close(tcp_fd);
    udp_fd = tcp_fd = -1;
    return false;
}

bool resolv_conf_naming(uint32_t address, char* out, size_t capacity) {
    char dotted[INET_ADDRSTRLEN];
    const in_addr raw{htonl(address)};
    if (!inet_ntop(AF_INET, &raw, dotted, sizeof dotted)) return false;
    static constexpr char kDefault[] = "127.0.0.1";
    const char* at = strstr(kSandboxResolvConf, kDefault);
    const size_t before = static_cast<size_t>(at - kSandboxResolvConf);
    const size_t after = strlen(at + sizeof kDefault - 1);
    const size_t length = strlen(dotted);
    if (before + length + after + 1 > capacity) return false;
    memcpy(out, kSandboxResolvConf, before);
    memcpy(out + before, dotted, length);
    memcpy(out + before + length, at + sizeof kDefault - 1, after + 1);
    return true;
}

Descriptors descriptors() {
    if (udp_fd < 0 || tcp_fd < 0) return Descriptors{-1, -1};
    return Descriptors{udp_fd, tcp_fd};
}

int watch(pollfd* fds, int capacity) {
    int count = 0;
    auto add = [&](int fd) {
        if (fd >= 0 && count < capacity) fds[count++] = pollfd{fd, POLLIN, 0};
    };
    add(udp_fd);
    add(tcp_fd);
    for (const TcpClient& c : clients) add(c.fd);
    return count;
}

void report_to(int fd) { report_fd = fd; }

void on_refusal(RefusalHook refusal_hook) { hook = refusal_hook; }

void serve(const pollfd* fds, int count) {
    for (int i = 0; i < count; ++i) {
        if (!fds[i].revents) continue;
        if (fds[i].fd == udp_fd) serve_udp();
        else if (fds[i].fd == tcp_fd) accept_tcp();
        else
            for (TcpClient& c : clients)
                if (c.fd == fds[i].fd) read_tcp(c);
    }
}

}  // namespace oms::dns_responder
