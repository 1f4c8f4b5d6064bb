#include "root_guard.hpp"

#include "paths.hpp"
#include "secret_locations.hpp"

#include <oms/path.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <deque>

namespace oms::policies {
namespace {

// Most links a path may go through (the kernel's own limit).
constexpr int kMaxLinks = 40;

std::deque<std::string> components(std::string_view path) {
    std::deque<std::string> parts;
    size_t start = 0;
    while (start <= path.size()) {
        const size_t slash = std::min(path.find('/', start), path.size());
        const std::string_view part = path.substr(start, slash - start);
        if (!part.empty() && part != ".") parts.emplace_back(part);
        start = slash + 1;
    }
    return parts;
}

std::optional<std::string> link_target(const std::string& link) {
    char buffer[PATH_MAX];
    const ssize_t size = ::readlink(link.c_str(), buffer, sizeof buffer);
    if (size <= 0 || static_cast<size_t>(size) >= sizeof buffer) return std::nullopt;
    return std::string(buffer, static_cast<size_t>(size));
}

void add_resolved(std::vector<std::string>& out, std::string_view path) {
    if (const auto resolved = real_path(path)) out.push_back(*resolved);
}

}  // namespace

std::vector<std::string> command_write_roots(const oms::sdk::Context& context) {
    std::vector<std::string> roots{std::string(context.worktree()), std::string(context.private_home()),
                                   std::string(context.temp_dir())};
    if (context.platform() == "macos")
        roots.insert(roots.end(), {"/private/tmp", "/private/var/folders"});
    else
        roots.insert(roots.end(), {"/tmp", "/var/tmp", "/dev/shm"});
    for (std::string_view mount : context.read_write()) roots.emplace_back(mount);
    return roots;
}

RootGuard::RootGuard(const oms::sdk::Host& host, const oms::sdk::Context& context,
                     const std::vector<std::string>& write_roots)
    : host_(host) {
    add_resolved(homes_, context.home());
    if (homes_.empty() || homes_.front() != context.home()) homes_.emplace_back(context.home());
    for (const std::string& secret : home_secret_locations()) {
        const std::string path = join(context.home(), secret);
        if (is_directory(path)) add_resolved(secret_folders_, path);
    }
    for (const std::string& root : write_roots)
        if (!root.empty()) add_resolved(write_roots_, root);
}

std::optional<std::string> RootGuard::forbidden_reason(std::string_view root) const {
    if (root == "/") return std::string("it is the root folder '/'");
    for (const std::string& home : homes_) {
        if (root == home) return "it is HOME (" + home + ")";
        if (sdk::path::is_inside(home, root)) return "it holds HOME (" + home + ")";
    }
    for (const std::string& secret : secret_folders_) {
        if (sdk::path::is_inside(secret, root)) return "it holds the secret folder " + secret;
        // secret-deny hides it anyway; a root there is never what a tool needs.
        if (sdk::path::is_inside(root, secret)) return "it lies inside the secret folder " + secret;
    }
    return std::nullopt;
}

RootGuard::Resolution RootGuard::walk(std::string_view path) const {
    if (!sdk::path::is_absolute(path)) return {};
    std::deque<std::string> rest = components(path);
    std::string done = "/";  // the part resolved so far, links followed
    int links = 0;
    while (!rest.empty()) {
        const std::string name = rest.front();
        rest.pop_front();
        if (name == "..") {
            done = sdk::path::parent_of(done);
            continue;
        }
        const std::string next = join(done, name);
        struct stat info {};
        if (::lstat(next.c_str(), &info) != 0) return {};  // missing: the caller skips it anyway
        if (!S_ISLNK(info.st_mode)) {
            done = next;
            continue;
        }
        for (const std::string& root : write_roots_)
            if (sdk::path::is_inside(done, root))
                return {"it goes through the link '" + next + "' inside the write root '" + root +
                            "', which a command could have made",
                        std::nullopt};
        const auto target = link_target(next);
        if (!target || ++links > kMaxLinks) return {"the link '" + next + "' cannot be resolved safely", std::nullopt};
        if (sdk::path::is_absolute(*target)) done = "/";
        std::deque<std::string> target_parts = components(*target);
        rest.insert(rest.begin(), target_parts.begin(), target_parts.end());
    }
    return {std::nullopt, done};
}

RootGuard::Resolution RootGuard::resolve(std::string_view path) const {
    if (const auto known = resolutions_.find(path); known != resolutions_.end()) return known->second;
    return resolutions_.emplace(std::string(path), resolve_now(path)).first->second;
}

RootGuard::Resolution RootGuard::resolve_now(std::string_view path) const {
    Resolution walked = walk(path);
    if (walked.refusal || !walked.resolved) return walked;
    // The kernel's resolution must land where the walk did: each folder the
    // walk saw was then no link, and one that is a link now was swapped in
    // between by something that can write there.
    const auto now = fresh_real_path(path);
    if (!now) return {};
    if (*now != *walked.resolved)
        return {"it resolved to '" + *walked.resolved + "' and a moment later to '" + *now +
                    "': something is swapping a folder on the way",
                std::nullopt};
    return walked;
}

std::optional<std::string> RootGuard::swappable_reason(std::string_view path) const { return resolve(path).refusal; }

std::optional<std::string> RootGuard::checked(std::string_view path, std::string_view source) const {
    const Resolution resolution = resolve(path);
    if (resolution.refusal) {
        host_.log(OMS_LOG_WARN, std::string(source) + " '" + std::string(path) + "' is not opened: " + *resolution.refusal);
        return std::nullopt;
    }
    const auto& resolved = resolution.resolved;
    if (!resolved) return std::nullopt;
    if (const auto reason = forbidden_reason(*resolved)) {
        const std::string via = *resolved == path ? "" : " (resolves to '" + *resolved + "')";
        host_.log(OMS_LOG_WARN, std::string(source) + " '" + std::string(path) + "'" + via +
                                    " is not opened: " + *reason);
        return std::nullopt;
    }
    return resolved;
}

}  // namespace oms::policies
