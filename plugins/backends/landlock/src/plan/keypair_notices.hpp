// The lines landlock prints at run start for the hidden files that are not
// Solana keypairs (oms/keypair_notice.hpp), with the key that exempts them:
// only files the search matched under their own name, judged by the device
// and inode it saw. Each file is named once: the record is kept in oms's
// state folder (`state_dir`).
#pragma once
#include "sandbox_plan.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace oms::landlock {

std::vector<std::string> keypair_notices(const Plan& plan, const std::vector<std::string>& suffixes,
                                         const std::string& state_dir);

// Tells oms, through the run's refusal file (plan.refusal_log; none: nothing
// told), which files this run hides so that a read of one fails (the search's
// matches, masked by an unopenable device): oms names them when the command
// fails and `oms explain --last` lists them. Best effort, as every report.
void tell_hidden_files(const Plan& plan);

}  // namespace oms::landlock
