// Writes: only the worktree, the private HOME and TMPDIR; .git and pinned
// files stay as they were, whatever trick is tried on them.
#include "test_support.hpp"

using namespace oms::test;

TEST_CASE("writes outside the write roots fail and leave the file unchanged", "[landlock][writes]") {
    require_landlock();
    FOR_EACH_DRIVER(driver) {
        World w;
        auto r = run_confined(driver, w, expand(w, R"SH(
            echo pwned > {outside}/file; echo pwned > {other}/main.rs; echo pwned > {home}/newfile
            mkdir {outside}/newdir; rm -f {outside}/file
            echo made > {work}/created.txt && echo WROTE-WORKTREE
            echo made > "$HOME/h.txt" && cat "$HOME/h.txt" && echo WROTE-HOME
            echo made > "$TMPDIR/t.txt" && cat "$TMPDIR/t.txt" && echo WROTE-TMP
            exit 0)SH"));
        INFO(r.spawn_error << r.out << r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(read_file(w.outside + "/file") == "OUTSIDE-ORIGINAL");
        CHECK(read_file(w.other_repo + "/main.rs") == kOtherRepo);
        CHECK_FALSE(exists(w.home + "/newfile"));
        CHECK_FALSE(exists(w.outside + "/newdir"));
        CHECK(read_file(w.work + "/created.txt") == "made\n");  // positive: worktree
        CHECK(r.out.find("WROTE-HOME") != std::string::npos);    // positive: private HOME
        CHECK(r.out.find("WROTE-TMP") != std::string::npos);     // positive: TMPDIR
    }
}

TEST_CASE(".git and pinned files stay unchanged, even through rename and link", "[landlock][writes]") {
    require_landlock();
    FOR_EACH_DRIVER(driver) {
        World w;
        auto r = run_confined(driver, w, expand(w, R"SH(
            echo evil >> {work}/.git/config; echo evil > {work}/.git/new; rm -f {work}/.git/HEAD
            mv {work}/.git {work}/gitx; rm -rf {work}/.git
            echo evil > {pinned}; rm -f {pinned}; mv {pinned} {work}/moved.sh; truncate -s 0 {pinned}
            ln {pinned} {work}/pin-link && echo evil >> {work}/pin-link
            mv {work}/tests {work}/tests-moved
            mkdir -p {work}/tests; echo evil > {work}/tests/verify.sh
            echo fine > {work}/tests/helper.sh && echo WROTE-BESIDE-PINNED
            exit 0)SH"));
        INFO(r.spawn_error << r.out << r.err);
        REQUIRE(r.exit_code == 0);
        CHECK(read_file(w.work + "/.git/config") == "GIT-CONFIG-ORIGINAL");
        CHECK(exists(w.work + "/.git/HEAD"));
        CHECK_FALSE(exists(w.work + "/.git/new"));
        CHECK_FALSE(exists(w.work + "/gitx"));
        CHECK(read_file(w.pinned) == "PINNED-ORIGINAL");
        CHECK_FALSE(exists(w.work + "/tests-moved"));
        // (mv across the pinned file's mount falls back to copy + delete: the
        // copy may exist, the delete fails, so the original stays in place.)
        // positive: a normal file beside the pinned one is writable
        CHECK(read_file(w.work + "/tests/helper.sh") == "fine\n");
    }
}
