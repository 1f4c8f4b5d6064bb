#include "oms/core/keypair_links.hpp"

#include "oms/core/error.hpp"

#include <filesystem>
#include <system_error>

namespace fs = std::filesystem;

namespace oms::core {

namespace {

bool ends_with_any(const std::string& path, const std::vector<std::string>& suffixes) {
    for (const std::string& suffix : suffixes)
        if (path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0)
            return true;
    return false;
}

// Why the link at `path` cannot be hidden by a mask on its target, or "".
std::string problem_with(const fs::path& path, const std::vector<std::string>& suffixes,
                         const std::function<bool(const std::string&)>& readable) {
    std::error_code error;
    const fs::path target = fs::canonical(path, error);
    if (error) return "";  // leads nowhere (yet)
    if (fs::is_directory(target, error)) return path.string() + " (a link to the folder " + target.string() + ")";
    if (ends_with_any(target.string(), suffixes) || !readable(target.string())) return "";
    return path.string() + " (a link to " + target.string() + ", a name no keypair rule hides)";
}

}  // namespace

std::vector<std::string> keypair_links_to_refuse(const std::string& worktree, const std::vector<std::string>& suffixes,
                                                 const std::function<bool(const std::string&)>& readable) {
    std::vector<std::string> problems;
    std::error_code error;
    fs::recursive_directory_iterator walk(worktree, fs::directory_options::none, error);
    for (; !error && walk != fs::recursive_directory_iterator(); walk.increment(error)) {
        const fs::directory_entry& entry = *walk;
        std::error_code kind_error;
        if (entry.path().filename() == ".git") {
            walk.disable_recursion_pending();
            continue;
        }
        if (!entry.is_symlink(kind_error) || !ends_with_any(entry.path().string(), suffixes)) continue;
        if (std::string problem = problem_with(entry.path(), suffixes, readable); !problem.empty())
            problems.push_back(problem);
    }
    // A walk cut short could have missed a link: nothing is copied then.
    if (error)
        throw UserError(kExitUnavailable, "oms verify: cannot search " + worktree + " for keypair names that are "
                                          "links: " + error.message() + ". Nothing ran.");
    return problems;
}

}  // namespace oms::core
