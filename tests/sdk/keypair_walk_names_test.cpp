// A keypair's name on a folder, or on a link to one, and a keypair file with
// several names: what the three walks report (the plain one, the two-thread
// one, the cached one of the toolchain roots) and what keypair_targets makes
// of it. Each check sits next to the plain keypair it must still find.
#include <oms/keypair_walk_cached.hpp>
#include <oms/keypair_targets.hpp>
#include "keypair_walk_tree.hpp"
#include <oms/keypair_walk.hpp>
#include "shared_walk.hpp"

#include <oms/sdk.hpp>

#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <filesystem>
#include <unistd.h>

#include <set>
#include <string>
#include <vector>

using namespace oms::sdk;
using namespace oms::sdk::test;

namespace {

// A tree big enough for the two-thread walk's second thread, with a folder
// named like a keypair (holding a file whose own name matches nothing, and
// one that matches) and a plain keypair beside it.
std::string plant(const oms::test::TempDir& base) {
    const std::string root = base / "tree";
    for (int d = 0; d < 120; ++d) oms::test::write_file(root + "/pkg" + std::to_string(d) + "/lib.rs", "");
    oms::test::write_file(root + "/target/deploy/prog-keypair.json/prog.json", "[1]");
    oms::test::write_file(root + "/target/deploy/prog-keypair.json/inner-keypair.json", "[2]");
    oms::test::write_file(root + "/target/deploy/other-keypair.json", "[3]");
    oms::test::write_file(root + "/cfg/id.json/key", "[4]");
    return root;
}

std::set<std::string> expected(const std::string& root) {
    return {root + "/target/deploy/prog-keypair.json", root + "/target/deploy/other-keypair.json",
            root + "/cfg/id.json"};
}

std::set<std::string> as_set(const std::vector<std::string>& paths) { return {paths.begin(), paths.end()}; }

}  // namespace

TEST_CASE("a folder named like a keypair is a match and is not walked, in every walk") {
    oms::test::TempDir base("oms-keypair-folder");
    const std::string root = plant(base);
    const std::vector<std::string> suffixes{"-keypair.json", "/id.json"};
    ScanRequest request{{root}, suffixes, {}};

    CHECK(as_set(find_secret_files(request)) == expected(root));  // the plain walk behind the entry point

    ScanFindings shared;
    std::vector<uint64_t> buffer(kScanBufferSize / sizeof(uint64_t));
    REQUIRE(walk_shared(request, root, shared, reinterpret_cast<char*>(buffer.data())));
    CHECK(shared.secrets == expected(root));
    CHECK(shared.vanished.empty());

    const std::string cache = base / "cache";
    REQUIRE(mkdir(cache.c_str(), 0700) == 0);
    ScanStats cold, warm;
    let_time_pass();  // every folder trusted once read
    CHECK(as_set(find_secret_files_cached(request, cache, &cold, kTestWindowNs)) == expected(root));
    CHECK(as_set(find_secret_files_cached(request, cache, &warm, kTestWindowNs)) == expected(root));
    CHECK(cold.folders_read > 0);
    CHECK(warm.folders_read == 0);  // the warm answer came from the cache and still names the folder
}

TEST_CASE("a keypair-named link counts when it leads to a folder too, not when it dangles") {
    oms::test::TempDir base("oms-keypair-link");
    const std::string root = base / "tree";
    oms::test::write_file(root + "/stash/saved.json", "[1]");
    oms::test::write_file(root + "/plain-keypair.json", "[2]");
    REQUIRE(symlink("stash", (root + "/folder-keypair.json").c_str()) == 0);
    REQUIRE(symlink("nowhere", (root + "/dangling-keypair.json").c_str()) == 0);
    auto found = as_set(find_secret_files(ScanRequest{{root}, {"-keypair.json"}, {}}));
    CHECK(found == std::set<std::string>{root + "/folder-keypair.json", root + "/plain-keypair.json"});
}

namespace {
const KeypairNaming kEveryPathReadable{{"-keypair.json", "/id.json"},
                                       [](const std::string&) { return true; },
                                       [](const std::string&) { return true; }};
}  // namespace

TEST_CASE("keypair targets: identity recorded; extra names and links to folders refused in one line") {
    oms::test::TempDir base("oms-keypair-targets");
    const std::string root = base / "tree";
    oms::test::write_file(root + "/a-keypair.json", "[1]");
    oms::test::write_file(root + "/folder-keypair.json/key", "[2]");
    struct stat st;
    REQUIRE(stat((root + "/a-keypair.json").c_str(), &st) == 0);

    // A match no longer at its path may have moved to a name the walk had
    // passed (a folder renamed back and forth): the run is refused, not
    // started with the key unhidden.
    try {
        keypair_targets({root + "/a-keypair.json", root + "/gone-keypair.json"}, kEveryPathReadable);
        FAIL("a match gone since the walk was left out");
    } catch (const oms::sdk::Error& e) {
        CHECK_THAT(std::string(e.what()), Catch::Contains(root + "/gone-keypair.json was moved or removed while the "
                                                                 "run started"));
    }
    // What the plan checks after each walk, walking again while one is gone.
    CHECK(first_match_gone({root + "/a-keypair.json", root + "/gone-keypair.json"}) == root + "/gone-keypair.json");
    CHECK(first_match_gone({root + "/a-keypair.json", root + "/folder-keypair.json"}).empty());
    auto targets = keypair_targets({root + "/a-keypair.json", root + "/folder-keypair.json"}, kEveryPathReadable);
    REQUIRE(targets.size() == 2);
    CHECK(targets[0].path == root + "/a-keypair.json");
    CHECK_FALSE(targets[0].folder);
    CHECK(targets[0].device == uint64_t(st.st_dev));
    CHECK(targets[0].inode == uint64_t(st.st_ino));
    CHECK(targets[1].folder);

    REQUIRE(link((root + "/a-keypair.json").c_str(), (root + "/harmless").c_str()) == 0);
    REQUIRE(symlink("folder-keypair.json", (root + "/l-keypair.json").c_str()) == 0);
    try {
        keypair_targets({root + "/a-keypair.json", root + "/l-keypair.json"}, kEveryPathReadable);
        FAIL("a keypair with two names was accepted");
    } catch (const oms::sdk::Error& e) {
        const std::string message = e.what();
        CHECK(message.find(root + "/a-keypair.json (a file with 2 names)") != std::string::npos);
        CHECK(message.find(root + "/l-keypair.json (a link to the folder ") != std::string::npos);
        CHECK(message.find("/folder-keypair.json)") != std::string::npos);
        CHECK(message.find('\n') == std::string::npos);
    }
    REQUIRE(unlink((root + "/harmless").c_str()) == 0);
    CHECK(keypair_targets({root + "/a-keypair.json"}, kEveryPathReadable).size() == 1);  // one name again: accepted
}

TEST_CASE("keypair targets: a keypair-named link to a readable file under another name is refused") {
    oms::test::TempDir base("oms-keypair-targets");
    const std::string root = base / "tree";
    oms::test::write_file(root + "/notes.txt", "[1]");
    oms::test::write_file(root + "/saved-keypair.json", "[2]");
    oms::test::write_file(root + "/private/key.json", "[3]");
    REQUIRE(symlink("notes.txt", (root + "/a-keypair.json").c_str()) == 0);
    REQUIRE(symlink("saved-keypair.json", (root + "/b-keypair.json").c_str()) == 0);
    REQUIRE(symlink("private/key.json", (root + "/c-keypair.json").c_str()) == 0);
    const std::string real_root = std::filesystem::canonical(root).string();
    // Commands read everything but `private/`.
    const KeypairNaming naming{{"-keypair.json", "/id.json"},
                               [&](const std::string& path) { return path.rfind(real_root + "/private/", 0) != 0; },
                               [](const std::string&) { return true; }};
    try {
        keypair_targets({root + "/a-keypair.json", root + "/b-keypair.json", root + "/c-keypair.json"}, naming);
        FAIL("a keypair-named link to notes.txt was accepted");
    } catch (const oms::sdk::Error& e) {
        const std::string message = e.what();
        CHECK(message.find(root + "/a-keypair.json (a link to " + real_root + "/notes.txt, a name no keypair rule hides)") !=
              std::string::npos);
        CHECK(message.find("put the key itself at the keypair's name") != std::string::npos);
        // Its target's own name is a keypair's, or commands cannot read it: not refused.
        CHECK(message.find("b-keypair.json") == std::string::npos);
        CHECK(message.find("c-keypair.json") == std::string::npos);
    }
    // Positive control: without the link to notes.txt the others are masked by their targets.
    auto targets = keypair_targets({root + "/b-keypair.json", root + "/c-keypair.json"}, naming);
    REQUIRE(targets.size() == 2);
    CHECK(targets[0].path == real_root + "/saved-keypair.json");
    CHECK(targets[1].path == real_root + "/private/key.json");
}

TEST_CASE("keypair targets: a keypair-named link whose target cannot be resolved is refused, not taken for itself") {
    oms::test::TempDir base("oms-keypair-unresolved");
    const std::string root = std::filesystem::canonical(base.path()).string();
    // Twenty folders of 250-byte names below the root hold leak.txt; two
    // short links lead there: stat(2) follows them, realpath(3) cannot name
    // the result (past PATH_MAX).
    std::string first_half, second_half;
    for (int i = 0; i < 20; ++i)
        (i < 10 ? first_half : second_half) += (i == 0 || i == 10 ? "" : "/") + std::string(250, char('a' + i));
    std::filesystem::create_directories(root + "/" + first_half);
    REQUIRE(chdir((root + "/" + first_half).c_str()) == 0);
    std::filesystem::create_directories(second_half);
    oms::test::write_file(second_half + "/leak.txt", "notes");
    REQUIRE(symlink(second_half.c_str(), "h2") == 0);
    REQUIRE(chdir("/") == 0);
    REQUIRE(symlink(first_half.c_str(), (root + "/h1").c_str()) == 0);
    REQUIRE(symlink("h1/h2/leak.txt", (root + "/long-keypair.json").c_str()) == 0);
    const KeypairNaming naming{{"-keypair.json"},
                               [](const std::string&) { return true; },
                               [](const std::string&) { return true; }};
    CHECK_THROWS_WITH(keypair_targets({root + "/long-keypair.json"}, naming),
                      Catch::Contains(root + "/long-keypair.json (a link whose target cannot be resolved)"));
    // Control: a link to a keypair-named file of the tree is masked by that file.
    oms::test::write_file(root + "/saved-keypair.json", "[1]");
    REQUIRE(symlink("saved-keypair.json", (root + "/short-keypair.json").c_str()) == 0);
    const auto targets = keypair_targets({root + "/short-keypair.json"}, naming);
    REQUIRE(targets.size() == 1);
    CHECK(targets[0].path == root + "/saved-keypair.json");
}
