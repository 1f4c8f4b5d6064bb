// `oms doctor --probe` with a backend that cannot grant an allowed port (the
// bwrap example has no loopback relay): the network canary's positive
// control fails, so that rule is "inconclusive", neither pass nor fail, and
// doctor exits with its own status (3) while the other rules still pass.
#include "oms_env.hpp"

#include <catch2/catch.hpp>

using namespace oms::test;

TEST_CASE("doctor --probe: a failed positive control is inconclusive, worded after the control, exit 3") {
    OmsEnv env;
    make_dirs(env.root / "system-temp");  // the probe's "outside" folder must not be in a write root
    env.user_config("[plugin.write-roots]\ntemp_dirs = [\"" + (env.root / "system-temp") + "\"]\n");
    env.env["OMS_PLUGIN_PATH"] = OMS_BWRAP_EXAMPLE_DIR;
    ProcessResult probe = env.oms({"doctor", "--probe", "--sandbox", "example-bwrap"});
    INFO(probe.out << probe.err);
    CHECK(probe.exit_code == 3);
    CHECK_THAT(probe.out, Catch::Contains("inconclusive  connect to a refused loopback port: inconclusive: the positive "
                                          "control failed (the connection to the allowed port 8899 was refused)"));
    // The rules whose controls work are still judged (positive control of the test itself).
    for (const char* rule : {"read ~/.ssh", "read *-keypair.json in the worktree", "write outside the worktree",
                             "write the task's .git", "scrubbed variable (AWS_SECRET_ACCESS_KEY)"})
        CHECK_THAT(probe.out, Catch::Contains(std::string("pass  ") + rule + ": blocked; control worked"));
    CHECK_THAT(probe.out, !Catch::Contains("FAIL"));
    ProcessResult json = env.oms({"doctor", "--probe", "--json", "--sandbox", "example-bwrap"});
    CHECK(json.exit_code == 3);
    CHECK_THAT(json.out, Catch::Contains("\"rule\":\"connect to a refused loopback port\",\"passed\":false,\"status\":\"inconclusive\""));
}
