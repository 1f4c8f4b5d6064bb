// Starting `oms` in the background, for tests that signal it or drive its
// terminal: with an OmsEnv's environment, in its worktree.
#pragma once
#include "oms_env.hpp"

#include <sys/types.h>

#include <string>
#include <vector>

namespace oms::test {

// In a process group of its own: a signal sent to the pid reaches it alone.
pid_t start_in_own_group(const OmsEnv& env, const std::vector<std::string>& argv);

// On a new pseudo-terminal that is its controlling terminal; `master` is our end.
pid_t start_on_terminal(const OmsEnv& env, const std::vector<std::string>& argv, int& master);

// Reads the terminal until `text` shows (true) or 20 s pass (false).
bool read_until(int fd, std::string& screen, const std::string& text);

}  // namespace oms::test
