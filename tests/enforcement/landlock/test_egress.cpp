// The egress allowlist under landlock, through the real `oms run`: with
// [network] allow_hosts naming a host pinned to a test server on the host's
// 127.0.0.1, curl, npm and git reach it through oms's proxy (the one loopback
// port relayed besides the Surfnet's); a name not on the list, a name that
// resolves to loopback without a pin and a direct connection that bypasses
// the proxy are refused, and every refusal shows in the run's one-line
// summary and in `oms explain --last`; the proxy is gone when the run ends;
// without allow_hosts nothing of this exists (no proxy variables, no port).
#include "loopback_port.hpp"
#include "npm_test_registry.hpp"
#include "static_http_server.hpp"
#include "test_support.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>

using namespace oms::test;

namespace {

// pkg.test pinned to the host's 127.0.0.1, allowed on the test server's port
// only (a name pinned to loopback must name its port).
void allow_pinned(World& w, uint16_t port, const std::string& extra = "") {
    write_file(w.root / "xdg-config/oms/config.toml", "[network]\nallow_hosts = [\"pkg.test:" + std::to_string(port) +
                                                          "\"" + extra +
                                                          "]\npinned_addresses = { \"pkg.test\" = \"127.0.0.1\" }\n");
}

RunOutcome oms_command(World& w, const std::vector<std::string>& args) {
    auto result = run_process(args, {oms_world_env(w), std::nullopt, w.work, 120});
    return RunOutcome{OMS_OK, "", result.exit_code, result.out, result.err};
}

RunOutcome explain_last(World& w, bool json = false) {
    std::vector<std::string> args{oms_binary(), "explain", "--last"};
    if (json) args.push_back("--json");
    return oms_command(w, args);
}

bool host_port_open(uint16_t port) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const bool open = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    close(fd);
    return open;
}

// The port of "http://127.0.0.1:PORT" on a line "proxy=<that>", or 0.
uint16_t proxy_port_in(const std::string& out) {
    const auto at = out.find("proxy=http://127.0.0.1:");
    if (at == std::string::npos) return 0;
    return static_cast<uint16_t>(std::stoi(out.substr(at + 23)));
}

}  // namespace

TEST_CASE("egress: an allowed pinned name is reached through the proxy; other names, loopback and bypasses are refused and reported",
          "[landlock][network][egress]") {
    require_landlock();
    REQUIRE(oms_run_available());
    StaticHttpServer server(std::map<std::string, std::string>{{"/hello", "HELLO-THROUGH-PROXY\n"}});
    const std::string port = std::to_string(server.port());
    // Another service on the host's loopback: the pin does not open it.
    StaticHttpServer other_service(std::map<std::string, std::string>{{"/hello", "OTHER-SERVICE\n"}});
    const std::string other_port = std::to_string(other_service.port());
    World w;
    allow_pinned(w, server.port(), ", \"localhost\"");
    auto r = run_in_oms(w,
                        "echo proxy=$HTTP_PROXY; "
                        "curl -sS http://pkg.test:" + port + "/hello; echo plain=$?; "
                        "curl -sS -p http://pkg.test:" + port + "/hello; echo tunnel=$?; "
                        "curl -sS --proxy \"$ALL_PROXY\" http://pkg.test:" + port + "/hello; echo socks=$?; "
                        "curl -sS -f http://other.test:" + port + "/hello; echo other=$?; "
                        "curl -sS -f http://pkg.test:" + other_port + "/hello; echo other_port=$?; "
                        "curl -sS -f -p http://localhost:" + port + "/hello --noproxy ''; echo loopback=$?; "
                        "curl -sS --noproxy '*' http://127.0.0.1:" + port + "/hello; echo direct=$?; "
                        "curl -sS --noproxy '*' http://pkg.test:" + port + "/hello; echo direct_name=$?; "
                        "curl -sS --noproxy '*' http://192.0.2.10:" + port + "/hello; echo direct_off=$?");
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    // Through the proxy, by every protocol it speaks: the server answered.
    CHECK(lines_starting(r.out, "HELLO-THROUGH-PROXY").size() == 3);
    CHECK(lines_starting(r.out, "plain=0").size() == 1);
    CHECK(lines_starting(r.out, "tunnel=0").size() == 1);
    CHECK(lines_starting(r.out, "socks=0").size() == 1);
    // Refused by the proxy: HTTP 403, which curl -f turns into exit 22.
    CHECK(lines_starting(r.out, "other=22").size() == 1);
    CHECK(lines_starting(r.out, "other_port=22").size() == 1);
    CHECK(other_service.requests().empty());
    CHECK(lines_starting(r.out, "loopback=22").size() == 1);
    // Around the proxy: no route (7: cannot connect), no name (6: cannot resolve).
    CHECK(lines_starting(r.out, "direct=7").size() == 1);
    CHECK(lines_starting(r.out, "direct_name=6").size() == 1);
    CHECK(lines_starting(r.out, "direct_off=7").size() == 1);
    CHECK(server.requests().size() == 3);  // only the three that went through the proxy

    // The one-line summary names each refused host and its rule: the
    // proxy's three, then what the sandbox saw itself (the direct connects,
    // to the loopback and off it, and the name lookup around the proxy).
    const auto summary = lines_starting(r.err, "oms: network: 5 connections refused, 1 name lookup refused: ");
    REQUIRE(summary.size() == 1);
    CHECK_THAT(summary[0], Catch::Contains("other.test:" + port + " (not in allow_hosts)"));
    CHECK_THAT(summary[0], Catch::Contains("pkg.test:" + other_port + " (not in allow_hosts)"));
    CHECK_THAT(summary[0], Catch::Contains("localhost:" + port + " (resolves to 127.0.0.1 (loopback)"));

    auto last = explain_last(w);
    INFO(last.out << last.err);
    CHECK(last.exit_code == 0);
    CHECK_THAT(last.out, Catch::Contains("refused: 6"));
    CHECK_THAT(last.out, Catch::Contains("  other.test:" + port + "  not in allow_hosts  (egress-proxy)"));
    CHECK_THAT(last.out, Catch::Contains("  localhost:" + port + "  resolves to 127.0.0.1 (loopback)"));
    CHECK_THAT(last.out, Catch::Contains("  127.0.0.1:" + port + "  nothing listens there"));
    CHECK_THAT(last.out, Catch::Contains("  pkg.test  answered \"no such host\""));
    CHECK_THAT(last.out, Catch::Contains("  192.0.2.10:" + port + "  off the sandbox's loopback"));
    auto json = explain_last(w, true);
    CHECK_THAT(json.out, Catch::Contains("{\"host\":\"other.test\",\"port\":" + port + ",\"rule\":\"not in allow_hosts\""));

    // The proxy died with the run: its port no longer answers on the host.
    const uint16_t proxy = proxy_port_in(r.out);
    REQUIRE(proxy != 0);
    CHECK_FALSE(host_port_open(proxy));
}

TEST_CASE("egress: without allow_hosts no proxy, no variables, names unknown (the lookup reported)",
          "[landlock][network][egress]") {
    require_landlock();
    REQUIRE(oms_run_available());
    StaticHttpServer server(std::map<std::string, std::string>{{"/hello", "HELLO\n"}});
    const std::string port = std::to_string(server.port());
    World w;
    write_file(w.root / "xdg-config/oms/config.toml",
               "[network]\npinned_addresses = { \"pkg.test\" = \"127.0.0.1\" }\n");  // a pin alone allows nothing
    auto r = run_in_oms(w, "env | grep -ci '^[a-z_]*proxy='; curl -sS http://pkg.test:" + port + "/hello; echo curl=$?");
    INFO(r.out << r.err);
    CHECK(lines_starting(r.out, "0").size() == 1);  // no proxy variable at all
    CHECK(lines_starting(r.out, "curl=6").size() == 1);
    CHECK(server.requests().empty());
    // Only the run's resolver refused something: the name.
    CHECK(lines_starting(r.err, "oms: network: 1 name lookup refused: pkg.test (answered \"no such host\"").size() == 1);
    auto last = explain_last(w);
    CHECK_THAT(last.out, Catch::Contains("allow_hosts: none (no proxy ran)"));
    CHECK_THAT(last.out, Catch::Contains("refused: 1"));
    // Positive control: the same world with --allow-host reaches the server.
    auto allowed = oms_command(w, {oms_binary(), "run", "--sandbox", "landlock", "--worktree", w.work, "--allow-host",
                                   "pkg.test:" + port, "--", "curl", "-sS", "http://pkg.test:" + port + "/hello"});
    INFO(allowed.out << allowed.err);
    CHECK(allowed.out == "HELLO\n");
}

TEST_CASE("egress: npm install from a local registry pinned by name", "[landlock][network][egress][npm]") {
    require_landlock();
    REQUIRE(oms_run_available());
    INFO("npm, tar and sha1sum are needed on PATH (the measured tools of this test)");
    REQUIRE(run_process({"/bin/sh", "-c", "command -v npm && command -v tar && command -v sha1sum"}).exit_code == 0);
    World w;
    NpmTestRegistry registry(w.root / "npm", "pkg.test");
    registry.write_project(w.work);

    SECTION("allowed: installed, and the module loads") {
        allow_pinned(w, registry.port());
        auto r = run_in_oms(w, "npm install; echo npm=$?; node -e 'console.log(require(\"tiny-pkg\"))'");
        INFO(r.out << r.err);
        CHECK(lines_starting(r.out, "npm=0").size() == 1);
        CHECK(lines_starting(r.out, "TINY-PKG-LOADED").size() == 1);
        CHECK(read_file(w.work + "/node_modules/tiny-pkg/index.js") == NpmTestRegistry::kIndexJs);
        const auto requests = registry.server().requests();
        CHECK(std::count(requests.begin(), requests.end(), registry.tarball_request()) == 1);
    }
    SECTION("not allowed (the control): npm cannot even resolve the name") {
        auto r = run_in_oms(w, "npm install; echo npm=$?");
        INFO(r.out << r.err);
        CHECK(lines_starting(r.out, "npm=1").size() == 1);
        CHECK(r.err.find("ENOTFOUND pkg.test") != std::string::npos);
        CHECK_THAT(r.err, Catch::Contains("pkg.test (answered \"no such host\""));
        CHECK_FALSE(std::filesystem::exists(w.work + "/node_modules/tiny-pkg"));
        CHECK(registry.server().requests().empty());
    }
}

TEST_CASE("egress: git clone over HTTP from a pinned name", "[landlock][network][egress][git]") {
    require_landlock();
    REQUIRE(oms_run_available());
    World w;
    // A bare repository served as static files (git's dumb HTTP protocol).
    const std::string origin = w.root / "origin";
    const std::string bare = w.root / "served/repo.git";
    const std::string git = "git -c user.name=t -c user.email=t@t -c init.defaultBranch=main";
    REQUIRE(run_process({"/bin/sh", "-c",
                         "set -e; mkdir -p '" + origin + "'; cd '" + origin + "'; " + git + " init -q .; "
                         "echo CLONED-CONTENT > file.txt; " + git + " add file.txt; " + git + " commit -qm one; " +
                         git + " clone -q --bare . '" + bare + "'; cd '" + bare + "'; git update-server-info"})
                .exit_code == 0);
    std::map<std::string, std::string> files;
    for (auto& entry : std::filesystem::recursive_directory_iterator(bare))
        if (entry.is_regular_file())
            files["/repo.git/" + std::filesystem::relative(entry.path(), bare).string()] = read_file(entry.path());
    StaticHttpServer server(files);
    allow_pinned(w, server.port());
    const std::string url = "http://pkg.test:" + std::to_string(server.port()) + "/repo.git";
    auto r = run_in_oms(w, "git clone -q " + url + " cloned; echo git=$?; cat cloned/file.txt");
    INFO(r.out << r.err);
    CHECK(lines_starting(r.out, "git=0").size() == 1);
    CHECK(read_file(w.work + "/cloned/file.txt") == "CLONED-CONTENT\n");
    // The control: a name the list does not hold is refused, and reported.
    auto refused = run_in_oms(w, "git clone -q http://other.test:" + std::to_string(server.port()) +
                                     "/repo.git other; echo git=$?");
    INFO(refused.out << refused.err);
    CHECK(lines_starting(refused.out, "git=128").size() == 1);
    CHECK_FALSE(std::filesystem::exists(w.work + "/other/file.txt"));
    CHECK_THAT(refused.err, Catch::Contains("oms: network: 1 connection refused: other.test:"));
}
