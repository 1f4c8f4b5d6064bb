// Version managers find their folders from HOME (volta: $HOME/.volta, avm:
// $HOME/.avm, nvm's NVM_DIR default, bun's BUN_INSTALL default, rustup's
// $HOME/.rustup). Their variables are not on the spec's allowlist, so
// instead the private HOME gets a link for each of the spec's toolchain
// folders that exists in the real HOME, pointing at it. A link opens
// nothing: what the command may read or write through it is what the policy
// says for the real folder (toolchain roots are read-only).
#pragma once
#include <string>
#include <vector>

namespace oms::core {

// The spec's toolchain folders, relative to HOME.
const char* const* toolchain_folders();

// Makes <private_home>/<folder> -> <real_home>/<folder> for each that exists
// as a folder (making .local/share first). Warns on stderr when one cannot be
// made; the run goes on.
void link_toolchains_into_private_home(const std::string& real_home, const std::string& private_home);

// npm's cache (~/.npm/_cacache, ~/.npm/_npx): <private_home>/.npm/<folder>
// -> the real folder, only for a folder among `layered_trees` (the policy's
// WRITE_SCRATCH_TREE paths, empty when the backend has no per-run layer).
// Elsewhere the link would lead npm into a folder it may read but not write,
// and fail every install; without it npm keeps its own cache in the private
// HOME, empty at each run. Warns on stderr when one cannot be made.
void link_npm_cache_into_private_home(const std::string& real_home, const std::string& private_home,
                                      const std::vector<std::string>& layered_trees);

}  // namespace oms::core
