// The scan keeper's message framing: a peer that claims the largest message
// and sends a few bytes costs the receiver no more than what arrived (found
// by fuzzing: a 64 MB buffer was made before the first byte), measured as
// the peak resident size of a child; whole messages still arrive whole.
#include "keeper_protocol.hpp"

#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cstring>

using namespace oms::landlock;
using namespace oms::sdk;

namespace {

// The receiver's view of a peer that wrote `length` as the size, then
// `bytes`, then closed its end.
struct Received {
    bool ok = false;
    std::string bytes;
};

Received receive_from_peer(uint32_t length, const std::string& bytes) {
    int ends[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, ends) == 0);
    std::string sent(reinterpret_cast<const char*>(&length), sizeof length);
    sent += bytes;
    REQUIRE(write(ends[0], sent.data(), sent.size()) == static_cast<ssize_t>(sent.size()));
    close(ends[0]);
    Received out;
    out.ok = receive_message(ends[1], out.bytes);
    close(ends[1]);
    return out;
}

// How far receiving raises the peak resident size, in a child of its own.
long peak_growth_kb_of_receiving(uint32_t length, const std::string& bytes) {
    int report[2];
    REQUIRE(pipe(report) == 0);
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        rusage before{}, after{};
        getrusage(RUSAGE_SELF, &before);
        int ends[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, ends) != 0) _exit(1);
        std::string sent(reinterpret_cast<const char*>(&length), sizeof length);
        sent += bytes;
        if (write(ends[0], sent.data(), sent.size()) != static_cast<ssize_t>(sent.size())) _exit(1);
        close(ends[0]);
        std::string received;
        const bool ok = receive_message(ends[1], received);
        getrusage(RUSAGE_SELF, &after);
        const long growth = ok ? -1 : after.ru_maxrss - before.ru_maxrss;  // -1: it should have failed
        _exit(write(report[1], &growth, sizeof growth) == sizeof growth ? 0 : 1);
    }
    close(report[1]);
    long growth = -2;
    const ssize_t got = read(report[0], &growth, sizeof growth);
    close(report[0]);
    int status = 0;
    waitpid(child, &status, 0);
    REQUIRE(got == static_cast<ssize_t>(sizeof growth));
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
    return growth;
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kResidentSizeMeaningful = false;  // ASan's allocator and shadow say nothing of ours
#else
constexpr bool kResidentSizeMeaningful = true;
#endif

}  // namespace

TEST_CASE("keeper messages: a whole message arrives whole; one cut short fails", "[scan-keeper]") {
    const std::string message(200000, 'm');  // more than one piece of the receiver's
    const Received whole = receive_from_peer(static_cast<uint32_t>(message.size()), message);
    CHECK(whole.ok);
    CHECK(whole.bytes == message);
    CHECK_FALSE(receive_from_peer(static_cast<uint32_t>(message.size()), message.substr(0, 1000)).ok);
    CHECK_FALSE(receive_from_peer(kKeeperMaxMessage + 1, "").ok);  // over the bound: refused at once
}

TEST_CASE("keeper messages: a peer that claims 64 MB and sends 10 bytes costs the receiver no 64 MB", "[scan-keeper]") {
    const long growth_kb = peak_growth_kb_of_receiving(kKeeperMaxMessage, "ten bytes!");
    REQUIRE(growth_kb >= 0);  // the receive failed, as it must
    if (kResidentSizeMeaningful) CHECK(growth_kb < 8 * 1024);
}
