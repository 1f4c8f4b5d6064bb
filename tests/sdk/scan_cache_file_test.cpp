// The cache file itself: private, replaced atomically, and never believed
// when damaged, foreign or made for other suffixes (a full walk then, which
// still finds everything).
#include <oms/scan_cache.hpp>
#include "keypair_walk_tree.hpp"

#include <catch2/catch.hpp>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>

using namespace oms::sdk;
using namespace oms::sdk::test;
using Paths = std::vector<std::string>;

namespace {

std::vector<std::string> entries_of(const std::string& folder) {
    std::vector<std::string> out;
    DIR* dir = opendir(folder.c_str());
    while (dirent* e = dir ? readdir(dir) : nullptr)
        if (e->d_name[0] != '.') out.emplace_back(e->d_name);
    if (dir) closedir(dir);
    return out;
}

std::string cache_file(const ScanTree& tree) { return cache_file_for(tree.cache, tree.root); }

// Warm scan first (positive control: the cache is valid and used), then
// `damage`, then a scan that must be a full walk finding both keypairs.
void check_full_walk_after(const ScanTree& tree, void (*damage)(const std::string& file)) {
    const Paths expected{tree.path("a/b/c/d/id.json"), tree.path("a/x-keypair.json")};
    REQUIRE(tree.scan() == expected);
    ScanStats warm;
    REQUIRE(tree.scan(&warm) == expected);
    REQUIRE(warm.caches_loaded == 1);
    REQUIRE(warm.folders_read == 0);
    damage(cache_file(tree));
    ScanStats after;
    CHECK(tree.scan(&after) == expected);
    CHECK(after.caches_loaded == 0);
    CHECK(after.folders_reused == 0);
    CHECK(after.folders_read == 9);
    CHECK(after.caches_written == 1);  // and a good cache replaces the bad one
    ScanStats repaired;
    CHECK(tree.scan(&repaired) == expected);
    CHECK(repaired.caches_loaded == 1);
}

void overwrite_with_garbage(const std::string& file) {
    std::ofstream(file, std::ios::trunc) << "not a cache at all\n";
}

void flip_one_byte(const std::string& file) {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(40);
    char c = 0;
    f.get(c);
    f.seekp(40);
    f.put(static_cast<char>(c ^ 0x5a));
}

void cut_in_half(const std::string& file) {
    struct stat st;
    REQUIRE(stat(file.c_str(), &st) == 0);
    REQUIRE(truncate(file.c_str(), st.st_size / 2) == 0);
}

void make_group_writable(const std::string& file) { REQUIRE(chmod(file.c_str(), 0620) == 0); }

void replace_with_symlink(const std::string& file) {
    REQUIRE(rename(file.c_str(), (file + ".real").c_str()) == 0);
    REQUIRE(symlink((file + ".real").c_str(), file.c_str()) == 0);
}

}  // namespace

TEST_CASE("the cache is one 0600 file per root, with no temporary file left", "[scan-cache]") {
    ScanTree tree;
    tree.scan();
    CHECK(entries_of(tree.cache) == std::vector<std::string>{cache_file(tree).substr(tree.cache.size() + 1)});
    struct stat st;
    REQUIRE(lstat(cache_file(tree).c_str(), &st) == 0);
    CHECK(S_ISREG(st.st_mode));
    CHECK((st.st_mode & 0777) == 0600);
    auto cache = load_scan_cache(cache_file(tree), tree.root, ScanShape{keypair_suffixes(), {}, false});
    REQUIRE(cache);
    CHECK(cache->folders.size() == 9);
    CHECK(cache->folders.at("a/b/c/d").matches.size() == 1);
    CHECK_FALSE(load_scan_cache(cache_file(tree), tree.root + "x", ScanShape{keypair_suffixes(), {}, false}));
}

TEST_CASE("a corrupted cache file means a full walk that still finds everything", "[scan-cache]") {
    SECTION("garbage") { check_full_walk_after(ScanTree{}, overwrite_with_garbage); }
    SECTION("one byte changed") { check_full_walk_after(ScanTree{}, flip_one_byte); }
    SECTION("truncated") { check_full_walk_after(ScanTree{}, cut_in_half); }
    SECTION("writable by others") { check_full_walk_after(ScanTree{}, make_group_writable); }
    SECTION("a symlink") { check_full_walk_after(ScanTree{}, replace_with_symlink); }
}

TEST_CASE("a cache made for other suffixes is not used", "[scan-cache]") {
    ScanTree tree;
    ScanRequest only_id{{tree.root}, {"/id.json"}, {}};
    REQUIRE(find_secret_files_cached(only_id, tree.cache, nullptr, kTestWindowNs) ==
            Paths{tree.path("a/b/c/d/id.json")});  // positive control: the narrower list
    ScanStats stats;
    CHECK(tree.scan(&stats) == Paths{tree.path("a/b/c/d/id.json"), tree.path("a/x-keypair.json")});
    CHECK(stats.caches_loaded == 0);
}
