// The plan as readable text for `oms policy`: what is hidden, what is
// read-only, every Landlock rule with its rights, the ports, the seccomp
// filter and the capabilities kept.
#pragma once
#include "kernel_features.hpp"
#include "sandbox_plan.hpp"
#include "seccomp_program.hpp"

#include <string>
#include <vector>

namespace oms::landlock {

std::vector<std::string> render_plan(const Plan& plan, const KernelFeatures& features,
                                     const SeccompProgram& seccomp);
// "read,execute,list" style names for a set of rights.
std::string rights_text(uint64_t rights);

}  // namespace oms::landlock
