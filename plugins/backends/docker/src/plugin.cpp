// The library's one exported symbol: the docker backend's descriptor.
// Targets ABI 1.5: it uses working_dir and declares the rule kinds it handles, 1.4's
// NET_CONNECT_RUN_PORT (the run's own egress proxy port) and 1.5's
// NET_PUBLISH_LOOPBACK (ports the host reaches) among them.
#define OMS_TARGET_ABI_MINOR 5
#include "docker_backend.hpp"

OMS_EXPORT_BACKEND_PLUGIN(oms::docker::DockerBackend)
