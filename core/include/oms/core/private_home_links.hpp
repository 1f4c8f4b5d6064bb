// Version managers find their folders from HOME (volta: $HOME/.volta, avm:
// $HOME/.avm, nvm's NVM_DIR default, bun's BUN_INSTALL default, rustup's
// $HOME/.rustup). Their variables are not on the spec's allowlist, so
// instead the private HOME gets a link for each of the spec's toolchain
// folders that exists in the real HOME, pointing at it. A link opens
// nothing: what the command may read or write through it is what the policy
// says for the real folder (toolchain roots are read-only).
#pragma once
#include <string>

namespace oms::core {

// The spec's toolchain folders, relative to HOME.
const char* const* toolchain_folders();

// Makes <private_home>/<folder> -> <real_home>/<folder> for each that exists
// as a folder (making .local/share first). Warns on stderr when one cannot be
// made; the run goes on.
void link_toolchains_into_private_home(const std::string& real_home, const std::string& private_home);

}  // namespace oms::core
