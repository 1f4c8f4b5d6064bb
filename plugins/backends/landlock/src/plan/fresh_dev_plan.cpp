#include "fresh_dev_plan.hpp"

#include <oms/sdk.hpp>

#include <set>

namespace oms::landlock {

void plan_fresh_dev(Plan& plan) {
    static const std::string kDev = "/dev/";
    std::set<std::string> devices;  // once each, in order
    for (const PathRule& rule : plan.path_rules)
        if (rule.path.compare(0, kDev.size(), kDev) == 0 && rule.path.size() > kDev.size()) devices.insert(rule.path);
    plan.fresh_dev = true;
    plan.fresh_dev_keeps.assign(devices.begin(), devices.end());
}

void adapt_for_mounts_alone(Plan& plan) {
    // A writable mount is readable too: only Landlock grants writes without reads.
    if (!plan.home_closed_by_landlock_only.empty())
        throw oms::sdk::Error(OMS_ERR_UNSUPPORTED,
                              "landlock: rung 2 (no Landlock in this kernel) cannot keep HOME unreadable here: " +
                                  plan.home_closed_by_landlock_only +
                                  ", and a mount that stays writable stays readable; nothing ran");
}

}  // namespace oms::landlock
