// The user's exemptions from the keypair suffix rules ([plugin.secret-deny]
// keypair_exempt, user config only): exact paths or globs, resolved now to the
// existing files they name. Each becomes a READ_ALLOW_TREE of that one file;
// a read allow naming exactly a file outranks the suffix rules
// (docs/rule-semantics.md), never a read deny.
#pragma once
#include <string>
#include <vector>

namespace oms::policies {

struct Exemption {
    std::string entry;  // as the user wrote it
    std::string file;   // an existing regular file it names
};

// Entries are absolute, "~/..." or relative to the worktree; `*` and `?`
// match within one name, `**` any number of folders. Only files ending with
// one of `suffixes` are returned (others need no exemption). A walk stops
// after `limit` entries per pattern (the exemption then covers fewer files,
// never more). A file reached through a link in any folder on its way (or a
// walk whose fixed part goes through one) is never exempt: a command could
// have pointed that link at a folder holding a real key.
std::vector<Exemption> resolve_keypair_exemptions(const std::vector<std::string>& entries, const std::string& home,
                                                  const std::string& worktree, const std::vector<std::string>& suffixes,
                                                  size_t limit = 200000);

// `*`, `?` and `**` glob match over '/'-separated paths.
bool glob_matches(const std::string& pattern, const std::string& path);

}  // namespace oms::policies
