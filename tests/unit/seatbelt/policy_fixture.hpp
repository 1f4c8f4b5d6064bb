// The policy the seatbelt backend gets in a real run, written out by hand:
// the rules the policy plugins (secret-deny, toolchain-roots, write-roots,
// env-allowlist, network) emit for a given HOME and worktree, per the plugin
// ABI's list. Tests render it and check the profile against it.
#pragma once
#include "plugin_harness.hpp"

#include <oms/sdk.hpp>

#include <map>
#include <string>
#include <vector>

namespace oms::test::seatbelt {

struct Layout {
    std::string home;          // the user's real HOME
    std::string worktree;      // home + "/work/repo"
    std::string private_home;  // the run's private HOME
    std::string temp_dir;      // the run's TMPDIR
    std::string surfpool;      // trusted Surfpool binary, or empty
    std::vector<std::string> pinned;  // pinned verifier files
    std::string read_only_mount;      // a --ro path under HOME
};

// A layout rooted at `home` (which may contain any bytes but NUL).
Layout layout_under(const std::string& home, bool with_surfpool);

// The policy for `layout`, as the policy plugins would contribute it.
PolicyBuilder mirror_policy(const Layout& layout);

// The 14 names of the spec's environment allowlist.
const std::vector<std::string>& allowlisted_names();

// The rules of a built policy, as the backend sees them.
std::vector<oms::sdk::Rule> rules_of(PolicyBuilder& builder);

}  // namespace oms::test::seatbelt
