#include "cli_trust.hpp"

#include "container_view.hpp"

#include <oms/path.hpp>

#include <climits>
#include <cstdlib>
#include <vector>

namespace oms::docker {

namespace {

std::string real_path(const std::string& path) {
    char buffer[PATH_MAX];
    return ::realpath(path.c_str(), buffer) ? std::string(buffer) : "";
}

// Each folder as named and as it resolves, so a name that goes through a
// link is matched too.
std::vector<std::string> with_real_paths(std::vector<std::string> folders) {
    const size_t named = folders.size();
    for (size_t i = 0; i < named; ++i) {
        const std::string real = real_path(folders[i]);
        if (!real.empty() && real != folders[i]) folders.push_back(real);
    }
    return folders;
}

std::vector<std::string> run_folders(const RunInputs& in) {
    std::vector<std::string> folders{in.worktree, in.private_home, in.temp_dir};
    folders.insert(folders.end(), in.read_write.begin(), in.read_write.end());
    return folders;
}

}  // namespace

std::vector<std::string> folders_a_run_writes(const RunInputs& in) { return with_real_paths(run_folders(in)); }

void refuse_command_written_cli(const std::string& cli, const RunInputs& in) {
    const std::string real = real_path(cli);
    std::vector<std::string> folders = run_folders(in);
    folders.insert(folders.end(), {"/tmp", "/var/tmp", "/dev/shm"});
    for (const std::string& folder : with_real_paths(folders)) {
        if (folder.empty() || (!sdk::path::is_inside(cli, folder) && !sdk::path::is_inside(real, folder))) continue;
        throw sdk::Error(OMS_ERR_FAILED,
                         "docker: refusing to run the docker CLI " + cli + (real.empty() || real == cli ? "" : " (" + real + ")") +
                             ": it lies in " + folder + ", which commands can write, so a command could have put it "
                             "there. Nothing ran. Set [plugin.docker] docker = \"/usr/bin/docker\" (outside every "
                             "folder commands write), or take that folder off the PATH oms runs with.");
    }
}

}  // namespace oms::docker
