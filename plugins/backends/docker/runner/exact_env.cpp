#include "exact_env.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

extern char** environ;

namespace oms::docker::runner {

void kept_env_names_from(int& argi, int argc, char** argv, std::vector<std::string>& names) {
    constexpr const char* kFlag = "--keep-env=";
    const size_t length = std::strlen(kFlag);
    for (; argi < argc && std::strncmp(argv[argi], kFlag, length) == 0; ++argi) names.emplace_back(argv[argi] + length);
}

void keep_only_env(const std::vector<std::string>& names) {
    std::vector<std::string> kept;
    for (char** entry = environ; entry && *entry; ++entry) {
        const std::string text = *entry;
        const std::string name = text.substr(0, text.find('='));
        if (std::find(names.begin(), names.end(), name) != names.end()) kept.push_back(text);
    }
    clearenv();
    for (const std::string& text : kept) {
        const size_t at = text.find('=');
        if (at != std::string::npos) setenv(text.substr(0, at).c_str(), text.c_str() + at + 1, 1);
    }
}

}  // namespace oms::docker::runner
