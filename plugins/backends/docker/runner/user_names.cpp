#include "user_names.hpp"

#include <algorithm>
#include <fstream>

namespace oms::docker::user_names {

namespace {

// One passwd line: name:password:uid:...; true when its uid field is `uid`.
bool line_is_for(const std::string& line, unsigned uid, std::string& name) {
    const auto first = line.find(':');
    if (first == std::string::npos || first == 0) return false;
    const auto second = line.find(':', first + 1);
    if (second == std::string::npos) return false;
    const auto third = line.find(':', second + 1);
    if (third == std::string::npos) return false;
    const std::string field = line.substr(second + 1, third - second - 1);
    if (field.empty() || field != std::to_string(uid)) return false;
    name = line.substr(0, first);
    return true;
}

bool names_user(const std::string& entry) {
    return entry.rfind("USER=", 0) == 0 || entry.rfind("LOGNAME=", 0) == 0;
}

}  // namespace

std::string name_of(unsigned uid, const char* passwd_path) {
    // Static runner: glibc's getpwuid would need NSS modules the image may
    // not have, so the file is read directly (the image's files only).
    std::ifstream passwd(passwd_path);
    std::string line, name;
    while (std::getline(passwd, line))
        if (line_is_for(line, uid, name)) return name;
    return {};
}

void rewrite(std::vector<std::string>& env, const std::string& name) {
    for (auto& entry : env) {
        if (!names_user(entry)) continue;
        const auto equals = entry.find('=');
        entry = name.empty() ? std::string() : entry.substr(0, equals + 1) + name;
    }
    env.erase(std::remove(env.begin(), env.end(), std::string()), env.end());
}

}  // namespace oms::docker::user_names
