#include "oms/core/session.hpp"

#include "oms/core/egress_rules.hpp"
#include "oms/core/error.hpp"
#include "oms/core/paths.hpp"
#include "oms/core/verify_plan.hpp"

namespace oms::core {

SessionPaths session_paths(const std::string& worktree) {
    SessionPaths paths;
    paths.worktree = canonical_or_absolute(worktree);
    paths.default_config = default_config_file();
    paths.user_config = user_config_file();
    paths.worktree_config = paths.worktree + "/.oms/config.toml";
    return paths;
}

namespace {

// A relative folder would be resolved against the current folder, usually
// the worktree: code from the repository being worked on must never load.
std::string absolute_folder(const std::string& folder, const std::string& source) {
    if (folder.empty() || folder[0] != '/')
        throw UserError(kExitConfig, source + ": plugin folder '" + folder + "' is not an absolute path");
    return folder;
}

std::vector<std::string> plugin_folders(const Config& config) {
    std::vector<std::string> folders{builtin_plugin_dir()};
    for (auto& folder : config.strings("sandbox", "plugin_paths"))
        folders.push_back(absolute_folder(folder, "config error: " + config.get("sandbox", "plugin_paths")->where +
                                                      ": key 'sandbox.plugin_paths'"));
    if (auto extra = env_value("OMS_PLUGIN_PATH"))
        for (auto& folder : split_list(*extra, ':')) folders.push_back(absolute_folder(folder, "OMS_PLUGIN_PATH"));
    return folders;
}

}  // namespace

Session::Session(const std::string& worktree, BackendLoading loading) : paths_(session_paths(worktree)) {
    config_.add_file(paths_.default_config, ConfigLayer::Defaults);
    config_.add_file(paths_.user_config, ConfigLayer::User);
    config_.add_file(paths_.worktree_config, ConfigLayer::Worktree);
    config_.resolve("sandbox", core_schema());
    config_.resolve("verify", verify_schema());
    config_.resolve("network", network_schema());
    config_.resolve_string_map("network", "pinned_addresses");
    registry_.load_from(plugin_folders(config_), known_backends_path(), loading);
    // A backend the config has a table for is loaded now, deferred or not:
    // its create() checks the table's values on every command.
    for (auto& record : registry_.records())
        if (record.status == PluginStatus::Deferred && config_.has_table("plugin." + record.id))
            registry_.load_deferred(record);
    std::vector<std::string> tables{"sandbox", "verify", "network", "network.pinned_addresses"};
    for (auto& record : registry_.records()) {
        if (record.id.empty()) continue;
        // A rejected plugin's table is accepted unread, so doctor can show
        // the real reason (the rejection) instead of a config error.
        if (record.status == PluginStatus::Loaded) config_.resolve("plugin." + record.id, record.schema);
        tables.push_back("plugin." + record.id);
    }
    config_.check_tables(tables);
    registry_.instantiate(config_);
}

}  // namespace oms::core
