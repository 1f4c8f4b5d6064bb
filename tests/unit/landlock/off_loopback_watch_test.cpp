// The landlock init's connect watch (off_loopback_watch.hpp) on the real
// kernel, unprivileged: a forked child installs the filter and hands the listener over as a
// sandboxed command does, then connects and sends; this process, as the
// init would, answers each connect and writes the refusals. Every call still
// gets the kernel's own answer (the connect to a listening loopback port
// succeeds), and only the addresses off the loopback are written.
#include "off_loopback_watch.hpp"
#include "refusal_reports.hpp"

#include "socket_address.hpp"

#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace watch = oms::landlock::off_loopback_watch;

namespace {

using oms::test::ipv4_address;
using oms::test::ipv6_address;

// The calls a command makes; exits 0 when the loopback connect worked.
[[noreturn]] void command(uint16_t listening_port) {
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) _exit(90);
    watch::install_in_command();
    auto connect_to = [](const std::vector<uint8_t>& address) {
        const auto* a = reinterpret_cast<const sockaddr*>(address.data());
        int fd = socket(a->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        const int rc = connect(fd, a, static_cast<socklen_t>(address.size()));
        const int error = errno;
        close(fd);
        return rc == 0 || error == EINPROGRESS;
    };
    connect_to(ipv4_address("192.0.2.7", 81));  // TEST-NET-1: never answered, non-blocking
    connect_to(ipv6_address("2001:db8::7", 82));
    connect_to(ipv4_address("192.0.2.7", 81));  // the same again: reported once
    // A datagram socket's connect is a connect; a datagram sent with sendto
    // is not stopped (each would pay the round trip).
    int datagram = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    const auto peer = ipv4_address("192.0.2.8", 9);
    connect(datagram, reinterpret_cast<const sockaddr*>(peer.data()), sizeof(sockaddr_in));
    const auto to = ipv4_address("192.0.2.9", 9);
    sendto(datagram, "x", 1, MSG_DONTWAIT, reinterpret_cast<const sockaddr*>(to.data()), sizeof(sockaddr_in));
    close(datagram);
    // TCP Fast Open connects: sendto and sendmsg with MSG_FASTOPEN.
    int fast = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    const auto fast_to = ipv4_address("192.0.2.10", 83);
    sendto(fast, "x", 1, MSG_FASTOPEN, reinterpret_cast<const sockaddr*>(fast_to.data()), sizeof(sockaddr_in));
    close(fast);
    fast = socket(AF_INET6, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    auto fast_to6 = ipv6_address("2001:db8::10", 84);
    char byte = 'x';
    iovec data{&byte, 1};
    msghdr message{};
    message.msg_name = fast_to6.data();
    message.msg_namelen = static_cast<socklen_t>(fast_to6.size());
    message.msg_iov = &data;
    message.msg_iovlen = 1;
    sendmsg(fast, &message, MSG_FASTOPEN);
    close(fast);
    _exit(connect_to(ipv4_address("127.0.0.1", listening_port)) ? 0 : 91);
}

// Serves the listener until no process is left under the filter.
void serve_until_done() {
    for (int rounds = 0; rounds < 10000 && watch::descriptor() >= 0; ++rounds) {
        pollfd fds[1];
        const int count = watch::watch(fds, 0, 1);
        REQUIRE(count == 1);
        REQUIRE(poll(fds, 1, 10000) == 1);
        watch::serve(fds, count);
    }
}

std::string read_all(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

TEST_CASE("the connect watch reports a command's connects and datagrams off the loopback, on the kernel",
          "[landlock][refusals]") {
    char log_path[] = "/tmp/oms-off-loopback-XXXXXX";
    const int log = mkstemp(log_path);
    REQUIRE(log >= 0);
    const int append = open(log_path, O_WRONLY | O_APPEND | O_CLOEXEC);
    REQUIRE(append >= 0);
    // A loopback listener: the control, whose connect must succeed and not be reported.
    int server = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in bound{};
    bound.sin_family = AF_INET;
    bound.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(bind(server, reinterpret_cast<sockaddr*>(&bound), sizeof bound) == 0);
    REQUIRE(listen(server, 4) == 0);
    socklen_t size = sizeof bound;
    REQUIRE(getsockname(server, reinterpret_cast<sockaddr*>(&bound), &size) == 0);

    oms::landlock::refusal_reports::write_to(append);
    REQUIRE(watch::prepare());
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) command(ntohs(bound.sin_port));
    watch::take_listener();
    REQUIRE(watch::descriptor() >= 0);  // the filter was installed and handed over
    serve_until_done();
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);  // the loopback connect went on as without the watch
    CHECK(watch::descriptor() == -1);  // stopped once nobody was left under the filter
    oms::landlock::refusal_reports::write_to(-1);
    close(append);
    close(log);
    close(server);

    const std::string text = read_all(log_path);
    unlink(log_path);
    INFO(text);
    CHECK(text.find("refused\troute\t192.0.2.7\t81\toff the sandbox's loopback") != std::string::npos);
    CHECK(text.find("refused\troute\t2001:db8::7\t82\t") != std::string::npos);
    CHECK(text.find("refused\troute\t192.0.2.8\t9\toff the sandbox's loopback") != std::string::npos);
    CHECK(text.find("192.0.2.9") == std::string::npos);
    CHECK(text.find("refused\troute\t192.0.2.10\t83\t") != std::string::npos);
    CHECK(text.find("refused\troute\t2001:db8::10\t84\t") != std::string::npos);
    CHECK(text.find("127.0.0.1") == std::string::npos);
    // Five lines: the repeated connect is written once.
    CHECK(std::count(text.begin(), text.end(), '\n') == 5);
}
