// Shared by the process and mount isolation tests: running with the system
// temp folders as write roots (the default policy's), under either driver.
#pragma once
#include "test_support.hpp"

#include <string>

namespace oms::test {

// Makes /tmp and /var/tmp write roots for this world, as the default
// write-roots policy does outside the tests: the oms driver through the
// world's config, the plugin driver through extra rules.
void use_system_temps(World& world);
RunOutcome run_with_system_temps(Driver driver, World& world, const std::string& script);

// A name no other run of the tests uses (pid + counter).
std::string unique_mark(const std::string& prefix);

bool has(const std::string& text, const std::string& part);

// What `oms policy` would print for this context and policy (the plugin's render).
std::string render_text(ContextBuilder& context, PolicyBuilder& policy);

}  // namespace oms::test
