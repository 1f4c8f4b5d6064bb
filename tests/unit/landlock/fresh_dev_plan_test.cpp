// The fresh /dev's plan: the device files of the path rules, and nothing
// else, become what it holds; rung 2 refuses what only Landlock could hold.
#include "fresh_dev_plan.hpp"

#include "landlock_uapi.hpp"

#include <oms/sdk.hpp>

#include <catch2/catch.hpp>

using namespace oms::landlock;

TEST_CASE("the fresh /dev keeps exactly the device files the path rules grant", "[fresh-dev]") {
    Plan plan;
    plan.path_rules = {
        PathRule{"/usr", uapi::kReadRights, "outside HOME"},
        PathRule{"/dev/null", uapi::kReadRights | uapi::kFsWriteFile, "device"},
        PathRule{"/dev/urandom", uapi::kReadRights, "device"},
        PathRule{"/dev/null", uapi::kReadRights, "device, twice"},
        PathRule{"/dev/", uapi::kReadRights, "the folder itself is no device file"},
        PathRule{"/devices", uapi::kReadRights, "a name that only starts like /dev"},
        PathRule{"/dev/pts", uapi::kReadRights | uapi::kFsWriteFile, "device folder"},
    };
    CHECK_FALSE(plan.fresh_dev);
    plan_fresh_dev(plan);
    CHECK(plan.fresh_dev);
    CHECK(plan.fresh_dev_keeps == std::vector<std::string>{"/dev/null", "/dev/pts", "/dev/urandom"});
    CHECK(plan.path_rules.size() == 7);  // left as they were (Landlock applies them too, where there is one)
    adapt_for_mounts_alone(plan);        // rung 2: nothing to refuse here, nothing changed
    CHECK(plan.fresh_dev_keeps.size() == 3);
}

TEST_CASE("rung 2 refuses a plan whose HOME only Landlock could keep closed", "[rung-2]") {
    Plan plan;
    plan.path_rules = {PathRule{"/dev/null", uapi::kReadRights | uapi::kFsWriteFile, "device"}};
    plan.home_closed_by_landlock_only = "a write root holds HOME (/home/ada)";
    try {
        adapt_for_mounts_alone(plan);
        FAIL("the plan was taken");
    } catch (const oms::sdk::Error& e) {
        CHECK(e.status() == OMS_ERR_UNSUPPORTED);
        CHECK(std::string(e.what()) ==
              "landlock: rung 2 (no Landlock in this kernel) cannot keep HOME unreadable here: a write root holds "
              "HOME (/home/ada), and a mount that stays writable stays readable; nothing ran");
    }
}
