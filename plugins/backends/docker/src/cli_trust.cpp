#include "cli_trust.hpp"

#include "container_view.hpp"

#include <climits>
#include <cstdlib>
#include <vector>

namespace oms::docker {

namespace {

std::string real_path(const std::string& path) {
    char buffer[PATH_MAX];
    return ::realpath(path.c_str(), buffer) ? std::string(buffer) : "";
}

std::vector<std::string> command_writable_folders(const RunInputs& in) {
    std::vector<std::string> folders{in.worktree, in.private_home, in.temp_dir, "/tmp", "/var/tmp", "/dev/shm"};
    folders.insert(folders.end(), in.read_write.begin(), in.read_write.end());
    const size_t named = folders.size();
    for (size_t i = 0; i < named; ++i) {
        const std::string real = real_path(folders[i]);
        if (!real.empty() && real != folders[i]) folders.push_back(real);
    }
    return folders;
}

}  // namespace

void refuse_command_written_cli(const std::string& cli, const RunInputs& in) {
    const std::string real = real_path(cli);
    for (const std::string& folder : command_writable_folders(in)) {
        if (folder.empty() || (!inside(cli, folder) && !inside(real, folder))) continue;
        throw sdk::Error(OMS_ERR_FAILED,
                         "docker: refusing to run the docker CLI " + cli + (real.empty() || real == cli ? "" : " (" + real + ")") +
                             ": it lies in " + folder + ", which commands can write, so a command could have put it "
                             "there. Nothing ran. Set [plugin.docker] docker = \"/usr/bin/docker\" (outside every "
                             "folder commands write), or take that folder off the PATH oms runs with.");
    }
}

}  // namespace oms::docker
