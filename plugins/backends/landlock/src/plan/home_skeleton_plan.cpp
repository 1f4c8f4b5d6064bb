#include "home_skeleton_plan.hpp"

#include "landlock_uapi.hpp"
#include "path_utils.hpp"
#include "policy_values.hpp"

#include <oms/path.hpp>

#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <set>

namespace oms::landlock {

namespace {

// HOME inside a mount that stays writable (a write root, a scratch tree):
// HOME must stay as writable as it is. A private temp folder holding HOME
// (a write root the run gets fresh) does not count: HOME is bound back into
// it read-only.
bool writable_mount_holds(const Plan& plan, const std::string& home) {
    return sdk::path::is_inside_any(home, plan.writable_mounts) || sdk::path::is_inside_any(home, plan.scratch_trees) ||
           sdk::path::is_inside_any(home, plan.scratch_read_only);
}

// Everything the policy opens, as real paths (each resolved once): read,
// write and scratch roots, the worktree, the run's private HOME and TMPDIR;
// the read roots apart too.
struct Granted {
    std::vector<std::string> all, read;
};

Granted granted_paths(const oms::sdk::Context& context, const oms::sdk::Policy& policy) {
    Granted out;
    auto add = [&](const std::string& path, bool read_root) {
        if (path.empty() || path[0] != '/') return;
        auto real = real_path_without_links(path);
        if (!real) return;
        if (read_root) out.read.push_back(*real);
        if (mountable(*real)) out.all.push_back(*real);
    };
    for (const std::string& path : {std::string(context.worktree()), std::string(context.private_home()),
                                    std::string(context.temp_dir())})
        add(path, false);
    for (oms_rule_kind kind : {OMS_RULE_READ_ALLOW_TREE, OMS_RULE_WRITE_ALLOW_TREE, OMS_RULE_WRITE_SCRATCH_TREE})
        for (const auto& path : values_of(policy, kind)) add(path, kind == OMS_RULE_READ_ALLOW_TREE);
    return out;
}

// The kept paths strictly below HOME, none inside another (sorted, so a
// folder is bound back before anything below it could be).
std::vector<std::string> keeps_below(const std::string& home, const std::vector<std::string>& granted) {
    std::vector<std::string> below;
    for (const auto& path : granted)
        if (path != home && sdk::path::is_inside(path, home)) below.push_back(path);
    std::sort(below.begin(), below.end());
    below.erase(std::unique(below.begin(), below.end()), below.end());
    std::vector<std::string> out;
    for (const auto& path : below) {
        const bool inside_other = std::any_of(below.begin(), below.end(), [&](const std::string& other) {
            return other != path && sdk::path::is_inside(path, other);
        });
        if (!inside_other) out.push_back(path);
    }
    return out;
}

// A mount or rule for a name under HOME the skeleton does not have would
// fail the run (its path is gone): such a name is absent inside, which is
// what a mask or a missing right would give, so it is only reported.
void drop_absent(Plan& plan) {
    auto absent = [&](const std::string& path) {
        return path != plan.home_skeleton && sdk::path::is_inside(path, plan.home_skeleton) &&
               !sdk::path::is_inside_any(path, plan.home_keeps);
    };
    for (auto* list : {&plan.pin_in_place, &plan.read_only, &plan.hide_folders, &plan.hide_files}) {
        auto gone = std::stable_partition(list->begin(), list->end(), [&](const std::string& p) { return !absent(p); });
        for (auto it = gone; it != list->end(); ++it)
            plan.not_present.push_back(*it + " (under HOME, outside every granted path: absent inside)");
        list->erase(gone, list->end());
    }
    auto& rules = plan.path_rules;
    rules.erase(std::remove_if(rules.begin(), rules.end(), [&](const PathRule& r) { return absent(r.path); }),
                rules.end());
}

// HOME and the folders between it and each kept path: the skeleton's own folders.
std::vector<std::string> skeleton_folders(const std::string& home, const std::vector<std::string>& keeps) {
    std::set<std::string> folders{home};
    for (const auto& keep : keeps)
        for (std::string up = sdk::path::parent_of(keep); up != home && sdk::path::is_inside(up, home);
             up = sdk::path::parent_of(up))
            folders.insert(up);
    return std::vector<std::string>(folders.begin(), folders.end());
}

// The links in those folders whose target is a granted path (`~/.cargo ->
// /data/cargo`): the policy names the target, a tool may name the link.
// Other links, like every other name there, are absent inside.
std::vector<Plan::HomeLink> links_into_granted(const std::vector<std::string>& folders,
                                              const std::vector<std::string>& granted) {
    std::vector<Plan::HomeLink> out;
    for (const auto& folder : folders) {
        DIR* dir = opendir(folder.c_str());
        while (dirent* entry = dir ? readdir(dir) : nullptr) {
            const std::string name = entry->d_name;
            if (name == "." || name == "..") continue;
            const std::string path = folder + "/" + name;
            struct stat st;
            if (lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) continue;
            const auto target = canonical(path);
            char text[PATH_MAX];
            const ssize_t length = readlink(path.c_str(), text, sizeof text);
            if (!target || !sdk::path::is_inside_any(*target, granted) || length <= 0 ||
                length >= static_cast<ssize_t>(sizeof text))
                continue;
            out.push_back(Plan::HomeLink{folder, name, std::string(text, static_cast<size_t>(length))});
        }
        if (dir) closedir(dir);
    }
    return out;
}

void grant_listing_from_root(Plan& plan, const std::string& why) {
    plan.list_from_root = true;
    plan.path_rules.push_back(PathRule{"/", uapi::kFsReadDir, why});
}

}  // namespace

void plan_home_skeleton(Plan& plan, const oms::sdk::Context& context, const oms::sdk::Policy& policy) {
    const std::string home(context.home());
    if (home.empty()) {  // every entry of `/` but /dev is readable already: nothing to keep out of a listing
        grant_listing_from_root(plan, "listing only; no HOME");
        return;
    }
    if (home == "/") {
        plan.home_closed_by_landlock_only = "HOME is /";
        return;
    }
    const auto real_home = canonical(home);
    struct stat st;
    if (!real_home || stat(real_home->c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return;
    if (writable_mount_holds(plan, *real_home)) {
        if (!sdk::path::is_inside_any(*real_home, granted_paths(context, policy).read))
            plan.home_closed_by_landlock_only = "a write root holds HOME (" + *real_home + ")";
        return;
    }
    const Granted granted = granted_paths(context, policy);
    if (sdk::path::is_inside_any(*real_home, granted.read)) {  // nothing in HOME is closed
        grant_listing_from_root(plan, "listing only; HOME is inside a read root");
        return;
    }
    plan.home_skeleton = *real_home;
    plan.home_mode = (st.st_mode & 07777) | 0700;  // its owner builds the skeleton
    plan.home_owner[0] = st.st_uid;
    plan.home_owner[1] = st.st_gid;
    plan.home_keeps = keeps_below(*real_home, granted.all);
    // A granted path that holds HOME (a private temp folder) grants nothing in it.
    std::vector<std::string> link_targets;
    for (const auto& path : granted.all)
        if (!sdk::path::is_inside(*real_home, path)) link_targets.push_back(path);
    plan.home_links = links_into_granted(skeleton_folders(*real_home, plan.home_keeps), link_targets);
    drop_absent(plan);
    grant_listing_from_root(plan, "listing only; HOME inside is a skeleton of the granted paths");
}

}  // namespace oms::landlock
