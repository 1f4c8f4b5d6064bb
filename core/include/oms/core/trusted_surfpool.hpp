// The trusted Surfpool session: `--surfpool PATH` (or `sandbox.surfpool`)
// names the one binary that may listen on loopback and use the Surfpool
// ports. It is granted only when the command's argv[0] is that very file
// (same device and inode once links are resolved): not a copy of it, not a
// script or another program that would start it.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace oms::core {

// The real path of what `argv0` runs: a name with a slash taken relative to
// `cwd`, a bare name searched on `path_list` (empty entries mean `cwd`);
// nullopt when nothing executable is found.
std::optional<std::string> resolve_command(const std::string& argv0, const std::string& path_list,
                                           const std::string& cwd);

// True when both name the same existing file (device and inode).
bool same_file(const std::string& a, const std::string& b);

// The value of PATH in `env` ("NAME=value" entries), or the default search path.
std::string path_of(const std::vector<std::string>& env);

// The trusted binary for this run, canonical, or empty. `given` is
// --surfpool, `configured` sandbox.surfpool. A --surfpool that is not an
// executable file, or that argv[0] does not resolve to, is refused
// (UserError naming both); a configured one that argv[0] is not simply does
// not apply (an ordinary run).
std::string trusted_surfpool_for(const std::optional<std::string>& given, const std::optional<std::string>& configured,
                                 const std::vector<std::string>& argv, const std::string& path_list,
                                 const std::string& cwd);

// After policy assembly: argv[0] must still resolve to `trusted` through the
// command's own PATH (the policy's environment). Throws UserError otherwise.
void confirm_trusted_surfpool(const std::string& trusted, const std::vector<std::string>& argv,
                              const std::vector<std::string>& policy_env, const std::string& cwd);

}  // namespace oms::core
