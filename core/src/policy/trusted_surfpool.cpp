#include "oms/core/trusted_surfpool.hpp"

#include "oms/core/error.hpp"
#include "oms/core/paths.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

namespace oms::core {

namespace {

bool executable_file(const std::string& path) {
    struct stat info;
    return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && access(path.c_str(), X_OK) == 0;
}

std::optional<std::string> real_path(const std::string& path) {
    char* resolved = realpath(path.c_str(), nullptr);
    if (!resolved) return std::nullopt;
    std::string out = resolved;
    std::free(resolved);
    return out;
}

std::string described(const std::vector<std::string>& argv, const std::optional<std::string>& resolved) {
    const std::string name = argv.empty() ? std::string("(no command)") : argv[0];
    return name + (resolved ? " (" + *resolved + ")" : " (not found)");
}

}  // namespace

std::optional<std::string> resolve_command(const std::string& argv0, const std::string& path_list,
                                           const std::string& cwd) {
    if (argv0.empty()) return std::nullopt;
    auto anchored = [&cwd](const std::string& p) { return !p.empty() && p[0] == '/' ? p : cwd + "/" + p; };
    if (argv0.find('/') != std::string::npos) {
        const std::string candidate = anchored(argv0);
        return executable_file(candidate) ? real_path(candidate) : std::nullopt;
    }
    size_t start = 0;
    while (start <= path_list.size()) {
        size_t end = path_list.find(':', start);
        if (end == std::string::npos) end = path_list.size();
        const std::string entry = path_list.substr(start, end - start);
        const std::string candidate = anchored(entry.empty() ? "." : entry) + "/" + argv0;
        if (executable_file(candidate)) return real_path(candidate);
        start = end + 1;
    }
    return std::nullopt;
}

bool same_file(const std::string& a, const std::string& b) {
    struct stat x, y;
    return stat(a.c_str(), &x) == 0 && stat(b.c_str(), &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

std::string path_of(const std::vector<std::string>& env) {
    for (const std::string& entry : env)
        if (entry.rfind("PATH=", 0) == 0) return entry.substr(5);
    return "/usr/local/bin:/usr/bin:/bin";
}

std::string trusted_surfpool_for(const std::optional<std::string>& given, const std::optional<std::string>& configured,
                                 const std::vector<std::string>& argv, const std::string& path_list,
                                 const std::string& cwd) {
    const std::optional<std::string>& named = given ? given : configured;
    if (!named || named->empty()) return "";
    const std::string origin = given ? "--surfpool " + *given : "sandbox.surfpool = " + *configured;
    const auto binary = executable_file(*named) ? real_path(*named) : std::nullopt;
    if (!binary) {
        if (!given) return "";
        throw UserError(kExitUsage, origin + ": not an executable file (nothing ran)");
    }
    const auto command = argv.empty() ? std::nullopt : resolve_command(argv[0], path_list, cwd);
    if (command && same_file(*command, *binary)) return *binary;
    if (!given) return "";  // the configured binary is not this command: an ordinary run
    throw UserError(kExitRefused, origin + ": the command " + described(argv, command) +
                                      " is not that binary (a copy, a script or another program is never trusted; "
                                      "nothing ran)");
}

void confirm_trusted_surfpool(const std::string& trusted, const std::vector<std::string>& argv,
                              const std::vector<std::string>& policy_env, const std::string& cwd) {
    if (trusted.empty()) return;
    const auto command = argv.empty() ? std::nullopt : resolve_command(argv[0], path_of(policy_env), cwd);
    if (!command || !same_file(*command, trusted))
        throw UserError(kExitRefused, "the trusted Surfpool binary " + trusted + ": the command " +
                                          described(argv, command) +
                                          " resolves to something else on the command's own PATH (nothing ran)");
}

}  // namespace oms::core
