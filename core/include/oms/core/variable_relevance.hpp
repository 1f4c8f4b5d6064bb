// How likely a dropped variable is the one a failed command missed. The
// failure line names only a few dropped variables: with a desktop session's
// environment, PYTHONPATH or NODE_OPTIONS must not hide behind CLOUDSDK_* and
// DBUS_*, so the names build and test tools read come first, and among them
// those that decide which code runs (a machine's environment often holds a
// dozen PIP_*, NODE_EXTRA_CA_CERTS and the like before PYTHONPATH).
#pragma once
#include <string>
#include <vector>

namespace oms::core {

enum class VariableRelevance {
    code = 0,     // where a program finds its code or compiler: PYTHONPATH, VIRTUAL_ENV, NODE_PATH, CC, CFLAGS, CI
    tool = 1,     // other settings of interpreters, package managers, test runners (PIP_*, PYTHONUNBUFFERED, RUST_*)
    other = 2,    // anything else the caller set
    session = 3,  // set by a login or desktop session for every program (DISPLAY, XDG_*, SSH_*)
};

VariableRelevance relevance_of(const std::string& name);

// Orders names by relevance, keeping the given order within each class.
void order_by_relevance(std::vector<std::string>& names);

}  // namespace oms::core
