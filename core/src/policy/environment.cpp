#include "oms/core/environment.hpp"

#include "oms/core/account_name.hpp"

#include <algorithm>
#include <map>

namespace oms::core {

namespace {

bool ends_with(std::string_view text, std::string_view suffix) {
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

std::string upper(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::toupper(c); });
    return out;
}

// Sets `name` to `value` unless oms has no value for it (then it stays unset).
void copy_if_known(const std::string& name, const std::string& value, std::map<std::string, std::string>& out) {
    if (!value.empty()) out[name] = value;
}

}  // namespace

bool never_passes(std::string_view name) {
    const std::string n = upper(name);
    if (n.rfind("AWS_", 0) == 0) return true;
    for (const char* word : {"SECRET", "PASSWORD", "PASSWD", "API_KEY", "APIKEY", "PRIVATE_KEY", "ACCESS_KEY"})
        if (n.find(word) != std::string::npos) return true;
    for (const char* suffix : {"_TOKEN", "_KEY", "_CREDENTIALS"})
        if (ends_with(n, suffix)) return true;
    return false;
}

std::vector<std::string> command_environment(const std::vector<std::string>& parent_env,
                                             const std::vector<std::string>& allowed_names,
                                             const std::string& private_home, const std::string& temp_dir,
                                             const std::map<std::string, std::string>& when_unset,
                                             const std::string& user_name) {
    std::map<std::string, std::string> parent;
    for (auto& entry : parent_env) {
        auto eq = entry.find('=');
        if (eq != std::string::npos) parent.emplace(entry.substr(0, eq), entry.substr(eq + 1));
    }
    std::map<std::string, std::string> out;
    for (auto& name : allowed_names) {
        if (never_passes(name)) continue;
        if (name == "HOME")
            out[name] = private_home;
        else if (name == "TMPDIR")
            out[name] = temp_dir;
        else if (is_account_name_variable(name))
            copy_if_known(name, user_name, out);  // never the caller's value
        else if (auto it = parent.find(name); it != parent.end() && !it->second.empty())
            out[name] = it->second;
        else if (auto fallback = when_unset.find(name); fallback != when_unset.end())
            out[name] = fallback->second;
        else if (it != parent.end())
            out[name] = it->second;
    }
    std::vector<std::string> entries;
    for (auto& [name, value] : out) entries.push_back(name + "=" + value);
    return entries;
}

}  // namespace oms::core
