// The `[plugin.docker]` configuration: declared keys, their defaults, and
// the values read through the host.
#pragma once
#include <oms/sdk.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace oms::docker {

struct Settings {
    std::string manifest;                  // path of the runtime manifest (required to run)
    std::string user;                      // "uid:gid"; empty: manifest's, else the default
    std::string network = "none";          // docker network name
    std::string memory = "2g";             // --memory (and --memory-swap: no swap on top)
    std::string cpus = "2";                // --cpus
    int64_t pids_limit = 512;              // --pids-limit
    std::string tmpfs_size = "512m";       // size of each tmpfs (/tmp, HOME)
    bool warm = true;                      // one container per task, one exec per command
    bool report_connects = true;           // the runner watches the commands' connects (network none)
    std::vector<std::string> extra_args;   // vetted extra `docker run` flags
    std::string docker = "docker";         // the docker CLI
    std::string socket;                    // Engine API unix socket; empty: from DOCKER_HOST
};

const oms_config_key* config_keys();
size_t config_key_count();

// Reads every key (absent keys keep their defaults) and refuses dangerous
// values (see refusals.hpp). Throws sdk::Error(OMS_ERR_INVALID).
Settings read_settings(const sdk::Host& host);

// The Engine API socket: `socket`, else DOCKER_HOST when it is unix://, else
// /var/run/docker.sock. Empty when DOCKER_HOST names a non-unix endpoint.
std::string socket_path(const Settings& settings, const char* docker_host);

}  // namespace oms::docker
