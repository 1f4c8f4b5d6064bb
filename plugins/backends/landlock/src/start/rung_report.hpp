// What doctor says about the rung a start reached: the rung, how it confines,
// and one line per guarantee it cannot give (docs/security-model.md holds
// the same table, measured).
#pragma once
#include "kernel_features.hpp"

#include <string>
#include <vector>

namespace oms::landlock {

// "rung: 1, the full mode (...)" / "rung: 2, namespaces without Landlock
// (...)" / "rung: 3, Landlock alone (...)".
std::string rung_line(int rung, const std::string& above);
// The settings sentence doctor and the one-time notice show for the rung.
std::string settings_line(int rung);
// "guarantees: a, b": the names of what the rung gives, read by the core
// for [sandbox] require (oms/core/guarantees.hpp's vocabulary).
std::string guarantees_line(int rung);
// How files, network and processes are confined on that rung.
std::vector<std::string> rung_details(int rung);
// What rungs 2 and 3 cannot hold that the full mode does (none for rung 1).
std::vector<std::string> rung_gaps(int rung, const KernelFeatures& features);

}  // namespace oms::landlock
