// The command's environment: only names the policy passes, with HOME and
// TMPDIR pointing at the run's private folders and USER and LOGNAME holding
// `user_name` (the uid's name; when empty they are left out): those four never
// take the caller's values. Whatever a plugin or the config says, cloud
// credentials and API keys never pass. An allowed name the parent does not set
// (or sets empty) takes its value from `when_unset`, if any.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace oms::core {

// AWS_*, and names that carry keys, tokens, secrets or passwords.
bool never_passes(std::string_view name);

std::vector<std::string> command_environment(const std::vector<std::string>& parent_env,
                                             const std::vector<std::string>& allowed_names,
                                             const std::string& private_home, const std::string& temp_dir,
                                             const std::map<std::string, std::string>& when_unset = {},
                                             const std::string& user_name = {});

}  // namespace oms::core
