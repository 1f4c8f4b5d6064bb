// The command's environment is the policy's, exactly: docker adds variables
// of its own to every container and exec (HOSTNAME, and the image's ENV
// entries), so the runner's --exec is told the policy's names
// (--keep-env=NAME, one each) and drops every other variable before it runs
// the command.
#pragma once
#include <string>
#include <vector>

namespace oms::docker::runner {

// Consumes the --keep-env=NAME arguments from argv[argi] on.
void kept_env_names_from(int& argi, int argc, char** argv, std::vector<std::string>& names);

// Removes from `env` (NAME=value entries) every variable not named in `names`.
void keep_only_env(std::vector<std::string>& env, const std::vector<std::string>& names);

}  // namespace oms::docker::runner
