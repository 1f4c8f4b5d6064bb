// What serves beside a command for as long as it runs (relayed_run.hpp):
// oms's end of the Surfnet relay, or of published ports. Destroyed after the
// command's container (or command) is gone.
#pragma once

namespace oms::docker {

class RunCompanion {
public:
    virtual ~RunCompanion() = default;
};

}  // namespace oms::docker
