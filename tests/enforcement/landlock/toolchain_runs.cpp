#include "toolchain_runs.hpp"

#include "test_support.hpp"

namespace oms::test {

namespace {

// The caller's own settings of the toolchain homes and git's global config:
// oms's defaults for them are what the tests check.
bool callers_toolchain_setting(const std::string& entry) {
    const std::string name = entry.substr(0, entry.find('='));
    return name == "RUSTUP_HOME" || name == "CARGO_HOME" || name == "GIT_CONFIG_GLOBAL";
}

}  // namespace

ProcessResult run_toolchain_command(World& world, const ToolchainRun& run) {
    std::map<std::string, std::string> env{{"HOME", world.home},
                                           {"XDG_CONFIG_HOME", world.root / "xdg-config"},
                                           {"XDG_STATE_HOME", world.root / "xdg-state"},
                                           {"PATH", run.path}};
    for (const auto& [name, value] : run.env) env[name] = value;
    std::vector<std::string> environment;
    for (const std::string& entry : environment_with(env))
        if (!callers_toolchain_setting(entry) || run.env.count(entry.substr(0, entry.find('='))))
            environment.push_back(entry);
    return run_process({oms_binary(), "run", "--sandbox", "landlock", "--worktree", world.work, "--", "/bin/sh", "-c",
                        expand(world, run.script)},
                       {environment, std::nullopt, world.work, run.timeout_seconds});
}

void add_user_config(const World& world, const std::string& toml) {
    const std::string file = world.root / "xdg-config/oms/config.toml";
    write_file(file, read_file(file) + toml);
}

}  // namespace oms::test
