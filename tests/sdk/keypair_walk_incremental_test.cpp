// The incremental walk against the full walk: each change to the tree after
// a first scan shows at the second, and each check first shows the list as
// it was (the positive control), so a scan that finds nothing cannot pass.
#include "keypair_walk_tree.hpp"
#include <oms/keypair_walk.hpp>

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

using namespace oms::sdk;
using namespace oms::sdk::test;
using Paths = std::vector<std::string>;

namespace {

bool has(const Paths& paths, const std::string& path) {
    return std::find(paths.begin(), paths.end(), path) != paths.end();
}

Paths full_walk(const ScanTree& tree) { return find_secret_files(ScanRequest{{tree.root}, keypair_suffixes(), {}}); }

const size_t kFolders = 9;  // root a a/b a/b/c a/b/c/d a/b/c/d/e side side/one side/two

}  // namespace

TEST_CASE("a warm scan stats every folder, reads none and lists what a full walk lists", "[scan-cache]") {
    ScanTree tree;
    ScanStats cold, warm;
    Paths first = tree.scan(&cold);
    CHECK(cold.folders_read == kFolders);
    CHECK(cold.caches_written == 1);
    Paths second = tree.scan(&warm);
    CHECK(warm.caches_loaded == 1);
    CHECK(warm.folders_read == 0);
    CHECK(warm.folders_reused == kFolders);
    CHECK(warm.caches_written == 0);
    CHECK(first == full_walk(tree));
    CHECK(second == first);
    CHECK(second == Paths{tree.path("a/b/c/d/id.json"), tree.path("a/x-keypair.json")});
}

TEST_CASE("a keypair added in a deep existing folder is found at the next scan", "[scan-cache]") {
    ScanTree tree;
    Paths before = tree.scan();
    REQUIRE(has(before, tree.path("a/x-keypair.json")));  // positive control
    REQUIRE_FALSE(has(before, tree.path("a/b/c/d/e/deep-keypair.json")));
    oms::test::write_file(tree.path("a/b/c/d/e/deep-keypair.json"), "[7]");
    ScanStats stats;
    Paths after = tree.scan(&stats);
    CHECK(has(after, tree.path("a/b/c/d/e/deep-keypair.json")));
    CHECK(has(after, tree.path("a/x-keypair.json")));
    CHECK(stats.folders_read == 1);  // only e changed; the rest came from the cache
    CHECK(stats.folders_reused == kFolders - 1);
    CHECK(after == full_walk(tree));
}

TEST_CASE("a keypair in a new subfolder is found at the next scan", "[scan-cache]") {
    ScanTree tree;
    Paths before = tree.scan();
    REQUIRE(before.size() == 2);  // positive control
    oms::test::write_file(tree.path("a/b/new/deeper/id.json"), "[8]");
    ScanStats stats;
    Paths after = tree.scan(&stats);
    CHECK(has(after, tree.path("a/b/new/deeper/id.json")));
    CHECK(after.size() == 3);
    CHECK(stats.folders_read == 3);  // a/b changed, new and deeper are unknown
    CHECK(after == full_walk(tree));
}

TEST_CASE("a deleted keypair, and a deleted folder holding one, disappear from the list", "[scan-cache]") {
    ScanTree tree;
    Paths before = tree.scan();
    REQUIRE(has(before, tree.path("a/x-keypair.json")));  // positive control
    REQUIRE(has(before, tree.path("a/b/c/d/id.json")));
    REQUIRE(std::remove(tree.path("a/x-keypair.json").c_str()) == 0);
    Paths after = tree.scan();
    CHECK_FALSE(has(after, tree.path("a/x-keypair.json")));
    CHECK(has(after, tree.path("a/b/c/d/id.json")));

    REQUIRE(std::remove(tree.path("a/b/c/d/e/notes.txt").c_str()) == 0);
    REQUIRE(rmdir(tree.path("a/b/c/d/e").c_str()) == 0);
    REQUIRE(std::remove(tree.path("a/b/c/d/id.json").c_str()) == 0);
    REQUIRE(rmdir(tree.path("a/b/c/d").c_str()) == 0);
    ScanStats stats;
    CHECK(tree.scan(&stats).empty());
    CHECK(stats.folders_reused + stats.folders_read == kFolders - 2);
    CHECK(full_walk(tree).empty());
}

TEST_CASE("a folder whose mtime was set back is still read again (its ctime moved)", "[scan-cache]") {
    ScanTree tree;
    struct stat before_change;
    REQUIRE(stat(tree.path("side/two").c_str(), &before_change) == 0);
    REQUIRE_FALSE(has(tree.scan(), tree.path("side/two/late-keypair.json")));  // positive control
    oms::test::write_file(tree.path("side/two/late-keypair.json"), "[9]");
    struct timespec times[2] = {before_change.st_atim, before_change.st_mtim};
    REQUIRE(utimensat(AT_FDCWD, tree.path("side/two").c_str(), times, 0) == 0);
    CHECK(has(tree.scan(), tree.path("side/two/late-keypair.json")));
}

TEST_CASE("a folder changed within the untrusted window is read again next time", "[scan-cache]") {
    ScanTree tree;
    ScanRequest request{{tree.root}, keypair_suffixes(), {}};
    ScanStats first, second;
    find_secret_files_cached(request, tree.cache, &first);  // the real 2 s window: the tree is 60 ms old
    Paths again = find_secret_files_cached(request, tree.cache, &second);
    CHECK(first.folders_read == kFolders);
    CHECK(second.caches_loaded == 1);
    CHECK(second.folders_read == kFolders);  // nothing trusted yet
    CHECK(again == full_walk(tree));
}

TEST_CASE("a replaced root is walked in full", "[scan-cache]") {
    ScanTree tree;
    REQUIRE(tree.scan().size() == 2);  // positive control
    REQUIRE(rename(tree.root.c_str(), (tree.base / "old-root").c_str()) == 0);
    oms::test::write_file(tree.path("a/x-keypair.json"), "[1]");  // same relative path as before
    oms::test::write_file(tree.path("z/id.json"), "[2]");
    ScanStats stats;
    Paths after = tree.scan(&stats);
    CHECK(stats.caches_loaded == 0);
    CHECK(stats.folders_reused == 0);
    CHECK(after == Paths{tree.path("a/x-keypair.json"), tree.path("z/id.json")});
}

TEST_CASE("a matching symlink counts once its target exists, though its folder did not change", "[scan-cache]") {
    ScanTree tree;
    REQUIRE(symlink("../../target.json", tree.path("a/link-keypair.json").c_str()) == 0);
    let_time_pass();
    Paths before = tree.scan();
    REQUIRE(has(before, tree.path("a/x-keypair.json")));  // positive control
    CHECK_FALSE(has(before, tree.path("a/link-keypair.json")));  // dangling: nothing to hide
    oms::test::write_file(tree.base / "target.json", "[3]");
    ScanStats stats;
    Paths after = tree.scan(&stats);
    CHECK(stats.folders_read == 0);
    CHECK(has(after, tree.path("a/link-keypair.json")));
    CHECK(after == full_walk(tree));
}
