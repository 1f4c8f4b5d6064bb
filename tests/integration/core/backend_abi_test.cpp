// A backend built for plugin ABI 1.0 does not know WRITE_DENY_NAME and would
// ignore it: the core lowers the rule into WRITE_DENY paths it knows, for
// `oms run` and `oms policy`, and stops the run when it cannot search the
// worktree. Control: an ABI 1.1 backend gets the rule itself. (The fixture
// backends never run anything: reaching them is the success.)
#include "oms_env.hpp"

#include <catch2/catch.hpp>
#include <sys/stat.h>
#include <unistd.h>

using namespace oms::test;

namespace {

const std::string kBackend10 = OMS_ABI10_BACKEND_DIR;  // built from the frozen 1.0 header
const std::string kNoWriteDeny = OMS_NO_WRITE_DENY_BACKEND_DIR;
const std::string kDenyNamePolicy = OMS_DENY_NAME_POLICY_DIR;
const std::string kFixtureBackends = OMS_FIXTURE_PLUGIN_DIR;  // fixture-duplicate: ABI 1.1

ProcessResult run_touch(OmsEnv& env, const std::string& backend) {
    return env.oms({"run", "--sandbox", backend, "--yes", "--", "/bin/sh", "-c", "touch " + env.worktree + "/ran"});
}

}  // namespace

TEST_CASE("an ABI 1.0 backend gets every nested .git as a write-deny path, never the rule it does not know") {
    OmsEnv env;
    env.env["OMS_PLUGIN_PATH"] = kBackend10;
    write_file(env.worktree + "/sub/.git/config", "[core]\n");
    write_file(env.worktree + "/mod/.git", "gitdir: ../.git/modules/mod\n");
    write_file(env.worktree + "/src/main.rs", "fn main() {}\n");
    ProcessResult policy = env.oms({"policy", "--sandbox", "fixture-abi10"});
    INFO(policy.out << policy.err);
    CHECK(policy.exit_code == 0);
    CHECK_THAT(policy.out, Catch::Contains(env.worktree + "/sub/.git"));
    CHECK_THAT(policy.out, Catch::Contains(env.worktree + "/mod/.git"));
    CHECK_THAT(policy.out, !Catch::Contains("write-deny-name"));
    CHECK_THAT(policy.out, !Catch::Contains(env.worktree + "/src"));  // control: only the .git entries
    // The run reaches the backend itself (fixture backends never run anything).
    ProcessResult run = run_touch(env, "fixture-abi10");
    INFO(run.err);
    CHECK_THAT(run.err, Catch::Contains("fixture backends never run anything"));
}

TEST_CASE("a worktree folder the .git search cannot read stops an ABI 1.0 backend's run") {
    OmsEnv env;
    env.env["OMS_PLUGIN_PATH"] = kBackend10;
    write_file(env.worktree + "/hidden/sub/.git/config", "[core]\n");
    REQUIRE(chmod((env.worktree + "/hidden").c_str(), 0) == 0);
    ProcessResult run = run_touch(env, "fixture-abi10");
    ProcessResult policy = env.oms({"policy", "--sandbox", "fixture-abi10"});
    REQUIRE(chmod((env.worktree + "/hidden").c_str(), 0755) == 0);
    INFO(run.err << policy.out);
    if (geteuid() == 0) {
        // Root reads a mode-000 folder: the nested .git is found and denied.
        CHECK_THAT(policy.out, Catch::Contains(env.worktree + "/hidden/sub/.git"));
        CHECK_THAT(run.err, Catch::Contains("fixture backends never run anything"));
    } else {
        CHECK(run.exit_code == 77);
        CHECK_THAT(run.err, Catch::Contains("cannot search the worktree"));
        CHECK_THAT(run.err, !Catch::Contains("fixture backends never run anything"));
    }
}

TEST_CASE("an ABI 1.1 backend takes the write-deny-name rule as it is") {
    OmsEnv env;
    env.env["OMS_PLUGIN_PATH"] = kFixtureBackends + ":" + kDenyNamePolicy;
    ProcessResult run = run_touch(env, "fixture-duplicate");
    INFO(run.err);
    CHECK_THAT(run.err, Catch::Contains("fixture backends never run anything"));
    ProcessResult policy = env.oms({"policy", "--sandbox", "host-null"});
    INFO(policy.err);
    CHECK(policy.exit_code == 0);
    // `oms policy` names the new kind and says what it means.
    CHECK_THAT(policy.out, Catch::Contains("write-deny-name      name '.git' anywhere below a write root"));
}

TEST_CASE("an ABI 1.0 backend keeps the current folder as the worktree (it would start the command at the top)") {
    OmsEnv env;
    env.env["OMS_PLUGIN_PATH"] = kBackend10;
    make_dirs(env.worktree + "/.git");
    make_dirs(env.worktree + "/app");
    const std::string sub = env.worktree + "/app";
    ProcessResult policy = env.oms({"policy", "--sandbox", "fixture-abi10"}, {{}, std::nullopt, sub, 60});
    INFO(policy.out << policy.err);
    CHECK(policy.exit_code == 0);
    CHECK_THAT(policy.out, Catch::Contains("worktree: " + sub + "\n"));
    CHECK_THAT(policy.out, !Catch::Contains("working folder:"));
    CHECK_THAT(policy.err, Catch::Contains("'fixture-abi10' was built for plugin ABI 1.0"));
    CHECK_THAT(policy.err, Catch::Contains("Pass --worktree " + env.worktree));
    // Control: an ABI 1.1 backend from the same folder gets the repository.
    ProcessResult wide = env.oms({"policy", "--sandbox", "host-null"}, {{}, std::nullopt, sub, 60});
    INFO(wide.out << wide.err);
    CHECK_THAT(wide.out, Catch::Contains("worktree: " + env.worktree + "\nworking folder: " + sub + "\n"));
}

TEST_CASE("a backend that does not declare WRITE_DENY is refused every run, naming it and the kind") {
    OmsEnv env;
    env.env["OMS_PLUGIN_PATH"] = kNoWriteDeny + ":" + kBackend10;
    write_file(env.worktree + "/sub/.git/config", "[core]\n");
    ProcessResult run = run_touch(env, "fixture-no-write-deny");
    INFO(run.err);
    CHECK(run.exit_code == 69);
    CHECK_THAT(run.err, Catch::Contains("refusing to run: the backend 'fixture-no-write-deny' does not declare the rule "
                                        "kind WRITE_DENY_NAME (11) ('.git', from write-roots"));
    CHECK_THAT(run.err, Catch::Contains("nor WRITE_DENY (6), into which oms would rewrite it"));
    CHECK_THAT(run.err, Catch::Contains("Nothing ran."));
    CHECK_THAT(run.err, !Catch::Contains("fixture backends never run anything"));
    // Control: the 1.0 backend next to it, which declares WRITE_DENY (its
    // frozen set), is reached.
    ProcessResult control = run_touch(env, "fixture-abi10");
    INFO(control.err);
    CHECK_THAT(control.err, Catch::Contains("fixture backends never run anything"));
}
