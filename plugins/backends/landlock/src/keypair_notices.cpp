#include "keypair_notices.hpp"

#include "keypair_shape.hpp"

#include <set>

namespace oms::landlock {

namespace {

bool ends_with(const std::string& text, const std::string& end) {
    return !end.empty() && text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

// The rule as a user reads it: "*-keypair.json", "*/id.json".
std::string rule_matching(const std::string& path, const std::vector<std::string>& suffixes) {
    for (const auto& suffix : suffixes)
        if (ends_with(path, suffix)) return "*" + suffix;
    return "a keypair suffix rule";
}

}  // namespace

std::vector<std::string> keypair_notices(const Plan& plan, const std::vector<std::string>& suffixes) {
    std::vector<std::string> lines;
    // Two matches may lead to one file (a keypair-named link to it): one line.
    const std::set<std::string> files(plan.hidden_keypairs.begin(), plan.hidden_keypairs.end());
    size_t more = 0;
    for (const auto& path : files) {
        if (!plan.keypair_matches.count(path)) continue;  // reached through a link
        // Only a file whose device and inode the search saw: the one the mask covers.
        const auto seen = plan.mask_identity.find(path);
        if (seen == plan.mask_identity.end()) continue;
        if (keypair_shape(path, seen->second.device, seen->second.inode) != KeypairShape::not_keypair) continue;
        if (lines.size() == kMaxKeypairNotices) {
            ++more;
            continue;
        }
        lines.push_back("hid " + path + " (matches " + rule_matching(path, suffixes) +
                        " but is not a Solana keypair); to let commands read it, add it to [plugin.secret-deny] "
                        "keypair_exempt in your user config");
    }
    if (more)
        lines.push_back("hid " + std::to_string(more) + " more files that match the keypair rules but are not Solana "
                        "keypairs (oms policy -- CMD lists every hidden file)");
    return lines;
}

}  // namespace oms::landlock
