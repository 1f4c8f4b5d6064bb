// `oms policy --sandbox seatbelt` on any platform: render through the C ABI
// shows the parameters and the profile as TEXT lines.
#include "evaluated_profile.hpp"
#include "loaded_plugin.hpp"

#include <catch2/catch.hpp>

using namespace oms::test;
using namespace oms::test::seatbelt;

namespace {

struct Rendered {
    oms_status status;
    std::vector<std::string> lines;
};

Rendered render_through_abi(PolicyBuilder& policy, const Layout& layout) {
    LoadedPlugin plugin;
    ContextBuilder context;
    context.home = layout.home;
    context.worktree = layout.worktree;
    ReportCollector report;
    ErrorBuffer error;
    Rendered out;
    out.status = plugin.api().render(plugin.instance(), context.build(), policy.build(), report.sink(), error.get());
    out.lines = report.of(OMS_REPORT_TEXT);
    return out;
}

}  // namespace

TEST_CASE("render works on Linux and shows parameters, limits and the profile", "[seatbelt][render]") {
    ScopedEnv platform("OMS_SEATBELT_PLATFORM", "linux");
    const Layout layout = layout_under("/Users/ann/odd\nname", true);
    auto policy = mirror_policy(layout);
    const auto rendered = render_through_abi(policy, layout);
    REQUIRE(rendered.status == OMS_OK);
    REQUIRE(rendered.lines.size() > 10);
    CHECK(rendered.lines[0] == ";; Run as: /usr/bin/sandbox-exec -D NAME=VALUE... -f <profile file> <command...>");
    // Every TEXT line is one line: the newline in HOME is shown escaped.
    for (const auto& line : rendered.lines) CHECK(line.find('\n') == std::string::npos);
    bool shown = false;
    for (const auto& line : rendered.lines) shown |= line.find("-D $'READ_DENY_TREE_0=/Users/ann/odd\\nname'") != std::string::npos;
    CHECK(shown);
    bool limit = false;
    for (const auto& line : rendered.lines) limit |= line.rfind(";; Limit: loopback listening", 0) == 0;
    CHECK(limit);
    // The whole output is itself a readable profile (the listing is comments).
    std::string text;
    for (const auto& line : rendered.lines) text += line + "\n";
    const auto expected = render(policy);
    CHECK(text.find(expected.text) != std::string::npos);
    CHECK_NOTHROW(sbpl::Evaluator(text, parameter_map(expected)));
}

TEST_CASE("render refuses a malformed policy with a reason", "[seatbelt][render]") {
    ScopedEnv platform("OMS_SEATBELT_PLATFORM", "linux");
    PolicyBuilder policy;
    policy.add(OMS_RULE_READ_DENY, "not/absolute");
    LoadedPlugin plugin;
    ContextBuilder context;
    ReportCollector report;
    ErrorBuffer error;
    CHECK(plugin.api().render(plugin.instance(), context.build(), policy.build(), report.sink(), error.get()) ==
          OMS_ERR_INVALID);
    CHECK(error.message().find("is not an absolute path") != std::string::npos);
}
