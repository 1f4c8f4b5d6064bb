// A third party's backend that is the landlock backend under another id
// ("acme-box"): oms verify must give it exactly landlock's plan, since the
// plan comes from the oms.verify-plan/1 extension and never from an id.
#define OMS_TARGET_ABI_MINOR 5
#include "landlock_backend.hpp"

namespace {

class AcmeBox final : public oms::landlock::LandlockBackend {
public:
    using LandlockBackend::LandlockBackend;
    static constexpr const char* id = "acme-box";
    static constexpr const char* summary = "landlock's confinement under a third party's id (tests only)";
};

}  // namespace

OMS_EXPORT_BACKEND_PLUGIN(AcmeBox)
