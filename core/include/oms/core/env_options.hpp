// `--env NAME` and `--env NAME=VALUE`: one variable more for one run, and the
// names of the caller's variables that did not reach the command, so a
// dropped PYTHONPATH is found at once instead of through a ModuleNotFoundError.
#pragma once
#include "oms/core/policy.hpp"

#include <string>
#include <vector>

namespace oms::core {

// Adds an ENV_PASS rule (origin "--env (command line)") and the value for
// each option: the caller's own value for NAME, the given one for
// NAME=VALUE. Throws UserError (usage) for a name that is not a variable
// name, looks like a credential (those never reach commands), is one oms
// sets itself (HOME, TMPDIR, USER, LOGNAME), or is not set in the caller's
// environment without a value given. Nothing is changed then.
void apply_env_options(const std::vector<std::string>& options, const std::vector<std::string>& parent_env,
                       Policy& policy);

struct DroppedVariables {
    std::vector<std::string> names;  // tools' variables first, a session's own last (variable_relevance.hpp), each sorted; never a credential-like name
    size_t credentials = 0;          // credential-like names dropped (counted, not named)
};

// The caller's variables the command does not get. Shell bookkeeping (PWD,
// OLDPWD, SHLVL, _) and oms's own OMS_* settings are not counted.
DroppedVariables dropped_variables(const std::vector<std::string>& parent_env, const std::vector<std::string>& env);

// "CI, PYTHONPATH and 2 more (and 1 credential-like variable, which never passes)", or "".
std::string describe_dropped(const DroppedVariables& dropped, size_t most_names);

}  // namespace oms::core
