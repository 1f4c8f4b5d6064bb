// Tells when the keeper's mount table changed. A mount on a folder inside a
// covered tree changes what a path leads to and raises no inotify event on
// any folder; the kernel marks the namespace's mount table changed inside
// the mount(2) call itself, so a poll that follows sees it.
#pragma once
#include <oms/scoped_fd.hpp>

namespace oms::landlock {

class MountWatch {
public:
    MountWatch();
    bool ready() const { return table_.get() >= 0; }
    int fd() const { return table_.get(); }

    // True once for every change since the last call (or since made).
    bool changed();

private:
    sdk::ScopedFd table_;
    void read_to_end();
};

}  // namespace oms::landlock
