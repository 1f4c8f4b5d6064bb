// The search before a seatbelt launch, at its entry limit: a tree larger than
// the limit stops the run with one line that names --best-effort; with
// --best-effort the run goes on with a warning to print; below the limit
// nothing is said (the control).
#include "unhideable_keypairs.hpp"

#include "plugin_harness.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

using namespace oms::test;

namespace {

struct Tree {
    TempDir root{"oms-seatbelt-limit"};
    ContextBuilder context;
    PolicyBuilder policy;
    Tree() {
        for (int i = 0; i < 6; ++i) write_file(root / ("work/f" + std::to_string(i) + ".rs"), "");
        context.platform = "macos";
        context.worktree = root / "work";
        policy.add(OMS_RULE_READ_DENY_SUFFIX, "-keypair.json");
    }
    std::string check(size_t limit) {
        return oms::seatbelt::refuse_unhideable_keypairs(oms::sdk::Context(context.build()),
                                                         oms::sdk::Policy(policy.build()), limit);
    }
};

}  // namespace

TEST_CASE("seatbelt: a tree past the search's limit stops the run unless it is best-effort", "[seatbelt][keypairs]") {
    Tree tree;
    CHECK(tree.check(100).empty());  // control: six entries, limit 100
    try {
        tree.check(3);
        FAIL("a tree past the limit ran");
    } catch (const oms::sdk::Error& e) {
        CHECK(e.status() == OMS_ERR_UNSUPPORTED);
        CHECK_THAT(e.what(), Catch::Contains("too many files in the worktree") && Catch::Contains("--best-effort"));
    }
    tree.context.flags |= OMS_RUN_BEST_EFFORT;
    CHECK_THAT(tree.check(3), Catch::Contains("stopped at its limit (--best-effort)"));
}
