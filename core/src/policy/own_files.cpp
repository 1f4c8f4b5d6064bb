#include "oms/core/own_files.hpp"

#include "oms/core/error.hpp"
#include "oms/core/paths.hpp"
#include "oms/core/protected_folders.hpp"

#include <oms/path.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <boost/dll/runtime_symbol_info.hpp>
#include <filesystem>
#include <optional>

namespace fs = std::filesystem;

namespace oms::core {

namespace {

bool exists_no_follow(const std::string& path) {
    struct stat info {};
    return ::lstat(path.c_str(), &info) == 0;
}

std::vector<std::string> write_roots(const Policy& policy) {
    std::vector<std::string> roots;
    for (const PolicyRule& rule : policy.rules)
        if (rule.kind == OMS_RULE_WRITE_ALLOW_TREE) {
            std::string root = resolved_path(rule.value);
            if (!is_system_temp_folder(root)) roots.push_back(root);
        }
    return roots;
}

// The write root that holds `path` or lies inside it, or nullptr.
const std::string* overlapping_root(const std::vector<std::string>& roots, const std::string& path) {
    for (const std::string& root : roots)
        if (sdk::path::is_inside(path, root) || sdk::path::is_inside(root, path)) return &root;
    return nullptr;
}

void make_missing(const OwnFile& own, const std::string& root) {
    std::error_code error;
    fs::create_directories(own.path, error);
    if (error || !fs::is_directory(own.path, error))
        throw UserError(kExitRefused, "refusing to run: " + own.what + " '" + own.path + "' lies inside the write root '" +
                                          root + "' and cannot be created (" + error.message() +
                                          "): a command could create it and plant what the next oms run trusts. "
                                          "Nothing ran. Create it yourself, or do not make '" + root + "' writable.");
    ::chmod(own.path.c_str(), 0700);
}

[[noreturn]] void refuse_missing(const OwnFile& own, const std::string& root) {
    throw UserError(kExitRefused, "refusing to run: " + own.what + " '" + own.path +
                                      "' does not exist and lies inside the write root '" + root +
                                      "': a command could create it and plant a plugin that the next oms run loads "
                                      "unconfined. Nothing ran. Create the folder, or remove it from the plugin "
                                      "folders (OMS_PLUGIN_PATH, sandbox.plugin_paths).");
}

// The first link on the way to `named` that lies inside a write root (a
// command could have made it, or may swap it), or nullopt.
std::optional<std::string> link_inside_write_root(const std::string& named, const std::vector<std::string>& roots) {
    const fs::path path = fs::path(named).lexically_normal();
    if (!path.is_absolute()) return std::nullopt;
    std::string real = "";
    for (const fs::path& part : path.relative_path()) {
        if (part.empty()) continue;
        const std::string candidate = real + "/" + part.string();
        struct stat info {};
        if (::lstat(candidate.c_str(), &info) != 0) return std::nullopt;  // missing: nothing to follow yet
        if (!S_ISLNK(info.st_mode)) {
            real = candidate;
            continue;
        }
        for (const std::string& root : roots)
            if (candidate != root && sdk::path::is_inside(candidate, root)) return candidate;
        real = resolved_path(candidate);
        if (real == "/") real.clear();
    }
    return std::nullopt;
}

[[noreturn]] void refuse_link(const OwnFile& own, const std::string& link) {
    throw UserError(kExitRefused, "refusing to run: " + own.what + " '" + own.named + "' goes through the link '" +
                                      link + "', which lies inside a write root: a command could point it elsewhere "
                                      "and the next oms run would trust what it finds there. Nothing ran. Name the "
                                      "real folder ('" + own.path + "') instead.");
}

bool is_link(const std::string& path) {
    struct stat info {};
    return ::lstat(path.c_str(), &info) == 0 && S_ISLNK(info.st_mode);
}

// Plugin files that are links (a plugin built elsewhere and linked into a
// plugin folder): what they point at is loaded as surely as the folder.
std::vector<std::string> linked_plugin_files(const std::string& folder) {
    std::vector<std::string> out;
    std::error_code error;
    for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error))
        if (it->path().extension() == ".so" && is_link(it->path().string())) out.push_back(it->path().string());
    return out;
}

}  // namespace

std::vector<OwnFile> own_files(const std::vector<std::string>& named_plugin_folders) {
    auto own = [](const std::string& named, const char* what, bool oms_may_create = false) {
        return OwnFile{resolved_path(named), named, what, oms_may_create};
    };
    std::vector<OwnFile> out;
    out.push_back(own(boost::dll::program_location().string(), "oms's executable"));
    for (const std::string& folder : named_plugin_folders) {
        out.push_back(own(folder, "oms's plugin folder"));
        for (const std::string& file : linked_plugin_files(folder))
            out.push_back(own(file, "a plugin file linked into oms's plugin folder"));
    }
    out.push_back(own(default_config_file(), "oms's default config file"));
    out.push_back(own(fs::path(user_config_file()).parent_path().string(), "oms's config folder", true));
    // A config file kept elsewhere (a dotfiles repository) and linked here.
    if (is_link(user_config_file())) out.push_back(own(user_config_file(), "oms's user config file (a link)"));
    out.push_back(own(state_dir(), "oms's state folder", true));
    return out;
}

void deny_writes_to_own_files(const std::vector<OwnFile>& own, Policy& policy) {
    const std::vector<std::string> roots = write_roots(policy);
    std::vector<std::string> denied;
    for (const OwnFile& file : own) {
        if (auto link = link_inside_write_root(file.named, roots)) refuse_link(file, *link);
        const std::string* root = overlapping_root(roots, file.path);
        if (!root || std::find(denied.begin(), denied.end(), file.path) != denied.end()) continue;
        if (!exists_no_follow(file.path)) {
            if (!file.oms_may_create) refuse_missing(file, *root);
            make_missing(file, *root);
        }
        denied.push_back(file.path);
        policy.rules.push_back(PolicyRule{OMS_RULE_WRITE_DENY, file.path, 0, "core: " + file.what});
    }
}

void hide_state_folder(const std::string& state_folder, const std::string& home, Policy& policy) {
    if (!sdk::path::is_inside(state_folder, home)) {
        policy.rules.push_back(PolicyRule{OMS_RULE_READ_DENY, state_folder, 0, "core: oms's state folder"});
        return;
    }
    for (const PolicyRule& rule : policy.rules) {
        const bool root = rule.kind == OMS_RULE_READ_ALLOW_TREE || rule.kind == OMS_RULE_WRITE_ALLOW_TREE;
        if (!root) continue;
        // A system temp folder is each run's own (a private tmpfs, a container's): never the host's.
        const std::string path = resolved_path(rule.value);
        if (is_system_temp_folder(path) || !sdk::path::is_inside(state_folder, path)) continue;
        policy.rules.push_back(PolicyRule{OMS_RULE_READ_DENY, state_folder, 0, "core: oms's state folder"});
        return;
    }
}

}  // namespace oms::core
