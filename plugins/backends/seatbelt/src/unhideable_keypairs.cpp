#include "unhideable_keypairs.hpp"

#include <oms/path.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace oms::seatbelt {

namespace {

bool listed(const std::vector<std::string>& list, const std::string& path) {
    return std::find(list.begin(), list.end(), path) != list.end();
}

}  // namespace

std::string refuse_unhideable_keypairs(const oms::sdk::Context& context, const oms::sdk::Policy& policy,
                                       size_t entry_limit) {
    oms::sdk::SecretSearch search{"seatbelt", {std::string(context.worktree())}, {}, {}, {}};
    search.entry_limit = entry_limit;
    for (std::string_view folder : context.read_write()) search.roots.emplace_back(folder);
    std::vector<std::string> exempt;
    for (const auto& rule : policy.rules()) {
        if (rule.kind == OMS_RULE_READ_DENY_SUFFIX) search.suffixes.emplace_back(rule.value);
        if (rule.kind == OMS_RULE_READ_DENY) search.skip.emplace_back(rule.value);
        if (rule.kind == OMS_RULE_READ_ALLOW_TREE) exempt.emplace_back(rule.value);
        if (rule.kind == OMS_RULE_READ_DENY_TREE) search.hidden.emplace_back(rule.value);
    }
    // The write roots under HOME that outlive a run (Cargo's caches): a
    // command can plant there, and links into HOME are not followed.
    for (const auto& rule : policy.rules())
        if ((rule.kind == OMS_RULE_WRITE_ALLOW_TREE || rule.kind == OMS_RULE_WRITE_SCRATCH_TREE) &&
            oms::sdk::path::is_inside_any(std::string(rule.value), search.hidden))
            search.roots.emplace_back(rule.value);
    search.follow_links_from = search.roots;  // every root searched is one a command writes
    // Commands run as the caller: another user's folder the caller cannot
    // read, they cannot read either.
    search.skip_closed_folders_of_others = true;
    // All outside HOME is readable under seatbelt, and its file systems
    // ignore case by default (the profile's patterns do too).
    search.host_readable_outside = true;
    search.fold_case = true;
    oms::sdk::SecretFindings found = oms::sdk::find_secrets(search);
    std::string note;
    if (!found.complete) {
        if (!context.best_effort())
            throw oms::sdk::Error(OMS_ERR_UNSUPPORTED,
                                  "seatbelt: too many files in the worktree and --rw folders to look for keypair "
                                  "files with a second name (more than " +
                                      std::to_string(search.entry_limit) +
                                      "); the command did not run; use --best-effort to run anyway");
        note = "seatbelt: the search for keypair files with a second name stopped at its limit (--best-effort): "
               "a key copied into a file a command hard-linked may be readable under the other name";
    }
    found.linked.erase(std::remove_if(found.linked.begin(), found.linked.end(),
                                      [&](const oms::sdk::LinkedSecret& m) { return listed(exempt, m.path); }),
                       found.linked.end());
    found.keypair_links.erase(
        std::remove_if(found.keypair_links.begin(), found.keypair_links.end(),
                       [&](const oms::sdk::UnhideableKeypair& link) { return listed(exempt, link.path); }),
        found.keypair_links.end());
    oms::sdk::refuse_unhideable(found, "seatbelt");
    return note;
}

}  // namespace oms::seatbelt
