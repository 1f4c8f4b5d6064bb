// The library's only export: the network policy plugin.
#include "network.hpp"

OMS_EXPORT_POLICY_PLUGIN(oms::policies::Network)
