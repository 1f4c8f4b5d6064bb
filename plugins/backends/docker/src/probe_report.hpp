// What `oms doctor` shows for the docker backend: the daemon, the pinned
// image, the flags every container gets, and the guarantees it cannot give.
#pragma once
#include "daemon.hpp"
#include "manifest.hpp"
#include "settings.hpp"

#include <oms/sdk.hpp>

#include <optional>
#include <string>
#include <vector>

namespace oms::docker {

struct ProbeFacts {
    std::string config_error;              // a refused [plugin.docker] setting
    std::string cli;                       // docker CLI path, empty when not found
    std::string socket;                    // Engine API socket, empty when DOCKER_HOST is not unix://
    std::optional<DaemonVersion> daemon;   // set when the daemon answered
    std::string daemon_error;
    std::optional<Manifest> manifest;      // set when the manifest loaded
    std::string manifest_error;
    std::string user;                      // uid:gid the commands run as
    bool image_present = false;
    std::string runner;                    // oms-docker-runner path (warm mode)
    bool runner_present = false;
};

// The flags every container gets, whatever the command (for doctor).
std::vector<std::string> hardening_flags(const Settings& settings, const std::string& user);

// Emits SUMMARY, SETTINGS, DETAIL and MISSING lines; throws
// sdk::Error(OMS_ERR_UNAVAILABLE) with the first reason it cannot run.
void report_probe(const Settings& settings, const ProbeFacts& facts, const sdk::Report& report);

}  // namespace oms::docker
