#include "exec_request.hpp"

#include "json.hpp"

namespace oms::docker {

std::string exec_create_body(const ContainerPlan& plan, const std::string& workdir,
                             const std::vector<std::string>& argv, bool tty) {
    return json::body({{"AttachStdin", true}, {"AttachStdout", true}, {"AttachStderr", true}, {"Tty", tty},
                       {"User", plan.user}, {"WorkingDir", workdir}, {"Env", plan.env}, {"Cmd", argv}});
}

std::string exec_start_body(bool tty) { return json::body({{"Detach", false}, {"Tty", tty}}); }

}  // namespace oms::docker
