// Starting one of the plugin's own helper programs (the scan keeper, the
// task network's holder), found beside the plugin, detached twice over: in
// a session of its own and with its parent gone at once, so that it
// outlives the run and is nobody's child to wait for. Nothing of the
// launcher's place is inherited: descriptors (0 to 2 are /dev/null, then
// those passed),
// signal mask and dispositions, working folder; its environment is PATH
// and the sanitizers' options (where a sanitized build's reports go).
#pragma once
#include <string>
#include <vector>

namespace oms::landlock {

// `name` beside this plugin's file when it is executable there, else "".
std::string helper_program_beside_plugin(const char* name);

// Starts argv[0] with `argv`; waits only for the middle process. Nothing
// happens when the first fork fails. `passed` descriptors become 3, 4, ...
// in the program (-1 entries stay closed), the only ones it gets beside
// /dev/null.
void start_detached(const std::vector<std::string>& argv, const std::vector<int>& passed = {});

}  // namespace oms::landlock
