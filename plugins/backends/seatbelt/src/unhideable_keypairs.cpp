#include "unhideable_keypairs.hpp"

#include <oms/secret_search.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace oms::seatbelt {

namespace {

bool listed(const std::vector<std::string>& list, const std::string& path) {
    return std::find(list.begin(), list.end(), path) != list.end();
}

// "PATH (a link to ...)": the path the line is about.
std::string link_path(const std::string& line) { return line.substr(0, line.rfind(" (a link to")); }

}  // namespace

void refuse_unhideable_keypairs(const oms::sdk::Context& context, const oms::sdk::Policy& policy) {
    oms::sdk::SecretSearch search{"seatbelt", {std::string(context.worktree())}, {}, {}, {}};
    for (std::string_view folder : context.read_write()) search.roots.emplace_back(folder);
    std::vector<std::string> exempt;
    for (const auto& rule : policy.rules()) {
        if (rule.kind == OMS_RULE_READ_DENY_SUFFIX) search.suffixes.emplace_back(rule.value);
        if (rule.kind == OMS_RULE_READ_DENY) search.skip.emplace_back(rule.value);
        if (rule.kind == OMS_RULE_READ_ALLOW_TREE) exempt.emplace_back(rule.value);
    }
    // Commands run as the caller: another user's folder the caller cannot
    // read, they cannot read either.
    search.skip_closed_folders_of_others = true;
    oms::sdk::SecretFindings found = oms::sdk::find_secrets(search);
    if (!found.complete)
        throw oms::sdk::Error(OMS_ERR_FAILED, "seatbelt: too many files in the worktree and --rw folders to look "
                                              "for keypair files with a second name; the command did not run");
    found.linked.erase(std::remove_if(found.linked.begin(), found.linked.end(),
                                      [&](const oms::sdk::LinkedSecret& m) { return listed(exempt, m.path); }),
                       found.linked.end());
    found.keypair_links.erase(
        std::remove_if(found.keypair_links.begin(), found.keypair_links.end(),
                       [&](const std::string& line) { return listed(exempt, link_path(line)); }),
        found.keypair_links.end());
    oms::sdk::refuse_unhideable(found, "seatbelt");
}

}  // namespace oms::seatbelt
