// Under docker as under landlock, a masked file that is not a Solana keypair
// is named once, at the start of the first run that hides it, with what lets
// commands read it (docker grants no keypair_exempt, so the line says so); a
// real keypair gets no line. The files stay hidden either way. One-shot and warm, on the real daemon.
#include "docker_fixture.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace oms::test;
using namespace oms::test::docker;

namespace {

std::string solana_keypair_text() {
    std::string text = "[";
    for (int i = 0; i < 64; ++i) text += (i ? "," : "") + std::to_string((i * 53 + 7) % 256);
    return text + "]";
}

size_t lines_naming(const FakeHost& host, const std::string& path) {
    size_t count = 0;
    for (const auto& [level, line] : host.logs)
        if (line.find("hid " + path + " (matches") != std::string::npos) ++count;
    return count;
}

}  // namespace

TEST_CASE("docker names a hidden look-alike keypair once, and says docker grants no exemption", "[docker]") {
    require_daemon();
    for (const bool warm : {false, true}) {
        DYNAMIC_SECTION((warm ? "warm" : "one-shot")) {
            Task t(warm);
            const std::string locale = t.worktree + "/locales/id.json";
            const std::string real_key = t.worktree + "/deploy-keypair.json";
            write_file(locale, "{\"hello\": \"LOCALE-7c1e\"}");
            write_file(real_key, solana_keypair_text());
            Outcome o = t.sh("cat README locales/id.json deploy-keypair.json target/deploy/prog-keypair.json; true");
            INFO(o.error << o.out << o.err);
            REQUIRE(o.status == OMS_OK);
            CHECK(o.out.find("readme") != std::string::npos);  // positive control: the worktree is read
            // Hidden all the same.
            CHECK(o.out.find("LOCALE-7c1e") == std::string::npos);
            CHECK(o.out.find(solana_keypair_text()) == std::string::npos);
            CHECK(o.out.find("SECRETKEY") == std::string::npos);
            // Named once each: the locale file and the fixture's stand-in, no keypair.
            CHECK(lines_naming(t.host, locale) == 1);
            CHECK(lines_naming(t.host, t.worktree + "/target/deploy/prog-keypair.json") == 1);
            CHECK(lines_naming(t.host, real_key) == 0);
            bool says_no_exemption = false;
            for (const auto& [level, line] : t.host.logs)
                if (line.find("hid " + locale) != std::string::npos)
                    says_no_exemption = level == OMS_LOG_WARN &&
                                        line.find("(matches */id.json but is not a Solana keypair)") != std::string::npos &&
                                        line.find("grants no keypair_exempt") != std::string::npos;
            CHECK(says_no_exemption);
            // The next command of the task: still hidden, not named again.
            Outcome next = t.sh("cat README locales/id.json; true");
            INFO(next.error << next.out << next.err);
            REQUIRE(next.status == OMS_OK);
            CHECK(next.out.find("readme") != std::string::npos);
            CHECK(next.out.find("LOCALE-7c1e") == std::string::npos);
            CHECK(lines_naming(t.host, locale) == 1);
            t.end_task();
        }
    }
}
