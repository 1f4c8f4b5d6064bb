#include "exec_request.hpp"

#include "json.hpp"

namespace oms::docker {

std::string exec_create_body(const ContainerPlan& plan, const std::string& workdir,
                             const std::vector<std::string>& argv, bool tty) {
    const char* t = tty ? "true" : "false";
    return std::string("{\"AttachStdin\":true,\"AttachStdout\":true,\"AttachStderr\":true,\"Tty\":") + t +
           ",\"User\":" + json::quote(plan.user) + ",\"WorkingDir\":" + json::quote(workdir) +
           ",\"Env\":" + json::quote_all(plan.env) + ",\"Cmd\":" + json::quote_all(argv) + "}";
}

std::string exec_start_body(bool tty) { return std::string("{\"Detach\":false,\"Tty\":") + (tty ? "true" : "false") + "}"; }

}  // namespace oms::docker
