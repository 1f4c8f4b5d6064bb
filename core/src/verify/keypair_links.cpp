#include "oms/core/keypair_links.hpp"

#include "oms/core/error.hpp"

#include <oms/path.hpp>
#include <oms/secret_search.hpp>
#include <oms/sdk.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <limits>
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

// A folder outside HOME and the worktree that the user's tools could write
// a key into through the link, and the check could then read (all outside
// HOME is readable, and no search covers it); /tmp and /var/tmp are the
// check's own.
bool open_folder_outside(const fs::path& target, const LinkSearch& search) {
    const std::string real = target.string();
    if (sdk::path::is_inside(real, search.worktree) || (!search.home.empty() && sdk::path::is_inside(real, search.home)))
        return false;
    if (sdk::path::is_inside_any(real, std::vector<std::string>{"/tmp", "/var/tmp", "/proc", "/sys"})) return false;
    return faccessat(AT_FDCWD, real.c_str(), W_OK, AT_EACCESS) == 0;
}

// Why the link at `path` would let the snapshot or the check see a key
// under another name, or "".
std::string problem_with(const fs::path& path, const LinkSearch& search) {
    std::error_code error;
    const fs::path target = fs::canonical(path, error);
    if (error) return "";  // leads nowhere (yet)
    const bool keypair_named = ends_with_any(path.string(), search.suffixes);
    if (fs::is_directory(target, error)) {
        if (keypair_named) return path.string() + " (a link to the folder " + target.string() + ")";
        if (open_folder_outside(target, search))
            return path.string() + " (a link to the folder " + target.string() +
                   " outside the worktree, which the check could read and no search covers)";
        return "";
    }
    if (!keypair_named || !search.readable(target.string())) return "";
    if (ends_with_any(target.string(), search.suffixes) && sdk::path::is_inside(target.string(), search.worktree))
        return "";  // copied by its own name, and hidden in the check like any keypair
    return path.string() + " (a link to " + target.string() + ", a name no keypair rule hides in the snapshot)";
}

}  // namespace

std::vector<std::string> links_to_refuse(const LinkSearch& search) {
    // The SDK's keypair search is the walk: no link followed, a folder of
    // the user's it cannot read given back its owner's rights, a folder that
    // vanished makes it walk again. Every folder, .git ones too: a run's
    // walk enters a nested .git, and a link there can lead a key into a
    // tracked file as well.
    sdk::SecretSearch walk{"oms verify", {search.worktree}, search.suffixes, {}, {}};
    walk.entry_limit = std::numeric_limits<size_t>::max();  // a walk cut short could miss a link
    walk.collect_links = true;
    sdk::SecretFindings found;
    try {
        found = sdk::find_secrets(walk);
    } catch (const sdk::Error& e) {
        throw UserError(kExitUnavailable, e.what());  // "oms verify: the folder ... cannot be read ...; the command did not run"
    }
    std::vector<std::string> problems;
    for (const std::string& link : found.links)
        if (std::string problem = problem_with(link, search); !problem.empty()) problems.push_back(problem);
    return problems;
}

}  // namespace oms::core
