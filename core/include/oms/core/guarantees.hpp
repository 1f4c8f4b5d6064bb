// Guarantees by name: what `[sandbox] require = [...]` may ask for, and
// whether a backend gives it on this machine. A backend names the ones it
// gives in a DETAIL line of its probe, "guarantees: a, b" (docs/plugin-abi.md,
// "Guarantees"); the core never infers them from a backend's id or kind, and
// a backend that names none gives none, so a requirement refuses it.
#pragma once
#include "oms/core/backend.hpp"
#include "oms/core/config.hpp"

#include <string>
#include <vector>

namespace oms::core {

// Every name [sandbox] require accepts, with what it means (one line each).
const std::vector<std::pair<std::string, std::string>>& guarantee_vocabulary();
// "file-rules, private-network, ..." for error messages.
std::string guarantee_names_text();
bool is_guarantee_name(const std::string& name);

// The names in the report's "guarantees: ..." detail line (none without one).
std::vector<std::string> guarantees_of(const BackendReport& report);

// Marks a usable `report` unusable, with one line as its reason, when it
// lacks a guarantee [sandbox] require asks for.
void apply_required_guarantees(const Config& config, BackendReport& report);

}  // namespace oms::core
