// The bwrap example's masks against a folder moved between the keypair
// search and bwrap's mounts (the kit's keypair-rename-race, made certain):
// the example's `bwrap` setting names a wrapper that renames the key's
// folder and then starts the real bwrap. bwrap makes the missing folder
// again for the mask, so the key sits unmasked at the new name; the check at
// the sandbox's start must find the mask's folder changed and start nothing.
// The control: the same wrapper without the rename, where the command runs
// and the key stays hidden. And the order of the example's binds: a key
// inside the task's .git stays masked under .git's read-only bind.
#include "oms_env.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>

using namespace oms::test;

namespace {

// The worlds live outside /tmp: they move keypair files between folders,
// and the tests of --rw /tmp (docker's among them) walk and mask the host's
// /tmp, where such a move under way stopped a docker run in a CI pass.
const std::string kOutsideTmp = "/var/tmp";

const std::string kKey = "[9,41,77,120,3,58,201,14,66,90,12,33,150,7,88,19]";

// A bwrap that runs `before` first, then the real one.
std::string bwrap_wrapper(const OmsEnv& env, const std::string& before) {
    const std::string path = env.root / "bwrap-wrapper";
    write_file(path, "#!/bin/sh\n" + before + "\nexec /usr/bin/bwrap \"$@\"\n");
    chmod(path.c_str(), 0755);
    return path;
}

ProcessResult run_reading_both_names(OmsEnv& env, const std::string& wrapper) {
    // The example walks the write roots; the host's /tmp, where other tests
    // make and remove folders all the time, is left out of them here.
    make_dirs(env.root / "system-temp");
    env.user_config("[plugin.example-bwrap]\nbwrap = \"" + wrapper + "\"\n[plugin.write-roots]\ntemp_dirs = [\"" +
                    (env.root / "system-temp") + "\"]\n");
    env.env["OMS_PLUGIN_PATH"] = OMS_BWRAP_EXAMPLE_DIR;
    return env.oms({"run", "--sandbox", "example-bwrap", "--", "sh", "-c",
                    "cat k/hot-keypair.json j/hot-keypair.json 2>/dev/null; cat notes.txt"});
}

}  // namespace

TEST_CASE("bwrap example: a key's folder renamed after the search and before the mounts starts nothing") {
    OmsEnv env(kOutsideTmp);
    write_file(env.worktree + "/k/hot-keypair.json", kKey);
    write_file(env.worktree + "/notes.txt", "NOTES-READ");
    const std::string folder = env.worktree + "/k";
    ProcessResult moved = run_reading_both_names(env, bwrap_wrapper(env, "mv '" + folder + "' '" + env.worktree + "/j'"));
    INFO(moved.out << moved.err);
    CHECK(moved.out.find(kKey) == std::string::npos);
    CHECK(moved.out.find("NOTES-READ") == std::string::npos);  // the command never started
    CHECK(moved.exit_code == 126);
    CHECK_THAT(moved.err, Catch::Contains("example-bwrap: " + folder + "/hot-keypair.json is not masked as planned (" +
                                          folder + " changed while the sandbox was made"));
}

TEST_CASE("bwrap example: a mask that did not land on the key's file starts nothing") {
    // The end state of a folder moved away and back around bwrap's mounts:
    // the folder is the one seen, the key in it bare. Made certain here by a
    // wrapper that drops the key's mask from bwrap's arguments.
    OmsEnv env(kOutsideTmp);
    write_file(env.worktree + "/k/hot-keypair.json", kKey);
    write_file(env.worktree + "/notes.txt", "NOTES-READ");
    const std::string drop_mask =
        "for arg do shift; case \"$arg\" in *-keypair.json) if [ \"$last\" = /dev/null ]; then "
        "set -- \"$@\" /dev/null-was-here; last=; continue; fi;; esac; set -- \"$@\" \"$arg\"; last=$arg; done";
    ProcessResult bare = run_reading_both_names(env, bwrap_wrapper(env, drop_mask));
    INFO(bare.out << bare.err);
    CHECK(bare.out.find(kKey) == std::string::npos);
    CHECK(bare.out.find("NOTES-READ") == std::string::npos);
    CHECK(bare.exit_code == 126);
    CHECK_THAT(bare.err, Catch::Contains(env.worktree + "/k/hot-keypair.json is not masked as planned (" +
                                         env.worktree + "/k unmasked"));
}

TEST_CASE("bwrap example: a key inside the task's .git stays hidden under the .git's read-only bind") {
    // A link planted in one run (target/deploy -> .git/info) sends the user's
    // copy of a key into .git; .git is bound read-only again, and that bind
    // must not cover the key's mask.
    OmsEnv env(kOutsideTmp);
    make_dirs(env.worktree + "/.git/info");
    write_file(env.worktree + "/.git/HEAD", "ref: refs/heads/main\n");
    write_file(env.worktree + "/.git/info/prog-keypair.json", kKey);
    write_file(env.worktree + "/notes.txt", "NOTES-READ");
    make_dirs(env.root / "system-temp");
    env.user_config("[plugin.write-roots]\ntemp_dirs = [\"" + (env.root / "system-temp") + "\"]\n");
    env.env["OMS_PLUGIN_PATH"] = OMS_BWRAP_EXAMPLE_DIR;
    ProcessResult run = env.oms({"run", "--sandbox", "example-bwrap", "--", "sh", "-c",
                                 "cat .git/info/prog-keypair.json 2>/dev/null; cat notes.txt; cat .git/HEAD"});
    INFO(run.out << run.err);
    CHECK(run.out.find(kKey) == std::string::npos);
    CHECK_THAT(run.out, Catch::Contains("NOTES-READ") && Catch::Contains("ref: refs/heads/main"));  // the controls
}

TEST_CASE("bwrap example: with the key's folder still, the command runs and the key stays hidden (control)") {
    OmsEnv env(kOutsideTmp);
    write_file(env.worktree + "/k/hot-keypair.json", kKey);
    write_file(env.worktree + "/notes.txt", "NOTES-READ");
    ProcessResult still = run_reading_both_names(env, bwrap_wrapper(env, ":"));
    INFO(still.out << still.err);
    CHECK(still.out.find(kKey) == std::string::npos);
    CHECK_THAT(still.out, Catch::Contains("NOTES-READ"));
    CHECK(still.exit_code == 0);
}
