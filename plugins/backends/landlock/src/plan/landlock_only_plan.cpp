#include "landlock_only_plan.hpp"

#include "landlock_uapi.hpp"

#include <oms/path.hpp>

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>

namespace oms::landlock {

namespace {

namespace path = oms::sdk::path;

// The protected path `candidate` is, or lies below (nullptr: none).
const ProtectedPath* covering(const std::string& candidate, const std::vector<ProtectedPath>& protect) {
    const ProtectedPath* found = nullptr;
    for (const auto& p : protect)
        if (path::is_inside(candidate, p.path) && (!found || p.keep < found->keep)) found = &p;
    return found;
}

std::vector<ProtectedPath> strictly_below(const std::string& folder, const std::vector<ProtectedPath>& protect) {
    std::vector<ProtectedPath> out;
    for (const auto& p : protect)
        if (path::is_strictly_below(p.path, folder)) out.push_back(p);
    return out;
}

std::string child_of(const std::string& folder, const std::string& name) {
    return folder == "/" ? "/" + name : folder + "/" + name;
}

void add(std::vector<PathRule>& out, const std::string& at, uint64_t rights, bool folder, const std::string& why) {
    if (!folder) rights &= uapi::kFileRights;  // the kernel refuses folder rights on a file
    if (rights) out.push_back(PathRule{at, rights, why});
}

// `rule` granted on `folder`, which holds protected paths below it: the
// folder keeps its listing, each entry gets the rule (split again when a
// protected path lies below it, capped when it is one). Links are skipped:
// what they lead to has rules of its own.
void split_folder(const PathRule& rule, const std::string& folder, const std::vector<ProtectedPath>& inside,
                  std::vector<PathRule>& out) {
    add(out, folder, rule.rights & uapi::kFsReadDir, true, rule.why + " (listing only: a protected path below)");
    DIR* dir = opendir(folder.c_str());
    while (dirent* entry = dir ? readdir(dir) : nullptr) {
        const std::string name = entry->d_name;
        if (name == "." || name == "..") continue;
        const std::string at = child_of(folder, name);
        struct stat st {};
        if (lstat(at.c_str(), &st) != 0 || S_ISLNK(st.st_mode)) continue;
        const bool is_folder = S_ISDIR(st.st_mode);
        if (const ProtectedPath* exact = covering(at, inside)) {
            add(out, at, rule.rights & exact->keep, is_folder, rule.why + " (capped: protected)");
            continue;
        }
        auto below = strictly_below(at, inside);
        if (is_folder && !below.empty()) split_folder(rule, at, below, out);
        else add(out, at, rule.rights, is_folder, rule.why);
    }
    if (dir) closedir(dir);
}

bool is_folder(const std::string& at) {
    struct stat st {};
    return stat(at.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

std::vector<PathRule> split_around(const std::vector<PathRule>& rules, const std::vector<ProtectedPath>& protect) {
    std::vector<PathRule> out;
    for (const auto& rule : rules) {
        if (const ProtectedPath* cap = covering(rule.path, protect)) {
            add(out, rule.path, rule.rights & cap->keep, is_folder(rule.path), rule.why + " (capped: protected)");
            continue;
        }
        auto inside = strictly_below(rule.path, protect);
        if (inside.empty() || !is_folder(rule.path)) out.push_back(rule);
        else split_folder(rule, rule.path, inside, out);
    }
    return out;
}

std::vector<ProtectedPath> protected_paths(const Plan& plan) {
    std::vector<ProtectedPath> out;
    for (const auto* hidden : {&plan.hide_folders, &plan.hide_files})
        for (const auto& at : *hidden) out.push_back(ProtectedPath{at, 0});
    // Their host entries do not exist in the full mode (a fresh tmpfs each).
    for (const auto& temp : plan.private_temps) out.push_back(ProtectedPath{temp, 0});
    for (const auto* read_only : {&plan.read_only, &plan.scratch_trees, &plan.scratch_read_only})
        for (const auto& at : *read_only) out.push_back(ProtectedPath{at, uapi::kReadRights});
    return out;
}

void adapt_for_landlock_only(Plan& plan) {
    const auto protect = protected_paths(plan);
    // The run's own folders (and a worktree) may lie in a system temp
    // folder: their rules are split around what they hold, never capped by
    // the temp folder above them.
    std::vector<ProtectedPath> protect_in_keeps;
    for (const auto& p : protect)
        if (std::find(plan.private_temps.begin(), plan.private_temps.end(), p.path) == plan.private_temps.end())
            protect_in_keeps.push_back(p);
    std::vector<PathRule> kept, others;
    for (auto& rule : plan.path_rules)
        (path::is_inside_any(rule.path, plan.temp_keeps) || path::is_inside_any(rule.path, plan.temp_fresh) ? kept
                                                                                                        : others)
            .push_back(std::move(rule));
    plan.path_rules = split_around(others, protect);
    for (auto& rule : split_around(kept, protect_in_keeps)) plan.path_rules.push_back(std::move(rule));
    plan.writable_mounts.clear();
    plan.private_temps.clear();
    plan.temp_keeps.clear();
    plan.temp_fresh.clear();  // the host's TMPDIR, as it is
    plan.scratch_trees.clear();
    plan.scratch_read_only.clear();
    plan.home_skeleton.clear();
    plan.home_keeps.clear();
    plan.home_links.clear();
    plan.pin_in_place.clear();
    plan.read_only.clear();
    plan.hide_folders.clear();
    plan.hide_files.clear();
    plan.fresh_dev = false;  // no mounts: Landlock's device rules alone
    plan.fresh_dev_keeps.clear();
    plan.namespaces = false;
    plan.own_network = false;  // Landlock's port rules instead: connect_ports only
    plan.resolv_conf.clear();
    plan.watch_connects = false;
}

}  // namespace oms::landlock
