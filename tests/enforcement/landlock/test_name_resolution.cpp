// Name resolution fails at once and clearly: in a run with its own network,
// getaddrinfo of any name /etc/hosts does not know gives EAI_NONAME ("no such
// host") within a second, also while the command holds idle connections to
// the responder (over TCP) and with no resolv.conf to cover (glibc's default
// 127.0.0.1, over UDP); localhost still resolves; the host's resolv.conf is
// never changed; a trusted-listener run (host network) keeps the host's resolver.
#include "test_support.hpp"

#include <unistd.h>

#include <chrono>
#include <sstream>

using namespace oms::test;

namespace {

// The milliseconds a "DENIED resolve EAI_x <ms> (...)" or "OK resolved <addr> <ms>" line reports.
long reported_ms(const std::string& line) {
    std::istringstream words(line);
    std::string word, previous;
    for (int i = 0; i < 4 && words >> word; ++i) previous = word;
    return std::stol(previous);
}

// Landlock, a binary that runs commands, and npm on PATH (the measured tool).
void require_npm_run() {
    require_landlock();
    REQUIRE(oms_run_available());
    INFO("npm is needed on PATH (the measured tool of this test)");
    REQUIRE(run_process({"/bin/sh", "-c", "command -v npm"}).exit_code == 0);
}

}  // namespace

TEST_CASE("an unknown name fails at once with EAI_NONAME, localhost resolves", "[landlock][network][dns]") {
    require_landlock();
    const std::string host_resolv = read_file("/etc/resolv.conf");
    FOR_EACH_DRIVER(driver) {
        World w;
        const auto start = std::chrono::steady_clock::now();
        auto r = run_confined(driver, w, expand(w, R"SH(
            {probe} resolve example.com; {probe} resolve registry.npmjs.org
            {probe} resolve localhost
            RES_OPTIONS=use-vc {probe} resolve example.org 20
            getent hosts example.com; echo "getent=$?"
            grep -c '^nameserver 127.0.0.1$' /etc/resolv.conf
            echo 'nameserver 10.0.0.1' >> /etc/resolv.conf || echo resolv-conf-read-only
            exit 0)SH"));
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        INFO(r.spawn_error << r.out << r.err);
        REQUIRE(r.exit_code == 0);
        const auto refused = lines_starting(r.out, "DENIED resolve ");
        REQUIRE(refused.size() == 3);
        for (const std::string& line : refused) {
            INFO(line);
            CHECK(line.rfind("DENIED resolve EAI_NONAME ", 0) == 0);  // "no such host", not EAI_AGAIN
            CHECK(reported_ms(line) < 1000);
        }
        // Positive: /etc/hosts still answers.
        const auto resolved = lines_starting(r.out, "OK resolved ");
        REQUIRE(resolved.size() == 1);
        CHECK(resolved[0].rfind("OK resolved 127.0.0.1 ", 0) == 0);
        CHECK(lines_starting(r.out, "getent=2").size() == 1);  // getent: "not found"
        CHECK(lines_starting(r.out, "1").size() == 1);         // the sandbox's resolv.conf
        CHECK(lines_starting(r.out, "resolv-conf-read-only").size() == 1);
        CHECK(seconds < 10);  // the whole run, four lookups and getent included
    }
    CHECK(read_file("/etc/resolv.conf") == host_resolv);  // the host's file is untouched
}

TEST_CASE("with no resolv.conf to cover, glibc's default 127.0.0.1 gets the same answer", "[landlock][network][dns]") {
    require_landlock();
    World w;
    RunOptions options;
    options.hide = {"/etc/resolv.conf"};  // an empty file inside: as a link into a hidden folder
    auto r = run_in_plugin(w, expand(w, "wc -c < /etc/resolv.conf; {probe} resolve example.com; exit 0"), options);
    INFO(r.spawn_error << r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(lines_starting(r.out, "0").size() == 1);
    const auto refused = lines_starting(r.out, "DENIED resolve ");
    REQUIRE(refused.size() == 1);
    CHECK(refused[0].rfind("DENIED resolve EAI_NONAME ", 0) == 0);
    CHECK(reported_ms(refused[0]) < 1000);
}

TEST_CASE("a trusted-listener run keeps the host's resolver", "[landlock][network][dns]") {
    require_landlock();
    World w;
    RunOptions options;
    options.argv = {probe_tool(), "print-file", "/etc/resolv.conf"};
    options.extra_rules = {{OMS_RULE_NET_LISTEN_LOOPBACK, probe_tool()}};
    auto trusted = run_in_plugin(w, "", options);
    INFO(trusted.spawn_error << trusted.out << trusted.err);
    CHECK(trusted.out == "OK content=" + read_file("/etc/resolv.conf") + "\n");
    // Positive control: any other program gets the sandbox's.
    options.extra_rules.clear();
    auto ordinary = run_in_plugin(w, "", options);
    CHECK(ordinary.out.find("nameserver 127.0.0.1") != std::string::npos);
}

TEST_CASE("npm install stops at once with ENOTFOUND, the private HOME's .npmrc has no retries",
          "[landlock][network][dns][npm]") {
    require_npm_run();
    World w;
    write_file(w.work + "/package.json", R"({"name":"t","version":"1.0.0","dependencies":{"left-pad":"1.3.0"}})");
    const auto start = std::chrono::steady_clock::now();
    auto r = run_in_oms(w, "cat \"$HOME/.npmrc\"; npm config get fetch-retries; npm install; echo \"npm=$?\"");
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(lines_starting(r.out, "fetch-retries=0").size() == 1);
    CHECK(lines_starting(r.out, "0").size() == 1);  // npm reads it
    CHECK(lines_starting(r.out, "npm=1").size() == 1);
    CHECK(r.err.find("ENOTFOUND registry.npmjs.org") != std::string::npos);  // "no such host", said clearly
    CHECK(r.err.find("EAI_AGAIN") == std::string::npos);
    CHECK(seconds < 15);  // was 72 s: npm's retries, 10 s then 60 s
}

TEST_CASE("an npm command that needs no registry ends with no refused lookup: the private .npmrc turns the update "
          "check off",
          "[landlock][network][dns][npm]") {
    require_npm_run();
    World w;
    write_file(w.work + "/package.json", R"({"name":"t","version":"1.0.0"})");
    const std::string script = "npm ls >/dev/null; echo \"npm=$?\"";
    auto quiet = run_in_oms(w, script);
    INFO(quiet.out << quiet.err);
    REQUIRE(quiet.exit_code == 0);
    CHECK(lines_starting(quiet.out, "npm=0").size() == 1);
    CHECK(quiet.err.find("registry.npmjs.org") == std::string::npos);
    CHECK(quiet.err.find("oms: network:") == std::string::npos);
    // Control: the project's .npmrc turns the check back on, and the same
    // command's lookup is seen and reported (so the silence above is npm's).
    write_file(w.work + "/.npmrc", "update-notifier=true\n");
    auto checked = run_in_oms(w, script);
    INFO(checked.out << checked.err);
    CHECK(lines_starting(checked.out, "npm=0").size() == 1);
    CHECK_THAT(checked.err, Catch::Contains("name lookup refused: registry.npmjs.org"));
}
