// toolchain-roots: READ_ALLOW_TREE lists on a fake HOME with symlinks, a fake
// node, a linked git worktree, missing roots and duplicates.
#include "policy_test_support.hpp"
#include "npm_prefix.hpp"
#include "toolchain_roots.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>

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
//                 and worktrees/task/gitdir = T/task/.git (git's own layout)
// T/task          the linked worktree (the task), .git = "gitdir: T/repo/.git/worktrees/task"
// T/ro            a read-only mount; T/tools/surfpool-link -> T/tools/surfpool
// T lives in the build tree, not in /tmp: links inside /tmp (a write root)
// are ones a command could have made, and are not followed.
struct FakeMachine {
    TempDir tmp{std::string(OMS_UNIT_SCRATCH_DIR) + "/oms-toolchain-roots"};
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
        make_dirs(T + "/repo/.git/objects");
        write_file(T + "/repo/.git/worktrees/task/commondir", "../..\n");
        write_file(T + "/repo/.git/worktrees/task/gitdir", T + "/task/.git\n");
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
                           allow(m.T + "/ro", "read-only mount (--ro or sandbox.read_only)"),
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
    SECTION("relative gitdir and relative back pointer: git's own layout, followed") {
        write_file(m.T + "/sub/.git", "gitdir: ../repo/.git/worktrees/sub\n");
        write_file(m.T + "/repo/.git/worktrees/sub/commondir", "../..\n");
        write_file(m.T + "/repo/.git/worktrees/sub/gitdir", "../../../../sub/.git\n");
        m.context.worktree = m.T + "/sub";
        const Outcome out = m.run();
        REQUIRE(out.status == OMS_OK);
        CHECK(std::count(out.rules.begin(), out.rules.end(),
                         allow(m.T + "/repo/.git/worktrees/sub", "linked worktree git dir")) == 1);
        CHECK(std::count(out.rules.begin(), out.rules.end(), allow(m.T + "/repo/.git", "linked worktree common git dir")) ==
              1);
        CHECK(m.host.logs.empty());
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

// The .git file is in the worktree, where commands write: class 1 of the
// escape review. Each forged layout adds no git root and warns, naming the file.
TEST_CASE("toolchain-roots does not follow a forged .git file") {
    FakeMachine m;
    const std::string dot_git = m.T + "/task/.git";
    auto expect_refused = [&](const std::string& why) {
        const Outcome out = m.run();
        REQUIRE(out.status == OMS_OK);
        for (const auto& r : out.raw) {
            INFO(r.value);
            CHECK(r.origin.find("git dir") == std::string::npos);
            CHECK(r.value != m.H);
            CHECK(r.value != m.T);
        }
        REQUIRE(!m.host.logs.empty());
        CHECK_THAT(m.host.logs.back().second, Catch::Contains("the worktree's .git file '" + dot_git + "' is not followed"));
        CHECK_THAT(m.host.logs.back().second, Catch::Contains(why));
    };
    SECTION("gitdir: ../.. (the folder above the worktree)") {
        write_file(dot_git, "gitdir: ../..\n");
        expect_refused("is not <repository>/.git/worktrees/<name>");
    }
    SECTION("gitdir: HOME") {
        write_file(dot_git, "gitdir: " + m.H + "\n");
        expect_refused("is not <repository>/.git/worktrees/<name>");
    }
    SECTION("a real worktrees folder whose gitdir points at another worktree") {
        write_file(m.T + "/repo/.git/worktrees/task/gitdir", m.T + "/elsewhere/.git\n");
        expect_refused("does not point back at this worktree's .git");
    }
    SECTION("a planted <X>/worktrees/<name> whose commondir names HOME") {
        // Everything a command could plant under HOME-like folders it writes:
        // the back pointer holds, but commondir leads elsewhere.
        write_file(m.T + "/repo/.git/worktrees/task/commondir", m.H + "\n");
        expect_refused("does not name the repository");
    }
    SECTION("no commondir") {
        std::remove((m.T + "/repo/.git/worktrees/task/commondir").c_str());
        expect_refused("does not name the repository");
    }
    SECTION("a gitdir file that is a FIFO does not block the policy") {
        const std::string back = m.T + "/repo/.git/worktrees/task/gitdir";
        std::remove(back.c_str());
        REQUIRE(mkfifo(back.c_str(), 0600) == 0);
        expect_refused("does not point back at this worktree's .git");
    }
    SECTION("a gitdir file that is a link to the real one") {
        const std::string back = m.T + "/repo/.git/worktrees/task/gitdir";
        std::rename(back.c_str(), (m.T + "/elsewhere-gitdir").c_str());
        make_symlink(m.T + "/elsewhere-gitdir", back);
        expect_refused("does not point back at this worktree's .git");
    }
    SECTION("a .git that is a link to a file") {
        std::remove(dot_git.c_str());
        write_file(m.T + "/gitfile", "gitdir: " + m.T + "/repo/.git/worktrees/task\n");
        make_symlink(m.T + "/gitfile", dot_git);
        expect_refused("it is not a plain file");
    }
}

TEST_CASE("toolchain-roots refuses a linked worktree whose repository holds HOME") {
    // A valid layout whose repository folder is HOME's parent would open HOME.
    FakeMachine m;
    const std::string repo = m.T;  // T holds HOME
    write_file(repo + "/HEAD", "ref: refs/heads/main\n");
    make_dirs(repo + "/objects");
    write_file(repo + "/worktrees/w/commondir", "../..\n");
    write_file(repo + "/worktrees/w/gitdir", m.T + "/task/.git\n");
    write_file(m.T + "/task/.git", "gitdir: " + repo + "/worktrees/w\n");
    const Outcome out = m.run();
    REQUIRE(out.status == OMS_OK);
    CHECK(std::count(out.rules.begin(), out.rules.end(), allow(repo + "/worktrees/w", "linked worktree git dir")) == 1);
    for (const auto& r : out.raw) CHECK(r.value != repo);
    REQUIRE(!m.host.logs.empty());
    CHECK(m.host.logs.back().second == "linked worktree common git dir '" + repo +
                                           "' is not opened: it holds HOME (" + m.H + ")");
}

// Class 7: roots a command could swap, and roots that would open HOME.
TEST_CASE("toolchain-roots does not follow links a command could have made, nor open HOME") {
    FakeMachine m;
    auto rules_with = [&](const std::string& value) {
        m.host.logs.clear();
        const Outcome out = m.run();
        REQUIRE(out.status == OMS_OK);
        for (const auto& log : m.host.logs) UNSCOPED_INFO(log.second);
        return std::count_if(out.raw.begin(), out.raw.end(), [&](const auto& r) { return r.value == value; });
    };
    SECTION("a PATH entry inside the worktree swapped for a link to HOME") {
        make_symlink(m.H, m.T + "/task/bin");
        m.context.parent_env = {"HOME=" + m.H, "PATH=" + m.T + "/task/bin:" + m.H + "/.cargo/bin"};
        CHECK(rules_with(m.H) == 0);
        CHECK(rules_with(m.H + "/.cargo/bin") == 1);  // positive control: a normal entry still opens
        REQUIRE(m.host.logs.size() == 1);
        CHECK(m.host.logs[0].second == "PATH entry '" + m.T + "/task/bin' is not opened: it goes through the link '" +
                                           m.T + "/task/bin' inside the write root '" + m.T +
                                           "/task', which a command could have made");
    }
    SECTION("a link deeper inside the worktree, to a harmless folder, is refused too") {
        make_dirs(m.T + "/task/tools/real");
        make_symlink(m.T + "/tools", m.T + "/task/tools/link");
        m.context.parent_env = {"HOME=" + m.H, "PATH=" + m.T + "/task/tools/link:" + m.T + "/task/tools/real"};
        CHECK(rules_with(m.T + "/tools") == 0);
        CHECK(rules_with(m.T + "/task/tools/real") == 1);
    }
    SECTION("a node link inside the worktree does not make its target a root") {
        make_dirs(m.T + "/task/bin");
        make_executable(m.H + "/secret-stuff/bin/node");
        make_symlink(m.H + "/secret-stuff/bin/node", m.T + "/task/bin/node");
        m.context.parent_env = {"HOME=" + m.H, "PATH=" + m.T + "/task/bin"};
        CHECK(rules_with(m.H + "/secret-stuff") == 0);
        CHECK(rules_with(m.T + "/task/bin") == 1);
    }
    SECTION("CARGO_HOME and --ro inside the worktree, swapped for links") {
        make_symlink(m.H, m.T + "/task/cargo");
        make_symlink(m.H + "/.ssh", m.T + "/task/ro");
        make_dirs(m.H + "/.ssh");
        m.context.parent_env.push_back("CARGO_HOME=" + m.T + "/task/cargo");
        m.context.read_only = {m.T + "/task/ro"};
        CHECK(rules_with(m.H) == 0);
        CHECK(rules_with(m.H + "/.ssh") == 0);
        CHECK(m.host.logs.size() == 2);
    }
    SECTION("PATH entries that are HOME, / or above HOME") {
        m.context.parent_env = {"HOME=" + m.H, "PATH=" + m.H + ":/:" + m.T + ":" + m.H + "/.cargo/bin"};
        CHECK(rules_with(m.H) == 0);
        CHECK(rules_with("/") == 0);
        CHECK(rules_with(m.T) == 0);
        CHECK(rules_with(m.H + "/.cargo/bin") == 1);
        REQUIRE(m.host.logs.size() == 3);
        CHECK(m.host.logs[0].second == "PATH entry '" + m.H + "' is not opened: it is HOME (" + m.H + ")");
        CHECK(m.host.logs[1].second == "PATH entry '/' is not opened: it is the root folder '/'");
        CHECK(m.host.logs[2].second == "PATH entry '" + m.T + "' is not opened: it holds HOME (" + m.H + ")");
    }
    SECTION("a config extra that holds a secret folder, and one that is a link to HOME") {
        make_dirs(m.H + "/.config/gh");
        make_dirs(m.H + "/.config/mytool");
        make_symlink(m.H, m.T + "/home-link");
        m.host.string_arrays["extra"] = {"~/.config", m.T + "/home-link", "~/.config/mytool"};
        CHECK(rules_with(m.H + "/.config") == 0);
        CHECK(rules_with(m.H) == 0);
        CHECK(rules_with(m.H + "/.config/mytool") == 1);
        REQUIRE(m.host.logs.size() == 2);
        CHECK(m.host.logs[0].second == "extra (config) '" + m.H + "/.config' is not opened: it holds the secret folder " +
                                           m.H + "/.config/gh");
        CHECK(m.host.logs[1].second == "extra (config) '" + m.T + "/home-link' (resolves to '" + m.H +
                                           "') is not opened: it is HOME (" + m.H + ")");
    }
    SECTION("a PATH entry in /tmp reached through a link there") {
        TempDir in_tmp("oms-toolchain-tmp");
        make_dirs(in_tmp / "real");
        make_symlink(in_tmp / "real", in_tmp / "link");
        m.context.parent_env = {"HOME=" + m.H, "PATH=" + (in_tmp / "link") + ":" + (in_tmp / "real")};
        CHECK(rules_with(in_tmp / "real") == 1);  // the plain entry
        REQUIRE(m.host.logs.size() == 1);
        CHECK_THAT(m.host.logs[0].second, Catch::Contains("inside the write root '/tmp'"));
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

TEST_CASE("npm's prefix is the last prefix= line of ~/.npmrc, with HOME spelled out, absolute only") {
    using oms::policies::npmrc_prefix_of;
    CHECK(npmrc_prefix_of("prefix=~/.npm-global\n", "/h") == "/h/.npm-global");
    CHECK(npmrc_prefix_of("; comment\n  prefix = \"${HOME}/npm\"  \r\n", "/h") == "/h/npm");
    CHECK(npmrc_prefix_of("prefix=$HOME/a\nprefix=/opt/npm\n", "/h") == "/opt/npm");
    CHECK(npmrc_prefix_of("//registry.npmjs.org/:_authToken=abc\n", "/h") == std::nullopt);
    CHECK(npmrc_prefix_of("# prefix=/opt/npm\n", "/h") == std::nullopt);
    CHECK(npmrc_prefix_of("prefix=relative/npm\n", "/h") == std::nullopt);
    CHECK(npmrc_prefix_of("prefixes=/opt/npm\n", "/h") == std::nullopt);
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
