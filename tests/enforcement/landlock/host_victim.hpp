// A process of this user's outside every sandbox (`sleep`), which a
// command must not be able to touch; killed and reaped with the object.
#pragma once
#include <sys/types.h>

namespace oms::test {

struct HostVictim {
    pid_t pid = -1;
    HostVictim();
    ~HostVictim();
    HostVictim(const HostVictim&) = delete;
    HostVictim& operator=(const HostVictim&) = delete;
    bool alive() const;
};

}  // namespace oms::test
