#include "isolation_plan.hpp"

#include "path_utils.hpp"
#include "policy_values.hpp"

#include <oms/path.hpp>
#include <oms/run_folder.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <fstream>

namespace oms::landlock {

namespace {

const char* const kSystemTemps[] = {"/tmp", "/var/tmp"};

// A temp folder the user works in (the worktree, or a --rw mount, is the
// temp folder or holds it) stays the host's: it is a write root like any
// other, and a worktree is searched for keypairs at every start anyway.
bool chosen_by_user(const std::string& temp, const oms::sdk::Context& context) {
    std::vector<std::string> chosen{std::string(context.worktree())};
    for (auto mount : context.read_write()) chosen.emplace_back(mount);
    for (const auto& path : chosen) {
        auto real = path.empty() ? std::nullopt : real_path_without_links(path);
        if (real && sdk::path::is_inside(temp, *real)) return true;
    }
    return false;
}

void plan_private_temps(Plan& plan, const oms::sdk::Context& context) {
    for (const char* temp : kSystemTemps) {
        auto real = canonical(temp);
        if (real && kind_of(*real) == Kind::folder && !chosen_by_user(*real, context) &&
            std::find(plan.private_temps.begin(), plan.private_temps.end(), *real) == plan.private_temps.end())
            plan.private_temps.push_back(*real);
    }
    // The folders of every run's private folder, when no private temp covers
    // them already (the user chose /tmp): covered the same way, so the
    // command reaches no other run's folder, not even one that starts later;
    // the run's own HOME and TMPDIR are bound back.
    for (const auto& base : plan.run_folder_bases)
        if (!sdk::path::is_inside_any(base, plan.private_temps)) plan.private_temps.push_back(base);
}

void plan_writable_mounts(Plan& plan, const oms::sdk::Policy& policy) {
    std::vector<std::string> roots;
    for (const auto& root : values_of(policy, OMS_RULE_WRITE_ALLOW_TREE)) {
        auto real = real_path_without_links(root);
        // The system temp folders get a fresh tmpfs instead.
        if (!real || !mountable(*real) || std::count(plan.private_temps.begin(), plan.private_temps.end(), *real))
            continue;
        roots.push_back(*real);
    }
    plan.writable_mounts = outermost(roots);
}

// Everything the policy names that lies below a private temp folder.
void plan_temp_keeps(Plan& plan, const oms::sdk::Context& context, const oms::sdk::Policy& policy) {
    std::vector<std::string> named{std::string(context.worktree()), std::string(context.home()),
                                   std::string(context.private_home()), std::string(context.temp_dir())};
    for (oms_rule_kind kind : {OMS_RULE_READ_ALLOW_TREE, OMS_RULE_WRITE_ALLOW_TREE, OMS_RULE_WRITE_SCRATCH_TREE})
        for (auto& path : values_of(policy, kind)) named.push_back(path);
    std::vector<std::string> keeps;
    for (const auto& path : named) {
        if (path.empty() || path[0] != '/') continue;
        auto real = real_path_without_links(path);
        if (!real || !mountable(*real)) continue;
        for (const auto& temp : plan.private_temps)
            if (sdk::path::is_inside(*real, temp) && *real != temp) keeps.push_back(*real);
    }
    plan.temp_keeps = outermost(keeps);
    // The run's TMPDIR, when it is a keep of its own (nothing above it is
    // kept), is made fresh instead: oms made it empty for this run, and no
    // other process writes there (a run folder is no write root).
    const auto run = sdk::run_folder_of(context.private_home(), context.temp_dir());
    const auto temp = run.known() ? real_path_without_links(std::string(context.temp_dir())) : std::nullopt;
    const auto own = temp ? std::find(plan.temp_keeps.begin(), plan.temp_keeps.end(), *temp) : plan.temp_keeps.end();
    if (own == plan.temp_keeps.end()) return;
    plan.temp_fresh.push_back(*own);
    plan.temp_keeps.erase(own);
    // Its write root's clone would only be covered by the private temp.
    auto& mounts = plan.writable_mounts;
    mounts.erase(std::remove(mounts.begin(), mounts.end(), plan.temp_fresh.back()), mounts.end());
}

// Host entries of a temp folder that were not kept do not exist inside, nor
// anything below a folder made fresh (the folder itself does).
bool gone_inside(const Plan& plan, const std::string& path) {
    for (const auto& fresh : plan.temp_fresh)
        if (sdk::path::is_inside(path, fresh)) return path != fresh;
    return sdk::path::is_inside_any(path, plan.private_temps) && !sdk::path::is_inside_any(path, plan.temp_keeps) &&
           std::find(plan.private_temps.begin(), plan.private_temps.end(), path) == plan.private_temps.end();
}

void drop_host_temp_entries(Plan& plan) {
    for (auto* list : {&plan.pin_in_place, &plan.read_only, &plan.hide_folders, &plan.hide_files}) {
        auto gone = std::stable_partition(list->begin(), list->end(),
                                          [&](const std::string& p) { return !gone_inside(plan, p); });
        for (auto it = gone; it != list->end(); ++it)
            plan.not_present.push_back(*it + " (in the host's temp folder: the private one does not have it)");
        list->erase(gone, list->end());
    }
    auto& rules = plan.path_rules;
    rules.erase(std::remove_if(rules.begin(), rules.end(), [&](const PathRule& r) { return gone_inside(plan, r.path); }),
                rules.end());
}

// Overlay options are a comma-separated text: a path holding one of these
// characters cannot be passed safely, so that tree is read-only instead.
bool overlay_safe(const std::string& path) { return path.find_first_of(",:\\") == std::string::npos; }

void plan_scratch_trees(Plan& plan, const oms::sdk::Policy& policy) {
    const bool overlay = overlay_available() && !plan.private_temps.empty();
    for (const auto& tree : values_of(policy, OMS_RULE_WRITE_SCRATCH_TREE)) {
        auto real = canonical(tree);
        if (!real || kind_of(*real) != Kind::folder) {
            plan.not_present.push_back(tree + " (scratch tree)");
            continue;
        }
        // A link there may have been made by an earlier command (the trees
        // lie in write roots): the overlay would then cover its target.
        if (*real != tree) {
            plan.not_present.push_back(tree + " (scratch tree reached through a link: no layer, its Landlock rule "
                                              "stops the run)");
            continue;
        }
        (overlay && overlay_safe(*real) ? plan.scratch_trees : plan.scratch_read_only).push_back(*real);
    }
}

}  // namespace

std::vector<std::string> run_folders_to_cover(const oms::sdk::Context& context) {
    const auto run = sdk::run_folder_of(context.private_home(), context.temp_dir());
    std::vector<std::string> bases;
    for (const auto& base : sdk::run_folder_bases(run)) {
        auto real = real_path_without_links(base);
        if (real && *real == base) bases.push_back(base);
    }
    // The folder itself as a worktree or --rw folder would show every run's.
    // A folder below it (oms's own: doctor --probe's stage, oms verify's
    // snapshot) is bound back on top of the cover, as the run's HOME is.
    std::vector<std::string> chosen{std::string(context.worktree())};
    for (auto mount : context.read_write()) chosen.emplace_back(mount);
    for (const auto& path : chosen) {
        auto real = path.empty() ? std::nullopt : real_path_without_links(path);
        for (const auto& base : bases)
            if (real && *real == base)
                throw sdk::Error(OMS_ERR_INVALID, "landlock: " + path + " is " + base +
                                                      ", where oms keeps the runs' private folders, which no "
                                                      "command sees; nothing ran. Choose another folder");
    }
    return bases;
}

bool overlay_available() {
    std::ifstream list("/proc/filesystems");
    std::string line;
    while (std::getline(list, line))
        if (line.size() >= 8 && line.compare(line.size() - 8, 8, "\toverlay") == 0) return true;
    return false;
}

void plan_isolation(Plan& plan, const oms::sdk::Context& context, const oms::sdk::Policy& policy) {
    plan_private_temps(plan, context);
    plan_writable_mounts(plan, policy);
    plan_temp_keeps(plan, context, policy);
    drop_host_temp_entries(plan);
    plan_scratch_trees(plan, policy);
}

}  // namespace oms::landlock
