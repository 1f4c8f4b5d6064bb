// A --rw folder outside HOME is searched like the worktree, across runs:
// the command writes it like the worktree and the user's own tools read and
// write it after a run. So a keypair the user puts there between runs is
// hidden in the next run, a nested .git found there is read-only, and a link
// a command leaves there into an install folder makes that folder searched.
// Before, such a folder was not walked at all and all three got through.
#include "isolation_support.hpp"
#include "test_support.hpp"

#include <sys/stat.h>
#include <unistd.h>

using namespace oms::test;

namespace {

const char* const kSharedKey = "KEYPAIR-IN-A-RW-FOLDER-77e1";
const char* const kLinkedKey = "KEY-WRITTEN-THROUGH-A-RW-LINK-19d4";

// `script` with `shared` as a --rw folder: `oms run --rw`, or the context's
// read_write with the write rule the write-roots policy would add.
RunOutcome run_sharing(Driver driver, World& w, const std::string& shared, const std::string& script,
                       const std::vector<std::string>& extra_read_roots = {}) {
    if (driver == Driver::plugin) {
        RunOptions options;
        options.read_write = {shared};
        options.extra_rules.emplace_back(OMS_RULE_WRITE_ALLOW_TREE, shared);
        for (const auto& root : extra_read_roots) options.extra_rules.emplace_back(OMS_RULE_READ_ALLOW_TREE, root);
        return run_in_plugin(w, script, options);
    }
    return run_in_oms_with_rw(w, shared, script);
}

}  // namespace

TEST_CASE("a keypair the user puts in a --rw folder outside HOME is hidden in the next run",
          "[landlock][walk][rw]") {
    require_landlock();
    FOR_EACH_DRIVER(driver) {
        World w;
        const std::string shared = w.outside;  // outside HOME and the worktree
        auto first = run_sharing(driver, w, shared, "echo RUN1 > " + shared + "/written && echo FIRST");
        INFO(first.spawn_error << first.out << first.err);
        REQUIRE(has(first.out, "FIRST"));
        REQUIRE(read_file(shared + "/written") == "RUN1\n");  // positive: the folder is writable
        // Between runs the user saves a program keypair there.
        write_file(shared + "/deploy/prog-keypair.json", kSharedKey);
        auto second = run_sharing(driver, w, shared,
                                  "cat " + shared + "/deploy/prog-keypair.json; echo; cat " + shared +
                                      "/file; echo; exit 0");
        INFO(second.spawn_error << second.out << second.err);
        REQUIRE(second.exit_code == 0);
        CHECK_FALSE(has(second.out, kSharedKey));
        CHECK(has(second.out, "OUTSIDE-ORIGINAL"));  // positive: the rest of the folder reads
        CHECK(read_file(shared + "/deploy/prog-keypair.json") == kSharedKey);  // the host's copy is untouched
    }
}

TEST_CASE("a nested .git in a --rw folder outside HOME is read-only", "[landlock][walk][rw][git]") {
    require_landlock();
    FOR_EACH_DRIVER(driver) {
        World w;
        const std::string shared = w.outside;
        write_file(shared + "/repo/.git/config", "[core]\n");
        auto run = run_sharing(driver, w, shared,
                               "echo '[core] fsmonitor = evil' >> " + shared + "/repo/.git/config; echo git=$?; " +
                                   "echo OK > " + shared + "/repo/work.txt; echo work=$?; exit 0");
        INFO(run.spawn_error << run.out << run.err);
        REQUIRE(run.exit_code == 0);
        CHECK_FALSE(has(run.out, "git=0"));
        CHECK(read_file(shared + "/repo/.git/config") == "[core]\n");
        CHECK(has(run.out, "work=0"));  // positive: the repository's work tree is writable
        CHECK(read_file(shared + "/repo/work.txt") == "OK\n");
    }
}

TEST_CASE("an install folder is searched when a link in a --rw folder outside HOME leads there",
          "[landlock][walk][install][rw]") {
    require_landlock();
    FOR_EACH_DRIVER(driver) {
        World w;
        const std::string shared = w.outside;
        const std::string pyenv = w.home + "/.pyenv";
        const std::string lib = pyenv + "/versions/3.12.0/lib";
        write_file(lib + "/marker", "PYENV-OK");
        // Run 1 leaves a link in the shared folder into the install folder.
        auto prepare = run_sharing(driver, w, shared, "ln -s " + lib + " " + shared + "/deploy && echo PREPARED",
                                   {pyenv});
        INFO(prepare.spawn_error << prepare.out << prepare.err);
        REQUIRE(has(prepare.out, "PREPARED"));
        // A tool of the user's then writes a keypair through it.
        write_file(shared + "/deploy/prog-keypair.json", kLinkedKey);
        REQUIRE(read_file(lib + "/prog-keypair.json") == kLinkedKey);
        auto strike = run_sharing(driver, w, shared,
                                  "cat " + lib + "/prog-keypair.json; echo; cat " + lib + "/marker; echo; exit 0",
                                  {pyenv});
        INFO(strike.spawn_error << strike.out << strike.err);
        REQUIRE(strike.exit_code == 0);
        CHECK_FALSE(has(strike.out, kLinkedKey));
        CHECK(has(strike.out, "PYENV-OK"));  // positive: the install folder reads
    }
}

TEST_CASE("a --rw folder every user may write (sticky, like /tmp) is searched too; another user's private folder "
          "in it does not stop the run",
          "[landlock][walk][rw]") {
    require_landlock();
    FOR_EACH_DRIVER(driver) {
        World w;
        const std::string shared = w.outside + "/shared-tmp";
        make_dirs(shared);
        REQUIRE(chmod(shared.c_str(), 01777) == 0);
        write_file(shared + "/mine/deploy/prog-keypair.json", kSharedKey);
        write_file(shared + "/mine/notes.txt", "NOTES-IN-SHARED-TMP");
        if (geteuid() == 0) {
            // Another user's private folder (root still reads it: its keypair is hidden as well).
            write_file(shared + "/theirs/their-keypair.json", "THEIR-KEY-5b3c");
            REQUIRE(chown((shared + "/theirs").c_str(), 65534, 65534) == 0);
            REQUIRE(chmod((shared + "/theirs").c_str(), 0700) == 0);
        }
        auto r = run_sharing(driver, w, shared,
                             "cat " + shared + "/mine/deploy/prog-keypair.json; echo; cat " + shared +
                                 "/mine/notes.txt; echo; cat " + shared + "/theirs/their-keypair.json; echo; exit 0");
        INFO(r.spawn_error << r.out << r.err);
        REQUIRE(r.exit_code == 0);
        CHECK_FALSE(has(r.out, kSharedKey));
        CHECK_FALSE(has(r.out, "THEIR-KEY-5b3c"));
        CHECK(has(r.out, "NOTES-IN-SHARED-TMP"));  // positive: the rest of the folder reads
    }
}
