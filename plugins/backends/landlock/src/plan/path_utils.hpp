// Small path helpers shared by the planner (string-only unless stated).
#pragma once
#include <oms/path_kind.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace oms::landlock {

// Drops roots that lie inside another root of the list (sorted, no duplicates).
std::vector<std::string> outermost(std::vector<std::string> roots);
// Canonical path (symlinks resolved), or nullopt when it does not exist.
// Inside an oms::sdk::PathResolverScope (one plan, build_plan), each
// component is looked up once for the scope's life. The checks that decide
// on what is opened (real_path_without_links, the child's openat2) never
// use it.
std::optional<std::string> canonical(const std::string& path);
// The real path of what `path` names when no component of it is a link,
// taken from the very file opened; nullopt when it is missing or a link is on
// the way. For policy paths that become mounts: the policy names real paths,
// and a link there now was swapped in since by a command that can write a
// folder on the way (it would lead the mount to what the link chose).
std::optional<std::string> real_path_without_links(const std::string& path);
// The text of the symlink `path`, or nullopt when it is not one.
std::optional<std::string> link_text(const std::string& path);
// A folder or regular file (following links): what can be cloned as a mount
// and bound back; a device write root (/dev/null) needs no mount.
bool mountable(const std::string& path);
// What the path finally leads to (oms/path_kind.hpp).
using sdk::Kind;
using sdk::kind_of;
// Entries of a folder that are not symlinks, as absolute paths, sorted.
std::vector<std::string> non_symlink_children(const std::string& folder);
// Looks `name` up like execvp does, in the ':'-separated `search_path`
// (an empty entry means `cwd`). Returns the path or nullopt.
std::optional<std::string> find_program(const std::string& name, const std::string& search_path,
                                        const std::string& cwd);

}  // namespace oms::landlock
