// What oms writes for a refused connect the docker runner reports
// (src/connect_refusals.cpp): only the address and port are taken, the
// source and rule are oms's, and an address of the other kind (a loopback
// one said to have no route, or the reverse), a name or a port out of range
// adds nothing.
#include "connect_refusals.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

using namespace oms::docker;

namespace {

struct RefusalFile {
    char path[40] = "/tmp/oms-connect-refusals-XXXXXX";
    int fd = -1;
    RefusalFile() {
        const int made = mkstemp(path);
        REQUIRE(made >= 0);
        close(made);
        fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
        REQUIRE(fd >= 0);
    }
    ~RefusalFile() {
        close(fd);
        unlink(path);
    }
    std::string text() const {
        std::ifstream in(path);
        std::stringstream all;
        all << in.rdbuf();
        return all.str();
    }
};

}  // namespace

TEST_CASE("docker connect refusals: oms's source and rule, the runner's address and port", "[docker][unit]") {
    RefusalFile file;
    CHECK(append_connect_refusal(file.fd, RefusedConnect::no_route, "192.0.2.1", "8080"));
    CHECK(append_connect_refusal(file.fd, RefusedConnect::no_route, "2001:db8::1", "443"));
    CHECK(append_connect_refusal(file.fd, RefusedConnect::nothing_listens, "127.0.0.1", "9"));
    CHECK(append_connect_refusal(file.fd, RefusedConnect::nothing_listens, "::1", "9"));
    const std::string text = file.text();
    CHECK(text == std::string("refused\troute\t192.0.2.1\t8080\t") + kNoRouteRule + "\n" +
                      "refused\troute\t2001:db8::1\t443\t" + kNoRouteRule + "\n" +
                      "refused\tloopback\t127.0.0.1\t9\t" + kNothingListensRule + "\n" +
                      "refused\tloopback\t::1\t9\t" + kNothingListensRule + "\n");
}

TEST_CASE("docker connect refusals: the other kind of address, a name or a bad port adds nothing", "[docker][unit]") {
    RefusalFile file;
    CHECK_FALSE(append_connect_refusal(file.fd, RefusedConnect::no_route, "127.0.0.1", "80"));
    CHECK_FALSE(append_connect_refusal(file.fd, RefusedConnect::nothing_listens, "192.0.2.1", "80"));
    CHECK_FALSE(append_connect_refusal(file.fd, RefusedConnect::no_route, "example.com", "80"));
    CHECK_FALSE(append_connect_refusal(file.fd, RefusedConnect::no_route, "192.0.2.1", "65536"));
    CHECK_FALSE(append_connect_refusal(file.fd, RefusedConnect::no_route, "192.0.2.1", "-1"));
    CHECK_FALSE(append_connect_refusal(file.fd, RefusedConnect::no_route, "192.0.2.1", ""));
    const uint8_t unix_like[16] = {1};
    CHECK_FALSE(append_connect_refusal(file.fd, RefusedConnect::no_route, 1, unix_like, 80));
    CHECK(file.text().empty());
}
