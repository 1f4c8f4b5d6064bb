#include "oms_env.hpp"

#include <filesystem>

namespace oms::test {

OmsEnv::OmsEnv() : OmsEnv(std::string()) {}

OmsEnv::OmsEnv(const std::string& base)
    : root("oms-env", base.empty() ? std::filesystem::temp_directory_path().string() : base) {
    home = root / "home";
    config_home = root / "config";
    state_home = root / "state";
    worktree = root / "home/work/task";
    make_dirs(home);
    make_dirs(config_home);
    make_dirs(state_home);
    make_dirs(worktree);
    env = {{"HOME", home},
           {"XDG_CONFIG_HOME", config_home},
           {"XDG_STATE_HOME", state_home},
           {"PATH", "/usr/local/bin:/usr/bin:/bin"},
           {"LANG", "C.UTF-8"},
           {"TMPDIR", "/tmp"}};
}

void OmsEnv::user_config(const std::string& toml) const { write_file(config_home + "/oms/config.toml", toml); }

void OmsEnv::worktree_config(const std::string& toml) const { write_file(worktree + "/.oms/config.toml", toml); }

ProcessResult OmsEnv::oms(const std::vector<std::string>& args, const ProcessOptions& options) const {
    std::vector<std::string> argv{oms_binary()};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessOptions with_env = options;
    with_env.env.clear();
    for (auto& [name, value] : env) with_env.env.push_back(name + "=" + value);
    if (with_env.cwd.empty()) with_env.cwd = worktree;
    return run_process(argv, with_env);
}

}  // namespace oms::test
