#include "oms_user.hpp"

#include "docker_fixture.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>

namespace oms::test::docker {

OmsUser::OmsUser(bool warm, const std::string& plugin_lines, const std::string& image) {
    const std::string manifest = root / "runtime.toml";
    const std::string id = std::to_string(container_uid());
    write_file(manifest, "image = \"" + (image.empty() ? test_image() : image) + "\"\nuser = \"" + id + ":" + id + "\"\n");
    config = "[sandbox]\nbackend = \"docker\"\n\n[plugin.docker]\nmanifest = \"" + manifest + "\"\nwarm = " +
             (warm ? "true" : "false") + "\n" + plugin_lines;
    write_file(config_file, config);
    write_file(worktree + "/README", "readme\n");
    // The container user owns the worktree, as the host user would.
    if (geteuid() == 0 && chown(worktree.c_str(), container_uid(), container_uid()) != 0)
        throw std::runtime_error("chown of the worktree failed");
    chmod(root.path().c_str(), 0755);
}

ProcessResult OmsUser::oms_in(const std::string& cwd, const std::vector<std::string>& args) const {
    std::vector<std::string> argv{oms_binary()};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_process(argv, {environment(), std::nullopt, cwd, 300});
}

std::vector<std::string> OmsUser::environment() const {
    std::vector<std::string> env{"HOME=" + home, "LANG=C.UTF-8", "PATH=/usr/local/bin:/usr/bin:/bin"};
    for (const char* pass : {"DOCKER_HOST", "OMS_SOURCE_DIR"})
        if (const char* value = std::getenv(pass)) env.push_back(std::string(pass) + "=" + value);
    return env;
}

}  // namespace oms::test::docker
