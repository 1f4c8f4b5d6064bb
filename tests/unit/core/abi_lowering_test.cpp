// oms/abi_lowering.hpp on constructed policies: each rule of a kind the
// backend does not declare becomes declared kinds, never weaker, or the run
// is refused naming the backend and the kind; declared kinds pass unchanged.
#include "temp_dir.hpp"

#include <oms/abi_lowering.hpp>

#include <catch2/catch.hpp>

#include <algorithm>

using oms::test::make_dirs;
using oms::test::TempDir;

namespace {

struct Rule {
    oms_rule_kind kind;
    std::string value;
    int64_t number = 0;
    std::string origin;
};

std::vector<std::string> values(const std::vector<Rule>& rules, oms_rule_kind kind) {
    std::vector<std::string> out;
    for (auto& r : rules)
        if (r.kind == kind) out.push_back(r.value);
    std::sort(out.begin(), out.end());
    return out;
}

bool has(const std::vector<Rule>& rules, oms_rule_kind kind) { return !values(rules, kind).empty(); }

}  // namespace

TEST_CASE("WRITE_DENY_NAME becomes WRITE_DENY per entry found now; a backend declaring it gets it as is") {
    TempDir tmp("oms-lowering");
    const std::string w = tmp.path();
    make_dirs(w + "/vendor/lib/.git");
    make_dirs(w + "/src");
    std::vector<Rule> rules{{OMS_RULE_WRITE_ALLOW_TREE, w, 0, "t"}, {OMS_RULE_WRITE_DENY_NAME, ".git", 0, "t: nested"}};
    auto lowered = rules;
    auto notes = oms::abi::lower_rules(lowered, OMS_RULE_KINDS_1_0, w, "b");
    CHECK(values(lowered, OMS_RULE_WRITE_DENY) == std::vector<std::string>{w + "/vendor/lib/.git"});
    CHECK_FALSE(has(lowered, OMS_RULE_WRITE_DENY_NAME));
    CHECK(values(lowered, OMS_RULE_WRITE_ALLOW_TREE) == std::vector<std::string>{w});  // control: kept
    REQUIRE(notes.size() == 1);
    CHECK_THAT(notes[0], Catch::Contains("WRITE_DENY_NAME (11) '.git' -> 1 WRITE_DENY path(s)"));
    auto as_is = rules;
    CHECK(oms::abi::lower_rules(as_is, oms::abi::rule_kinds_of_minor(1), w, "b").empty());
    CHECK(values(as_is, OMS_RULE_WRITE_DENY_NAME) == std::vector<std::string>{".git"});
}

TEST_CASE("WRITE_SCRATCH_TREE becomes WRITE_DENY inside a write root and is dropped outside") {
    std::vector<Rule> rules{{OMS_RULE_WRITE_ALLOW_TREE, "/h/.cargo", 0, "t"},
                            {OMS_RULE_WRITE_SCRATCH_TREE, "/h/.cargo/registry/src", 0, "t"},
                            {OMS_RULE_WRITE_SCRATCH_TREE, "/elsewhere", 0, "t"}};
    const uint64_t no_scratch = oms::abi::rule_kinds_of_minor(1) & ~OMS_RULE_BIT(OMS_RULE_WRITE_SCRATCH_TREE);
    oms::abi::lower_rules(rules, no_scratch, "/w", "b");
    CHECK(values(rules, OMS_RULE_WRITE_DENY) == std::vector<std::string>{"/h/.cargo/registry/src"});
    CHECK_FALSE(has(rules, OMS_RULE_WRITE_SCRATCH_TREE));
}

TEST_CASE("NET_CONNECT_RUN_PORT becomes NET_CONNECT_LOOPBACK of the same port; a backend declaring it gets it as is") {
    const std::vector<Rule> rules{{OMS_RULE_NET_CONNECT_LOOPBACK, "", 8899, "network: Surfnet"},
                                  {OMS_RULE_NET_CONNECT_RUN_PORT, "", 41234, "network: oms's egress proxy"}};
    auto lowered = rules;
    auto notes = oms::abi::lower_rules(lowered, oms::abi::rule_kinds_of_minor(3), "/w", "b");
    CHECK_FALSE(has(lowered, OMS_RULE_NET_CONNECT_RUN_PORT));
    std::vector<int64_t> ports;
    for (const Rule& r : lowered)
        if (r.kind == OMS_RULE_NET_CONNECT_LOOPBACK) ports.push_back(r.number);
    CHECK(ports == std::vector<int64_t>{8899, 41234});  // the fixed one kept, the run's one opened the old way
    REQUIRE(notes.size() == 1);
    CHECK(notes[0] == "NET_CONNECT_RUN_PORT (13) 41234 -> NET_CONNECT_LOOPBACK 41234");
    auto as_is = rules;
    CHECK(oms::abi::lower_rules(as_is, oms::abi::rule_kinds_of_minor(4), "/w", "b").empty());
    REQUIRE(as_is.size() == 2);
    CHECK(as_is[1].kind == OMS_RULE_NET_CONNECT_RUN_PORT);
    CHECK(as_is[1].number == 41234);
    // A backend declaring neither kind is refused, not handed less.
    std::vector<Rule> none{rules[1]};
    const uint64_t no_ports = oms::abi::rule_kinds_of_minor(3) & ~OMS_RULE_BIT(OMS_RULE_NET_CONNECT_LOOPBACK);
    CHECK_THROWS_WITH(oms::abi::lower_rules(none, no_ports, "/w", "b"),
                      Catch::Contains("NET_CONNECT_RUN_PORT (13)") && Catch::Contains("nor NET_CONNECT_LOOPBACK (8)"));
}

TEST_CASE("NET_PUBLISH_LOOPBACK is dropped for a backend that does not declare it, kept for one that does") {
    const std::vector<Rule> rules{{OMS_RULE_NET_CONNECT_LOOPBACK, "", 8899, "network: Surfnet"},
                                  {OMS_RULE_NET_PUBLISH_LOOPBACK, "", 5173, "network: published"}};
    auto lowered = rules;
    std::vector<std::string> told;
    auto notes = oms::abi::lower_rules(lowered, oms::abi::rule_kinds_of_minor(4), "/w", "b", &told);
    CHECK_FALSE(has(lowered, OMS_RULE_NET_PUBLISH_LOOPBACK));
    REQUIRE(lowered.size() == 1);  // the sandbox only more closed: nothing else changes
    CHECK(lowered[0].number == 8899);
    REQUIRE(notes.size() == 1);
    const std::string line =
        "port 5173 not published: the backend 'b' does not publish ports (NET_PUBLISH_LOOPBACK, plugin ABI 1.5)";
    CHECK(notes[0] == "NET_PUBLISH_LOOPBACK (14) 5173 -> dropped (" + line + ")");
    CHECK(told == std::vector<std::string>{line});  // what the user is told, once
    auto as_is = rules;
    told.clear();
    CHECK(oms::abi::lower_rules(as_is, oms::abi::rule_kinds_of_minor(5), "/w", "b", &told).empty());
    CHECK(told.empty());
    REQUIRE(as_is.size() == 2);
    CHECK(as_is[1].kind == OMS_RULE_NET_PUBLISH_LOOPBACK);
}

TEST_CASE("a kind that cannot be lowered into declared kinds refuses, naming the backend and the kind") {
    std::vector<Rule> rules{{OMS_RULE_READ_DENY_TREE, "/h", 0, "secret-deny: HOME"},
                            {OMS_RULE_WRITE_DENY_NAME, ".git", 0, "write-roots: nested"}};
    const auto before = values(rules, OMS_RULE_READ_DENY_TREE);
    const uint64_t no_home = OMS_RULE_KINDS_1_0 & ~OMS_RULE_BIT(OMS_RULE_READ_DENY_TREE);
    CHECK_THROWS_WITH(oms::abi::lower_rules(rules, no_home, "/w", "third-party"),
                      "refusing to run: the backend 'third-party' does not declare the rule kind READ_DENY_TREE (1) "
                      "('/h', from secret-deny: HOME), and no kind it declares expresses it. Nothing ran.");
    CHECK(values(rules, OMS_RULE_READ_DENY_TREE) == before);  // unchanged
    const uint64_t no_write_deny = OMS_RULE_KINDS_1_0 & ~OMS_RULE_BIT(OMS_RULE_WRITE_DENY);
    std::vector<Rule> names{{OMS_RULE_WRITE_DENY_NAME, ".git", 0, "write-roots: nested"}};
    CHECK_THROWS_WITH(oms::abi::lower_rules(names, no_write_deny, "/w", "third-party"),
                      Catch::Contains("does not declare the rule kind WRITE_DENY_NAME (11) ('.git', from write-roots: "
                                      "nested), nor WRITE_DENY (6), into which oms would rewrite it. Nothing ran."));
    // A kind no row knows (a newer host's) is refused, not skipped.
    std::vector<Rule> future{{OMS_RULE_KIND_LAST + 1, "x", 0, "p"}};
    CHECK_THROWS_AS(oms::abi::lower_rules(future, oms::abi::rule_kinds_of_minor(OMS_ABI_MINOR), "/w", "b"),
                    oms::abi::LoweringRefused);
}

TEST_CASE("a worktree that cannot be searched refuses rather than leave a nested .git out") {
    TempDir tmp("oms-lowering");
    std::vector<Rule> rules{{OMS_RULE_WRITE_DENY_NAME, ".git", 0, "t"}};
    try {
        oms::abi::lower_rules(rules, OMS_RULE_KINDS_1_0, tmp.path() + "/missing", "b");
        FAIL("no refusal");
    } catch (const oms::abi::LoweringRefused& refused) {
        CHECK(refused.cause == oms::abi::LoweringRefused::Cause::unsearchable_worktree);
        CHECK_THAT(refused.what(), Catch::Contains("cannot search the worktree"));
    }
}

TEST_CASE("the compatibility table: each minor's kinds and flags") {
    CHECK(oms::abi::rule_kinds_of_minor(0) == 0x7fe);
    CHECK(oms::abi::rule_kinds_of_minor(1) == 0x1ffe);
    CHECK(oms::abi::rule_kinds_of_minor(2) == 0x1ffe);
    CHECK(oms::abi::rule_kinds_of_minor(3) == 0x1ffe);
    CHECK(oms::abi::rule_kinds_of_minor(4) == 0x3ffe);
    CHECK(oms::abi::run_flags_of_minor(2) == 3);
    CHECK(oms::abi::backend_flags_of_minor(2) == 7);
    CHECK(oms::abi::kRuleSize_1_0 == 48);
    CHECK(oms::abi::kDescriptorSize_1_0 == 80);
    CHECK(oms::abi::kBackendApiSize_1_0 == 72);
    CHECK(oms::abi::kPolicyApiSize_1_0 == 16);
    CHECK(oms::abi::kConfigKeySize_1_0 == 32);
    CHECK(oms::abi::kRunContextSize_1_0 == 148);
}
