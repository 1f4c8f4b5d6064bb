// What every command starts from: the layered config and the plugins it
// names, loaded and validated. Opening a session runs nothing.
#pragma once
#include "oms/core/config.hpp"
#include "oms/core/registry.hpp"

#include <string>

namespace oms::core {

struct SessionPaths {
    std::string worktree;        // canonical
    std::string default_config;  // built-in defaults file
    std::string user_config;     // the user's file
    std::string worktree_config; // <worktree>/.oms/config.toml
};

SessionPaths session_paths(const std::string& worktree);

class Session {
public:
    // Throws UserError (with file, line and key) on any config problem.
    // `loading`: on_demand leaves the backends known-backends remembers
    // unloaded until asked for (Registry), for commands that use one.
    explicit Session(const std::string& worktree, BackendLoading loading = BackendLoading::all);

    const SessionPaths& paths() const { return paths_; }
    const Config& config() const { return config_; }
    const Registry& registry() const { return registry_; }

private:
    SessionPaths paths_;
    Config config_;
    Registry registry_;
};

}  // namespace oms::core
