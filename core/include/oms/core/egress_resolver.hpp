// Name resolution for the egress proxy, off its event loop: one thread runs
// getaddrinfo for one name at a time, in the order asked, and wakes the loop
// through an eventfd when answers are ready. The loop never blocks on a
// lookup, and the number of threads does not grow with connections (the
// loop asks at most once per connection, so the queue is bounded by them).
// The thread is detached and shares only its queue with the loop: stopping
// does not wait for a slow lookup, whose answer is then thrown away.
#pragma once
#include <sys/socket.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace oms::core {

struct Resolution {
    uint64_t id = 0;  // the caller's token
    std::vector<sockaddr_storage> addresses;  // empty: the name does not resolve
    std::string error;                        // getaddrinfo's words when empty
};

class EgressResolver {
public:
    EgressResolver();   // throws std::runtime_error when no eventfd or thread can be made
    ~EgressResolver();  // stops the thread after its current lookup; answers are dropped
    EgressResolver(const EgressResolver&) = delete;
    EgressResolver& operator=(const EgressResolver&) = delete;

    int wake_fd() const;  // readable when take() has answers
    void ask(uint64_t id, const std::string& host, int port);
    std::vector<Resolution> take();  // clears wake_fd

    struct Shared;  // the queue the thread and the loop share

private:
    std::shared_ptr<Shared> shared_;
};

}  // namespace oms::core
