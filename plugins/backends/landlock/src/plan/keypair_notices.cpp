#include "keypair_notices.hpp"

#include <oms/keypair_notice.hpp>
#include <oms/refusal_log.hpp>

#include <unistd.h>

namespace oms::landlock {

std::vector<std::string> keypair_notices(const Plan& plan, const std::vector<std::string>& suffixes,
                                         const std::string& state_dir) {
    std::vector<oms::sdk::SeenKeypairMatch> seen;
    for (const auto& path : plan.hidden_keypairs) {
        if (!plan.keypair_matches.count(path)) continue;  // reached through a link
        // Only a file whose device and inode the search saw: the one the mask covers.
        const auto identity = plan.mask_identity.find(path);
        if (identity != plan.mask_identity.end())
            seen.push_back({path, identity->second.device, identity->second.inode});
    }
    return oms::sdk::keypair_notice_lines(
        seen, suffixes, "to let commands read it, add it to [plugin.secret-deny] keypair_exempt in your user config",
        state_dir);
}

void tell_hidden_files(const Plan& plan) {
    if (plan.refusal_log.empty()) return;
    const int fd = oms::refusal_log::open_for_append(plan.refusal_log.c_str());
    if (fd < 0) return;
    for (const auto& path : plan.hide_files)
        if (plan.mask_identity.count(path))  // a match of the search: its mask fails to open
            oms::refusal_log::append(fd, oms::refusal_log::kHiddenSource, path.c_str(), path.size(), 0,
                                     "a keypair: hidden from commands");
    close(fd);
}

}  // namespace oms::landlock
