// The cached walk of a worktree against the full walk: keypair matches, the
// entries WRITE_DENY_NAME names (".git") and the symlinks, cold and warm, and
// after each kind of change a command can make between two starts. Each
// check first shows the finding before the change (the positive control), so
// a walk that finds nothing cannot pass.
#include "keypair_walk_tree.hpp"
#include <oms/keypair_walk.hpp>

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>

using namespace oms::sdk;
using namespace oms::sdk::test;

namespace {

ScanRequest worktree_request(const std::string& root) {
    return ScanRequest{{root}, keypair_suffixes(), {}, {".git"}, true};
}

struct Worktree {
    ScanTree tree;  // a/x-keypair.json, a/b/c/d/id.json and their folders
    Worktree() {
        oms::test::make_dirs(tree.path(".git/objects"));
        oms::test::make_dirs(tree.path("side/one/vendored/.git"));
        REQUIRE(symlink("a/b", tree.path("side/to-b").c_str()) == 0);
        let_time_pass();
    }
    ScanFindings cached(ScanStats* stats = nullptr) const {
        return scan_tree_cached(worktree_request(tree.root), tree.cache, stats, kTestWindowNs);
    }
    ScanFindings full() const { return scan_tree(worktree_request(tree.root)); }
};

void same_findings(const ScanFindings& got, const ScanFindings& full) {
    CHECK(got.secrets == full.secrets);
    CHECK(got.named == full.named);
    CHECK(got.links == full.links);
    CHECK(got.too_deep == full.too_deep);
}

}  // namespace

TEST_CASE("a warm cached walk of a worktree gives the full walk's keypairs, .git entries and links",
          "[scan-cache]") {
    Worktree w;
    ScanStats cold, warm;
    const ScanFindings first = w.cached(&cold);
    CHECK(cold.caches_written == 1);
    CHECK(first.named.count(w.tree.path(".git")) == 1);
    CHECK(first.named.count(w.tree.path("side/one/vendored/.git")) == 1);
    CHECK(first.links.count(w.tree.path("side/to-b")) == 1);
    CHECK(first.secrets.count(w.tree.path("a/x-keypair.json")) == 1);
    same_findings(first, w.full());
    const ScanFindings second = w.cached(&warm);
    CHECK(warm.folders_read == 0);
    CHECK(warm.folders_reused == cold.folders_read);
    same_findings(second, w.full());
}

TEST_CASE("a .git, a link and a keypair a command adds to cached folders are found at the next start",
          "[scan-cache]") {
    Worktree w;
    w.cached();
    const ScanFindings before = w.cached();
    REQUIRE(before.named.count(w.tree.path(".git")) == 1);  // positive control: the cache answers
    REQUIRE(before.named.count(w.tree.path("a/b/c/.git")) == 0);
    oms::test::make_dirs(w.tree.path("a/b/c/.git"));              // a nested repository in a leaf's parent
    REQUIRE(symlink("/", w.tree.path("a/b/c/d/e/up").c_str()) == 0);  // a link in a leaf
    oms::test::write_file(w.tree.path("side/two/new-keypair.json"), "[9]");
    ScanStats stats;
    const ScanFindings after = w.cached(&stats);
    CHECK(after.named.count(w.tree.path("a/b/c/.git")) == 1);
    CHECK(after.links.count(w.tree.path("a/b/c/d/e/up")) == 1);
    CHECK(after.secrets.count(w.tree.path("side/two/new-keypair.json")) == 1);
    CHECK(stats.folders_read >= 3);
    same_findings(after, w.full());
}

TEST_CASE("a cached folder swapped for a link is not followed, and the walk sees what is there now",
          "[scan-cache]") {
    Worktree w;
    const ScanFindings before = w.cached();
    REQUIRE(before.secrets.count(w.tree.path("a/b/c/d/id.json")) == 1);  // positive control
    // Moves a/b away and puts a link to the moved folder at its name: the
    // cached record of a/b/c must not be reached through the link.
    REQUIRE(std::rename(w.tree.path("a/b").c_str(), w.tree.path("moved").c_str()) == 0);
    REQUIRE(symlink("../moved", w.tree.path("a/b").c_str()) == 0);
    const ScanFindings after = w.cached();
    CHECK(after.secrets.count(w.tree.path("a/b/c/d/id.json")) == 0);
    CHECK(after.secrets.count(w.tree.path("moved/c/d/id.json")) == 1);
    CHECK(after.links.count(w.tree.path("a/b")) == 1);
    same_findings(after, w.full());
}

TEST_CASE("a tree on a file system whose folder times are not trusted is walked in full and not cached",
          "[scan-cache]") {
    // /proc: its folders' times say nothing about their entries. The control:
    // a tree on the temp folder's file system is cached.
    Worktree w;
    ScanStats on_temp;
    w.cached(&on_temp);
    struct stat st;
    REQUIRE(stat(w.tree.cache.c_str(), &st) == 0);
    REQUIRE(on_temp.caches_written == 1);
    REQUIRE(on_temp.roots_uncached == 0);

    const std::string proc_root = "/proc/self/fdinfo";
    ScanStats on_proc;
    scan_tree_cached(ScanRequest{{proc_root}, keypair_suffixes(), {}, {".git"}, true}, w.tree.cache, &on_proc,
                     kTestWindowNs);
    CHECK(on_proc.roots_uncached == 1);
    CHECK(on_proc.caches_written == 0);
    CHECK(on_proc.folders_read == 0);
}

TEST_CASE("in a folder of many cached folders, stat'ed on two threads, every changed one is read again",
          "[scan-cache]") {
    // 100 cached folders side by side (more than sibling_stats.cpp shares out),
    // so each half of the stats is checked: a keypair added in the first, the
    // middle and the last, one swapped for a link, one removed.
    Worktree w;
    for (int i = 0; i < 100; ++i) oms::test::make_dirs(w.tree.path("many/m" + std::to_string(i)));
    let_time_pass();
    ScanStats cold, warm;
    w.cached(&cold);
    const ScanFindings before = w.cached(&warm);
    REQUIRE(warm.folders_read == 0);  // positive control: every folder came from the cache
    REQUIRE(warm.folders_reused == cold.folders_read);
    for (int i : {0, 50, 99}) oms::test::write_file(w.tree.path("many/m" + std::to_string(i) + "/p-keypair.json"), "[1]");
    REQUIRE(std::rename(w.tree.path("many/m30").c_str(), w.tree.path("moved30").c_str()) == 0);
    oms::test::write_file(w.tree.path("moved30/q-keypair.json"), "[2]");
    REQUIRE(symlink("../moved30", w.tree.path("many/m30").c_str()) == 0);
    REQUIRE(rmdir(w.tree.path("many/m70").c_str()) == 0);
    ScanStats stats;
    const ScanFindings after = w.cached(&stats);
    for (int i : {0, 50, 99}) CHECK(after.secrets.count(w.tree.path("many/m" + std::to_string(i) + "/p-keypair.json")) == 1);
    CHECK(after.secrets.count(w.tree.path("moved30/q-keypair.json")) == 1);
    CHECK(after.secrets.count(w.tree.path("many/m30/q-keypair.json")) == 0);
    CHECK(after.links.count(w.tree.path("many/m30")) == 1);
    CHECK(stats.folders_read >= 5);  // the three leaves, many/ and the root
    same_findings(after, w.full());
}
