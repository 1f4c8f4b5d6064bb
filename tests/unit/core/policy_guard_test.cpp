// The core's checks over the assembled policy, on constructed policies: which
// read roots are dropped, which write roots refuse the run, the exemptions
// (the worktree, the system temp folders), and the ABI 1.0 refusal.
#include "oms/core/error.hpp"
#include "oms/core/policy_guard.hpp"

#include "temp_dir.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

using namespace oms::core;
using oms::test::make_dirs;
using oms::test::TempDir;

namespace {

struct Machine {
    TempDir tmp{"oms-policy-guard"};
    std::string T = tmp.path();
    std::string H = T + "/home";
    std::string W = H + "/work";
    std::string saved_home = std::getenv("HOME") ? std::getenv("HOME") : "";
    Machine() {
        for (const char* folder : {"/.ssh", "/.config/gh", "/proj", "/work/secrets"}) make_dirs(H + folder);
        setenv("HOME", H.c_str(), 1);  // the guard protects $HOME as well as the password database's
    }
    ~Machine() {
        if (saved_home.empty())
            unsetenv("HOME");
        else
            setenv("HOME", saved_home.c_str(), 1);
    }
    RunInputs inputs() const {
        RunInputs in;
        in.home = H;
        in.worktree = W;
        return in;
    }
};

PolicyRule rule(oms_rule_kind kind, const std::string& value) { return PolicyRule{kind, value, 0, "test"}; }

std::vector<std::string> values(const Policy& policy, oms_rule_kind kind) {
    std::vector<std::string> out;
    for (const PolicyRule& r : policy.rules)
        if (r.kind == kind) out.push_back(r.value);
    return out;
}

}  // namespace

TEST_CASE("read roots that would open HOME or a denied folder are dropped, the rest kept") {
    Machine m;
    RunContext context(m.inputs());
    Policy policy;
    policy.rules = {rule(OMS_RULE_READ_DENY, m.H + "/.ssh"),          rule(OMS_RULE_READ_DENY, m.H + "/.config/gh"),
                    rule(OMS_RULE_READ_DENY, m.W + "/secrets"),       rule(OMS_RULE_READ_ALLOW_TREE, "/"),
                    rule(OMS_RULE_READ_ALLOW_TREE, m.H),              rule(OMS_RULE_READ_ALLOW_TREE, m.T),
                    rule(OMS_RULE_READ_ALLOW_TREE, m.H + "/.config"), rule(OMS_RULE_READ_ALLOW_TREE, m.H + "/.ssh/keys"),
                    rule(OMS_RULE_READ_ALLOW_TREE, m.H + "/proj"),    rule(OMS_RULE_READ_ALLOW_TREE, m.W)};
    guard_assembled_policy(context, policy);
    // The worktree may hold a denied folder (a config's narrowing); an ordinary root stays.
    CHECK(values(policy, OMS_RULE_READ_ALLOW_TREE) == std::vector<std::string>{m.H + "/proj", m.W});
    CHECK(values(policy, OMS_RULE_READ_DENY).size() == 3);  // denies are never touched
}

TEST_CASE("a write root that would open HOME refuses the run; temp folders and the worktree do not") {
    Machine m;
    RunContext context(m.inputs());
    for (const std::string& bad : {std::string("/"), m.H, m.T, m.H + "/.config", m.H + "/.ssh/x"}) {
        Policy policy;
        policy.rules = {rule(OMS_RULE_READ_DENY, m.H + "/.ssh"), rule(OMS_RULE_READ_DENY, m.H + "/.config/gh"),
                        rule(OMS_RULE_WRITE_ALLOW_TREE, bad)};
        INFO(bad);
        CHECK_THROWS_AS(guard_assembled_policy(context, policy), UserError);
    }
    Policy fine;
    fine.rules = {rule(OMS_RULE_READ_DENY, m.H + "/.ssh"), rule(OMS_RULE_READ_DENY, m.W + "/secrets"),
                  rule(OMS_RULE_WRITE_ALLOW_TREE, "/tmp"), rule(OMS_RULE_WRITE_ALLOW_TREE, m.W),
                  rule(OMS_RULE_WRITE_ALLOW_TREE, m.H + "/proj")};
    // HOME lies below /tmp here: /tmp is exempt (the private temp folders' business).
    REQUIRE(m.H.rfind("/tmp/", 0) == 0);
    CHECK_NOTHROW(guard_assembled_policy(context, fine));
    CHECK(values(fine, OMS_RULE_WRITE_ALLOW_TREE).size() == 3);
}

TEST_CASE("a backend is refused any rule of a kind it does not declare, whatever its ABI minor") {
    PluginRecord old_backend;
    old_backend.id = "old";
    old_backend.kind = OMS_KIND_BACKEND;
    old_backend.abi_major = 1;
    old_backend.abi_minor = 0;
    old_backend.rule_kinds = OMS_RULE_KINDS_1_0;
    Policy with_name;
    with_name.rules = {rule(OMS_RULE_WRITE_DENY, "/w/.git"), rule(OMS_RULE_WRITE_DENY_NAME, ".git")};
    Policy with_scratch;
    with_scratch.rules = {rule(OMS_RULE_WRITE_SCRATCH_TREE, "/x")};
    CHECK_THROWS_WITH(refuse_rules_unknown_to_backend(old_backend, with_name),
                      Catch::Contains("the backend 'old' (targeting plugin ABI 1.0) does not declare the rule kind "
                                      "write-deny-name ('.git'"));
    CHECK_THROWS_AS(refuse_rules_unknown_to_backend(old_backend, with_scratch), UserError);
    PluginRecord new_backend = old_backend;
    new_backend.abi_minor = 1;
    new_backend.rule_kinds = OMS_RULE_KINDS_1_0 | OMS_RULE_BIT(OMS_RULE_WRITE_DENY_NAME);
    CHECK_NOTHROW(refuse_rules_unknown_to_backend(new_backend, with_name));  // control: declared
    CHECK_THROWS_AS(refuse_rules_unknown_to_backend(new_backend, with_scratch), UserError);  // the minor is not enough
}
