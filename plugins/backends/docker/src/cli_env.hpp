// The docker CLI's own environment. The command's variables are put here and
// named with `--env NAME`, so their values never appear in an argument vector
// (which any local user can read in /proc).
#pragma once
#include <string>
#include <vector>

namespace oms::docker {

// `command_env` (NAME=value) plus, from `parent_env`, what tells the CLI where
// its daemon and configuration are (DOCKER_HOST, DOCKER_CONTEXT, DOCKER_CONFIG,
// DOCKER_CERT_PATH, DOCKER_TLS_VERIFY, DOCKER_API_VERSION). DOCKER_CONFIG
// defaults to $HOME/.docker of the caller, since HOME is the command's here.
std::vector<std::string> cli_environment(const std::vector<std::string>& parent_env,
                                         const std::vector<std::string>& command_env);

// The value of NAME in a NAME=value list, or empty.
std::string env_value(const std::vector<std::string>& env, const std::string& name);

}  // namespace oms::docker
