// The Engine API calls the backend makes, on top of EngineClient.
#pragma once
#include "engine_client.hpp"

#include <map>
#include <string>
#include <vector>

namespace oms::docker {

struct DaemonVersion {
    std::string version;      // e.g. 20.10.24+dfsg1
    std::string api_version;  // e.g. 1.41
};

struct ContainerSummary {
    std::string id;
    std::string state;  // running, exited, created...
    std::map<std::string, std::string> labels;
};

struct ExecState {
    bool running = false;
    int exit_code = -1;
    long pid = 0;  // host PID of the exec'd process (0 when gone)
};

DaemonVersion daemon_version(const EngineClient& client);
bool image_present(const EngineClient& client, const std::string& reference);
// Containers (running or not) carrying `label` ("key=value").
std::vector<ContainerSummary> containers_with_label(const EngineClient& client, const std::string& label);
// Force-removes a container; a container already gone is not an error.
void remove_container(const EngineClient& client, const std::string& id_or_name);

// Result of POST /containers/{name}/exec: the exec id, or the HTTP status when refused.
struct ExecCreated {
    int status = 0;         // 201 on success
    std::string id;         // exec id when created
    std::string message;    // the daemon's reason otherwise
};
ExecCreated create_exec(const EngineClient& client, const std::string& container, const std::string& body);
ExecState inspect_exec(const EngineClient& client, const std::string& exec_id);

// The message telling the user how to get a missing pinned image.
std::string missing_image_message(const std::string& reference, const std::string& archive,
                                  const std::string& manifest_path);

}  // namespace oms::docker
