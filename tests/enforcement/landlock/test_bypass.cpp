// The known ways around path rules: symlink, hard link, "..", /proc/self/root,
// /proc/self/fd after O_PATH, renaming a parent, /proc/<parent>/environ,
// inherited descriptors and truncate. Each next to the allowed counterpart.
#include "test_support.hpp"

#include <fcntl.h>
#include <unistd.h>

using namespace oms::test;

namespace {
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("symlinks, hard links and .. lead nowhere new", "[landlock][bypass]") {
    require_landlock();
    FOR_EACH_DRIVER(driver) {
        World w;
        auto r = run_confined(driver, w, expand(w, R"SH(
            ln -s {home}/.ssh/id_rsa {work}/l1; cat {work}/l1
            ln -s {other}/main.rs {work}/l2; cat {work}/l2
            ln -s {work}/README {work}/l3; cat {work}/l3; echo
            ln {other}/main.rs {work}/h1 && cat {work}/h1
            ln {outside}/file {work}/h2 && echo evil >> {work}/h2
            ln {work}/README {work}/h3 && cat {work}/h3 && echo " HARDLINK-OK"
            cat {work}/../home/.ssh/id_rsa; cat {work}/../home/src/other-repo/main.rs
            cat {other}/../../.aws/credentials; cat {work}/nested/../README; echo " DOTDOT-OK"
            exit 0)SH"));
        INFO(r.spawn_error << r.out << r.err);
        REQUIRE(r.exit_code == 0);
        for (const char* secret : {kSshKey, kAwsKey, kOtherRepo}) CHECK_FALSE(has(r.out, secret));
        CHECK(read_file(w.outside + "/file") == "OUTSIDE-ORIGINAL");
        CHECK(has(r.out, "WORKTREE-README\n"));                  // symlink inside the worktree
        CHECK(has(r.out, "WORKTREE-README HARDLINK-OK"));        // hard link inside the worktree
        CHECK(has(r.out, "WORKTREE-README DOTDOT-OK"));          // .. inside the worktree
    }
}

TEST_CASE("/proc/self/root and /proc/self/fd after O_PATH", "[landlock][bypass]") {
    require_landlock();
    FOR_EACH_DRIVER(driver) {
        World w;
        auto r = run_confined(driver, w, expand(w, R"SH(
            cat /proc/self/root{home}/.ssh/id_rsa; cat /proc/self/root{other}/main.rs
            cat /proc/self/root{work}/README; echo " PROCROOT-OK"
            {probe} reopen {other}/main.rs; {probe} reopen {home}/.ssh/id_rsa
            {probe} reopen {work}/wallet-keypair.json; {probe} reopen {work}/README
            {probe} reopen /dev/kmsg
            exit 0)SH"));
        INFO(r.spawn_error << r.out << r.err);
        REQUIRE(r.exit_code == 0);
        for (const char* secret : {kSshKey, kOtherRepo, kKeypair}) CHECK_FALSE(has(r.out, secret));
        CHECK(has(r.out, "WORKTREE-README PROCROOT-OK"));
        CHECK(has(r.out, "OK content=WORKTREE-README"));  // positive: O_PATH reopen in the worktree
        // The other repository has no name inside (HOME's skeleton), so there
        // is nothing to open even with O_PATH; a device node landlock does not
        // open exists, and its O_PATH descriptor cannot be reopened for reading.
        CHECK(has(r.out, "DENIED open-o_path ENOENT"));
        CHECK(has(r.out, "DENIED reopen EACCES"));
    }
}

TEST_CASE("renaming a parent folder does not uncover anything", "[landlock][bypass]") {
    require_landlock();
    FOR_EACH_DRIVER(driver) {
        World w;
        auto r = run_confined(driver, w, expand(w, R"SH(
            mv {home}/src {work}/stolen; cat {work}/stolen/other-repo/main.rs
            mv {home}/.ssh {work}/ssh; cat {work}/ssh/id_rsa
            mv {work}/nested {work}/moved && cat {work}/moved/deeper/id.json && echo " MOVED-HIDDEN"
            mv {work}/README {work}/README2 && cat {work}/README2 && echo " RENAME-OK"
            exit 0)SH"));
        INFO(r.spawn_error << r.out << r.err);
        REQUIRE(r.exit_code == 0);
        for (const char* secret : {kSshKey, kOtherRepo, kSolanaId}) CHECK_FALSE(has(r.out, secret));
        CHECK(read_file(w.other_repo + "/main.rs") == kOtherRepo);
        CHECK(has(r.out, "WORKTREE-README RENAME-OK"));  // positive: rename inside the worktree
    }
}

TEST_CASE("the parent's environment is out of reach", "[landlock][bypass]") {
    require_landlock();
    // Positive control: the variable really is in our own initial environment.
    const std::string own = read_file("/proc/self/environ");
    REQUIRE(has(own, "OMS_BUILD_DIR="));
    FOR_EACH_DRIVER(driver) {
        World w;
        auto r = run_confined(driver, w, R"SH(
            cat /proc/$PPID/environ; echo; echo "---"; cat /proc/self/environ | tr '\0' '\n'; exit 0)SH");
        INFO(r.spawn_error << r.out << r.err);
        REQUIRE(r.exit_code == 0);
        CHECK_FALSE(has(r.out, "OMS_BUILD_DIR="));
        CHECK_FALSE(has(r.out, "PARENT-ENV-SECRET-4e4e"));
        CHECK(has(r.out, "\nHOME="));  // positive: its own environment is readable
    }
}

TEST_CASE("descriptors inherited from outside are closed", "[landlock][bypass]") {
    require_landlock();
    World w;
    int fd = open((w.home + "/.ssh/id_rsa").c_str(), O_RDONLY);  // deliberately inheritable
    REQUIRE(fd >= 0);
    const std::string script = probe_tool() + " read-fd " + std::to_string(fd);
    // Positive control: the same tool, unconfined, reads the inherited descriptor.
    auto plain = run_process({probe_tool(), "read-fd", std::to_string(fd)});
    CHECK(has(plain.out, kSshKey));
    FOR_EACH_DRIVER(driver) {
        RunOutcome r;
        if (driver == Driver::plugin) {
            RunOptions options;
            options.keep_open = {fd};
            r = run_in_plugin(w, script, options);
        } else {
            r = run_in_oms(w, script);
        }
        INFO(r.spawn_error << r.out << r.err);
        CHECK_FALSE(has(r.out, kSshKey));
        CHECK(has(r.out, "DENIED read EBADF"));
    }
    close(fd);
}

TEST_CASE("truncate reaches only the write roots", "[landlock][bypass]") {
    require_landlock();
    FOR_EACH_DRIVER(driver) {
        World w;
        auto r = run_confined(driver, w, expand(w, R"SH(
            {probe} truncate {outside}/file; {probe} truncate {other}/main.rs; {probe} truncate {pinned}
            {probe} truncate {work}/.git/config; {probe} truncate {work}/README; exit 0)SH"));
        INFO(r.spawn_error << r.out << r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(read_file(w.outside + "/file") == "OUTSIDE-ORIGINAL");
        CHECK(read_file(w.other_repo + "/main.rs") == kOtherRepo);
        CHECK(read_file(w.pinned) == "PINNED-ORIGINAL");
        CHECK(read_file(w.work + "/.git/config") == "GIT-CONFIG-ORIGINAL");
        CHECK(read_file(w.work + "/README").empty());  // positive: worktree file truncated
        CHECK(lines_starting(r.out, "DENIED truncate").size() == 4);
    }
}
