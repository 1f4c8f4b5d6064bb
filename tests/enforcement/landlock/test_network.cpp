// Network: TCP to 127.0.0.1 on the allowed port reaches a listener on the
// host; the same listener on another loopback address, on IPv6, on the
// machine's own address, and any other port stay out of reach; raw,
// netlink and packet sockets are refused (UDP too when the run shares the
// host's network).
#include "host_listeners.hpp"
#include "test_support.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace oms::test;

TEST_CASE("only TCP to 127.0.0.1 on the allowed port gets out", "[landlock][network]") {
    require_landlock();
    HostListeners host;
    INFO("port 8899 stayed busy on this machine; the network test needs it free");
    REQUIRE(host.listen_everywhere(8899));
    const uint16_t other = host.listen_any_port();
    const std::string eth = own_ipv4_address();
    INFO("this machine has no non-loopback IPv4 address to try");
    REQUIRE_FALSE(eth.empty());

    // Positive controls: unconfined, the same tool reaches every one of them.
    for (auto [address, port] : std::vector<std::pair<std::string, int>>{
             {"127.0.0.1", 8899}, {"127.0.0.1", other}, {"127.0.0.2", 8899}, {"::1", 8899}, {eth, 8899}}) {
        auto plain = run_process({probe_tool(), "connect", address, std::to_string(port)});
        INFO(address << ":" << port << " " << plain.out);
        CHECK(plain.out.rfind("OK reply=hello-", 0) == 0);
    }

    FOR_EACH_DRIVER(driver) {
        World w;
        std::string script = expand(w, R"SH(
            {probe} connect 127.0.0.1 8899; {probe} connect 127.0.0.1 OTHER; {probe} connect 127.0.0.2 8899
            {probe} connect ::1 8899; {probe} connect ETH 8899
            {probe} socket udp; {probe} socket udp6; {probe} socket raw; {probe} socket netlink
            {probe} socket packet; {probe} socket tcp; {probe} socket unix; exit 0)SH");
        script.replace(script.find("OTHER"), 5, std::to_string(other));
        script.replace(script.find("ETH"), 3, eth);
        auto r = run_confined(driver, w, script);
        INFO(r.spawn_error << r.out << r.err);
        REQUIRE(r.exit_code == 0);
        auto ok = lines_starting(r.out, "OK ");
        auto denied = lines_starting(r.out, "DENIED ");
        REQUIRE(ok.size() == 5);
        CHECK(ok[0] == "OK reply=hello-8899");  // positive: the allowed port answers
        CHECK(ok[1] == "OK udp");               // UDP: only the private lo to reach
        CHECK(ok[2] == "OK udp6");
        CHECK(ok[3] == "OK tcp");               // positive: TCP sockets can be made
        CHECK(ok[4] == "OK unix");
        CHECK(denied.size() == 7);  // 4 connects + raw, netlink, packet
        CHECK(r.out.find("hello-" + std::to_string(other)) == std::string::npos);
    }
}

namespace {

// A port nobody listens on right now.
int free_port() {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t size = sizeof a;
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &size);
    close(fd);
    return ntohs(a.sin_port);
}

}  // namespace

TEST_CASE("the trusted listener binary listens on the host only on its port", "[landlock][network]") {
    require_landlock();
    World w;
    const int port = free_port();
    FakeHost host;
    LandlockPlugin plugin(host);
    auto run = [&](std::vector<std::string> argv) {
        ContextBuilder context = default_context(w, argv);
        PolicyBuilder policy = default_policy(w);
        policy.add(OMS_RULE_NET_LISTEN_LOOPBACK, probe_tool(), port);  // the tool plays Surfpool
        int out[2];
        REQUIRE(pipe(out) == 0);
        ErrorBuffer error;
        void* handle = nullptr;
        REQUIRE(plugin.api().spawn(plugin.instance(), context.build(), policy.build(), oms_stdio{0, out[1], 2},
                                   &handle, error.get()) == OMS_OK);
        close(out[1]);
        std::string text;
        char buffer[4096];
        for (ssize_t n; (n = read(out[0], buffer, sizeof buffer)) > 0;) text.append(buffer, n);
        close(out[0]);
        int32_t code = -1;
        plugin.api().wait(plugin.instance(), handle, &code, error.get());
        plugin.api().release(plugin.instance(), handle);
        return text;
    };
    // Positive: the trusted binary binds its port.
    CHECK(run({probe_tool(), "bind-tcp", std::to_string(port)}) == "OK bind\n");
    // It shares the host's network: no UDP socket at all.
    CHECK(run({probe_tool(), "socket", "udp"}) == "DENIED socket EACCES\n");
    // The trusted binary shares the host's network: on another port, refused.
    CHECK(run({probe_tool(), "bind-tcp", std::to_string(port == 65535 ? port - 1 : port + 1)}) ==
          "DENIED bind EACCES\n");
    // Any other program runs in its own network namespace: the same port binds
    // there, on a loopback the host never sees (test_local_servers.cpp).
    CHECK(run({"sh", "-c", probe_tool() + " bind-tcp " + std::to_string(port)}) == "OK bind\n");
}
