#include "agent_world.hpp"

#include <fstream>

namespace oms::test {

ProcessResult run_in_world(const World& world, const std::vector<std::string>& argv,
                           const std::optional<std::string>& stdin_text) {
    return run_process(argv, {oms_world_env(world), stdin_text, world.work, 90});
}

ProcessResult run_hook(const World& world, const std::string& input, const std::vector<std::string>& options) {
    std::vector<std::string> argv{oms_binary(), "hook", "claude-code"};
    argv.insert(argv.end(), options.begin(), options.end());
    return run_in_world(world, argv, input);
}

void add_user_config(const World& world, const std::string& toml) {
    std::ofstream(world.root / "xdg-config/oms/config.toml", std::ios::app) << "\n" << toml << "\n";
}

}  // namespace oms::test
