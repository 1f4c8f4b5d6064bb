// The private HOME's .gitconfig: git identity and a few harmless defaults
// copied from the user's own git config, so commits inside the sandbox have
// an author. Only these keys are ever copied: user.name, user.email,
// init.defaultBranch, core.autocrlf; plus safe.directory for the worktree.
// Never credential helpers, url.*.insteadOf (tokens), include/includeIf,
// core.hooksPath, core.sshCommand, core.fsmonitor, aliases or anything else
// that runs code or carries a secret.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace oms::core {

// The file text for the private HOME, from the text of the user's global
// config files in git's reading order (later wins). A file that does not
// parse contributes nothing; `warnings` gets one line per problem.
std::string harmless_git_config(const std::vector<std::pair<std::string, std::string>>& files_and_texts,
                                const std::string& worktree, std::vector<std::string>& warnings);

// Reads the user's global git config ($GIT_CONFIG_GLOBAL, else
// $XDG_CONFIG_HOME/git/config then ~/.gitconfig), writes
// <private_home>/.gitconfig (0600). Problems are warnings on stderr: the run
// goes on without the user's identity.
void write_private_gitconfig(const std::string& real_home, const std::string& private_home,
                             const std::string& worktree);

}  // namespace oms::core
