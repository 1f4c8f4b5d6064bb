// The scan keeper's table of watches, driven directly: what it calls
// unchanged since a moment, and what makes it call nothing unchanged.
// Each check first shows the folder unchanged (the positive control), so a
// table that vouches for nothing cannot pass.
#include "folder_watches.hpp"
#include "mount_watch.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

using namespace oms::landlock;

namespace {

FolderId id_of(const std::string& path) {
    struct stat st;
    REQUIRE(stat(path.c_str(), &st) == 0);
    return FolderId{uint64_t(st.st_dev), uint64_t(st.st_ino)};
}

struct Tree {
    oms::test::TempDir base{"oms-watches"};
    std::string root = base / "root";
    Tree() {
        oms::test::make_dirs(root + "/a/b/c");
        oms::test::make_dirs(root + "/side");
    }
};

}  // namespace

TEST_CASE("a folder whose entries change is no longer unchanged; its neighbours still are", "[scan-keeper]") {
    Tree tree;
    FolderWatches watches(1000);
    REQUIRE(watches.ready());
    watches.cover(tree.root, id_of(tree.root));
    CHECK(watches.watch_count() == 5);
    const uint64_t since = watches.now();
    watches.drain();
    CHECK(watches.unchanged_since(id_of(tree.root + "/a/b/c"), since));  // positive control
    oms::test::write_file(tree.root + "/a/b/c/new-keypair.json", "[1]");
    watches.drain();
    CHECK_FALSE(watches.unchanged_since(id_of(tree.root + "/a/b/c"), since));
    CHECK(watches.unchanged_since(id_of(tree.root + "/a/b"), since));
    CHECK(watches.unchanged_since(id_of(tree.root + "/side"), since));
    CHECK(watches.unchanged_since(id_of(tree.root + "/a/b/c"), watches.now()));  // from a later moment on
}

TEST_CASE("a folder made after a moment is not unchanged since it, and is watched from then on", "[scan-keeper]") {
    Tree tree;
    FolderWatches watches(1000);
    watches.cover(tree.root, id_of(tree.root));
    const uint64_t since = watches.now();
    oms::test::make_dirs(tree.root + "/side/fresh/deeper");
    watches.drain();
    CHECK(watches.watch_count() == 7);
    CHECK_FALSE(watches.unchanged_since(id_of(tree.root + "/side/fresh/deeper"), since));
    CHECK_FALSE(watches.unchanged_since(id_of(tree.root + "/side"), since));
    const uint64_t later = watches.now();
    CHECK(watches.unchanged_since(id_of(tree.root + "/side/fresh/deeper"), later));  // positive control
    oms::test::write_file(tree.root + "/side/fresh/deeper/id.json", "[2]");
    watches.drain();
    CHECK_FALSE(watches.unchanged_since(id_of(tree.root + "/side/fresh/deeper"), later));
}

TEST_CASE("a rename, a removal and a mode change each count as a change", "[scan-keeper]") {
    Tree tree;
    oms::test::write_file(tree.root + "/a/file", "x");
    FolderWatches watches(1000);
    watches.cover(tree.root, id_of(tree.root));
    uint64_t since = watches.now();
    REQUIRE(watches.unchanged_since(id_of(tree.root + "/a"), since));
    REQUIRE(rename((tree.root + "/a/file").c_str(), (tree.root + "/a/wallet-keypair.json").c_str()) == 0);
    watches.drain();
    CHECK_FALSE(watches.unchanged_since(id_of(tree.root + "/a"), since));
    since = watches.now();
    REQUIRE(watches.unchanged_since(id_of(tree.root + "/side"), since));
    REQUIRE(chmod((tree.root + "/side").c_str(), 0500) == 0);
    watches.drain();
    CHECK_FALSE(watches.unchanged_since(id_of(tree.root + "/side"), since));
    chmod((tree.root + "/side").c_str(), 0700);
    since = watches.now();
    REQUIRE(watches.unchanged_since(id_of(tree.root + "/a/b"), since));
    REQUIRE(rmdir((tree.root + "/a/b/c").c_str()) == 0);
    watches.drain();
    CHECK_FALSE(watches.unchanged_since(id_of(tree.root + "/a/b"), since));
}

TEST_CASE("a folder past the watch limit is never called unchanged", "[scan-keeper]") {
    Tree tree;
    FolderWatches watches(2);  // the root and one more
    watches.cover(tree.root, id_of(tree.root));
    CHECK(watches.watch_count() == 2);
    const uint64_t since = watches.now();
    CHECK(watches.unchanged_since(id_of(tree.root), since));  // positive control
    CHECK_FALSE(watches.unchanged_since(id_of(tree.root + "/a/b/c"), since));
}

TEST_CASE("a lost event or a mount makes nothing unchanged since before it", "[scan-keeper]") {
    Tree tree;
    SECTION("a loss") {
        FolderWatches watches(1000);
        watches.cover(tree.root, id_of(tree.root));
        const uint64_t since = watches.now();
        REQUIRE(watches.unchanged_since(id_of(tree.root + "/a"), since));
        watches.lose_all();
        CHECK_FALSE(watches.unchanged_since(id_of(tree.root + "/a"), since));
        CHECK(watches.unchanged_since(id_of(tree.root + "/a"), watches.now()));
    }
    SECTION("a mount on a folder of the tree, made in a namespace of this test's own") {
        // A child of its own (unshare needs one thread), as root and as an
        // ordinary user alike (a user namespace grants the mount).
        const pid_t child = fork();
        REQUIRE(child >= 0);
        if (child == 0) {
            if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0 && unshare(CLONE_NEWNS) != 0) _exit(10);
            if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) _exit(11);
            MountWatch mounts;
            if (!mounts.ready() || mounts.changed()) _exit(12);
            if (mount("tmpfs", (tree.root + "/a/b").c_str(), "tmpfs", 0, nullptr) != 0) _exit(13);
            _exit(mounts.changed() ? 0 : 14);  // the keeper then calls lose_all()
        }
        int status = 0;
        REQUIRE(waitpid(child, &status, 0) == child);
        REQUIRE(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 0);
    }
}

TEST_CASE("an overflow of the event queue drops every watch; they are taken again and vouch from then on",
          "[scan-keeper]") {
    Tree tree;
    FolderWatches watches(1000);
    watches.cover(tree.root, id_of(tree.root));
    const uint64_t since = watches.now();
    REQUIRE(watches.unchanged_since(id_of(tree.root + "/side"), since));  // positive control
    // More events than the kernel queues (16,384 by default), none read meanwhile.
    for (int i = 0; i < 9000; ++i) {
        const std::string file = tree.root + "/a/flood" + std::to_string(i);
        oms::test::write_file(file, "");
        unlink(file.c_str());
    }
    watches.drain();
    CHECK(watches.watch_count() == 0);  // the kernel may have dropped IN_IGNORED too: nothing is kept
    CHECK(watches.needs_cover_again());
    CHECK_FALSE(watches.unchanged_since(id_of(tree.root + "/side"), since));
    watches.cover_again();
    CHECK(watches.watch_count() == 5);
    const uint64_t later = watches.now();
    CHECK(watches.unchanged_since(id_of(tree.root + "/side"), later));
}

TEST_CASE("a folder moved in is not walked when its event is read, and is not vouched for until it is",
          "[scan-keeper]") {
    Tree tree;
    FolderWatches watches(1000);
    watches.cover(tree.root, id_of(tree.root));
    const std::string outside = tree.base / "outside";
    oms::test::make_dirs(outside + "/x/y");
    REQUIRE(rename(outside.c_str(), (tree.root + "/side/moved").c_str()) == 0);
    watches.drain();
    CHECK(watches.watch_count() == 5);  // nothing walked while events are read
    CHECK(watches.needs_cover_again());
    const uint64_t since = watches.now();
    CHECK_FALSE(watches.unchanged_since(id_of(tree.root + "/side/moved/x/y"), since));
    watches.cover_again();
    CHECK(watches.watch_count() == 8);
    const uint64_t later = watches.now();
    CHECK(watches.unchanged_since(id_of(tree.root + "/side/moved/x/y"), later));  // positive control
}

TEST_CASE("a subfolder's mode change counts as a change of the folder holding it", "[scan-keeper]") {
    Tree tree;
    FolderWatches watches(1000);
    watches.cover(tree.root, id_of(tree.root));
    const uint64_t since = watches.now();
    REQUIRE(watches.unchanged_since(id_of(tree.root + "/a/b"), since));
    REQUIRE(chmod((tree.root + "/a/b/c").c_str(), 0500) == 0);
    watches.drain();
    CHECK_FALSE(watches.unchanged_since(id_of(tree.root + "/a/b"), since));
    chmod((tree.root + "/a/b/c").c_str(), 0700);
}

TEST_CASE("a path gone stale after a move never leads the keeper's walk out of the tree", "[scan-keeper]") {
    // A command moves a folder and puts a link to a large tree at its old
    // name; a folder it then makes in the moved one must not make the
    // keeper walk (and watch) the linked tree.
    Tree tree;
    const std::string outside = tree.base / "outside";
    // What the stale path a/x leads to through the link: a tree of its own.
    for (int i = 0; i < 20; ++i) oms::test::make_dirs(outside + "/x/o" + std::to_string(i) + "/deeper");
    FolderWatches watches(1000);
    watches.cover(tree.root, id_of(tree.root));
    REQUIRE(watches.watch_count() == 5);
    REQUIRE(rename((tree.root + "/a").c_str(), (tree.root + "/a2").c_str()) == 0);
    REQUIRE(symlink(outside.c_str(), (tree.root + "/a").c_str()) == 0);
    REQUIRE(mkdir((tree.root + "/a2/x").c_str(), 0700) == 0);
    watches.drain();
    CHECK(watches.watch_count() == 5);  // nothing walked by the stale path
    watches.cover_again();              // by descriptors from the root: the link is not followed
    CHECK(watches.watch_count() == 6);  // a2/x
    CHECK(watches.unchanged_since(id_of(tree.root + "/a2/x"), watches.now()));  // positive control
    REQUIRE(mkdir((tree.root + "/a2/y").c_str(), 0700) == 0);
    watches.drain();
    CHECK(watches.watch_count() == 7);  // a new folder, its path checked: watched at once
    const uint64_t later = watches.now();
    CHECK_FALSE(watches.unchanged_since(id_of(outside + "/x/o3"), later));
    CHECK_FALSE(watches.unchanged_since(id_of(outside), later));
}

TEST_CASE("a long walk pauses every 128 folders, and every folder is watched all the same", "[scan-keeper]") {
    Tree tree;
    for (int i = 0; i < 300; ++i) oms::test::make_dirs(tree.root + "/many/m" + std::to_string(i));
    FolderWatches watches(10'000);
    REQUIRE(watches.ready());
    size_t pauses = 0;
    size_t watched_at_pauses = 0;
    watches.set_pause([&] {
        ++pauses;
        watched_at_pauses = watches.watch_count();
    });
    const uint64_t changes_before = watches.changes();
    watches.cover(tree.root, id_of(tree.root));
    CHECK(watches.watch_count() == 306);  // root a a/b a/b/c side many, and the 300
    CHECK(pauses == 306 / FolderWatches::kFoldersBetweenPauses);
    CHECK(watched_at_pauses > 0);  // the hook ran in the middle of the walk
    CHECK(watches.changes() > changes_before);  // every watch taken counts
    const uint64_t since = watches.now();
    watches.drain();
    CHECK(watches.unchanged_since(id_of(tree.root + "/many/m299"), since));
}
