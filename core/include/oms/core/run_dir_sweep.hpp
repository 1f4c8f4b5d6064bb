// Run folders whose oms died before removing them (SIGKILL, a crash, a power
// cut) still hold the HOME and temp files of a command. They are removed by
// a later `oms run`.
#pragma once
#include <string>

namespace oms::core {

// Removes every folder <base>/oms-run-* of ours whose .owner lock is free
// (its oms is gone). A folder without .owner is left alone unless it is
// older than a day: it may be one being created right now. Returns the
// number removed.
int sweep_abandoned_run_dirs(const std::string& base);

// The same, at most once every ten minutes per state folder, so a command
// does not pay for listing the temp folder each time.
void sweep_abandoned_run_dirs_when_due(const std::string& base, const std::string& state_dir);

}  // namespace oms::core
