// Puts a terminal in raw mode for the life of the object, so keys (Ctrl-C
// included) reach the command in the container as bytes, as `docker exec -t`
// does; restores the previous mode afterwards.
#pragma once
#include <termios.h>

namespace oms::docker {

class RawTerminal {
public:
    explicit RawTerminal(int fd);  // fd < 0 or not a terminal: does nothing
    ~RawTerminal();
    RawTerminal(const RawTerminal&) = delete;
    RawTerminal& operator=(const RawTerminal&) = delete;

private:
    int fd_ = -1;
    termios saved_{};
};

}  // namespace oms::docker
