// A user of the real `oms run --sandbox docker`: a HOME of its own holding
// the oms config (the docker backend, a manifest pinning the test image, the
// container user of the fixture), and a worktree that user owns.
#pragma once
#include "process.hpp"
#include "temp_dir.hpp"

#include <string>
#include <vector>

namespace oms::test::docker {

struct OmsUser {
    TempDir root{"oms-docker-home"};
    std::string home = root / "home";
    std::string worktree = root / "wt";
    std::string config_file = home + "/.config/oms/config.toml";
    std::string config;

    // `plugin_lines` are added to [plugin.docker] as they are (network = "bridge", say);
    // `image` is the manifest's image (empty: the busybox test image).
    explicit OmsUser(bool warm, const std::string& plugin_lines = "", const std::string& image = "");

    // oms ARGS from the worktree (or `cwd`), with HOME, a plain PATH and LANG
    // (and DOCKER_HOST, OMS_SOURCE_DIR when set).
    ProcessResult oms(const std::vector<std::string>& args) const { return oms_in(worktree, args); }
    ProcessResult oms_in(const std::string& cwd, const std::vector<std::string>& args) const;
    std::vector<std::string> environment() const;
};

}  // namespace oms::test::docker
