// The refusal file between a backend and oms (oms/refusal_log.hpp): what the
// SDK's writer appends is what the core's reader takes back, bytes a command
// chose are made printable, lines of another shape are skipped, and the
// run's summary counts connections and name lookups apart.
#include "oms/core/violation_log.hpp"
#include "temp_dir.hpp"

#include <oms/refusal_log.hpp>

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

using namespace oms::core;
using oms::test::TempDir;

TEST_CASE("refusal file: lines the SDK appends are read back, with their source, host, port and rule") {
    TempDir dir("oms-refusals");
    const std::string path = dir / "refusals";
    oms::test::write_file(path, "");
    const int fd = oms::refusal_log::open_for_append(path.c_str());
    REQUIRE(fd >= 0);
    CHECK(oms::refusal_log::append(fd, "resolver", "pkg.test", static_cast<size_t>(-1), 0, "no such host"));
    const char odd[] = {'a', '\t', 'b', '\n', '\x1b', 'c'};  // a tab, a newline, an escape: kept out
    CHECK(oms::refusal_log::append(fd, "loopback", odd, sizeof odd, 8899, "nothing listens"));
    CHECK(oms::refusal_log::append(fd, "egress-proxy", "other.test", static_cast<size_t>(-1), 80, "not allowed"));
    close(fd);
    const auto lines = parse_refusal_lines(oms::test::read_file(path));
    REQUIRE(lines.size() == 3);
    CHECK(lines[0].source == "resolver");
    CHECK(lines[0].host == "pkg.test");
    CHECK(lines[0].port == 0);
    CHECK(lines[0].rule == "no such host");
    CHECK(lines[1].host == "a?b??c");
    CHECK(lines[1].port == 8899);

    // The proxy's own lines are in memory already: only the backend's are added.
    ViolationLog log;
    CHECK(log.add_backend_refusals(path) == 2);
    CHECK(log.count() == 2);
}

TEST_CASE("refusal file: a line of another shape is skipped; a missing file adds nothing") {
    const auto lines = parse_refusal_lines("refused\tresolver\tok.test\t0\trule\n"
                                           "refused\ttoo\tfew\t1\n"
                                           "refused\tx\th\t99999\trule\n"
                                           "refused\tx\th\t-1\trule\n"
                                           "other\tx\th\t1\trule\n"
                                           "refused\tx\tcut.test\t1\tno newline");
    REQUIRE(lines.size() == 1);
    CHECK(lines[0].host == "ok.test");
    ViolationLog log;
    CHECK(log.add_backend_refusals("/nonexistent/refusals") == 0);
}

TEST_CASE("refusal summary: connections and name lookups counted apart, a lookup without a port") {
    ViolationLog log;
    log.record(Violation{"egress-proxy", "other.test", 80, "not in allow_hosts"});
    CHECK(refusal_summary(log) ==
          "oms: network: 1 connection refused: other.test:80 (not in allow_hosts) (all of them: oms explain --last)");
    log.record(Violation{"resolver", "pkg.test", 0, "no such host"});
    CHECK(refusal_summary(log) == "oms: network: 1 connection refused, 1 name lookup refused: other.test:80 "
                                  "(not in allow_hosts); pkg.test (no such host) (all of them: oms explain --last)");
    ViolationLog lookups;
    lookups.record(Violation{"resolver", "a.test", 0, "r"});
    lookups.record(Violation{"resolver", "b.test", 0, "r"});
    CHECK(refusal_summary(lookups) ==
          "oms: network: 2 name lookups refused: a.test (r); b.test (r) (all of them: oms explain --last)");
}

TEST_CASE("the live file: each refusal recorded is appended as it happens") {
    TempDir dir("oms-refusals");
    const std::string path = dir / "refusals";
    oms::test::write_file(path, "");
    ViolationLog log(path);
    log.record(Violation{"egress-proxy", "other.test", 443, "not in allow_hosts"});
    CHECK(oms::test::read_file(path) == "refused\tegress-proxy\tother.test\t443\tnot in allow_hosts\n");
    CHECK(log.add_backend_refusals(path) == 0);  // the proxy's, in memory already
    CHECK(log.count() == 1);
}
