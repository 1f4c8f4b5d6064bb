// folder_writes.hpp: what oms makes in a folder a command can also write
// (the canaries' stage of `oms doctor --probe`) never goes through a link.
#include "oms/core/folder_writes.hpp"
#include "oms/core/scoped_fd.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

using oms::core::open_folders_at;
using oms::core::ScopedFd;
using oms::core::write_new_file_at;

namespace {

std::string content_of(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

int open_folder(const std::string& path) { return open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); }

}  // namespace

TEST_CASE("folder_writes: folders are made on the way and a new file holds its text") {
    oms::test::TempDir dir("oms-folder-writes");
    ScopedFd root(open_folder(dir.path()));
    ScopedFd repo(open_folders_at(root.get(), "stage/home/work/repo"));
    REQUIRE(repo.get() >= 0);
    CHECK(write_new_file_at(repo.get(), "README", "readable"));
    CHECK(content_of(dir / "stage/home/work/repo/README") == "readable");
    struct stat st;
    REQUIRE(stat((dir / "stage/home").c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
    ScopedFd again(open_folders_at(root.get(), "stage/home/work/repo"));  // existing folders are reused
    CHECK(again.get() >= 0);
}

TEST_CASE("folder_writes: a link on the way or at the file's name is never written through") {
    oms::test::TempDir dir("oms-folder-writes-link");
    const std::string victim_folder = dir / "victim";
    REQUIRE(mkdir(victim_folder.c_str(), 0700) == 0);
    {
        std::ofstream(victim_folder + "/precious") << "keep me\n";
    }
    REQUIRE(mkdir((dir / "stage").c_str(), 0700) == 0);
    // A folder on the way swapped for a link to the victim's folder.
    REQUIRE(symlink(victim_folder.c_str(), (dir / "stage/home").c_str()) == 0);
    ScopedFd root(open_folder(dir.path()));
    CHECK(open_folders_at(root.get(), "stage/home/.ssh") == -1);
    struct stat st;
    CHECK(lstat((victim_folder + "/.ssh").c_str(), &st) != 0);  // nothing made behind the link
    // The file's own name planted as a link to the victim file: not truncated,
    // not written.
    ScopedFd stage(open_folders_at(root.get(), "stage"));
    REQUIRE(stage.get() >= 0);
    REQUIRE(symlink((victim_folder + "/precious").c_str(), (dir / "stage/output").c_str()) == 0);
    CHECK_FALSE(write_new_file_at(stage.get(), "output", "canary text"));
    CHECK(content_of(victim_folder + "/precious") == "keep me\n");
    // An existing plain file is not replaced either.
    REQUIRE(write_new_file_at(stage.get(), "made", "first"));
    CHECK_FALSE(write_new_file_at(stage.get(), "made", "second"));
    CHECK(content_of(dir / "stage/made") == "first");
    // ".." cannot climb out of the folder held open.
    CHECK(open_folders_at(stage.get(), "../victim") == -1);
}
