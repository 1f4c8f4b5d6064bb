// One walk's findings added to another's: the two-thread walk gathers its
// folders' findings this way, and the cached walk its roots'.
#pragma once
#include <oms/keypair_walk.hpp>

namespace oms::sdk {

inline void merge_findings(ScanFindings& into, ScanFindings&& from) {
    into.secrets.merge(from.secrets);
    into.named.merge(from.named);
    into.links.merge(from.links);
    into.too_deep.merge(from.too_deep);
    into.match_stats.merge(from.match_stats);
}

}  // namespace oms::sdk
