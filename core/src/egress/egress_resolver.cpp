#include "oms/core/egress_resolver.hpp"

#include <netdb.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>

namespace oms::core {

struct EgressResolver::Shared {
    std::mutex mutex;
    std::condition_variable wanted;
    struct Question {
        uint64_t id;
        std::string host;
        int port;
    };
    std::deque<Question> questions;
    std::vector<Resolution> answers;
    bool stopping = false;
    int wake = -1;  // closed by the last owner
    ~Shared() {
        if (wake >= 0) ::close(wake);
    }
};

namespace {

Resolution look_up(uint64_t id, const std::string& host, int port) {
    Resolution r;
    r.id = id;
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const int status = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
    if (status != 0) {
        r.error = ::gai_strerror(status);
        return r;
    }
    for (addrinfo* a = found; a; a = a->ai_next) {
        if (a->ai_addrlen > sizeof(sockaddr_storage)) continue;
        sockaddr_storage address{};
        std::memcpy(&address, a->ai_addr, a->ai_addrlen);
        r.addresses.push_back(address);
    }
    ::freeaddrinfo(found);
    return r;
}

void serve(std::shared_ptr<EgressResolver::Shared> shared);

}  // namespace

EgressResolver::EgressResolver() : shared_(std::make_shared<Shared>()) {
    shared_->wake = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (shared_->wake < 0) throw std::runtime_error("eventfd failed");
    std::thread(serve, shared_).detach();
}

EgressResolver::~EgressResolver() {
    std::lock_guard<std::mutex> lock(shared_->mutex);
    shared_->stopping = true;
    shared_->questions.clear();
    shared_->wanted.notify_all();
}

int EgressResolver::wake_fd() const { return shared_->wake; }

void EgressResolver::ask(uint64_t id, const std::string& host, int port) {
    std::lock_guard<std::mutex> lock(shared_->mutex);
    shared_->questions.push_back({id, host, port});
    shared_->wanted.notify_one();
}

std::vector<Resolution> EgressResolver::take() {
    uint64_t ignored;
    while (::read(shared_->wake, &ignored, sizeof ignored) > 0) {
    }
    std::lock_guard<std::mutex> lock(shared_->mutex);
    return std::exchange(shared_->answers, {});
}

namespace {

void serve(std::shared_ptr<EgressResolver::Shared> shared) {
    std::unique_lock<std::mutex> lock(shared->mutex);
    while (true) {
        shared->wanted.wait(lock, [&] { return shared->stopping || !shared->questions.empty(); });
        if (shared->stopping) return;
        auto question = shared->questions.front();
        shared->questions.pop_front();
        lock.unlock();
        Resolution answer = look_up(question.id, question.host, question.port);
        lock.lock();
        if (shared->stopping) return;
        shared->answers.push_back(std::move(answer));
        const uint64_t one = 1;
        if (::write(shared->wake, &one, sizeof one) < 0) {
            // The counter is saturated: the loop is woken already.
        }
    }
}

}  // namespace

}  // namespace oms::core
