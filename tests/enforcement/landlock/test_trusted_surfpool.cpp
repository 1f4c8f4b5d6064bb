// The trusted Surfpool session (issue 11, item 2) through the real
// `oms run --sandbox landlock --surfpool PATH`: the named binary, run as the
// command, listens on a Surfpool port and reaches the host's listener on
// another; a copy of it, a script that starts it, or another program is
// refused before anything runs, and without --surfpool the same binary is an
// ordinary command (no listening; only the Surfnet port). The ports are free
// ones configured as the network plugin's, not 8899/8900/9900.
#include "loopback_port.hpp"
#include "isolation_support.hpp"
#include "test_support.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <mutex>
#include <thread>

using namespace oms::test;

namespace {

// A host listener on 127.0.0.1 that records each line and answers "hello-<line>".
class LineListener {
public:
    LineListener() {
        fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t size = sizeof a;
        if (bind(fd_, reinterpret_cast<sockaddr*>(&a), size) != 0 || listen(fd_, 8) != 0 ||
            getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &size) != 0)
            FAIL("cannot listen");
        port_ = ntohs(a.sin_port);
        thread_ = std::thread([this] {
            for (int client; (client = accept(fd_, nullptr, nullptr)) >= 0;) {
                pollfd ready{client, POLLIN, 0};
                std::string line;
                char c;
                while (poll(&ready, 1, 3000) == 1 && read(client, &c, 1) == 1 && c != '\n') line += c;
                {
                    std::lock_guard<std::mutex> lock(mutex_);
                    lines_.push_back(line);
                }
                const std::string reply = "hello-" + line + "\n";
                (void)!write(client, reply.data(), reply.size());
                close(client);
            }
        });
    }
    ~LineListener() {
        shutdown(fd_, SHUT_RDWR);
        close(fd_);
        thread_.join();
    }
    int port() const { return port_; }
    std::vector<std::string> lines() {
        std::lock_guard<std::mutex> lock(mutex_);
        return lines_;
    }

private:
    int fd_ = -1, port_ = 0;
    std::thread thread_;
    std::mutex mutex_;
    std::vector<std::string> lines_;
};

void install(const std::string& from, const std::string& to) {
    std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
    chmod(to.c_str(), 0755);
}

}  // namespace

TEST_CASE("through oms: only the trusted Surfpool binary listens and uses the Surfpool ports",
          "[landlock][network][surfpool]") {
    require_landlock();
    if (!oms_run_available()) FAIL(oms_binary() << " cannot run commands: the --surfpool check cannot run");
    World w;
    LineListener faucet;                  // the host's listener on a second Surfpool port
    const int rpc = unused_loopback_port();        // the port the stand-in listens on
    const ClosedLoopbackPort closed;
    const int surfnet = closed.port();             // the Surfnet port (nothing listens)
    write_file(w.root / "xdg-config/oms/config.toml",
               "[plugin.network]\nsurfnet_port = " + std::to_string(surfnet) + "\nsurfpool_ports = [" +
                   std::to_string(rpc) + ", " + std::to_string(faucet.port()) + "]\n");
    auto env = environment_with({{"HOME", w.home},
                                 {"XDG_CONFIG_HOME", w.root / "xdg-config"},
                                 {"XDG_STATE_HOME", w.root / "xdg-state"},
                                 {"PATH", "/usr/bin:/bin"}});
    const std::string surfpool = w.work + "/bin/surfpool";
    const std::string copy = w.work + "/bin/surfpool-copy";
    const std::string script = w.work + "/bin/start-surfpool";
    std::filesystem::create_directories(w.work + "/bin");
    install(OMS_SURFPOOL_STANDIN, surfpool);
    install(OMS_SURFPOOL_STANDIN, copy);  // the same bytes, another file
    write_file(script, "#!/bin/sh\nexec " + surfpool + " \"$@\"\n");
    chmod(script.c_str(), 0755);
    auto oms = [&](std::vector<std::string> args) {
        std::vector<std::string> argv{oms_binary(), "run", "--sandbox", "landlock", "--worktree", w.work};
        argv.insert(argv.end(), args.begin(), args.end());
        return run_process(argv, {env, std::nullopt, w.work, 60});
    };
    const std::vector<std::string> session{"surfpool", std::to_string(rpc), std::to_string(faucet.port()), "mk"};

    // Positive: the binary named by --surfpool listens on its port (and is
    // reached there) and connects to the host's listener on another.
    std::vector<std::string> trusted{"--surfpool", surfpool, "--", surfpool};
    trusted.insert(trusted.end(), session.begin(), session.end());
    auto ok = oms(trusted);
    INFO(ok.out << ok.err);
    CHECK(ok.exit_code == 0);
    CHECK(ok.out == "OK listen\nOK reply=hello-self\nOK reply=hello-mk\n");
    CHECK(faucet.lines() == std::vector<std::string>{"mk"});  // host side: the marker arrived

    // The same through the config key, the binary found on PATH.
    write_file(w.root / "xdg-config/oms/config.toml",
               "[sandbox]\nsurfpool = \"" + surfpool + "\"\n[plugin.network]\nsurfnet_port = " +
                   std::to_string(surfnet) + "\nsurfpool_ports = [" + std::to_string(rpc) + ", " +
                   std::to_string(faucet.port()) + "]\n");
    auto env_path = env;
    for (auto& entry : env_path)
        if (entry.rfind("PATH=", 0) == 0) entry = "PATH=" + w.work + "/bin:/usr/bin:/bin";
    std::vector<std::string> by_name{oms_binary(), "run", "--sandbox", "landlock", "--worktree", w.work, "--",
                                     "surfpool"};
    by_name.insert(by_name.end(), session.begin() + 1, session.end());
    by_name.insert(by_name.begin() + 7, "surfpool");  // argv: surfpool surfpool RPC FAUCET mk
    auto configured = run_process(by_name, {env_path, std::nullopt, w.work, 60});
    INFO(configured.out << configured.err);
    CHECK(configured.out == "OK listen\nOK reply=hello-self\nOK reply=hello-mk\n");
    CHECK(faucet.lines().size() == 2);

    // A copy, a script that starts it, and another program: refused before
    // anything runs (the host listener sees nothing more).
    for (const std::string& command : {copy, script, std::string("/bin/sh")}) {
        std::vector<std::string> argv{"--surfpool", surfpool, "--", command};
        if (command == "/bin/sh") argv.insert(argv.end(), {"-c", surfpool + " surfpool 1 1 x"});
        else argv.insert(argv.end(), session.begin(), session.end());
        auto refused = oms(argv);
        INFO(command << ": " << refused.out << refused.err);
        CHECK(refused.exit_code == 77);
        CHECK(has(refused.err, "is not that binary"));
        CHECK(refused.out.empty());
    }
    CHECK(faucet.lines().size() == 2);

    // Ordinary runs: the config key names the binary, but a script starting
    // it or a copy is not it: it stays in the run's private network
    // namespace, where it may listen (its own loopback, which nothing
    // outside reaches: it answers only itself) but not reach the host's
    // Surfpool port; the Surfnet port is still allowed (it refuses: nobody
    // listens there on the host).
    for (const std::string& command : {script, copy}) {
        std::vector<std::string> argv{"--", command};
        argv.insert(argv.end(), session.begin(), session.end());
        auto ordinary = oms(argv);
        INFO(command << ": " << ordinary.out << ordinary.err);
        CHECK(ordinary.exit_code == 0);
        CHECK(ordinary.out.rfind("OK listen\nOK reply=hello-self\n", 0) == 0);  // private loopback
        CHECK(has(ordinary.out, "DENIED connect"));  // the host's listener is out of reach
        auto surfnet_try = oms({"--", command, "connect", "127.0.0.1", std::to_string(surfnet), "s"});
        // Relayed, and refused on the host (the landlock relay ends it with a
        // reset or an end: either way no reply).
        CHECK(surfnet_try.out.rfind("DENIED ", 0) == 0);
    }
    CHECK(faucet.lines().size() == 2);
}

TEST_CASE("landlock plugin: the trusted listener is the file itself, whatever name reaches it",
          "[landlock][network][surfpool]") {
    require_landlock();
    World w;
    const int port = unused_loopback_port();
    const std::string binary = w.work + "/bin/surfpool";
    std::filesystem::create_directories(w.work + "/bin");
    std::filesystem::create_directories(w.work + "/elsewhere");
    install(OMS_SURFPOOL_STANDIN, binary);
    install(OMS_SURFPOOL_STANDIN, w.work + "/elsewhere/surfpool");  // a copy: same bytes, another inode
    REQUIRE(link(binary.c_str(), (w.work + "/bin/hard-link").c_str()) == 0);
    std::filesystem::create_symlink(binary, w.work + "/bin/sym-link");
    FakeHost host;
    LandlockPlugin plugin(host);
    // The policy names the binary, as the network plugin does; the core's
    // own check is not involved here.
    auto run = [&](const std::string& program) {
        ContextBuilder context = default_context(w, {program, "listen", std::to_string(port)});
        PolicyBuilder policy = default_policy(w);
        policy.add(OMS_RULE_NET_CONNECT_LOOPBACK, "", port);
        policy.add(OMS_RULE_NET_LISTEN_LOOPBACK, binary, 0);
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
    CHECK(run(binary) == "OK listen\n");                    // positive
    CHECK(run(w.work + "/bin/hard-link") == "OK listen\n");  // the same file under another name
    CHECK(run(w.work + "/bin/sym-link") == "OK listen\n");   // a link to it
    // A copy is another file: it runs in a private network namespace where
    // the relay holds the policy's loopback port, so it cannot take it.
    CHECK(run(w.work + "/elsewhere/surfpool") == "DENIED listen EADDRINUSE\n");
}
