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

}  // namespace oms::landlock
