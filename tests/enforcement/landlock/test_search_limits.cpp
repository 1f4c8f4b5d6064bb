// Where the keypair search stops, across runs:
//  - a tree nested deeper than the search goes (kMaxScanDepth) no longer
//    stops the run: its first folder too deep is hidden whole, so nothing
//    below it can be read, and the rest of the run works. Before, one such
//    tree in a shared write root (a Cargo cache) stopped every later run;
//  - a keypair the user adds between runs in a searched root under HOME is
//    hidden in the next run, the scan cache warm;
//  - the install folders (~/.pyenv, ~/.rustup, ...) are not searched, as
//    `oms policy` and `oms explain` say, except when a link in the worktree
//    leads there: a command can make target/deploy such a link so that the
//    user's next keypair is written into the install folder; the same for a
//    link a command leaves in a Cargo cache.
#include "isolation_support.hpp"
#include "test_support.hpp"

#include <oms/keypair_walk.hpp>

#include <sys/stat.h>

using namespace oms::test;
using oms::sdk::kMaxScanDepth;

namespace {

const char* const kDeepSecret = "DEEP-TREE-SECRET-5d21";
const char* const kAddedKey = "USER-ADDED-KEYPAIR-90ab";
const char* const kLinkedKey = "KEY-WRITTEN-THROUGH-A-LINK-3c7f";

// `count` nested folders named d below `base`.
std::string nested(const std::string& base, int count) {
    std::string path = base;
    for (int i = 0; i < count; ++i) path += "/d";
    return path;
}

// Runs under the plugin with `extra` read roots, or under `oms run` (where
// the toolchain-roots plugin grants the install folders itself).
RunOutcome run_with_roots(Driver driver, World& w, const std::string& script, const std::vector<std::string>& extra) {
    if (driver == Driver::oms) return run_in_oms(w, script);
    RunOptions options;
    for (const auto& root : extra) options.extra_rules.emplace_back(OMS_RULE_READ_ALLOW_TREE, root);
    return run_in_plugin(w, script, options);
}

}  // namespace

TEST_CASE("a tree deeper than the search goes is hidden whole and the run goes on", "[landlock][walk][depth]") {
    require_landlock();
    const int depth = kMaxScanDepth + 4;
    SECTION("made by run 1 in the worktree") {
        FOR_EACH_DRIVER(driver) {
            World w;
            const std::string deep = nested(w.work + "/deep", depth);
            auto prepare = run_confined(driver, w, "mkdir -p " + deep + " && echo " + kDeepSecret + " > " + deep +
                                                       "/notes.txt && echo PREPARED");
            INFO(prepare.spawn_error << prepare.out << prepare.err);
            REQUIRE(has(prepare.out, "PREPARED"));
            REQUIRE(read_file(deep + "/notes.txt") == std::string(kDeepSecret) + "\n");
            // Run 2 and 3: the code before stopped both ("nested more than 256 folders deep").
            for (int run = 2; run <= 3; ++run) {
                auto strike = run_confined(driver, w,
                                           expand(w, "cat " + deep + "/notes.txt; echo; cat {work}/README; echo; "
                                                     "echo new > " + deep + "/planted 2>/dev/null && echo WROTE; exit 0"));
                INFO("run " << run << ": " << strike.spawn_error << strike.out << strike.err);
                REQUIRE(strike.spawn_error.empty());
                REQUIRE(strike.exit_code == 0);
                CHECK_FALSE(has(strike.out, kDeepSecret));
                CHECK_FALSE(has(strike.out, "WROTE"));
                CHECK(has(strike.out, "WORKTREE-README"));  // positive: the rest of the worktree reads
                if (driver == Driver::oms) CHECK(has(strike.err, "too deep to search for keypair files"));
            }
            CHECK(read_file(deep + "/notes.txt") == std::string(kDeepSecret) + "\n");  // left as it was
        }
    }
    SECTION("found in a toolchain root under HOME (the cached search)") {
        FOR_EACH_DRIVER(driver) {
            World w;
            // As a command leaves it in a Cargo cache shared by every run.
            const std::string deep = nested(w.toolchain + "/registry/cache/deep", depth);
            make_dirs(deep);
            write_file(deep + "/notes.txt", kDeepSecret);
            for (int run = 1; run <= 2; ++run) {  // a cold cache, then a warm one
                auto r = run_confined(driver, w, "cat " + deep + "/notes.txt; echo; cat " + w.toolchain +
                                                     "/bin/tool-marker; echo; exit 0");
                INFO("run " << run << ": " << r.spawn_error << r.out << r.err);
                REQUIRE(r.spawn_error.empty());
                REQUIRE(r.exit_code == 0);
                CHECK_FALSE(has(r.out, kDeepSecret));
                CHECK(has(r.out, "TOOLCHAIN-OK"));  // positive: the toolchain reads
            }
        }
    }
}

TEST_CASE("a keypair the user adds between runs in a searched root under HOME is hidden in the next run",
          "[landlock][walk][cache]") {
    require_landlock();
    FOR_EACH_DRIVER(driver) {
        World w;
        make_dirs(w.toolchain + "/lib/deep/er/still");
        auto first = run_confined(driver, w, "cat " + w.toolchain + "/bin/tool-marker; echo; exit 0");
        INFO(first.spawn_error << first.out << first.err);
        REQUIRE(has(first.out, "TOOLCHAIN-OK"));  // the search of ~/.cargo is cached now
        // Between runs: into a folder the cache knows, and into new folders.
        const std::string in_known = w.toolchain + "/lib/deep/er/still/wallet-keypair.json";
        const std::string in_new = w.toolchain + "/lib/fresh/sub/id.json";
        write_file(in_known, kAddedKey);
        write_file(in_new, kAddedKey);
        write_file(w.toolchain + "/lib/fresh/sub/beside.txt", "BESIDE-OK");
        auto second = run_confined(driver, w, "cat " + in_known + "; echo; cat " + in_new + "; echo; cat " +
                                                  w.toolchain + "/lib/fresh/sub/beside.txt; echo; exit 0");
        INFO(second.spawn_error << second.out << second.err);
        REQUIRE(second.exit_code == 0);
        CHECK_FALSE(has(second.out, kAddedKey));
        CHECK(has(second.out, "BESIDE-OK"));  // positive: the file beside it reads
    }
}

TEST_CASE("an install folder is not searched unless a worktree link leads there", "[landlock][walk][install]") {
    require_landlock();
    FOR_EACH_DRIVER(driver) {
        World w;
        const std::string pyenv = w.home + "/.pyenv";
        const std::string lib = pyenv + "/versions/3.12.0/lib";
        write_file(lib + "/marker", "PYENV-OK");
        // Run 1 makes target/deploy a link into the install folder.
        auto prepare = run_with_roots(driver, w,
                                      "mkdir -p " + w.work + "/target && ln -s " + lib + " " + w.work +
                                          "/target/deploy && echo PREPARED",
                                      {pyenv});
        INFO(prepare.spawn_error << prepare.out << prepare.err);
        REQUIRE(has(prepare.out, "PREPARED"));
        // The user's build then writes the program's keypair through it.
        write_file(w.work + "/target/deploy/prog-keypair.json", kLinkedKey);
        REQUIRE(read_file(lib + "/prog-keypair.json") == kLinkedKey);
        auto strike = run_with_roots(driver, w,
                                     "cat " + w.work + "/target/deploy/prog-keypair.json; echo; cat " + lib +
                                         "/prog-keypair.json; echo; cat " + lib + "/marker; echo; exit 0",
                                     {pyenv});
        INFO(strike.spawn_error << strike.out << strike.err);
        REQUIRE(strike.exit_code == 0);
        CHECK_FALSE(has(strike.out, kLinkedKey));
        CHECK(has(strike.out, "PYENV-OK"));  // positive: the install folder reads
    }
}

TEST_CASE("an install folder is searched when a link in a Cargo cache leads there", "[landlock][walk][install]") {
    require_landlock();
    FOR_EACH_DRIVER(driver) {
        World w;
        const std::string pyenv = w.home + "/.pyenv";
        const std::string lib = pyenv + "/versions/3.12.0/lib";
        const std::string cache = w.toolchain + "/registry/cache";  // a write root of every run
        write_file(lib + "/marker", "PYENV-OK");
        make_dirs(cache);
        RunOptions options;  // the plugin driver: what toolchain-roots and write-roots grant under oms run
        options.extra_rules.emplace_back(OMS_RULE_READ_ALLOW_TREE, pyenv);
        options.extra_rules.emplace_back(OMS_RULE_WRITE_ALLOW_TREE, cache);
        const auto run = [&](const std::string& script) {
            return driver == Driver::oms ? run_in_oms(w, script) : run_in_plugin(w, script, options);
        };
        // Run 1 leaves a link in the Cargo cache into the install folder.
        auto prepare = run("ln -s " + lib + " " + cache + "/deploy && echo PREPARED");
        INFO(prepare.spawn_error << prepare.out << prepare.err);
        REQUIRE(has(prepare.out, "PREPARED"));
        // A tool of the user's then writes a keypair through it.
        write_file(cache + "/deploy/prog-keypair.json", kLinkedKey);
        REQUIRE(read_file(lib + "/prog-keypair.json") == kLinkedKey);
        auto strike = run("cat " + lib + "/prog-keypair.json; echo; cat " + lib + "/marker; echo; exit 0");
        INFO(strike.spawn_error << strike.out << strike.err);
        REQUIRE(strike.exit_code == 0);
        CHECK_FALSE(has(strike.out, kLinkedKey));
        CHECK(has(strike.out, "PYENV-OK"));  // positive: the install folder reads
    }
}

TEST_CASE("oms policy and oms explain say which install folders the search leaves out", "[landlock][install]") {
    require_landlock();
    REQUIRE(oms_run_available());
    World w;
    const std::string pyenv = w.home + "/.pyenv";
    write_file(pyenv + "/versions/3.12.0/bin/python3", "#!/bin/sh\n");
    write_file(pyenv + "/versions/3.12.0/user-keypair.json", "[1,2,3]");
    auto policy = run_process({oms_binary(), "policy", "--sandbox", "landlock", "--worktree", w.work},
                              {oms_world_env(w), std::nullopt, w.work, 60});
    INFO(policy.out << policy.err);
    REQUIRE(policy.exit_code == 0);
    CHECK(has(policy.out, "not searched   " + pyenv + "  (install folder"));
    CHECK_FALSE(has(policy.out, "not searched   " + w.toolchain));  // ~/.cargo is searched
    CHECK(has(policy.out, "hidden         " + w.work + "/wallet-keypair.json"));  // positive: the worktree is
    auto explain = run_process({oms_binary(), "explain", "--sandbox", "landlock", "--worktree", w.work, "read",
                                pyenv + "/versions/3.12.0/user-keypair.json", w.work + "/wallet-keypair.json"},
                               {oms_world_env(w), std::nullopt, w.work, 60});
    INFO(explain.out << explain.err);
    REQUIRE(explain.exit_code == 0);
    CHECK(has(explain.out, "is an install folder landlock does not search for keypair files"));
    // What explain says is what the run does: the key there reads, the worktree's does not.
    auto r = run_in_oms(w, "cat " + pyenv + "/versions/3.12.0/user-keypair.json; echo; cat " + w.work +
                               "/wallet-keypair.json; echo; exit 0");
    INFO(r.out << r.err);
    CHECK(has(r.out, "[1,2,3]"));
    CHECK_FALSE(has(r.out, kKeypair));
}
