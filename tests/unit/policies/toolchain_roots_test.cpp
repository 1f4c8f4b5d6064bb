// toolchain-roots: READ_ALLOW_TREE lists on a fake HOME with symlinks, a fake
// node, a linked git worktree, missing roots and duplicates.
#include "policy_test_support.hpp"
#include "toolchain_roots.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>

using namespace oms::test;
using oms::policies::ToolchainRoots;

namespace {

std::string allow(const std::string& path, const std::string& reason) {
    return rule(OMS_RULE_READ_ALLOW_TREE, path, "toolchain-roots: " + reason);
}

// T/home          the fake HOME: .cargo/bin, .rustup, .local/share/solana, .nvm with node,
//                 .volta -> T/volta-real; no .avm, .bun or .fnm
// T/bin           a PATH folder whose `node` links into nvm; T/link-bin -> T/bin
// T/repo/.git     the main repository, with worktrees/task/commondir = "../.."
// T/task          the linked worktree (the task), .git = "gitdir: T/repo/.git/worktrees/task"
// T/ro            a read-only mount; T/tools/surfpool-link -> T/tools/surfpool
struct FakeMachine {
    TempDir tmp{"oms-toolchain-roots"};
    FakeHost host;
    ContextBuilder context;
    std::string T = tmp.path();
    std::string H = T + "/home";
    std::string node_root = H + "/.nvm/versions/node/v20.11.0";

    FakeMachine() {
        for (const char* dir : {".cargo/bin", ".rustup/toolchains", ".local/share/solana/install"}) make_dirs(H + "/" + dir);
        make_executable(node_root + "/bin/node");
        make_dirs(T + "/volta-real/bin");
        make_symlink(T + "/volta-real", H + "/.volta");
        make_symlink(node_root + "/bin/node", T + "/bin/node");
        make_symlink(T + "/bin", T + "/link-bin");
        write_file(T + "/repo/.git/HEAD", "ref: refs/heads/main\n");
        write_file(T + "/repo/.git/worktrees/task/commondir", "../..\n");
        write_file(T + "/repo/.git/worktrees/task/HEAD", "ref: refs/heads/task\n");
        write_file(T + "/task/.git", "gitdir: " + T + "/repo/.git/worktrees/task\n");
        make_dirs(T + "/ro");
        make_executable(T + "/tools/surfpool");
        make_symlink(T + "/tools/surfpool", T + "/tools/surfpool-link");

        context.home = H;
        context.worktree = T + "/task";
        context.private_home = T + "/run/home";
        context.temp_dir = T + "/run/home/tmp";
        context.parent_env = {"HOME=" + H,
                              "PATH=" + T + "/bin:" + H + "/.cargo/bin:" + T + "/missing:relative::" + T +
                                  "/link-bin:" + T + "/bin"};
    }
    Outcome run() { return run_policy<ToolchainRoots>(host, context); }
};

}  // namespace

TEST_CASE("toolchain-roots lists existing roots once, resolved, with their reasons") {
    FakeMachine m;
    m.context.read_only = {m.T + "/ro", m.T + "/ro-missing"};
    m.context.surfpool = m.T + "/tools/surfpool-link";
    const Outcome out = m.run();
    REQUIRE(out.status == OMS_OK);
    CHECK(out.rules == std::vector<std::string>{
                           allow(m.T + "/task", "worktree"),
                           allow(m.node_root, "node install root"),
                           allow(m.H + "/.cargo", "toolchain folder ~/.cargo"),
                           allow(m.H + "/.rustup", "toolchain folder ~/.rustup"),
                           allow(m.H + "/.local/share/solana", "toolchain folder ~/.local/share/solana"),
                           allow(m.H + "/.nvm", "toolchain folder ~/.nvm"),
                           allow(m.T + "/volta-real", "toolchain folder ~/.volta"),  // symlink resolved
                           allow(m.T + "/bin", "PATH entry"),  // T/link-bin and the second T/bin: same root
                           allow(m.H + "/.cargo/bin", "PATH entry"),
                           allow(m.T + "/repo/.git/worktrees/task", "linked worktree git dir"),
                           allow(m.T + "/repo/.git", "linked worktree common git dir"),
                           allow(m.T + "/ro", "read-only mount"),
                           allow(m.T + "/tools/surfpool", "Surfpool binary"),
                       });
    // The missing mount is named in a warning rather than silently dropped.
    REQUIRE(m.host.logs.size() == 1);
    CHECK(m.host.logs[0].second == "read-only mount '" + m.T + "/ro-missing' does not exist; skipped");
}

TEST_CASE("toolchain-roots never emits missing roots") {
    FakeMachine m;
    const Outcome out = m.run();
    REQUIRE(out.status == OMS_OK);
    // Positive control: the fake HOME's existing folders are there.
    CHECK(std::count(out.rules.begin(), out.rules.end(), allow(m.H + "/.cargo", "toolchain folder ~/.cargo")) == 1);
    for (const auto& r : out.raw) {
        INFO(r.value);
        for (const char* absent : {"/.avm", "/.bun", "/.fnm", "/missing", "relative"})
            CHECK(r.value.find(absent) == std::string::npos);
        CHECK(r.value.rfind("/", 0) == 0);  // absolute, never the relative PATH entries
    }
}

TEST_CASE("toolchain-roots finds node only as an executable on the caller's PATH") {
    FakeMachine m;
    SECTION("no PATH: no node root, no PATH entries") {
        m.context.parent_env = {"HOME=" + m.H};
        const Outcome out = m.run();
        REQUIRE(out.status == OMS_OK);
        CHECK(std::count(out.rules.begin(), out.rules.end(), allow(m.node_root, "node install root")) == 0);
        CHECK(std::count(out.rules.begin(), out.rules.end(), allow(m.H + "/.nvm", "toolchain folder ~/.nvm")) == 1);
    }
    SECTION("a node outside a bin folder: its own folder is the root") {
        make_executable(m.T + "/opt-node/node");
        m.context.parent_env = {"PATH=" + m.T + "/opt-node"};
        const Outcome out = m.run();
        REQUIRE(out.status == OMS_OK);
        CHECK(out.rules.at(1) == allow(m.T + "/opt-node", "node install root"));
    }
    SECTION("a node that is not executable is skipped for the next one") {
        write_file(m.T + "/plain/node", "not a program");
        m.context.parent_env = {"PATH=" + m.T + "/plain:" + m.T + "/bin"};
        const Outcome out = m.run();
        REQUIRE(out.status == OMS_OK);
        CHECK(out.rules.at(1) == allow(m.node_root, "node install root"));
    }
}

TEST_CASE("toolchain-roots follows a relative gitdir and ignores an ordinary .git folder") {
    FakeMachine m;
    SECTION("relative gitdir, no commondir") {
        write_file(m.T + "/sub/.git", "gitdir: ../repo/.git/worktrees/task\n");
        std::remove((m.T + "/repo/.git/worktrees/task/commondir").c_str());
        m.context.worktree = m.T + "/sub";
        const Outcome out = m.run();
        REQUIRE(out.status == OMS_OK);
        CHECK(std::count(out.rules.begin(), out.rules.end(),
                         allow(m.T + "/repo/.git/worktrees/task", "linked worktree git dir")) == 1);
        for (const auto& r : out.rules) CHECK(r.find("common git dir") == std::string::npos);
    }
    SECTION("ordinary repository: the worktree already covers .git") {
        m.context.worktree = m.T + "/repo";
        const Outcome out = m.run();
        REQUIRE(out.status == OMS_OK);
        CHECK(out.rules.at(0) == allow(m.T + "/repo", "worktree"));
        for (const auto& r : out.rules) CHECK(r.find("git dir") == std::string::npos);
    }
    SECTION("a gitdir that does not exist adds nothing") {
        write_file(m.T + "/task/.git", "gitdir: " + m.T + "/nowhere\n");
        const Outcome out = m.run();
        REQUIRE(out.status == OMS_OK);
        for (const auto& r : out.rules) CHECK(r.find("git dir") == std::string::npos);
    }
}

TEST_CASE("toolchain-roots honours CARGO_HOME, RUSTUP_HOME and config extra") {
    FakeMachine m;
    make_dirs(m.T + "/cargo-elsewhere");
    make_dirs(m.H + "/.config/mytool");
    m.context.parent_env.push_back("CARGO_HOME=" + m.T + "/cargo-elsewhere");
    m.context.parent_env.push_back("RUSTUP_HOME=" + m.H + "/.rustup");  // same as ~/.rustup: once
    m.host.string_arrays["extra"] = {"~/.config/mytool", m.T + "/extra-missing"};
    const Outcome out = m.run();
    REQUIRE(out.status == OMS_OK);
    CHECK(std::count(out.rules.begin(), out.rules.end(), allow(m.T + "/cargo-elsewhere", "$CARGO_HOME")) == 1);
    CHECK(std::count(out.rules.begin(), out.rules.end(), allow(m.H + "/.rustup", "toolchain folder ~/.rustup")) == 1);
    CHECK(out.rules.back() == allow(m.H + "/.config/mytool", "extra (config)"));
    for (const auto& r : out.raw) CHECK(r.value.find("extra-missing") == std::string::npos);
}

TEST_CASE("toolchain-roots refuses a relative extra entry before adding any rule") {
    FakeMachine m;
    m.host.string_arrays["extra"] = {"tools/bin"};
    const Outcome out = m.run();
    CHECK(out.status == OMS_ERR_INVALID);
    CHECK(out.error == "[plugin.toolchain-roots] extra: 'tools/bin' is not an absolute path (use /... or ~/...)");
    CHECK(out.rules.empty());
}

TEST_CASE("the built oms-toolchain-roots.so exports the same plugin") {
    LoadedPlugin plugin(OMS_PLUGIN_FILE);
    CHECK(std::string(plugin.descriptor().id) == "toolchain-roots");
    CHECK(std::string(plugin.descriptor().kind) == OMS_KIND_POLICY);
    CHECK(plugin.key_summary() == std::vector<std::string>{"extra"});
    FakeMachine m;
    const Outcome loaded = plugin.contribute(m.host, m.context);
    const Outcome direct = m.run();
    REQUIRE(loaded.status == OMS_OK);
    CHECK(loaded.rules.size() >= 10);
    CHECK(loaded.rules == direct.rules);
}
