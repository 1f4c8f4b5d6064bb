// spawn, signal, wait and release through the plugin's C ABI, with a fake
// sandbox-exec that records what it was given (see fake_sandbox_exec.cpp).
// Enforcement itself needs a Mac; here we check everything oms controls:
// the argument vector, the profile file, the environment, the cwd, the
// signal state, the descriptors, exit codes and signal forwarding.
#include "loaded_plugin.hpp"
#include "policy_fixture.hpp"
#include "launcher.hpp"
#include "sbpl_profile.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <sstream>
#include <thread>
#include <unistd.h>

using namespace oms::test;
using namespace oms::test::seatbelt;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> split_nul(const std::string& text) {
    std::vector<std::string> out;
    std::string item;
    for (char c : text) {
        if (c == '\0') {
            out.push_back(item);
            item.clear();
        } else {
            item += c;
        }
    }
    return out;
}

// A run's world: a fake HOME with awkward bytes, its worktree and the run's
// temp folder, the policy, the context, and the loaded plugin.
struct Session {
    // Not in /tmp: some sections plant keypair files with two names, and
    // tests of --rw /tmp walk /tmp, where such a file stops their runs.
    TempDir root{"oms-seatbelt", "/var/tmp"};
    std::string home = root / "home \"q\" [x] ü";
    Layout layout = layout_under(home, true);
    PolicyBuilder policy;
    ContextBuilder context;
    std::unique_ptr<LoadedPlugin> plugin;
    std::string out_path = root / "stdout";
    std::string state_dir = root / "state";
    std::string profile_folder = state_dir + "/seatbelt-profiles";

    explicit Session(const char* platform = "macos")
        : platform_env_("OMS_SEATBELT_PLATFORM", platform),
          exec_env_("OMS_SEATBELT_EXEC", OMS_FAKE_SANDBOX_EXEC),
          nested_env_("APP_SANDBOX_CONTAINER_ID", nullptr) {
        layout.temp_dir = root / "run/tmp";
        layout.private_home = root / "run/home";
        for (const auto& dir : {layout.worktree, layout.temp_dir, layout.private_home, state_dir}) make_dirs(dir);
        policy = mirror_policy(layout);
        context.platform = "macos";
        context.home = home;
        context.worktree = layout.worktree;
        context.private_home = layout.private_home;
        context.temp_dir = layout.temp_dir;
        context.state_dir = state_dir;
        plugin = std::make_unique<LoadedPlugin>();
    }

    struct Started {
        oms_status status;
        std::string error;
        void* run = nullptr;
    };

    Started start(std::vector<std::string> argv) {
        context.argv = std::move(argv);
        const int in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
        const int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        ErrorBuffer error;
        Started started;
        started.status = plugin->api().spawn(plugin->instance(), context.build(), policy.build(),
                                             oms_stdio{in, out, out}, &started.run, error.get());
        started.error = error.message();
        ::close(in);
        ::close(out);
        return started;
    }

    int finish(void* run) {
        int32_t code = -1;
        ErrorBuffer error;
        REQUIRE(plugin->api().wait(plugin->instance(), run, &code, error.get()) == OMS_OK);
        plugin->api().release(plugin->instance(), run);
        return code;
    }

    int run(std::vector<std::string> argv) {
        auto started = start(std::move(argv));
        INFO(started.error);
        REQUIRE(started.status == OMS_OK);
        return finish(started.run);
    }

    // The record the fake sandbox-exec left for the (only) profile of this session.
    std::string record(const std::string& suffix) const {
        for (const auto& entry : fs::directory_iterator(profile_folder)) {
            const std::string name = entry.path().string();
            if (name.size() > suffix.size() + 3 && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
                return read_file(name);
        }
        FAIL("no record " << suffix << " in " << profile_folder);
        return {};
    }

    std::string profile_path() const {
        const std::string args = record(".sb.args");
        const auto items = split_nul(args);
        for (size_t i = 0; i + 1 < items.size(); ++i)
            if (items[i] == "-f") return items[i + 1];
        return {};
    }

private:
    ScopedEnv platform_env_, exec_env_, nested_env_;
};

}  // namespace

TEST_CASE("spawn runs sandbox-exec with the rendered profile and its parameters", "[seatbelt][spawn]") {
    Session session;
    REQUIRE(session.run({"/bin/true"}) == 0);
    const std::string profile_file = session.profile_path();
    // In oms's state folder, which no command may write, never in the run's
    // temp folder, which every Seatbelt run may write.
    CHECK(fs::path(profile_file).parent_path() == fs::path(session.profile_folder));
    CHECK((fs::status(session.profile_folder).permissions() & fs::perms::all) == fs::perms::owner_all);
    for (const std::string& writable : {session.layout.temp_dir, session.layout.worktree, session.layout.private_home})
        CHECK(profile_file.rfind(writable + "/", 0) != 0);
    const auto expected = oms::seatbelt::render_profile(rules_of(session.policy), &oms::seatbelt::resolve_on_this_machine);
    CHECK(session.record(".sb.copy") == expected.text);
    CHECK(session.record(".sb.mode") == std::to_string(0600));
    const auto argv = split_nul(session.record(".sb.args"));
    CHECK(argv == oms::seatbelt::sandbox_exec_argv(OMS_FAKE_SANDBOX_EXEC, profile_file, expected.parameters, {"/bin/true"}));
    // The HOME with quotes, brackets and non-ASCII bytes arrived as one exact -D value.
    bool home_passed = false;
    for (const auto& arg : argv) home_passed |= arg.find("=" + session.home) != std::string::npos && arg.size() > 0;
    CHECK(home_passed);
    // The profile file is the run's: removed when the run is released.
    CHECK_FALSE(exists(profile_file));
}

TEST_CASE("the command gets exactly the policy's environment", "[seatbelt][spawn]") {
    ScopedEnv secret("AWS_SECRET_ACCESS_KEY", "do-not-leak");
    Session session;
    session.policy.env.push_back("SURFNET_RPC_URL=http://127.0.0.1:8899");
    REQUIRE(session.run({"/usr/bin/env"}) == 0);
    const auto seen_by_sandbox_exec = split_nul(session.record(".sb.env"));
    CHECK(seen_by_sandbox_exec == session.policy.env);
    std::vector<std::string> printed;
    std::istringstream lines(read_file(session.out_path));
    for (std::string line; std::getline(lines, line);) printed.push_back(line);
    CHECK(printed == session.policy.env);  // positive control: the allowed names are there
    CHECK(read_file(session.out_path).find("AWS_SECRET_ACCESS_KEY") == std::string::npos);
}

TEST_CASE("the command starts in the worktree with default signal state and only 0, 1, 2 open", "[seatbelt][spawn]") {
    Session session;
    // oms blocks these in its threads; the command must not inherit that.
    sigset_t blocked, previous;
    sigemptyset(&blocked);
    sigaddset(&blocked, SIGTERM);
    sigaddset(&blocked, SIGINT);
    REQUIRE(::pthread_sigmask(SIG_BLOCK, &blocked, &previous) == 0);
    auto old_hup = ::signal(SIGHUP, SIG_IGN);
    const int leaked = ::open("/dev/null", O_RDONLY);  // no O_CLOEXEC on purpose
    // Positive controls: the test process really has them blocked, ignored and open.
    CHECK(read_file("/proc/self/status").find("SigBlk:\t0000000000000000") == std::string::npos);
    CHECK(::fcntl(leaked, F_GETFD) >= 0);

    const int code = session.run({"/bin/true"});
    ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    ::signal(SIGHUP, old_hup);
    ::close(leaked);

    CHECK(code == 0);
    CHECK(session.record(".sb.cwd") == session.layout.worktree);
    CHECK(session.record(".sb.signals") == "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n");
    CHECK(session.record(".sb.fds") == "0\n1\n2\n");
}

TEST_CASE("stdout is the descriptor oms passes", "[seatbelt][spawn]") {
    Session session;
    REQUIRE(session.run({"/bin/echo", "hello from the command"}) == 0);
    CHECK(read_file(session.out_path) == "hello from the command\n");
}

TEST_CASE("exit codes and deaths by signal", "[seatbelt][spawn]") {
    Session session;
    CHECK(session.run({"/bin/sh", "-c", "exit 7"}) == 7);
    CHECK(session.run({"/bin/sh", "-c", "kill -TERM $$"}) == 128 + SIGTERM);
    CHECK(session.run({"/bin/sh", "-c", "exit 0"}) == 0);
}

TEST_CASE("signals reach the command", "[seatbelt][spawn]") {
    Session session;
    auto started = session.start({"/bin/sleep", "30"});
    REQUIRE(started.status == OMS_OK);
    const auto begin = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    CHECK(session.plugin->api().signal(session.plugin->instance(), started.run, SIGINT) == OMS_OK);
    CHECK(session.finish(started.run) == 128 + SIGINT);
    CHECK(std::chrono::steady_clock::now() - begin < std::chrono::seconds(10));
}

TEST_CASE("releasing a run without waiting ends the command", "[seatbelt][spawn]") {
    Session session;
    auto started = session.start({"/bin/sleep", "30"});
    REQUIRE(started.status == OMS_OK);
    std::string pid_text;
    for (int i = 0; i < 100 && pid_text.empty(); ++i) {
        for (const auto& entry : fs::directory_iterator(session.profile_folder))
            if (entry.path().extension() == ".pid") pid_text = read_file(entry.path().string());
        if (pid_text.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    REQUIRE_FALSE(pid_text.empty());
    const pid_t pid = std::stoi(pid_text);
    CHECK(::kill(pid, 0) == 0);  // positive control: it is running
    session.plugin->api().release(session.plugin->instance(), started.run);
    CHECK(::kill(pid, 0) == -1);
}

TEST_CASE("spawn fails closed where Seatbelt cannot run", "[seatbelt][spawn]") {
    SECTION("not macOS") {
        Session session("linux");
        const std::string marker = session.root / "ran";
        auto started = session.start({"/usr/bin/touch", marker});
        CHECK(started.status == OMS_ERR_UNAVAILABLE);
        CHECK(started.error == "not macOS");
        CHECK_FALSE(exists(marker));
    }
    SECTION("already confined") {
        Session session;
        ScopedEnv nested("APP_SANDBOX_CONTAINER_ID", "com.example.app");
        const std::string marker = session.root / "ran";
        auto started = session.start({"/usr/bin/touch", marker});
        CHECK(started.status == OMS_ERR_UNAVAILABLE);
        CHECK_FALSE(exists(marker));
    }
    SECTION("sandbox-exec missing") {
        Session session;
        ScopedEnv exec("OMS_SEATBELT_EXEC", "/nonexistent/sandbox-exec");
        auto started = session.start({"/usr/bin/touch", session.root / "ran"});
        CHECK(started.status == OMS_ERR_UNAVAILABLE);
        CHECK(started.error == "sandbox-exec not found at /nonexistent/sandbox-exec");
    }
    SECTION("positive control: the same command runs when Seatbelt is usable") {
        Session session;
        const std::string marker = session.root / "ran";
        REQUIRE(session.run({"/usr/bin/touch", marker}) == 0);
        CHECK(exists(marker));
    }
}

TEST_CASE("a worktree that cannot be entered is an error, not a run elsewhere", "[seatbelt][spawn]") {
    Session session;
    session.context.worktree = session.root / "missing-worktree";
    auto started = session.start({"/bin/true"});
    CHECK(started.status == OMS_ERR_FAILED);
    CHECK(started.error.find("No such file or directory") != std::string::npos);
    // The profile file of the failed start is cleaned up.
    for (const auto& entry : fs::directory_iterator(session.profile_folder))
        CHECK(entry.path().extension() != ".sb");
}

TEST_CASE("the command starts in the context's working_dir; one outside the worktree is refused", "[seatbelt][spawn]") {
    Session session;
    const std::string sub = session.layout.worktree + "/app";
    make_dirs(sub);
    session.context.working_dir = sub;
    CHECK(session.run({"/bin/true"}) == 0);
    CHECK(session.record(".sb.cwd") == sub);

    Session outside;
    outside.context.working_dir = outside.layout.temp_dir;
    auto started = outside.start({"/bin/true"});
    CHECK(started.status == OMS_ERR_INVALID);
    CHECK(started.error.find("is not inside the worktree") != std::string::npos);
}

TEST_CASE("a command name starting with '-' is refused", "[seatbelt][spawn]") {
    Session session;
    auto started = session.start({"-f", "/etc/passwd"});
    CHECK(started.status == OMS_ERR_INVALID);
}

// A path rule denies a keypair by its name; the file under a second name, or
// the file a keypair-named link writes into, it cannot see. Such a worktree
// stops the run before sandbox-exec starts; the same worktree with a plain
// keypair file runs (the control).
TEST_CASE("a keypair with a second name, or a keypair name that is a link to a file, stops the run",
          "[seatbelt][spawn]") {
    // The profile folder is made on the way to sandbox-exec: nothing got that far.
    const auto no_launch = [](const Session& session) { CHECK_FALSE(fs::exists(session.profile_folder)); };
    SECTION("a hard link planted beside an empty keypair file") {
        Session session;
        const std::string keypair = session.layout.worktree + "/target/deploy/prog-keypair.json";
        write_file(keypair, "[1,2,3]");
        REQUIRE(::link(keypair.c_str(), (session.layout.worktree + "/notes.txt").c_str()) == 0);
        auto started = session.start({"/bin/true"});
        CHECK(started.status == OMS_ERR_FAILED);
        CHECK(started.error.find("seatbelt: keypair names that a mask cannot hide alone: ") != std::string::npos);
        CHECK(started.error.find(keypair + " (a file with 2 names, also " + session.layout.worktree + "/notes.txt)") !=
              std::string::npos);
        no_launch(session);
    }
    SECTION("a keypair name that is a link to a harmless file") {
        Session session;
        write_file(session.layout.worktree + "/notes.txt", "notes");
        make_dirs(session.layout.worktree + "/target/deploy");
        const std::string keypair = session.layout.worktree + "/target/deploy/prog-keypair.json";
        REQUIRE(::symlink("../../notes.txt", keypair.c_str()) == 0);
        auto started = session.start({"/bin/true"});
        CHECK(started.status == OMS_ERR_FAILED);
        CHECK(started.error.find("seatbelt: keypair names that a mask cannot hide alone: ") != std::string::npos);
        CHECK(started.error.find(keypair + " (a link to ") != std::string::npos);
        no_launch(session);
    }
    SECTION("control: a plain keypair file, and an exempt one with a second name, run") {
        Session session;
        write_file(session.layout.worktree + "/target/deploy/prog-keypair.json", "[1,2,3]");
        const std::string exempt = session.layout.worktree + "/fixtures/test-keypair.json";
        write_file(exempt, "[4,5,6]");
        REQUIRE(::link(exempt.c_str(), (session.layout.worktree + "/fixtures/copy.txt").c_str()) == 0);
        session.policy.add(OMS_RULE_READ_ALLOW_TREE, exempt);  // the user's keypair_exempt: readable anyway
        CHECK(session.run({"/bin/true"}) == 0);
    }
}

// A case-insensitive file system makes a capitalised keypair name the file
// the user's `cp` writes; a keypair name that is a link out of the worktree
// sends the copy where the command reads (all outside HOME).
TEST_CASE("a capitalised keypair with a second name, or a keypair name linked out of the worktree, stops the run",
          "[seatbelt][spawn]") {
    SECTION("capitals") {
        Session session;
        const std::string shouting = session.layout.worktree + "/target/deploy/PROG-KEYPAIR.JSON";
        write_file(shouting, "");
        REQUIRE(::link(shouting.c_str(), (session.layout.worktree + "/notes.txt").c_str()) == 0);
        auto started = session.start({"/bin/true"});
        CHECK(started.status == OMS_ERR_FAILED);
        CHECK(started.error.find(shouting) != std::string::npos);
        CHECK_FALSE(fs::exists(session.profile_folder));
    }
    SECTION("a link out of the worktree") {
        Session session;
        make_dirs(session.root / "outside");
        make_dirs(session.layout.worktree + "/target/deploy");
        const std::string keypair = session.layout.worktree + "/target/deploy/prog-keypair.json";
        REQUIRE(::symlink((session.root / "outside").c_str(), keypair.c_str()) == 0);
        auto started = session.start({"/bin/true"});
        CHECK(started.status == OMS_ERR_FAILED);
        // The folder it leads to is searched too (a worktree link leads there), so the link is judged as one
        // to a folder.
        CHECK(started.error.find(keypair + " (a link to the folder ") != std::string::npos);
        CHECK_FALSE(fs::exists(session.profile_folder));
    }
}

// A folder link without a keypair name leads the user's `cp` of a key out of
// the worktree, into a folder where a command planted a second name.
TEST_CASE("a second name planted where a worktree link leads stops the run", "[seatbelt][spawn]") {
    Session session;
    const std::string away = session.root / "away";
    write_file(away + "/prog-keypair.json", "");
    REQUIRE(::link((away + "/prog-keypair.json").c_str(), (away + "/notes").c_str()) == 0);
    make_dirs(session.layout.worktree + "/target");
    REQUIRE(::symlink(away.c_str(), (session.layout.worktree + "/target/deploy").c_str()) == 0);
    auto started = session.start({"/bin/true"});
    CHECK(started.status == OMS_ERR_FAILED);
    CHECK(started.error.find(away + "/prog-keypair.json (a file with 2 names") != std::string::npos);
    CHECK_FALSE(fs::exists(session.profile_folder));
}
