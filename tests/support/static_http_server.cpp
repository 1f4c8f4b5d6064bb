#include "static_http_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <stdexcept>

namespace oms::test {

StaticHttpServer::StaticHttpServer(std::map<std::string, std::string> files) : files_(std::move(files)) {
    listener_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);  // 127.0.0.1 only, never another address
    socklen_t length = sizeof address;
    if (listener_ < 0 || bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        listen(listener_, 64) != 0 || getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) != 0)
        throw std::runtime_error("StaticHttpServer: cannot listen on 127.0.0.1");
    port_ = ntohs(address.sin_port);
    stop_ = eventfd(0, EFD_CLOEXEC);
    thread_ = std::thread([this] { serve(); });
}

StaticHttpServer::~StaticHttpServer() {
    const uint64_t one = 1;
    if (write(stop_, &one, sizeof one) != sizeof one) {
    }
    thread_.join();
    close(listener_);
    close(stop_);
}

void StaticHttpServer::add(const std::string& path, const std::string& body) {
    std::lock_guard<std::mutex> lock(mutex_);
    files_[path] = body;
}

std::vector<std::string> StaticHttpServer::requests() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return requests_;
}

void StaticHttpServer::serve() {
    while (true) {
        pollfd fds[2] = {{listener_, POLLIN, 0}, {stop_, POLLIN, 0}};
        if (poll(fds, 2, -1) < 0) continue;
        if (fds[1].revents) return;
        const int fd = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) continue;
        answer(fd);
        close(fd);
    }
}

namespace {

std::string header_value(const std::string& head, const std::string& name) {
    std::string lower = head;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const auto at = lower.find("\r\n" + name + ":");
    if (at == std::string::npos) return "";
    auto start = at + 3 + name.size();
    while (start < head.size() && head[start] == ' ') ++start;
    return head.substr(start, head.find("\r\n", start) - start);
}

}  // namespace

void StaticHttpServer::answer(int fd) {
    timeval timeout{5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    std::string head;
    char buffer[4096];
    while (head.find("\r\n\r\n") == std::string::npos && head.size() < 65536) {
        const ssize_t n = read(fd, buffer, sizeof buffer);
        if (n <= 0) return;
        head.append(buffer, static_cast<size_t>(n));
    }
    const std::string line = head.substr(0, head.find("\r\n"));
    const auto first = line.find(' '), last = line.rfind(' ');
    std::string path = first == std::string::npos ? "" : line.substr(first + 1, last - first - 1);
    const std::string method = line.substr(0, first);
    std::string body;
    bool found = false;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        requests_.push_back(method + " " + path + " host=" + header_value(head, "host"));
        const std::string key = path.substr(0, path.find('?'));
        auto file = files_.find(key);
        if (file != files_.end()) {
            found = true;
            body = file->second;
        }
    }
    const std::string status = found ? "200 OK" : "404 Not Found";
    if (!found) body = "not found\n";
    std::string reply = "HTTP/1.1 " + status + "\r\nContent-Length: " + std::to_string(body.size()) +
                        "\r\nConnection: close\r\n\r\n";
    if (method != "HEAD") reply += body;
    for (size_t sent = 0; sent < reply.size();) {
        const ssize_t n = send(fd, reply.data() + sent, reply.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) return;
        sent += static_cast<size_t>(n);
    }
    shutdown(fd, SHUT_WR);
    while (read(fd, buffer, sizeof buffer) > 0) {
    }
}

}  // namespace oms::test
