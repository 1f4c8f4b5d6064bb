// `oms doctor --probe` with a backend that cannot grant an allowed port (the
// bwrap example has no loopback relay, and its probe declares it with a
// MISSING line beginning "net-connect-loopback"): the network canary says
// "not granted" (docs/rule-semantics.md: an allow it cannot grant runs
// stricter), neither pass nor FAIL nor inconclusive, and doctor's status is
// not changed by it. A positive control that fails WITHOUT such a
// declaration is still "inconclusive" (exit 3): here the "outside" folder,
// when every folder the probe could use lies inside a write root.
#include "oms_env.hpp"

#include <catch2/catch.hpp>

using namespace oms::test;

namespace {

const char* kJudgedRules[] = {"read ~/.ssh", "read *-keypair.json in the worktree", "write the task's .git",
                              "scrubbed variable (AWS_SECRET_ACCESS_KEY)"};

}  // namespace

TEST_CASE("doctor --probe: an allowed port the backend declares it cannot grant is 'not granted', exit 0") {
    OmsEnv env;
    make_dirs(env.root / "system-temp");  // the probe's "outside" folder must not be in a write root
    env.user_config("[plugin.write-roots]\ntemp_dirs = [\"" + (env.root / "system-temp") + "\"]\n");
    env.env["OMS_PLUGIN_PATH"] = OMS_BWRAP_EXAMPLE_DIR;
    ProcessResult probe = env.oms({"doctor", "--probe", "--sandbox", "example-bwrap"});
    INFO(probe.out << probe.err);
    CHECK(probe.exit_code == 0);
    CHECK_THAT(probe.out, Catch::Contains("not granted  connect to a refused loopback port: not granted: the allowed port "
                                          "8899 is not reachable, as the backend declares (\"net-connect-loopback: not "
                                          "granted"));
    CHECK_THAT(probe.out, Catch::Contains("the refused port stays closed"));
    // The rules whose controls work are still judged (positive control of the test itself).
    for (const char* rule : kJudgedRules)
        CHECK_THAT(probe.out, Catch::Contains(std::string("pass  ") + rule + ": blocked; control worked"));
    CHECK_THAT(probe.out, Catch::Contains("pass  write outside the worktree: blocked; control worked"));
    CHECK_THAT(probe.out, !Catch::Contains("FAIL"));
    CHECK_THAT(probe.out, !Catch::Contains("inconclusive"));
    // doctor shows each plugin's descriptor summary under its row.
    CHECK_THAT(probe.out, Catch::Contains("      example: commands confined by bubblewrap (no network but loopback, no relay)"));
    ProcessResult json = env.oms({"doctor", "--probe", "--json", "--sandbox", "example-bwrap"});
    INFO(json.out << json.err);
    CHECK(json.exit_code == 0);
    CHECK_THAT(json.out, Catch::Contains("\"rule\":\"connect to a refused loopback port\",\"passed\":false,\"status\":\"not_granted\""));
    CHECK_THAT(json.out, Catch::Contains("\"summary\":\"example: commands confined by bubblewrap"));
}

TEST_CASE("doctor --probe: a check it cannot make is inconclusive, neither pass nor fail, exit 3") {
    OmsEnv env;
    // Every folder the probe could put its "outside" folder in is a write root.
    make_dirs(env.root / "state");
    make_dirs(env.home + "/.cache");
    env.user_config("[plugin.write-roots]\ntemp_dirs = [\"" + (env.root / "state") + "\", \"" + env.home +
                    "/.cache\"]\n");
    env.env["OMS_PLUGIN_PATH"] = OMS_BWRAP_EXAMPLE_DIR;
    ProcessResult probe = env.oms({"doctor", "--probe", "--sandbox", "example-bwrap"});
    INFO(probe.out << probe.err);
    CHECK(probe.exit_code == 3);
    CHECK_THAT(probe.out, Catch::Contains("inconclusive  write outside the worktree: inconclusive: every folder oms could "
                                          "use lies inside a write root"));
    for (const char* rule : kJudgedRules)
        CHECK_THAT(probe.out, Catch::Contains(std::string("pass  ") + rule + ": blocked; control worked"));
    CHECK_THAT(probe.out, !Catch::Contains("FAIL"));
    ProcessResult json = env.oms({"doctor", "--probe", "--json", "--sandbox", "example-bwrap"});
    CHECK(json.exit_code == 3);
    CHECK_THAT(json.out, Catch::Contains("\"rule\":\"write outside the worktree\",\"passed\":false,\"status\":\"inconclusive\""));
}
