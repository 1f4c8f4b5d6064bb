// The plan's keypair search: the worktree and the toolchain roots are walked
// through a cache at every start, and the cache is only used from a state
// folder the command cannot write. A forged cache shows that it is really
// read (it hides what it says is not there), and that nothing but oms's own
// state folder is ever taken for one.
#include <oms/keypair_walk_cached.hpp>
#include "plugin_harness.hpp"
#include "sandbox_plan.hpp"
#include <oms/scan_cache.hpp>
#include "scan_cache_dir.hpp"
#include "keypair_walk_tree.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <string>

using namespace oms::landlock;
using namespace oms::sdk;
using namespace oms::sdk::test;

namespace {

struct Layout {
    oms::test::TempDir base{"oms-scan-plan"};
    std::string home = base / "home";
    std::string projects = home + "/projects";  // a read root holding the worktree
    std::string worktree = projects + "/app";
    std::string tool = home + "/.tool";        // a toolchain root
    std::string state = base / "state";
    std::string cache_dir = state + "/landlock-scan";

    Layout() {
        oms::test::write_file(worktree + "/deploy-keypair.json", "[1]");
        oms::test::write_file(worktree + "/target/deep/id.json", "[2]");
        oms::test::write_file(projects + "/other/o-keypair.json", "[3]");
        oms::test::write_file(tool + "/bin/t-keypair.json", "[4]");
        oms::test::make_dirs(state);
        let_time_pass();
    }

    std::vector<std::string> hidden_files(const std::vector<std::string>& extra_write_roots = {}) {
        oms::test::ContextBuilder context;
        context.home = home;
        context.worktree = worktree;
        context.state_dir = state;
        context.private_home = base / "private";
        context.temp_dir = base / "private/tmp";
        context.argv = {"true"};
        oms::test::PolicyBuilder policy;
        policy.env = {"PATH=/usr/bin:/bin"};
        policy.add(OMS_RULE_READ_DENY_TREE, home);
        policy.add(OMS_RULE_READ_ALLOW_TREE, projects);
        policy.add(OMS_RULE_READ_ALLOW_TREE, worktree);
        policy.add(OMS_RULE_READ_ALLOW_TREE, tool);
        policy.add(OMS_RULE_WRITE_ALLOW_TREE, worktree);
        for (const auto& root : extra_write_roots) policy.add(OMS_RULE_WRITE_ALLOW_TREE, root);
        policy.add(OMS_RULE_READ_DENY_SUFFIX, "-keypair.json");
        policy.add(OMS_RULE_READ_DENY_SUFFIX, "/id.json");
        policy.add(OMS_RULE_WRITE_DENY_NAME, ".git");
        Plan plan = build_plan(oms::sdk::Context(context.build()), oms::sdk::Policy(policy.build()), PlanOptions{});
        return plan.hide_files;
    }

    // Rewrites every cache so that every folder it records, and every folder
    // of the worktree, is "unchanged, trusted, no keypair".
    void forge_caches() {
        for (const std::string& root : {projects, tool, worktree}) {
            const ScanShape shape = root == worktree ? ScanShape{keypair_suffixes(), {".git"}, true}
                                                     : ScanShape{keypair_suffixes(), {}, true};
            ScanCache cache{root, shape, {}, {}};
            if (auto real = load_scan_cache(cache_file_for(cache_dir, root), root, shape)) cache = *real;
            for (const std::string& relative : {std::string(""), std::string("app"), std::string("app/target"),
                                                std::string("app/target/deep"), std::string("target"),
                                                std::string("target/deep")})
                record_as_empty(cache, root, relative);
            for (auto& [relative, record] : cache.folders) {
                record.matches.clear();
                record.trusted = true;
            }
            REQUIRE(save_scan_cache(cache_file_for(cache_dir, root), cache));
        }
    }

    static void record_as_empty(ScanCache& cache, const std::string& root, const std::string& relative) {
        struct stat st;
        std::string path = relative.empty() ? root : root + "/" + relative;
        if (stat(path.c_str(), &st) != 0) return;
        FolderRecord& record = cache.folders[relative];
        record.stamp = FolderStamp{uint64_t(st.st_dev), uint64_t(st.st_ino),
                                   int64_t(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec,
                                   int64_t(st.st_ctim.tv_sec) * 1'000'000'000 + st.st_ctim.tv_nsec};
        record.trusted = true;
    }
};

bool has(const std::vector<std::string>& paths, const std::string& path) {
    return std::find(paths.begin(), paths.end(), path) != paths.end();
}

}  // namespace

TEST_CASE("the worktree's walk is cached like the other roots, with its .git entries", "[scan-cache]") {
    Layout layout;
    oms::test::make_dirs(layout.worktree + "/.git");
    oms::test::make_dirs(layout.worktree + "/target/vendored/.git");
    let_time_pass();
    auto first = layout.hidden_files();
    REQUIRE(has(first, layout.worktree + "/deploy-keypair.json"));  // positive controls: the full list
    REQUIRE(has(first, layout.worktree + "/target/deep/id.json"));
    REQUIRE(has(first, layout.projects + "/other/o-keypair.json"));
    REQUIRE(has(first, layout.tool + "/bin/t-keypair.json"));

    // Each root has its cache; the worktree's records its folders and the
    // .git entries the WRITE_DENY_NAME rule needs, the projects' leaves the
    // worktree out (it is walked as a root of its own).
    auto projects = load_scan_cache(cache_file_for(layout.cache_dir, layout.projects), layout.projects,
                                    ScanShape{keypair_suffixes(), {}, true});
    REQUIRE(projects);
    CHECK(projects->folders.count("other") == 1);
    CHECK(projects->folders.count("app") == 0);
    auto worktree = load_scan_cache(cache_file_for(layout.cache_dir, layout.worktree), layout.worktree,
                                    ScanShape{keypair_suffixes(), {".git"}, true});
    REQUIRE(worktree);
    REQUIRE(worktree->folders.count("target/vendored") == 1);
    CHECK(worktree->folders.at("target/vendored").named == std::vector<std::string>{".git"});
    CHECK(worktree->folders.at("").named == std::vector<std::string>{".git"});

    layout.forge_caches();
    auto forged = layout.hidden_files();
    // The forgery works where the cache is trusted: proof that it was read.
    CHECK_FALSE(has(forged, layout.worktree + "/deploy-keypair.json"));
    CHECK_FALSE(has(forged, layout.projects + "/other/o-keypair.json"));
    CHECK_FALSE(has(forged, layout.tool + "/bin/t-keypair.json"));
    // Any change to a folder the forgery covers makes it read again.
    oms::test::write_file(layout.worktree + "/later-keypair.json", "[6]");
    auto after = layout.hidden_files();
    CHECK(has(after, layout.worktree + "/later-keypair.json"));
    CHECK(has(after, layout.worktree + "/deploy-keypair.json"));
}

TEST_CASE("a keypair added to the worktree after a warm start is found", "[scan-cache]") {
    Layout layout;
    layout.hidden_files();
    auto warm = layout.hidden_files();
    REQUIRE_FALSE(has(warm, layout.worktree + "/target/deep/new-keypair.json"));  // positive control
    REQUIRE(has(warm, layout.worktree + "/target/deep/id.json"));
    oms::test::write_file(layout.worktree + "/target/deep/new-keypair.json", "[5]");
    CHECK(has(layout.hidden_files(), layout.worktree + "/target/deep/new-keypair.json"));
}

TEST_CASE("no cache is read or written when the state folder is inside a write root", "[scan-cache]") {
    Layout layout;
    layout.hidden_files();
    layout.forge_caches();
    REQUIRE_FALSE(has(layout.hidden_files(), layout.tool + "/bin/t-keypair.json"));  // control: forgery read
    auto writable = layout.hidden_files({layout.state});
    CHECK(has(writable, layout.tool + "/bin/t-keypair.json"));
    CHECK(has(writable, layout.projects + "/other/o-keypair.json"));
    CHECK(scan_cache_dir(layout.state, {layout.base.path()}).empty());
    CHECK(scan_cache_dir(layout.state, {layout.cache_dir + "/x"}).empty());
    CHECK(scan_cache_dir(layout.state, {layout.worktree}) == layout.cache_dir);
}
