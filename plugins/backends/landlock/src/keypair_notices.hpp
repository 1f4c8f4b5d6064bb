// The lines oms prints at run start for the files the keypair suffix rules
// hide that are not Solana keypairs (keypair_shape.hpp): what was hidden,
// which rule hid it, and the key that lets commands read it. One line a file
// and a run, at most kMaxKeypairNotices of them, then one line counting the
// rest (a node_modules full of locales/id.json must not flood every run); a
// real keypair, or a file that could not be judged, gets none.
#pragma once
#include "sandbox_plan.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace oms::landlock {

constexpr size_t kMaxKeypairNotices = 8;

std::vector<std::string> keypair_notices(const Plan& plan, const std::vector<std::string>& suffixes);

}  // namespace oms::landlock
