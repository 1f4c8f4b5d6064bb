// How likely a dropped variable is the one a failed command missed. The
// failure line names only a few dropped variables: with a desktop session's
// environment, PYTHONPATH or NODE_OPTIONS must not hide behind CLOUDSDK_* and
// DBUS_*, so the names build and test tools read come first.
#pragma once
#include <string>
#include <vector>

namespace oms::core {

enum class VariableRelevance {
    tool = 0,     // read by compilers, interpreters, package managers, test runners (PYTHONPATH, CC, NODE_OPTIONS, CI)
    other = 1,    // anything else the caller set
    session = 2,  // set by a login or desktop session for every program (DISPLAY, XDG_*, SSH_*)
};

VariableRelevance relevance_of(const std::string& name);

// Orders names by relevance, keeping the given order within each class.
void order_by_relevance(std::vector<std::string>& names);

}  // namespace oms::core
