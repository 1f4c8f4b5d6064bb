// A backend built for plugin ABI 1.0 does not know WRITE_DENY_NAME and would
// ignore it: the core refuses to hand it such a policy (fail closed), for
// `oms run` and `oms policy`. Positive controls: the same backend without
// that rule, and the same rule with an ABI 1.1 backend, get as far as the
// backend itself (the fixture backends never run anything).
#include "oms_env.hpp"

#include <catch2/catch.hpp>

using namespace oms::test;

namespace {

const std::string kBackend10 = OMS_ABI10_BACKEND_DIR;
const std::string kDenyNamePolicy = OMS_DENY_NAME_POLICY_DIR;
const std::string kFixtureBackends = OMS_FIXTURE_PLUGIN_DIR;  // fixture-duplicate: ABI 1.1

ProcessResult run_touch(OmsEnv& env, const std::string& backend) {
    return env.oms({"run", "--sandbox", backend, "--yes", "--", "/bin/sh", "-c", "touch " + env.worktree + "/ran"});
}

}  // namespace

TEST_CASE("an ABI 1.0 backend never gets a policy with a write-deny-name rule") {
    OmsEnv env;
    env.env["OMS_PLUGIN_PATH"] = kBackend10 + ":" + kDenyNamePolicy;
    ProcessResult run = run_touch(env, "fixture-abi10");
    INFO(run.err);
    CHECK(run.exit_code == 69);
    CHECK_THAT(run.err, Catch::Contains("refusing to run: the backend 'fixture-abi10' was built for plugin ABI 1.0, "
                                        "which does not know the rule write-deny-name '.git'"));
    CHECK_THAT(run.err, Catch::Contains("Nothing ran."));
    CHECK_THAT(run.err, !Catch::Contains("fixture backends never run anything"));
    CHECK_FALSE(exists(env.worktree + "/ran"));

    ProcessResult policy = env.oms({"policy", "--sandbox", "fixture-abi10"});
    INFO(policy.err);
    CHECK(policy.exit_code == 69);
    CHECK_THAT(policy.err, Catch::Contains("was built for plugin ABI 1.0"));
}

TEST_CASE("positive controls: the ABI 1.0 backend without the rule, the rule with an ABI 1.1 backend") {
    SECTION("no write-deny-name rule: the run reaches the 1.0 backend") {
        OmsEnv env;
        env.env["OMS_PLUGIN_PATH"] = kBackend10;
        ProcessResult run = run_touch(env, "fixture-abi10");
        INFO(run.err);
        CHECK_THAT(run.err, Catch::Contains("fixture backends never run anything"));
        CHECK_THAT(run.err, !Catch::Contains("built for plugin ABI 1.0"));
    }
    SECTION("an ABI 1.1 backend takes the rule") {
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
}
