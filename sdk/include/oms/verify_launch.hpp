// oms/verify_launch.hpp: the verify launcher, the program `oms verify` runs
// as the sandboxed command (docs/plugin-abi.md, "The verify launcher"): it
// starts the Surfnet in its own process group, waits for its port, runs the
// check, stops the Surfnet and returns the check's status. `oms
// __verify-launch` is this; a backend whose sandbox cannot run oms's
// executable (a container image) builds it into a program of its own and
// names that in its oms.verify-plan/1 launcher (the docker runner's
// `--verify-launch`). The SDK's library oms::verify-launch: libc and the
// C++ standard library only, so it links into a static binary.
#ifndef OMS_VERIFY_LAUNCH_HPP
#define OMS_VERIFY_LAUNCH_HPP

#include <string>
#include <vector>

namespace oms::verify_launch {

// `args`: PORT WAIT_MS COUNT SURFNET_ARGV(COUNT) -- CHECK... (what follows
// the launcher's own argv). Returns the check's exit status (128+N for
// signal N), 69 when the check did not run (the port already answered, the
// Surfnet never came up) and 2 for malformed arguments. Forwards SIGINT,
// SIGTERM and SIGHUP to the check while it runs.
int run(const std::vector<std::string>& args);

}  // namespace oms::verify_launch

#endif  // OMS_VERIFY_LAUNCH_HPP
