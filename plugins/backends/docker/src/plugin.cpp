// The library's one exported symbol: the docker backend's descriptor.
// Targets ABI 1.1: it uses working_dir and declares the 1.1 rule kinds it handles.
#define OMS_TARGET_ABI_MINOR 1
#include "docker_backend.hpp"

OMS_EXPORT_BACKEND_PLUGIN(oms::docker::DockerBackend)
