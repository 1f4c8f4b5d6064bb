#include "mount_watch.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

namespace oms::landlock {

MountWatch::MountWatch() : table_(open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC)) {
    if (ready()) read_to_end();
}

// Reading the table to its end is what makes the next change show again.
void MountWatch::read_to_end() {
    char buffer[16 * 1024];
    lseek(table_.get(), 0, SEEK_SET);
    while (read(table_.get(), buffer, sizeof buffer) > 0) {
    }
}

bool MountWatch::changed() {
    struct pollfd wait{table_.get(), POLLPRI, 0};
    if (poll(&wait, 1, 0) <= 0 || !(wait.revents & (POLLPRI | POLLERR))) return false;
    read_to_end();
    return true;
}

}  // namespace oms::landlock
