// Test servers on the sandbox's private loopback: a server listening on
// 127.0.0.1:0 and on a fixed port inside is reached by a client inside, while
// the host cannot reach it (the port is not open on the host); a host
// listener on a port the policy does not relay stays out of reach; the
// relayed Surfnet port still reaches the host; and the relayed ports cannot be
// taken by the command, listening or not (SO_REUSEADDR; SO_REUSEPORT is
// refused to commands).
#include "host_listeners.hpp"
#include "loopback_port.hpp"
#include "test_support.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <future>
#include <thread>

using namespace oms::test;

namespace {

// What a client on the host gets from 127.0.0.1:<port>: "refused", or the
// reply it read ("" when the connection gave nothing), without its line end.
std::string host_client(uint16_t port) {
    std::string text = host_loopback_exchange(port, "");
    while (!text.empty() && text.back() == '\n') text.pop_back();
    return text;
}

// The port a server inside wrote into `file`, or 0 after 10 s.
uint16_t wait_for_port(const std::string& file) {
    for (auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
         std::chrono::steady_clock::now() < until; std::this_thread::sleep_for(std::chrono::milliseconds(20))) {
        std::ifstream in(file);
        int port = 0;
        if (in >> port) return static_cast<uint16_t>(port);
    }
    return 0;
}

void replace_word(std::string& text, const std::string& word, const std::string& by) {
    for (size_t at; (at = text.find(word)) != std::string::npos;) text.replace(at, word.size(), by);
}

}  // namespace

TEST_CASE("a test server on the private loopback serves the command, never the host", "[landlock][network][servers]") {
    require_landlock();
    HostListeners host;
    INFO("port 8899 stayed busy on this machine; the test needs it free");
    REQUIRE(host.listen_everywhere(8899));
    const uint16_t not_relayed = host.listen_any_port();  // answers on the host, no rule names it
    const ClosedLoopbackPort closed;  // closed on the host for the whole test
    const uint16_t fixed = closed.port();
    // Positive controls outside: the host's listeners answer, the fixed port is closed.
    CHECK(host_client(8899) == "hello-8899");
    CHECK(host_client(not_relayed) == "hello-" + std::to_string(not_relayed));
    CHECK(host_client(fixed) == "refused");

    FOR_EACH_DRIVER(driver) {
        World w;
        std::string script = expand(w, R"SH(
            {probe} serve 0 {work}/port-any 2 > {work}/serve-any.out 2>&1 &
            {probe} serve FIXED {work}/port-fixed 2 > {work}/serve-fixed.out 2>&1 &
            i=0; while [ ! -f {work}/port-any ] || [ ! -f {work}/port-fixed ]; do
                i=$((i+1)); [ $i -gt 200 ] && break; sleep 0.05; done
            {probe} connect 127.0.0.1 $(cat {work}/port-any)
            {probe} connect 127.0.0.1 FIXED
            i=0; while [ ! -f {work}/host-tried ]; do i=$((i+1)); [ $i -gt 400 ] && break; sleep 0.05; done
            {probe} connect 127.0.0.1 $(cat {work}/port-any)
            {probe} connect 127.0.0.1 FIXED
            wait
            echo "ANY $(cat {work}/serve-any.out)"; echo "SET-PORT $(cat {work}/serve-fixed.out)"
            {probe} connect 127.0.0.1 NOTRELAYED
            {probe} connect 127.0.0.1 8899
            {probe} listen-reuse 8899; {probe} listen-reuseport 8899
            exit 0)SH");
        replace_word(script, "NOTRELAYED", std::to_string(not_relayed));
        replace_word(script, "FIXED", std::to_string(fixed));
        auto inside = std::async(std::launch::async, [&] { return run_confined(driver, w, script); });

        // While both servers listen inside, the host tries the same ports.
        const uint16_t any = wait_for_port(w.work + "/port-any");
        const uint16_t fixed_seen = wait_for_port(w.work + "/port-fixed");
        CHECK(fixed_seen == fixed);
        REQUIRE(any != 0);
        const std::string host_any = host_client(any), host_fixed = host_client(fixed);
        std::ofstream(w.work + "/host-tried") << "x";
        const RunOutcome r = inside.get();
        INFO(r.spawn_error << r.out << r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(host_fixed == "refused");                        // negative: not open on the host
        CHECK(host_any.find("inside-") == std::string::npos);  // negative: whatever else may hold it there

        const auto ok = lines_starting(r.out, "OK ");
        const std::string any_reply = "OK reply=inside-" + std::to_string(any);
        const std::string fixed_reply = "OK reply=inside-" + std::to_string(fixed);
        // Positive: the client inside reaches both, before and after the host's attempt.
        CHECK(lines_starting(r.out, any_reply).size() == 2);
        CHECK(lines_starting(r.out, fixed_reply).size() == 2);
        CHECK(lines_starting(r.out, "ANY OK served 2").size() == 1);  // the host's attempt never got in
        CHECK(lines_starting(r.out, "SET-PORT OK served 2").size() == 1);
        // A host listener on a port the policy does not relay: still out of reach.
        CHECK(lines_starting(r.out, "DENIED connect ECONNREFUSED").size() == 1);
        CHECK(r.out.find("hello-" + std::to_string(not_relayed)) == std::string::npos);
        // Positive: the relayed Surfnet port still reaches the host's service.
        CHECK(lines_starting(r.out, "OK reply=hello-8899").size() == 1);
        // The relay holds it: the command cannot listen there (SO_REUSEADDR),
        // nor share it (SO_REUSEPORT is refused to commands).
        CHECK(lines_starting(r.out, "DENIED listen EADDRINUSE").size() == 1);
        CHECK(lines_starting(r.out, "DENIED listen EPERM").size() == 1);
    }
}

TEST_CASE("a relayed port stays the relay's while nothing listens on the host", "[landlock][network][servers]") {
    require_landlock();
    World w;
    const ClosedLoopbackPort closed;
    const uint16_t relayed = closed.port();  // nothing on the host: the relay does not listen
    RunOptions options;
    options.loopback_ports = {relayed};
    std::string script = expand(w, R"SH(
        {probe} connect 127.0.0.1 PORT
        {probe} listen-reuse PORT; {probe} listen-reuseport PORT
        {probe} connect 127.0.0.1 PORT
        {probe} listen-reuse 0; exit 0)SH");
    replace_word(script, "PORT", std::to_string(relayed));
    const RunOutcome r = run_in_plugin(w, script, options);
    INFO(r.spawn_error << r.out << r.err);
    REQUIRE(r.exit_code == 0);
    // Refused as on the host, and still refused after the attempts to take it.
    CHECK(lines_starting(r.out, "DENIED connect ECONNREFUSED").size() == 2);
    // SO_REUSEADDR: the stopped relay socket still holds the port; the
    // relays share it with the task's other runs (SO_REUSEPORT), which
    // commands may not set.
    CHECK(lines_starting(r.out, "DENIED listen EADDRINUSE").size() == 1);
    CHECK(lines_starting(r.out, "DENIED listen EPERM").size() == 1);
    CHECK(r.out.find("reply=inside") == std::string::npos);
    CHECK(lines_starting(r.out, "OK listen").size() == 1);  // positive: any other port
}
