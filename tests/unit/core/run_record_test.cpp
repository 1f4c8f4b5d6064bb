// last-run.json (violation_log.hpp): what a run writes is what `oms explain
// --last` reads back; a shorter record after a longer one leaves nothing of
// the longer; the file is written over in place (its inode stays), but never
// through a second name or a link planted there.
#include "oms/core/violation_log.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace oms::core;
using oms::test::TempDir;

namespace {

RunRecord record_of(std::vector<std::string> command, int exit_code) {
    RunRecord record;
    record.command = std::move(command);
    record.backend = "landlock";
    record.worktree = "/work/tree";
    record.finished = "2026-12-07T21:00:00Z";
    record.exit_code = exit_code;
    return record;
}

ino_t inode_of(const std::string& path) {
    struct stat st {};
    REQUIRE(::lstat(path.c_str(), &st) == 0);
    return st.st_ino;
}

}  // namespace

TEST_CASE("run record: a shorter record written after a longer one reads back alone, in the same file") {
    TempDir dir("oms-run-record");
    const std::string state = dir.path();
    CHECK_FALSE(read_run_record(state).has_value());  // no run yet
    REQUIRE_FALSE(write_run_record(state, record_of({"make", "--jobs", std::string(300, 'x')}, 2)).has_value());
    const ino_t first = inode_of(last_run_path(state));
    REQUIRE_FALSE(write_run_record(state, record_of({"true"}, 0)).has_value());
    CHECK(inode_of(last_run_path(state)) == first);  // written over, not replaced
    const auto back = read_run_record(state);
    REQUIRE(back.has_value());
    CHECK(back->command == std::vector<std::string>{"true"});
    CHECK(back->exit_code == 0);
    CHECK(oms::test::read_file(last_run_path(state)).find("xxx") == std::string::npos);
}

TEST_CASE("run record: a second name or a link at last-run.json is replaced, what it leads to is untouched") {
    TempDir dir("oms-run-record-links");
    const std::string state = dir.path();
    const std::string other = dir / "bashrc";
    oms::test::write_file(other, "export PATH=/usr/bin\n");

    SECTION("a hard link") { REQUIRE(::link(other.c_str(), last_run_path(state).c_str()) == 0); }
    SECTION("a symbolic link") { REQUIRE(::symlink(other.c_str(), last_run_path(state).c_str()) == 0); }

    REQUIRE_FALSE(write_run_record(state, record_of({"true"}, 0)).has_value());
    CHECK(oms::test::read_file(other) == "export PATH=/usr/bin\n");
    struct stat st {};
    REQUIRE(::lstat(last_run_path(state).c_str(), &st) == 0);
    CHECK(S_ISREG(st.st_mode));
    CHECK(st.st_nlink == 1);
    const auto back = read_run_record(state);
    REQUIRE(back.has_value());
    CHECK(back->command == std::vector<std::string>{"true"});
}

TEST_CASE("run record: nobody waits for the record's lock, and a FIFO there never blocks a read",
          "[run-record]") {
    TempDir dir("oms-run-record-lock");
    const std::string state = dir.path();
    REQUIRE_FALSE(write_run_record(state, record_of({"first"}, 0)).has_value());
    {
        // Another process (a command that could open the file) holds the lock.
        const int holder = ::open(last_run_path(state).c_str(), O_RDONLY | O_CLOEXEC);
        REQUIRE(holder >= 0);
        REQUIRE(::flock(holder, LOCK_EX) == 0);
        REQUIRE_FALSE(write_run_record(state, record_of({"second"}, 3)).has_value());  // returns, no wait
        const auto back = read_run_record(state);
        REQUIRE(back.has_value());
        CHECK(back->command == std::vector<std::string>{"second"});
        CHECK(back->exit_code == 3);
        ::close(holder);
    }
    // Positive control: with the lock free, written over in place again.
    const ino_t before = inode_of(last_run_path(state));
    REQUIRE_FALSE(write_run_record(state, record_of({"third"}, 0)).has_value());
    CHECK(inode_of(last_run_path(state)) == before);

    REQUIRE(::unlink(last_run_path(state).c_str()) == 0);
    REQUIRE(::mkfifo(last_run_path(state).c_str(), 0600) == 0);
    CHECK_FALSE(read_run_record(state).has_value());  // no writer would ever come: not waited for
}
