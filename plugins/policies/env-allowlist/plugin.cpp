// The library's only export: the env-allowlist policy plugin.
#include "env_allowlist.hpp"

OMS_EXPORT_POLICY_PLUGIN(oms::policies::EnvAllowlist)
