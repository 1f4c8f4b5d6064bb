#include "exact_env.hpp"

#include <algorithm>
#include <cstring>

namespace oms::docker::runner {

void kept_env_names_from(int& argi, int argc, char** argv, std::vector<std::string>& names) {
    constexpr const char* kFlag = "--keep-env=";
    const size_t length = std::strlen(kFlag);
    for (; argi < argc && std::strncmp(argv[argi], kFlag, length) == 0; ++argi) names.emplace_back(argv[argi] + length);
}

void keep_only_env(std::vector<std::string>& env, const std::vector<std::string>& names) {
    const auto unnamed = [&](const std::string& entry) {
        return std::find(names.begin(), names.end(), entry.substr(0, entry.find('='))) == names.end();
    };
    env.erase(std::remove_if(env.begin(), env.end(), unnamed), env.end());
}

}  // namespace oms::docker::runner
