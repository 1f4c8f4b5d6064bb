// A sealed world for running the real `oms` binary in tests: a fake HOME, its
// own XDG config and state folders, a worktree, and a clean environment
// (nothing of the developer's own env leaks in unless a test adds it).
#pragma once
#include "process.hpp"
#include "temp_dir.hpp"

#include <map>
#include <string>
#include <vector>

namespace oms::test {

class OmsEnv {
public:
    OmsEnv();
    // A world below `base` (e.g. /var/tmp, for a test that moves keypair
    // files around: the tests of --rw /tmp walk the host's /tmp).
    explicit OmsEnv(const std::string& base);
    TempDir root;
    std::string home, config_home, state_home, worktree;
    std::map<std::string, std::string> env;  // the environment oms gets

    // Writes the user's config file ($XDG_CONFIG_HOME/oms/config.toml).
    void user_config(const std::string& toml) const;
    // Writes the worktree's .oms/config.toml.
    void worktree_config(const std::string& toml) const;

    // Runs `oms <args...>`.
    ProcessResult oms(const std::vector<std::string>& args, const ProcessOptions& options = {}) const;
};

}  // namespace oms::test
