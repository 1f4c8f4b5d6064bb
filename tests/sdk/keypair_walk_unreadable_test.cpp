// A folder the keypair search cannot read never hides a keypair: every walk
// (plain, two-thread, cached) either restores the owner's rights and reads
// it, or fails the search naming the folder; another user's folder this
// user may neither list nor write is passed over (nothing of the user's is
// in it). As root the folders stay readable (CAP_DAC_READ_SEARCH) and the
// keypairs are simply found.
#include <oms/keypair_walk_cached.hpp>
#include "keypair_walk_tree.hpp"
#include <oms/keypair_walk.hpp>
#include "temp_dir.hpp"

#include <catch2/catch.hpp>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

using namespace oms::sdk;
using namespace oms::sdk::test;

namespace {

bool has(const std::vector<std::string>& paths, const std::string& path) {
    return std::find(paths.begin(), paths.end(), path) != paths.end();
}

// Three ways a folder is made unreadable: no rights at all, listable but not
// searchable, searchable but not listable. `bulk` adds folders enough for the
// two-thread walk to start its second thread.
void plant_hidden_keypairs(const std::string& root, bool bulk) {
    if (bulk)
        for (int i = 0; i < 120; ++i) oms::test::make_dirs(root + "/bulk" + std::to_string(i % 10) + "/m" + std::to_string(i));
    oms::test::write_file(root + "/h/deploy/none-keypair.json", "[1]");
    oms::test::write_file(root + "/r/deploy/read-keypair.json", "[2]");
    oms::test::write_file(root + "/x/deploy/search-keypair.json", "[3]");
    oms::test::write_file(root + "/README", "readable");
    REQUIRE(chmod((root + "/h").c_str(), 0) == 0);
    REQUIRE(chmod((root + "/r").c_str(), 0400) == 0);
    REQUIRE(chmod((root + "/x").c_str(), 0100) == 0);
}

void check_all_found(const std::vector<std::string>& found, const std::string& root) {
    CHECK(has(found, root + "/h/deploy/none-keypair.json"));
    CHECK(has(found, root + "/r/deploy/read-keypair.json"));
    CHECK(has(found, root + "/x/deploy/search-keypair.json"));
    CHECK_FALSE(has(found, root + "/README"));  // positive control: a plain file is no match
}

}  // namespace

TEST_CASE("a folder of ours made unreadable is searched, by every walk", "[scan-unreadable]") {
    const bool bulk = GENERATE(false, true);
    const bool cached = GENERATE(false, true);
    CAPTURE(bulk, cached);
    oms::test::TempDir base("oms-unreadable");
    const std::string root = base / "root", cache = base / "cache";
    oms::test::make_dirs(cache);
    REQUIRE(chmod(cache.c_str(), 0700) == 0);
    plant_hidden_keypairs(root, bulk);
    ScanRequest request{{root}, keypair_suffixes(), {}};
    check_all_found(cached ? find_secret_files_cached(request, cache) : find_secret_files(request), root);
    struct stat st;
    if (geteuid() != 0) {  // the owner's rights were given back
        for (const char* folder : {"/h", "/r", "/x"}) {
            REQUIRE(stat((root + folder).c_str(), &st) == 0);
            CHECK((st.st_mode & 0500) == 0500);
        }
    } else {  // root reads them as they are, and changes nothing
        const std::pair<const char*, mode_t> modes[] = {{"/h", 0}, {"/r", 0400}, {"/x", 0100}};
        for (const auto& [folder, mode] : modes) {
            REQUIRE(stat((root + folder).c_str(), &st) == 0);
            CHECK((st.st_mode & 07777) == mode);
        }
    }
    if (cached) check_all_found(find_secret_files_cached(request, cache), root);  // and from the cache
}

TEST_CASE("another user's folder: passed over when this user may neither list nor write it, the search fails "
          "when the user may write it",
          "[scan-unreadable]") {
    if (geteuid() != 0) {
        // /root is root's 0700 folder: the ordinary user can neither enter
        // nor repair it, so a command run as this user cannot either.
        struct stat st;
        REQUIRE(stat("/root", &st) == 0);
        REQUIRE(st.st_uid == 0);
        REQUIRE((st.st_mode & 07) == 0);
        ScanRequest request{{"/root"}, keypair_suffixes(), {}};
        CHECK(find_secret_files(request).empty());
        // A backend whose command can read what the caller cannot says so:
        // the folder then stops the search.
        request.pass_over_closed_folders_of_others = false;
        CHECK_THROWS_WITH(find_secret_files(request), Catch::Contains("/root cannot be read"));
        return;
    }
    // As root: the tree is root's, the search runs as uid 1500 in a child.
    oms::test::TempDir base("oms-unreadable");
    const std::string root = base / "root";
    oms::test::write_file(root + "/theirs/deploy/hidden-keypair.json", "[2]");
    oms::test::write_file(root + "/mine/deploy/found-keypair.json", "[3]");
    REQUIRE(chown((root + "/mine").c_str(), 1500, 1500) == 0);
    REQUIRE(chmod(base.path().c_str(), 0755) == 0);
    REQUIRE(chmod(root.c_str(), 0755) == 0);
    auto search_as_1500 = [&](mode_t theirs_mode, bool pass_over = true) {
        REQUIRE(chmod((root + "/theirs").c_str(), theirs_mode) == 0);
        pid_t child = fork();
        REQUIRE(child >= 0);
        if (child == 0) {
            if (setresgid(1500, 1500, 1500) != 0 || setresuid(1500, 1500, 1500) != 0) _exit(10);
            ScanRequest request{{root}, keypair_suffixes(), {}};
            request.pass_over_closed_folders_of_others = pass_over;
            try {
                const auto found = find_secret_files(request);
                if (!has(found, root + "/mine/deploy/found-keypair.json")) _exit(13);  // the rest is searched
                _exit(0);  // passed over
            } catch (const std::exception& e) {
                _exit(std::string(e.what()).find(root + "/theirs cannot be read") != std::string::npos ? 20 : 12);
            }
        }
        int status = 0;
        REQUIRE(waitpid(child, &status, 0) == child);
        REQUIRE(WIFEXITED(status));
        return WEXITSTATUS(status);
    };
    CHECK(search_as_1500(0700) == 0);   // private: passed over, the user's own keypair found
    CHECK(search_as_1500(0711) == 0);   // searchable, not listable, not writable: nothing of the user's in it
    CHECK(search_as_1500(0733) == 20);  // writable, not listable (a drop box): the user's key could be in it
    CHECK(search_as_1500(0700, false) == 20);  // the command could read it (a container as root): it stops the search
}
