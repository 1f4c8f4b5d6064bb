// What doctor says about the rung a start reached: the rung, how it confines,
// and one line per guarantee it cannot give (docs/security-model.md holds
// the same table, measured).
#pragma once
#include "kernel_features.hpp"

#include <string>
#include <vector>

namespace oms::landlock {

// "rung: 1, the full mode (...)" / "rung: 3, Landlock alone (...)".
std::string rung_line(int rung, const std::string& above);
// "guarantees: a, b": the names of what the rung gives, read by the core
// for [sandbox] require (oms/core/guarantees.hpp's vocabulary).
std::string guarantees_line(int rung);
// How files, network and processes are confined on that rung.
std::vector<std::string> rung_details(int rung);
// What rung 3 cannot hold that the full mode does (none for rung 1).
std::vector<std::string> rung_gaps(int rung, const KernelFeatures& features);

}  // namespace oms::landlock
