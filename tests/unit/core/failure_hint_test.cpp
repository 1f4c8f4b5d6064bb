// failure_hint: the line after a failed run names the likeliest cause first
// and stays short once a refusal on the line above already names it.
#include "oms/core/env_options.hpp"
#include "oms/core/failure_hint.hpp"

#include <catch2/catch.hpp>

using namespace oms::core;

namespace {

const DroppedVariables kDropped{{"PYTHONPATH", "NODE_OPTIONS"}, 0};

}  // namespace

TEST_CASE("failure line: after a reported refusal it points there alone") {
    const std::string line = failure_hint("landlock", 7, kDropped, "", {}, "/w", 1);
    CHECK(line == "oms: exit 7 under the landlock sandbox; see the refusal above "
                  "(--quiet or [sandbox] failure_hint = false silences this line)");
    const std::string hidden = failure_hint("landlock", 1, kDropped, "", {"/w/target/deploy/prog-keypair.json"}, "/w", 2);
    CHECK(hidden == "oms: exit 1 under the landlock sandbox; see the refusals above "
                    "(--quiet or [sandbox] failure_hint = false silences this line)");
    CHECK(hidden.find("PYTHONPATH") == std::string::npos);
    CHECK(hidden.find("oms explain read|write") == std::string::npos);
}

TEST_CASE("failure line: with nothing refused, the hidden files, then the variables, then how to ask") {
    const std::string line = failure_hint("landlock", 1, kDropped, "", {"/w/id.json"}, "/w", 0);
    CHECK(line.find("hidden from commands") < line.find("not passed from your environment: "));
    CHECK(line.find("PYTHONPATH") != std::string::npos);
    CHECK(line.find("if a file or port was refused, ask: oms explain") != std::string::npos);
    CHECK(line.find("see the refusal") == std::string::npos);
}
