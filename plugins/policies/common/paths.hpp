// Read-only path queries the policy plugins need (they may stat and readlink,
// never write). Thin wrappers over libc so results match what the kernel sees.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace oms::policies {

// The path with every symlink resolved, or nullopt when it does not exist
// (or cannot be resolved, e.g. a dangling link or a permission error).
// Inside an oms::sdk::PathResolverScope (one policy contribution), each
// component is looked up once for the scope's life.
std::optional<std::string> real_path(std::string_view path);

// realpath(3) itself, whatever scope is open: for a check that a name still
// resolves where it did a moment ago (remembered answers would always agree).
std::optional<std::string> fresh_real_path(std::string_view path);

// True when something (even a dangling symlink) is at `path`.
bool path_exists(std::string_view path);
bool is_directory(std::string_view path);      // follows symlinks
bool is_regular_file(std::string_view path);   // follows symlinks
bool is_executable_file(std::string_view path);

// "a" + "/" + "b", without doubling a trailing slash of `a`.
std::string join(std::string_view folder, std::string_view name);
// The last component of a path.
std::string_view base_name(std::string_view path);

// The entries of a ':'-separated list such as PATH, empty ones included.
std::vector<std::string_view> split_path_list(std::string_view list);

// "~" and "~/x" become HOME and HOME/x; anything else is returned unchanged.
std::string expand_home(std::string_view path, std::string_view home);

}  // namespace oms::policies
