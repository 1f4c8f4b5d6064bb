// The library's only export: the write-roots policy plugin.
// Targets ABI 1.1: it adds WRITE_DENY_NAME and WRITE_SCRATCH_TREE rules.
#define OMS_TARGET_ABI_MINOR 1
#include "write_roots.hpp"

OMS_EXPORT_POLICY_PLUGIN(oms::policies::WriteRoots)
