// The folders oms protects whatever the policy says: HOME (as $HOME and as
// the password database names it) and the folders above it. Shared by the
// worktree check and the check over the assembled policy.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace oms::core {

// The path with every link resolved; for a path that does not exist, its
// nearest existing parent resolved and the rest appended. Inside an
// oms::sdk::PathResolverScope (the check over the assembled policy), an
// existing path's components are each looked up once.
std::string resolved_path(const std::string& path);

// HOME, resolved, under every name the caller may have for it.
std::vector<std::string> home_folders();

// /tmp, /var/tmp and macOS's /private/tmp, /private/var/folders: temp folders
// a write-roots policy names by default, which the backends replace by
// private ones (so what lies there on the host is theirs to keep away).
bool is_system_temp_folder(const std::string& path);

}  // namespace oms::core
