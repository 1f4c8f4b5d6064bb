#include "terminal.hpp"

#include <unistd.h>

namespace oms::docker {

RawTerminal::RawTerminal(int fd) {
    if (fd < 0 || !isatty(fd) || tcgetattr(fd, &saved_) != 0) return;
    termios raw = saved_;
    cfmakeraw(&raw);
    if (tcsetattr(fd, TCSANOW, &raw) == 0) fd_ = fd;
}

RawTerminal::~RawTerminal() {
    if (fd_ >= 0) tcsetattr(fd_, TCSANOW, &saved_);
}

}  // namespace oms::docker
