// A command run with a companion beside it (run_companion.hpp: oms's end of
// the Surfnet relay or of published ports): it serves from before the
// command starts until after its container is gone.
#pragma once
#include "run_companion.hpp"

#include <oms/sdk.hpp>

#include <memory>
#include <string>

namespace oms::docker {

class RelayedRun : public sdk::Run {
public:
    // `owned_dir` (with what is in it) and `owned_lock` (may be empty) are
    // removed at the end: a one-shot run's publish folder, its relay lock file.
    RelayedRun(std::unique_ptr<RunCompanion> companion, std::string owned_dir, std::string owned_lock);
    ~RelayedRun() override;
    void start(std::unique_ptr<sdk::Run> inner) { inner_ = std::move(inner); }
    void signal(int signal_number) override { inner_->signal(signal_number); }
    int wait() override { return inner_->wait(); }

private:
    std::unique_ptr<RunCompanion> companion_;
    std::string owned_dir_, owned_lock_;
    std::unique_ptr<sdk::Run> inner_;
};

// A one-shot run's relay folder, state_dir/docker/<name>.relay (0711: the
// container's user reaches the socket in it, other host users are kept out by
// the 0700 folder above). Throws sdk::Error(OMS_ERR_FAILED).
std::string make_one_shot_relay_dir(const std::string& state_dir, const std::string& name);

}  // namespace oms::docker
