// What `oms policy` shows for the docker backend: the exact docker command
// line (and, in warm mode, the exec request), environment by name only.
#pragma once
#include "container_plan.hpp"

#include <string>
#include <vector>

namespace oms::docker {

// A shell-quoted rendering of argv (for reading, not for running).
std::string shell_join(const std::vector<std::string>& argv);

// `runner_path` is the host path of oms-docker-runner (warm mode).
std::vector<std::string> render_lines(const Settings& settings, const ContainerPlan& plan, const RunInputs& in,
                                      Mode mode, const std::string& runner_path);

}  // namespace oms::docker
