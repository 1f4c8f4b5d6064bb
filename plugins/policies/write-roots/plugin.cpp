// The library's only export: the write-roots policy plugin.
#include "write_roots.hpp"

OMS_EXPORT_POLICY_PLUGIN(oms::policies::WriteRoots)
