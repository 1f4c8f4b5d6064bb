// The library's only export: the secret-deny policy plugin.
#include "secret_deny.hpp"

OMS_EXPORT_POLICY_PLUGIN(oms::policies::SecretDeny)
