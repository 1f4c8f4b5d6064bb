// The library's one exported symbol: the docker backend's descriptor.
// Targets ABI 1.4: it uses working_dir and declares the rule kinds it handles, 1.4's
// NET_CONNECT_RUN_PORT (the run's own egress proxy port) among them.
#define OMS_TARGET_ABI_MINOR 4
#include "docker_backend.hpp"

OMS_EXPORT_BACKEND_PLUGIN(oms::docker::DockerBackend)
