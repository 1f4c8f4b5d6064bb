// What the profile's path rules cannot deny, checked before each launch.
// Seatbelt denies a keypair by its path (READ_DENY_SUFFIX as a regex), so
// the key stays readable under a name no rule matches: a second name of the
// file (a hard link a command planted while the keypair file was empty,
// before the user's `cp` wrote the key into it), or the file a keypair-named
// link leads to (the `cp` writes through the link). The SDK's keypair search
// (oms/secret_search.hpp) finds both in the folders a command can write (the
// worktree and the --rw folders: where a command can plant them), and the
// run stops with one line naming them. A keypair named exactly by a
// READ_ALLOW_TREE (keypair_exempt) is readable anyway and is left out.
#pragma once
#include <oms/sdk.hpp>
#include <oms/secret_search.hpp>

#include <cstddef>
#include <string>

namespace oms::seatbelt {

// Throws oms::sdk::Error (OMS_ERR_FAILED) naming each such file or link, or
// when the folders hold too many entries to search them all (unless the run
// is best-effort: then the warning to print is returned). Returns "" when
// the search found nothing to refuse.
// `entry_limit`: the entries looked at in all (the SDK search's default).
std::string refuse_unhideable_keypairs(const oms::sdk::Context& context, const oms::sdk::Policy& policy,
                                       size_t entry_limit = oms::sdk::SecretSearch{}.entry_limit);

}  // namespace oms::seatbelt
