// The one exported symbol of oms-landlock.so.
#include "landlock_backend.hpp"

OMS_EXPORT_BACKEND_PLUGIN(oms::landlock::LandlockBackend)
