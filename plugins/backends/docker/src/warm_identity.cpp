#include "warm_identity.hpp"

#include <cstdint>
#include <cstdio>

namespace oms::docker {

std::string fnv_hex(const std::string& text) {
    uint64_t hash = 14695981039346656037ull;
    for (unsigned char c : text) {
        hash ^= c;
        hash *= 1099511628211ull;
    }
    char out[17];
    std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(hash));
    return out;
}

std::string config_hash(const ContainerPlan& plan, const std::string& runner_path) {
    std::string all = plan.image + '\n' + plan.user + '\n';
    for (const std::string& f : plan.flags) all += f + '\n';
    for (const std::string& a : plan.runner_args) all += "runner " + a + '\n';  // the relayed ports
    return fnv_hex(all + "--\n" + runner_path);
}

std::string runner_socket_dir(const std::string& state_dir, const std::string& name) {
    return state_dir + "/docker/" + name;
}

std::string warm_name(const std::string& worktree, const std::string& hash) {
    return "oms-warm-" + fnv_hex(worktree).substr(0, 12) + "-" + hash.substr(0, 12);
}

std::vector<std::string> warm_labels(const std::string& worktree, const std::string& hash) {
    return {std::string(kManagedLabel) + "=warm", std::string(kWorktreeLabel) + "=" + worktree,
            std::string(kConfigLabel) + "=" + hash};
}

}  // namespace oms::docker
