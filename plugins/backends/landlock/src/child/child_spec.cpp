#include "child_spec.hpp"

#include <unistd.h>

#include <algorithm>

namespace oms::landlock {

namespace {

std::vector<const char*> c_strings(const std::vector<std::string>& items) {
    std::vector<const char*> out;
    for (const auto& s : items) out.push_back(s.c_str());
    return out;
}

std::vector<unsigned long long> identities(const Plan& plan, const std::vector<std::string>& paths) {
    std::vector<unsigned long long> out;
    for (const auto& path : paths) {
        auto it = plan.mask_identity.find(path);
        out.push_back(it == plan.mask_identity.end() ? 0 : it->second.device);
        out.push_back(it == plan.mask_identity.end() ? 0 : it->second.inode);
    }
    return out;
}

std::vector<char*> c_list(std::vector<std::string>& items) {
    std::vector<char*> out;
    for (auto& s : items) out.push_back(s.data());
    out.push_back(nullptr);
    return out;
}

}  // namespace

ChildSpec make_child_spec(const Plan& plan, const KernelFeatures& features, const SeccompProgram& seccomp) {
    ChildSpec spec;
    spec.storage_argv = plan.argv;
    spec.storage_env = plan.env;
    spec.argv = c_list(spec.storage_argv);
    spec.envp = c_list(spec.storage_env);
    spec.program = plan.program.c_str();
    if (!plan.not_found.empty()) spec.not_found = plan.not_found.c_str();
    spec.not_found_status = plan.not_found_status;
    spec.worktree = plan.worktree.c_str();
    spec.working_dir_below = plan.working_dir_below.c_str();
    spec.pin_in_place = c_strings(plan.pin_in_place);
    spec.read_only = c_strings(plan.read_only);
    spec.hide_folders = c_strings(plan.hide_folders);
    spec.hide_files = c_strings(plan.hide_files);
    spec.hide_folder_ids = identities(plan, plan.hide_folders);
    spec.hide_file_ids = identities(plan, plan.hide_files);
    spec.writable_mounts = c_strings(plan.writable_mounts);
    spec.private_temps = c_strings(plan.private_temps);
    spec.temp_keeps = c_strings(plan.temp_keeps);
    spec.temp_fresh = c_strings(plan.temp_fresh);
    spec.scratch_trees = c_strings(plan.scratch_trees);
    spec.scratch_read_only = c_strings(plan.scratch_read_only);
    if (!plan.home_skeleton.empty()) spec.home_skeleton = plan.home_skeleton.c_str();
    spec.home_keeps = c_strings(plan.home_keeps);
    for (const auto& link : plan.home_links) {
        spec.home_link_folders.push_back(link.folder.c_str());
        spec.home_link_names.push_back(link.name.c_str());
        spec.home_link_texts.push_back(link.text.c_str());
    }
    spec.home_mode = plan.home_mode;
    spec.home_owner[0] = plan.home_owner[0];
    spec.home_owner[1] = plan.home_owner[1];
    spec.fresh_dev = plan.fresh_dev;
    spec.fresh_dev_keeps = c_strings(plan.fresh_dev_keeps);
    spec.dev_fd_storage.assign(plan.fresh_dev_keeps.size() + 1, -1);
    spec.dev_fds = spec.dev_fd_storage.data();
    spec.dev_folder_storage.assign(plan.fresh_dev_keeps.size() + 1, 0);
    spec.dev_is_folder = spec.dev_folder_storage.data();
    const size_t most_keeps = std::max({plan.writable_mounts.size(), plan.temp_keeps.size(), plan.home_keeps.size()});
    spec.mount_fd_storage.assign(most_keeps + 1, -1);
    spec.mount_fds = spec.mount_fd_storage.data();
    spec.keep_folder_storage.assign(most_keeps + 1, 0);
    spec.keep_is_folder = spec.keep_folder_storage.data();
    for (const auto& rule : plan.path_rules) {
        uint64_t rights = rule.rights & features.fs_rights;
        if (rights) spec.path_rules.push_back(ChildPathRule{rule.path.c_str(), rights});
    }
    spec.connect_ports = plan.connect_ports;
    spec.bind_ports = plan.bind_ports;
    spec.own_network = plan.own_network;
    if (plan.own_network) spec.relay_ports = plan.connect_ports;
    if (plan.own_network) spec.publish_ports = plan.publish_ports;
    if (!plan.refusal_log.empty()) spec.refusal_log = plan.refusal_log.c_str();
    spec.watch_connects = plan.watch_connects;
    if (!plan.resolv_conf.empty()) spec.resolv_conf_target = plan.resolv_conf.c_str();
    spec.uid = getuid();
    spec.gid = getgid();
    spec.namespaces = plan.namespaces;
    spec.need_user_namespace = plan.namespaces && geteuid() != 0;
    spec.features = features;
    spec.seccomp = &seccomp;
    return spec;
}

}  // namespace oms::landlock
