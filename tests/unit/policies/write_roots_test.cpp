// write-roots: exact WRITE_ALLOW_TREE / WRITE_DENY / WRITE_DENY_NAME lists on a fake HOME with
// Cargo caches, read-write mounts, ordinary and linked worktrees and pinned files.
#include "policy_test_support.hpp"
#include "write_roots.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

using namespace oms::test;
using oms::policies::WriteRoots;

namespace {

std::string allow(const std::string& path, const std::string& reason) {
    return rule(OMS_RULE_WRITE_ALLOW_TREE, path, "write-roots: " + reason);
}
std::string deny(const std::string& path, const std::string& reason) {
    return rule(OMS_RULE_WRITE_DENY, path, "write-roots: " + reason);
}
std::string scratch(const std::string& path, const std::string& reason) {
    return rule(OMS_RULE_WRITE_SCRATCH_TREE, path, "write-roots: " + reason);
}
// Given after the task's own .git, whether it exists or not.
std::string nested_git() { return rule(OMS_RULE_WRITE_DENY_NAME, ".git", "write-roots: every nested .git"); }

// A Cargo home with registry/{cache,index,src} and no git folder: the
// download caches written through, the extracted sources in a per-run layer.
std::vector<std::string> cargo_rules(const std::string& cargo_home) {
    return {allow(cargo_home + "/registry/cache", "Cargo download cache registry/cache"),
            allow(cargo_home + "/registry/index", "Cargo download cache registry/index"),
            scratch(cargo_home + "/registry/src", "Cargo extracted sources registry/src (per-run layer)")};
}

// T/home with .cargo/registry/{cache,index,src} (no .cargo/git); T/task an
// ordinary repository with a pinned verifier file; T/run/home the private
// HOME; T/tmp1 a temp folder. T lives in the build tree: links in /tmp are
// not followed (a command could have made them).
struct FakeMachine {
    TempDir tmp{std::string(OMS_UNIT_SCRATCH_DIR) + "/oms-write-roots"};
    FakeHost host;
    ContextBuilder context;
    std::string T = tmp.path();
    std::string H = T + "/home";
    FakeMachine() {
        for (const char* folder : {"cache", "index", "src"}) make_dirs(H + "/.cargo/registry/" + folder);
        make_dirs(T + "/task/.git");
        write_file(T + "/task/verify.sh", "#!/bin/sh\n");
        make_dirs(T + "/run/home/tmp");
        make_dirs(T + "/tmp1");
        context.home = H;
        context.worktree = T + "/task";
        context.private_home = T + "/run/home";
        context.temp_dir = T + "/run/home/tmp";
        context.parent_env = {"HOME=" + H, "PATH=/usr/bin"};
        // A known temp list, so the expected rules do not depend on this machine.
        host.string_arrays["temp_dirs"] = {T + "/tmp1", T + "/tmp-missing"};
    }
    std::vector<std::string> run_basics() const {
        return {allow(T + "/task", "worktree"), allow(T + "/run/home", "private HOME"),
                allow(T + "/run/home/tmp", "run temp folder"), allow(T + "/tmp1", "system temp folder"),
                allow("/dev/null", "device that stores nothing"), allow("/dev/zero", "device that stores nothing"),
                allow("/dev/full", "device that stores nothing"), allow("/dev/tty", "device that stores nothing")};
    }
    Outcome run() { return run_policy<WriteRoots>(host, context); }
};

template <class... Lists>
std::vector<std::string> concat(std::vector<std::string> first, const Lists&... rest) {
    (first.insert(first.end(), rest.begin(), rest.end()), ...);
    return first;
}

}  // namespace

TEST_CASE("write-roots allows the run's folders and existing caches, then denies .git and pinned files") {
    FakeMachine m;
    make_dirs(m.T + "/rw");
    m.context.read_write = {m.T + "/rw", m.T + "/rw-missing"};
    m.context.pinned = {m.T + "/task/verify.sh", m.T + "/task/not-yet.sh"};
    const Outcome out = m.run();
    REQUIRE(out.status == OMS_OK);
    CHECK(out.rules == concat(m.run_basics(), cargo_rules(m.H + "/.cargo"),
                              std::vector<std::string>{
                                  // (no git caches)
                                  allow(m.T + "/rw", "read-write mount (--rw or sandbox.read_write)"),
                                  deny(m.T + "/task/.git", "the task's .git"),
                                  nested_git(),
                                  deny(m.T + "/task/verify.sh", "pinned verifier file"),
                                  deny(m.T + "/task/not-yet.sh", "pinned verifier file"),  // missing: still denied
                              }));
    REQUIRE(m.host.logs.size() == 1);
    CHECK(m.host.logs[0].second == "read-write mount '" + m.T + "/rw-missing' does not exist; skipped");
}

TEST_CASE("write-roots protects a linked worktree's .git file and its gitdir") {
    FakeMachine m;
    write_file(m.T + "/repo/.git/HEAD", "ref: refs/heads/main\n");
    make_dirs(m.T + "/repo/.git/objects");
    write_file(m.T + "/repo/.git/worktrees/linked/commondir", "../..\n");
    write_file(m.T + "/repo/.git/worktrees/linked/gitdir", m.T + "/linked/.git\n");
    write_file(m.T + "/linked/.git", "gitdir: " + m.T + "/repo/.git/worktrees/linked\n");
    m.context.worktree = m.T + "/linked";
    auto basics = m.run_basics();
    basics[0] = allow(m.T + "/linked", "worktree");
    const Outcome out = m.run();
    REQUIRE(out.status == OMS_OK);
    CHECK(out.rules == concat(basics, cargo_rules(m.H + "/.cargo"),
                              std::vector<std::string>{
                                  deny(m.T + "/linked/.git", "the task's .git"),
                                  deny(m.T + "/repo/.git/worktrees/linked", "linked worktree git dir"),
                                  nested_git(),
                              }));
    SECTION("a forged .git file: the file stays denied, nothing it names is touched") {
        write_file(m.T + "/linked/.git", "gitdir: ../..\n");
        const Outcome forged = m.run();
        REQUIRE(forged.status == OMS_OK);
        CHECK(forged.rules == concat(basics, cargo_rules(m.H + "/.cargo"),
                                     std::vector<std::string>{deny(m.T + "/linked/.git", "the task's .git"), nested_git()}));
    }
}

TEST_CASE("write-roots: no .git, no deny; no cargo home, no caches") {
    FakeMachine m;
    make_dirs(m.T + "/plain");
    m.context.worktree = m.T + "/plain";
    m.context.parent_env = {"CARGO_HOME=" + m.T + "/no-cargo"};
    const Outcome out = m.run();
    REQUIRE(out.status == OMS_OK);
    auto basics = m.run_basics();
    basics[0] = allow(m.T + "/plain", "worktree");
    CHECK(out.rules == concat(basics, std::vector<std::string>{nested_git()}));
}

TEST_CASE("write-roots finds Cargo's caches under $CARGO_HOME, symlinks resolved") {
    FakeMachine m;
    for (const char* folder : {"registry/cache", "registry/index", "registry/src", "git/db", "git/checkouts"})
        make_dirs(m.T + "/cargo-real/" + folder);
    make_symlink(m.T + "/cargo-real", m.T + "/cargo");
    m.context.parent_env = {"CARGO_HOME=" + m.T + "/cargo"};
    const Outcome out = m.run();
    REQUIRE(out.status == OMS_OK);
    const std::string C = m.T + "/cargo-real";
    CHECK(out.rules ==
          concat(m.run_basics(),
                 std::vector<std::string>{
                     allow(C + "/registry/cache", "Cargo download cache registry/cache"),
                     allow(C + "/registry/index", "Cargo download cache registry/index"),
                     allow(C + "/git/db", "Cargo download cache git/db"),
                     // Extracted sources a later host build compiles and runs: never written through.
                     scratch(C + "/registry/src", "Cargo extracted sources registry/src (per-run layer)"),
                     scratch(C + "/git/checkouts", "Cargo extracted sources git/checkouts (per-run layer)"),
                     deny(m.T + "/task/.git", "the task's .git"),
                     nested_git(),
                 }));
    for (const auto& r : out.raw) {
        CHECK(r.value != C + "/registry");  // the old whole-registry root is gone
        CHECK(r.value != C + "/git");
    }
}

// Class 7 on the write side: a Cargo home or mount a command could have
// swapped, or one that would open HOME or a secret folder to writes.
TEST_CASE("write-roots skips write roots that are HOME, hold secrets or go through a command's link") {
    FakeMachine m;
    auto values = [&]() {
        m.host.logs.clear();
        const Outcome out = m.run();
        REQUIRE(out.status == OMS_OK);
        std::vector<std::string> v;
        for (const auto& r : out.raw) v.push_back(r.value);
        return v;
    };
    auto has = [](const std::vector<std::string>& v, const std::string& value) {
        return std::count(v.begin(), v.end(), value) > 0;
    };
    SECTION("CARGO_HOME inside the worktree, a link to HOME's .cargo") {
        make_symlink(m.H + "/.cargo", m.T + "/task/cargo");
        m.context.parent_env = {"HOME=" + m.H, "CARGO_HOME=" + m.T + "/task/cargo"};
        const auto v = values();
        CHECK_FALSE(has(v, m.H + "/.cargo/registry/cache"));
        CHECK(has(v, m.T + "/task"));  // positive control
        REQUIRE(m.host.logs.size() == 5);  // the three caches and the two source folders
        CHECK_THAT(m.host.logs[0].second, Catch::Contains("goes through the link '" + m.T + "/task/cargo'"));
    }
    SECTION("--rw HOME, --rw above HOME, --rw holding ~/.ssh; a plain --rw still opens") {
        make_dirs(m.H + "/.ssh");
        make_dirs(m.H + "/proj");
        m.context.read_write = {m.H, m.T, m.H + "/.ssh/..", m.H + "/proj"};
        const auto v = values();
        CHECK_FALSE(has(v, m.H));
        CHECK_FALSE(has(v, m.T));
        CHECK(has(v, m.H + "/proj"));
        REQUIRE(m.host.logs.size() == 3);
        CHECK(m.host.logs[0].second ==
              "read-write mount (--rw or sandbox.read_write) '" + m.H + "' is not opened: it is HOME (" + m.H + ")");
        CHECK(m.host.logs[1].second == "read-write mount (--rw or sandbox.read_write) '" + m.T +
                                           "' is not opened: it holds HOME (" + m.H + ")");
    }
    SECTION("--rw of a folder holding a secret folder") {
        make_dirs(m.H + "/.config/gh");
        m.context.read_write = {m.H + "/.config"};
        const auto v = values();
        CHECK_FALSE(has(v, m.H + "/.config"));
        REQUIRE(m.host.logs.size() == 1);
        CHECK_THAT(m.host.logs[0].second, Catch::Contains("it holds the secret folder " + m.H + "/.config/gh"));
    }
}

TEST_CASE("write-roots lists each root once, however many ways it is reached") {
    FakeMachine m;
    make_dirs(m.T + "/rw");
    make_symlink(m.T + "/rw", m.T + "/rw-link");
    m.host.string_arrays["temp_dirs"] = {m.T + "/tmp1", m.T + "/tmp1/", m.T + "/run/home/tmp"};
    m.context.read_write = {m.T + "/task", m.T + "/rw", m.T + "/rw-link"};
    m.context.pinned = {m.T + "/task/verify.sh", m.T + "/task/verify.sh"};
    const Outcome out = m.run();
    REQUIRE(out.status == OMS_OK);
    CHECK(out.rules == concat(m.run_basics(), cargo_rules(m.H + "/.cargo"),
                              std::vector<std::string>{
                                  allow(m.T + "/rw", "read-write mount (--rw or sandbox.read_write)"),
                                  deny(m.T + "/task/.git", "the task's .git"),
                                  nested_git(),
                                  deny(m.T + "/task/verify.sh", "pinned verifier file"),
                              }));
}

TEST_CASE("write-roots denies a symlinked pinned file and its target") {
    FakeMachine m;
    write_file(m.T + "/verifier/check.sh", "#!/bin/sh\n");
    make_symlink(m.T + "/verifier/check.sh", m.T + "/task/check.sh");
    m.context.pinned = {m.T + "/task/check.sh"};
    const Outcome out = m.run();
    REQUIRE(out.status == OMS_OK);
    const std::vector<std::string> tail(out.rules.end() - 2, out.rules.end());
    CHECK(tail == std::vector<std::string>{deny(m.T + "/task/check.sh", "pinned verifier file"),
                                           deny(m.T + "/verifier/check.sh", "pinned verifier file (resolved)")});
}

TEST_CASE("write-roots uses the platform's temp folders when temp_dirs is not set") {
    FakeMachine m;
    m.host.string_arrays.erase("temp_dirs");
    SECTION("linux: /tmp and /var/tmp, when they exist") {
        const Outcome out = m.run();
        REQUIRE(out.status == OMS_OK);
        for (const char* temp : {"/tmp", "/var/tmp"}) {
            if (!exists(temp)) continue;
            CHECK(std::count(out.rules.begin(), out.rules.end(), allow(temp, "system temp folder")) == 1);
        }
    }
    SECTION("macos: /private/tmp and /private/var/folders, skipped where missing") {
        m.context.platform = "macos";
        const Outcome out = m.run();
        REQUIRE(out.status == OMS_OK);
        for (const auto& r : out.raw) {
            CHECK(r.value != "/tmp");
            if (r.value.rfind("/private/", 0) == 0) CHECK(exists(r.value));
        }
        // Positive control: the run's own folders are still allowed.
        CHECK(out.rules.at(0) == allow(m.T + "/task", "worktree"));
    }
}

TEST_CASE("write-roots refuses a relative temp_dirs entry") {
    FakeMachine m;
    m.host.string_arrays["temp_dirs"] = {"tmp"};
    const Outcome out = m.run();
    CHECK(out.status == OMS_ERR_INVALID);
    CHECK(out.error == "[plugin.write-roots] temp_dirs: 'tmp' is not an absolute path (use /... or ~/...)");
    CHECK(out.rules.empty());
}

TEST_CASE("the built oms-write-roots.so exports the same plugin") {
    LoadedPlugin plugin(OMS_PLUGIN_FILE);
    CHECK(std::string(plugin.descriptor().id) == "write-roots");
    CHECK(std::string(plugin.descriptor().kind) == OMS_KIND_POLICY);
    CHECK(plugin.key_summary() == std::vector<std::string>{"temp_dirs"});
    FakeMachine m;
    const Outcome out = plugin.contribute(m.host, m.context);
    REQUIRE(out.status == OMS_OK);
    CHECK(out.rules == concat(m.run_basics(), cargo_rules(m.H + "/.cargo"),
                              std::vector<std::string>{deny(m.T + "/task/.git", "the task's .git"), nested_git()}));
}

TEST_CASE("write-roots: npm's cache is a per-run layer, unless it lies in a folder commands write") {
    FakeMachine m;
    make_dirs(m.H + "/.npm/_cacache");
    make_dirs(m.T + "/task/npm-cache/_npx");
    // ~/.npm/_npx leads into the worktree (a user who keeps npm's folders there).
    std::filesystem::create_directory_symlink(m.T + "/task/npm-cache/_npx", m.H + "/.npm/_npx");
    Outcome out = m.run();
    REQUIRE(out.status == OMS_OK);
    CHECK(std::count(out.rules.begin(), out.rules.end(),
                     scratch(m.H + "/.npm/_cacache", "npm cache ~/.npm/_cacache (per-run layer)")) == 1);
    // Inside the worktree a layer could be moved away with the folder above
    // it: the tree stays a part of the worktree, not a scratch tree.
    for (const std::string& r : out.rules) CHECK(r.find("_npx") == std::string::npos);
}
