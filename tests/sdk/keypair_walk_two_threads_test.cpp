// The keypair walk of a large tree runs on two threads (shared_walk.cpp). Its
// result must be exactly what a plain recursive listing gives: checked
// against std::filesystem on a tree big enough to start the second thread,
// with links that must not be followed, a link that counts, a skipped
// folder, and matches at every depth. Also the limits both walks share
// with the cached one: paths too long to name, trees too deep; and the
// entry limit of the plain walks.
#include <oms/keypair_walk_cached.hpp>
#include <oms/keypair_walk.hpp>
#include "shared_walk.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

using namespace oms::sdk;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kSuffixes{"-keypair.json", "/id.json"};

bool ends_with(const std::string& text, const std::string& suffix) {
    return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The reference: every entry below root (links to folders not entered) whose
// path ends with a suffix, and which is a file or a link to one.
std::set<std::string> reference(const std::string& root, const std::string& skip) {
    std::set<std::string> out;
    for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
        const std::string path = it->path().string();
        if (path == skip) {
            it.disable_recursion_pending();
            continue;
        }
        bool match = false;
        for (const auto& s : kSuffixes) match = match || ends_with(path, s);
        if (!match || it->is_directory()) continue;
        if (it->is_symlink() && !fs::is_regular_file(it->path())) continue;
        out.insert(path);
    }
    return out;
}

// Plants far-keypair.json 20 folders of 250-byte names below `root` (about
// 5,000 bytes, past what one path can name), made one level at a time
// relative to the last. Returns the folder holding it.
std::string plant_under_long_path(const std::string& root) {
    std::string deep = root;
    int at = open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    REQUIRE(at >= 0);
    for (int i = 0; i < 20; ++i) {
        const std::string name(250, static_cast<char>('a' + i));
        REQUIRE(mkdirat(at, name.c_str(), 0700) == 0);
        int next = openat(at, name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        close(at);
        REQUIRE(next >= 0);
        at = next;
        deep += "/" + name;
    }
    int file = openat(at, "far-keypair.json", O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    REQUIRE(file >= 0);
    close(file);
    close(at);
    return deep;
}

}  // namespace

TEST_CASE("the two-thread keypair walk finds exactly what a plain listing finds") {
    oms::test::TempDir base("oms-shared-walk");
    const std::string root = base / "tree";
    const std::string outside = base / "outside";
    oms::test::write_file(outside + "/o-keypair.json", "[0]");
    for (int d = 0; d < 300; ++d) {  // well past the folders that start the second thread
        const std::string folder = root + "/pkg" + std::to_string(d % 12) + "/mod" + std::to_string(d);
        oms::test::write_file(folder + "/lib.rs", "");
        if (d % 37 == 0) oms::test::write_file(folder + "/deploy-keypair.json", "[1]");
        if (d % 53 == 0) oms::test::write_file(folder + "/deep/er/id.json", "[2]");
    }
    oms::test::write_file(root + "/top-keypair.json", "[3]");
    oms::test::write_file(root + "/skipped/s-keypair.json", "[4]");
    REQUIRE(symlink(outside.c_str(), (root + "/pkg3/into-outside").c_str()) == 0);  // a folder link: not entered
    REQUIRE(symlink((root + "/top-keypair.json").c_str(), (root + "/pkg4/link-keypair.json").c_str()) == 0);
    REQUIRE(symlink((root + "/nowhere").c_str(), (root + "/pkg5/dangling-keypair.json").c_str()) == 0);

    ScanRequest request{{root}, kSuffixes, {root + "/skipped"}};
    ScanFindings findings;
    std::vector<uint64_t> buffer(kScanBufferSize / sizeof(uint64_t));
    REQUIRE(walk_shared(request, root, findings, reinterpret_cast<char*>(buffer.data())));
    const std::set<std::string>& found = findings.secrets;
    const auto expected = reference(root, root + "/skipped");
    CHECK(found == expected);
    CHECK(expected.size() == 9 + 6 + 1 + 1);  // the reference itself saw the planted files and the good link
    CHECK(found.count(root + "/pkg4/link-keypair.json") == 1);
    CHECK(found.count(root + "/skipped/s-keypair.json") == 0);
    CHECK(found.count(root + "/pkg3/into-outside/o-keypair.json") == 0);

    auto through_entry_point = find_secret_files(request);
    CHECK(std::set<std::string>(through_entry_point.begin(), through_entry_point.end()) == expected);
}

TEST_CASE("an entry limit stops both walks of a large tree: the answer then says it is incomplete") {
    oms::test::TempDir base("oms-walk-limit");
    const std::string root = base / "tree";
    for (int d = 0; d < 200; ++d) oms::test::write_file(root + "/pkg" + std::to_string(d) + "/lib.rs", "");
    oms::test::write_file(root + "/pkg199/deploy-keypair.json", "[1]");
    ScanRequest request{{root}, kSuffixes, {}};
    request.entry_limit = 150;  // the tree has 401 entries, past the 48 folders that start the second thread
    ScanFindings findings;
    std::vector<uint64_t> buffer(kScanBufferSize / sizeof(uint64_t));
    REQUIRE(walk_shared(request, root, findings, reinterpret_cast<char*>(buffer.data())));
    CHECK_FALSE(findings.complete);  // stopped, not handed to the plain walk to start again
    CHECK(findings.secrets.empty());
    const ScanFindings cut = scan_tree(request);
    CHECK_FALSE(cut.complete);
    // The limit holds for every root together: two roots of 201 and 200
    // entries each, under a limit of 300.
    const std::string second = base / "second";
    for (int f = 0; f < 200; ++f) oms::test::write_file(second + "/f" + std::to_string(f), "");
    ScanRequest two{{root + "/pkg0", second}, kSuffixes, {}};
    two.entry_limit = 300;
    CHECK(scan_tree(two).complete);  // 1 + 200 entries
    two.roots = {root, second};
    two.entry_limit = 500;
    CHECK_FALSE(scan_tree(two).complete);  // 401 + 200
    request.entry_limit = 401;  // control: every entry, the keypair found, the answer complete
    const ScanFindings whole = scan_tree(request);
    CHECK(whole.complete);
    CHECK(whole.secrets == std::set<std::string>{root + "/pkg199/deploy-keypair.json"});
}

TEST_CASE("a keypair under a path too long for openat2 is still found (the walk falls back to the plain one)") {
    oms::test::TempDir base("oms-long-walk");
    const std::string root = base / "tree";
    std::string folder = root;
    for (int i = 0; i < 60; ++i) folder += "/pkg" + std::to_string(i);  // enough folders to start the second thread
    oms::test::make_dirs(folder);
    const std::string deep = plant_under_long_path(root);
    oms::test::write_file(folder + "/near-keypair.json", "[6]");
    auto found = find_secret_files(ScanRequest{{root}, kSuffixes, {}});
    CHECK(std::count(found.begin(), found.end(), deep + "/far-keypair.json") == 1);
    CHECK(std::count(found.begin(), found.end(), folder + "/near-keypair.json") == 1);
}

TEST_CASE("a tree nested deeper than the walks go is reported as hidden whole instead of failing the search") {
    oms::test::TempDir base("oms-deep-walk");
    const std::string root = base / "tree";
    std::string folder = root;
    for (int i = 0; i <= kMaxScanDepth + 1; ++i) folder += "/d";
    oms::test::make_dirs(folder);
    oms::test::write_file(folder + "/deep-keypair.json", "[7]");
    std::string first_too_deep = root;
    for (int i = 0; i < kMaxScanDepth + 1; ++i) first_too_deep += "/d";
    oms::test::write_file(root + "/top-keypair.json", "[5]");
    const auto expected = std::vector<std::string>{first_too_deep, root + "/top-keypair.json"};
    SECTION("the two-thread walk (the plain one where openat2 is missing)") {
        std::set<std::string> too_deep;
        auto found = find_secret_files(ScanRequest{{root}, kSuffixes, {}}, &too_deep);
        std::sort(found.begin(), found.end());
        CHECK(found == expected);  // the folder covers the keypair below it
        CHECK(too_deep == std::set<std::string>{first_too_deep});
    }
    SECTION("the cached walk, cold and warm") {
        const std::string cache = base / "cache";
        REQUIRE(mkdir(cache.c_str(), 0700) == 0);
        for (int start = 0; start < 2; ++start) {
            ScanStats stats;
            auto found = find_secret_files_cached(ScanRequest{{root}, kSuffixes, {}}, cache, &stats, 0);
            std::sort(found.begin(), found.end());
            CHECK(found == expected);
            CHECK(stats.too_deep == std::vector<std::string>{first_too_deep});
        }
    }
    // Positive control: the same depth minus a few is searched in full.
    const std::string shallow_root = base / "shallow";
    std::string shallow = shallow_root;
    for (int i = 0; i < kMaxScanDepth - 2; ++i) shallow += "/d";
    oms::test::make_dirs(shallow);
    oms::test::write_file(shallow + "/deep-keypair.json", "[8]");
    auto found = find_secret_files(ScanRequest{{shallow_root}, kSuffixes, {}});
    CHECK(found == std::vector<std::string>{shallow + "/deep-keypair.json"});
}

TEST_CASE("the cached search of a toolchain root also finds a keypair under a path too long to name from the root") {
    oms::test::TempDir base("oms-long-cached");
    const std::string root = base / "tool";
    const std::string cache = base / "cache";
    oms::test::make_dirs(root);
    REQUIRE(mkdir(cache.c_str(), 0700) == 0);
    const std::string deep = plant_under_long_path(root);
    oms::test::write_file(root + "/bin/near-keypair.json", "[9]");
    for (int pass = 0; pass < 2; ++pass) {  // first with no cache, then with whatever the first left
        INFO("pass " << pass);
        auto found = find_secret_files_cached(ScanRequest{{root}, kSuffixes, {}}, cache);
        CHECK(std::count(found.begin(), found.end(), deep + "/far-keypair.json") == 1);
        CHECK(std::count(found.begin(), found.end(), root + "/bin/near-keypair.json") == 1);
    }
}
