// A host-side TCP listener for the docker network tests.
#pragma once
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace oms::test::docker {

// A TCP listener on 0.0.0.0 (so the host's other addresses would answer too,
// were they reachable) that records each line it receives and answers
// "hello-<line>".
class MarkerListener {
public:
    MarkerListener() {
        fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_ANY);
        socklen_t size = sizeof a;
        int on = 1;
        setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
        if (bind(fd_, reinterpret_cast<sockaddr*>(&a), size) != 0 || listen(fd_, 16) != 0 ||
            getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &size) != 0)
            FAIL("cannot listen");
        port_ = ntohs(a.sin_port);
        thread_ = std::thread([this] { serve(); });
    }
    ~MarkerListener() {
        shutdown(fd_, SHUT_RDWR);
        close(fd_);
        thread_.join();
    }
    int port() const { return port_; }
    std::vector<std::string> received() {
        std::lock_guard<std::mutex> lock(mutex_);
        return lines_;
    }

private:
    void serve() {
        for (;;) {
            int client = accept(fd_, nullptr, nullptr);
            if (client < 0) return;
            pollfd ready{client, POLLIN, 0};
            std::string line;
            char c;
            while (poll(&ready, 1, 3000) == 1 && read(client, &c, 1) == 1 && c != '\n') line += c;
            {
                std::lock_guard<std::mutex> lock(mutex_);
                lines_.push_back(line);
            }
            const std::string reply = "hello-" + line + "\n";
            (void)!write(client, reply.data(), reply.size());
            close(client);
        }
    }
    int fd_ = -1;
    int port_ = 0;
    std::thread thread_;
    std::mutex mutex_;
    std::vector<std::string> lines_;
};

}  // namespace oms::test::docker
