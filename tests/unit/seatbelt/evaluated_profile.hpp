// Render a policy with the backend's own renderer and load the result into
// the SBPL evaluator, the way sandbox-exec would read it with its -D values.
#pragma once
#include "policy_fixture.hpp"
#include "sbpl_evaluator.hpp"
#include "sbpl_profile.hpp"

#include <map>
#include <string>

namespace oms::test::seatbelt {

inline std::map<std::string, std::string> parameter_map(const oms::seatbelt::Profile& profile) {
    std::map<std::string, std::string> out;
    for (const auto& parameter : profile.parameters) out[parameter.name] = parameter.value;
    return out;
}

inline oms::seatbelt::Profile render(PolicyBuilder& policy) {
    return oms::seatbelt::render_profile(rules_of(policy), &oms::seatbelt::keep_path);
}

inline sbpl::Evaluator evaluate(const oms::seatbelt::Profile& profile) {
    return sbpl::Evaluator(profile.text, parameter_map(profile));
}

}  // namespace oms::test::seatbelt
