// Engine API request bodies for running one command in a warm container
// (POST /containers/{name}/exec, then POST /exec/{id}/start). The values of
// the environment travel in the body over the socket, never in an argv.
#pragma once
#include "container_plan.hpp"

#include <string>
#include <vector>

namespace oms::docker {

std::string exec_create_body(const ContainerPlan& plan, const std::string& workdir,
                             const std::vector<std::string>& argv, bool tty);
std::string exec_start_body(bool tty);

}  // namespace oms::docker
