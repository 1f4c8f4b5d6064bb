// Turns HostFacts into doctor's report lines and a usable/unavailable verdict.
#pragma once
#include "host_facts.hpp"

#include <oms/sdk.hpp>

namespace oms::seatbelt {

// Emits SUMMARY, SETTINGS and DETAIL lines when usable. Otherwise emits the
// DETAIL lines it knows and throws Error(OMS_ERR_UNAVAILABLE, reason).
void report_probe(const HostFacts& facts, const oms::sdk::Report& report);

// Throws Error(OMS_ERR_UNAVAILABLE, reason) unless a command can run under
// Seatbelt here (the check spawn makes before starting anything).
void require_usable(const HostFacts& facts);

}  // namespace oms::seatbelt
