// The bwrap example's masks against a folder moved between the keypair
// search and bwrap's mounts (the kit's keypair-rename-race, made certain):
// the example's `bwrap` setting names a wrapper that renames the key's
// folder and then starts the real bwrap. bwrap makes the missing folder
// again for the mask, so the key sits unmasked at the new name; the check at
// the sandbox's start must find the mask's folder changed and start nothing.
// The control: the same wrapper without the rename, where the command runs
// and the key stays hidden.
#include "oms_env.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <sys/stat.h>

using namespace oms::test;

namespace {

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
    OmsEnv env;
    write_file(env.worktree + "/k/hot-keypair.json", kKey);
    write_file(env.worktree + "/notes.txt", "NOTES-READ");
    const std::string folder = env.worktree + "/k";
    ProcessResult moved = run_reading_both_names(env, bwrap_wrapper(env, "mv '" + folder + "' '" + env.worktree + "/j'"));
    INFO(moved.out << moved.err);
    CHECK(moved.out.find(kKey) == std::string::npos);
    CHECK(moved.out.find("NOTES-READ") == std::string::npos);  // the command never started
    CHECK(moved.exit_code == 126);
    CHECK_THAT(moved.err, Catch::Contains("example-bwrap: " + folder + " changed while the sandbox was made"));
}

TEST_CASE("bwrap example: with the key's folder still, the command runs and the key stays hidden (control)") {
    OmsEnv env;
    write_file(env.worktree + "/k/hot-keypair.json", kKey);
    write_file(env.worktree + "/notes.txt", "NOTES-READ");
    ProcessResult still = run_reading_both_names(env, bwrap_wrapper(env, ":"));
    INFO(still.out << still.err);
    CHECK(still.out.find(kKey) == std::string::npos);
    CHECK_THAT(still.out, Catch::Contains("NOTES-READ"));
    CHECK(still.exit_code == 0);
}
