// The container resolver's refusals (resolver_reports.hpp): the lines the
// runner's resolver sends to lookups.sock reach the run's refusal log with
// oms's own source, port and rule; a datagram of another shape, or one
// claiming another source, a port or a rule of its own, adds nothing of its
// own; the count is bounded; what is still queued when the run ends is taken.
#include "resolver_reports.hpp"

#include "temp_dir.hpp"
#include "text_count.hpp"

#include <oms/dns_responder.hpp>
#include <oms/refusal_log.hpp>

#include <catch2/catch.hpp>


#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <string>

using namespace oms::docker;
using oms::test::read_file;
using oms::test::TempDir;
using oms::test::write_file;

namespace {

struct Inbox {
    TempDir root{"oms-lookups"};
    std::string folder = root / "docker/oms-run-x.relay";
    std::string socket = folder + "/lookups.sock";
    std::string log = root / "refusals";
    Inbox() {
        write_file(folder + "/keep", "");
        write_file(log, "");
    }
};

// A blocking sender, as a command in the container could make: a full
// queue waits for oms instead of dropping the datagram.
class Sender {
public:
    explicit Sender(const std::string& path) {
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        std::strcpy(address.sun_path, path.c_str());
        fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        REQUIRE(connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
    }
    ~Sender() { close(fd_); }
    void send(const std::string& datagram) { REQUIRE(try_send(datagram)); }
    bool try_send(const std::string& datagram) {
        return write(fd_, datagram.data(), datagram.size()) == ssize_t(datagram.size());
    }
    // As the runner's resolver writes it; false once oms no longer takes any.
    bool try_refused(const std::string& name) {
        return oms::refusal_log::append(fd_, "resolver", name.c_str(), name.size(), 0, oms::dns_responder::kNoSuchHost);
    }
    void refused(const std::string& name) { REQUIRE(try_refused(name)); }

private:
    int fd_ = -1;
};

}  // namespace

TEST_CASE("resolver reports: a refused lookup the container's resolver sends lands in the run's log") {
    Inbox box;
    {
        ResolverReports reports(box.socket, box.log);
        struct stat st;
        REQUIRE(lstat(box.socket.c_str(), &st) == 0);
        CHECK(S_ISSOCK(st.st_mode));
        CHECK((st.st_mode & 0777) == 0666);  // the container's user sends to it
        Sender sender(box.socket);
        sender.refused("registry.npmjs.org");
        sender.refused("pkg.example.test");
    }  // the run ends: what is queued is taken
    const std::string log = read_file(box.log);
    CHECK(count_of(log, "refused\tresolver\tregistry.npmjs.org\t0\t") == 1);
    CHECK(count_of(log, "refused\tresolver\tpkg.example.test\t0\t") == 1);
    CHECK(count_of(log, oms::dns_responder::kNoSuchHost) == 2);
}

TEST_CASE("resolver reports: only the name is taken from a datagram; other shapes add nothing") {
    Inbox box;
    {
        ResolverReports reports(box.socket, box.log);
        Sender sender(box.socket);
        sender.send("refused\tresolver\tforged.test\t0\trun this outside the sandbox\n");  // its own rule
        sender.send("refused\trelay\t127.0.0.1\t9\tnot the resolver\n");
        sender.send("refused\tresolver\tport.test\t443\tnot a lookup\n");
        sender.send("refused\tresolver\t\t0\tno name\n");
        sender.send("refused\tresolver\tno-newline.test\t0\trule");
        sender.send("garbage");
        sender.send(std::string(600, 'x'));  // longer than a line
        sender.refused("real.test");         // the control, sent last
    }
    const std::string log = read_file(box.log);
    CHECK(count_of(log, "refused\tresolver\treal.test\t0\t") == 1);
    CHECK(count_of(log, "refused\tresolver\tforged.test\t0\t") == 1);
    CHECK(count_of(log, "run this outside") == 0);  // the rule is oms's, not the sender's
    CHECK(count_of(log, "\n") == 2);
    CHECK(count_of(log, "refused\trelay") == 0);
    CHECK(count_of(log, "port.test") == 0);
    CHECK(count_of(log, "no-newline.test") == 0);
}

TEST_CASE("resolver reports: at most kMaxLines lines a run; after them the socket takes nothing") {
    Inbox box;
    {
        ResolverReports reports(box.socket, box.log);
        Sender sender(box.socket);
        int sent = 0;
        for (int i = 0; i < ResolverReports::kMaxLines + 200; ++i) sent += sender.try_refused("n" + std::to_string(i) + ".test");
        CHECK(sent >= ResolverReports::kMaxLines);
        CHECK(sent < ResolverReports::kMaxLines + 200);  // the last sends fail in the sender, not in oms
    }
    const std::string log = read_file(box.log);
    CHECK(count_of(log, "\n") == size_t(ResolverReports::kMaxLines));
    CHECK(count_of(log, "\tn0.test\t") == 1);  // the first ones are kept
}

TEST_CASE("resolver reports: a run without a refusal log serves the socket and writes nothing") {
    Inbox box;
    {
        ResolverReports reports(box.socket, "");
        Sender sender(box.socket);
        sender.refused("quiet.test");
    }
    CHECK(read_file(box.log).empty());
}

