// The library's only export: the toolchain-roots policy plugin.
#include "toolchain_roots.hpp"

OMS_EXPORT_POLICY_PLUGIN(oms::policies::ToolchainRoots)
