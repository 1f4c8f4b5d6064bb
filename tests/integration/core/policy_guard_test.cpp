// The core's check over the assembled policy, whatever the policy plugins
// say (a rogue plugin here): read roots that are `/`, HOME, above HOME, hold
// a denied folder or lie inside one are dropped with a warning naming their
// origin; a write root that is HOME refuses the run. An ordinary root from
// the same plugin stays (positive control).
#include "oms_env.hpp"

#include <catch2/catch.hpp>
#include <sstream>

using namespace oms::test;

namespace {

// The rule lines `oms policy` prints for one kind.
std::vector<std::string> rule_lines(const std::string& out, const std::string& kind) {
    std::vector<std::string> lines;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);)
        if (line.rfind("  " + kind + " ", 0) == 0) lines.push_back(line);
    return lines;
}

bool lists_root(const std::vector<std::string>& lines, const std::string& root) {
    for (const std::string& line : lines) {
        std::istringstream fields(line);
        std::string kind, value;
        fields >> kind >> value;
        if (value == root) return true;
    }
    return false;
}

}  // namespace

TEST_CASE("read roots that would open HOME are dropped whatever a policy plugin says") {
    OmsEnv env;
    env.env["OMS_PLUGIN_PATH"] = OMS_ROGUE_POLICY_DIR;
    make_dirs(env.home + "/.config/gh");
    make_dirs(env.home + "/.ssh/inner");
    make_dirs(env.home + "/proj");
    ProcessResult policy = env.oms({"policy", "--sandbox", "host-null"});
    INFO(policy.out << policy.err);
    REQUIRE(policy.exit_code == 0);
    const auto reads = rule_lines(policy.out, "read-allow-tree");
    const std::string parent = env.home.substr(0, env.home.rfind('/'));
    for (const std::string& root : {std::string("/"), env.home, parent, env.home + "/.config", env.home + "/.ssh/inner"})
        CHECK_FALSE(lists_root(reads, root));
    CHECK(lists_root(reads, env.home + "/proj"));        // positive control
    CHECK(lists_root(reads, env.worktree));              // the built-in plugins' roots stay
    const std::string warning = "oms: warning: the read root '";
    CHECK_THAT(policy.err, Catch::Contains(warning + "/' (fixture-policy-opens-home) is dropped: it is the root folder '/'"));
    CHECK_THAT(policy.err, Catch::Contains(warning + env.home + "' (fixture-policy-opens-home) is dropped: it is HOME"));
    CHECK_THAT(policy.err, Catch::Contains(warning + parent + "' (fixture-policy-opens-home) is dropped: it holds HOME"));
    CHECK_THAT(policy.err, Catch::Contains(warning + env.home + "/.config' (fixture-policy-opens-home) is dropped: "
                                                                "it holds the denied folder " + env.home + "/.config/gh"));
    CHECK_THAT(policy.err, Catch::Contains(warning + env.home + "/.ssh/inner' (fixture-policy-opens-home) is dropped: "
                                                                "it lies inside the denied path " + env.home + "/.ssh"));
}

TEST_CASE("a write root that is HOME refuses the run before anything runs") {
    OmsEnv env;
    env.env["OMS_PLUGIN_PATH"] = OMS_ROGUE_POLICY_DIR;
    env.env["FIXTURE_OPEN_HOME_WRITES"] = "1";
    const std::string marker = env.worktree + "/ran";
    ProcessResult run = env.oms({"run", "--sandbox", "host-null", "--yes", "--", "/bin/sh", "-c", "touch " + marker});
    INFO(run.err);
    CHECK(run.exit_code == 77);
    CHECK_THAT(run.err, Catch::Contains("refusing to run: the write root '" + env.home +
                                        "' (fixture-policy-opens-home) is not allowed: it is HOME"));
    CHECK_FALSE(exists(marker));
    // Positive control: without the write root the same command runs (the read roots only warn).
    env.env.erase("FIXTURE_OPEN_HOME_WRITES");
    ProcessResult control = env.oms({"run", "--sandbox", "host-null", "--yes", "--", "/bin/sh", "-c", "touch " + marker});
    INFO(control.err);
    CHECK(control.exit_code == 0);
    CHECK(exists(marker));
}
