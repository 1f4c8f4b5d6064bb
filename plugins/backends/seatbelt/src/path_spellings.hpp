// Paths as Seatbelt sees them. Seatbelt matches the path the kernel resolved
// (on macOS /tmp is /private/tmp, /var is /private/var), so a rule written
// with a symlinked spelling would silently never match. Each policy path is
// therefore rendered with every spelling that names the same object.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace oms::seatbelt {

// Returns the resolved spelling of an absolute path (symlinks followed), or
// the path unchanged when nothing resolves. Injectable so tests stay pure.
using PathResolver = std::function<std::string(const std::string&)>;

// The identity: no resolution (tests, and `oms policy` on another machine).
std::string keep_path(const std::string& path);

// Resolves the longest existing prefix with realpath(3) and appends the rest,
// so a path that does not exist yet (~/.aws) still gets its real parent.
std::string resolve_on_this_machine(const std::string& path);

// "/a/b//" -> "/a/b"; "/" stays "/". Seatbelt compares bytes, so a trailing
// slash would make (subpath "/a/b/") miss "/a/b" itself.
std::string without_trailing_slashes(const std::string& path);

// The path itself, then its resolved spelling when that differs.
std::vector<std::string> spellings(const std::string& path, const PathResolver& resolve);

// Every ancestor of an absolute path, nearest first, without "/" itself:
// "/a/b/c" -> {"/a/b", "/a"}.
std::vector<std::string> ancestors(const std::string& path);

}  // namespace oms::seatbelt
