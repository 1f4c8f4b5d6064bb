#include "cli_env.hpp"

namespace oms::docker {

namespace {

const char* const kCliVariables[] = {"DOCKER_HOST",      "DOCKER_CONTEXT",    "DOCKER_CONFIG",
                                     "DOCKER_CERT_PATH", "DOCKER_TLS_VERIFY", "DOCKER_API_VERSION"};

bool has(const std::vector<std::string>& env, const std::string& name) {
    for (const std::string& entry : env)
        if (entry.compare(0, name.size() + 1, name + "=") == 0) return true;
    return false;
}

}  // namespace

std::string env_value(const std::vector<std::string>& env, const std::string& name) {
    for (const std::string& entry : env)
        if (entry.compare(0, name.size() + 1, name + "=") == 0) return entry.substr(name.size() + 1);
    return "";
}

std::vector<std::string> cli_environment(const std::vector<std::string>& parent_env,
                                         const std::vector<std::string>& command_env) {
    std::vector<std::string> env = command_env;
    for (const char* name : kCliVariables)
        if (has(parent_env, name) && !has(env, name)) env.push_back(std::string(name) + "=" + env_value(parent_env, name));
    if (!has(env, "DOCKER_CONFIG") && has(parent_env, "HOME"))
        env.push_back("DOCKER_CONFIG=" + env_value(parent_env, "HOME") + "/.docker");
    if (!has(env, "PATH") && has(parent_env, "PATH")) env.push_back("PATH=" + env_value(parent_env, "PATH"));
    return env;
}

}  // namespace oms::docker
