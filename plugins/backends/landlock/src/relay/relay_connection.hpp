// One connection the relay carries: the command's socket inside the sandbox
// and oms's socket to the host's 127.0.0.1, both non-blocking, with a fixed
// buffer per direction. It is driven by readiness events (edge-triggered):
// each call moves what it can both ways until the kernel says "would
// block", so no event is lost and nothing spins.
#pragma once
#include <cstddef>
#include <memory>

namespace oms::landlock {

class RelayConnection {
public:
    static constexpr size_t kBufferBytes = 32 * 1024;  // per direction

    enum class State {
        open,          // still carrying data
        finished,      // both sides ended their stream and got everything
        reset,         // one side reset or failed: the other was reset too
        host_refused,  // the host's connect failed: the command's side was reset
    };

    // Takes both descriptors; `outside` may still be connecting.
    RelayConnection(int inside, int outside);
    ~RelayConnection();  // closes both (a reset when the state says so)
    RelayConnection(const RelayConnection&) = delete;
    RelayConnection& operator=(const RelayConnection&) = delete;

    int inside() const { return inside_; }
    int outside() const { return outside_; }

    // Call on any event of either socket.
    State service();
    // Drops the connection with a reset to both sides when it is destroyed.
    void abandon() { reset_ = true; }

private:
    // Bytes read from `from`, not yet written to `to`.
    struct Direction {
        int from, to;
        std::unique_ptr<char[]> buffer{new char[kBufferBytes]};
        size_t start = 0, end = 0;
        bool ended = false;     // `from` sent its end of stream
        bool passed_on = false;  // ...and `to` got it as a half-close
    };
    enum class Step { idle, moved, failed };
    Step step(Direction& d, bool may_write);
    enum class Connect { done, pending, failed };
    Connect host_connect_progress();
    State fail(State why);

    int inside_, outside_;
    bool connected_ = false;
    bool reset_ = false;
    Direction to_host_, to_command_;
};

// Closes with a zero linger, which sends a reset: the peer sees
// ECONNRESET, not a clean end of stream that would pass a cut reply off as
// a whole one.
void close_with_reset(int fd);

}  // namespace oms::landlock
