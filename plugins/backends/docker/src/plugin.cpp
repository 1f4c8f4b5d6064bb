// The library's one exported symbol: the docker backend's descriptor.
#include "docker_backend.hpp"

OMS_EXPORT_BACKEND_PLUGIN(oms::docker::DockerBackend)
