// oms/published_listeners.hpp: the host's end of a published port
// (NET_PUBLISH_LOOPBACK, `oms run --publish PORT`), for backends that carry
// connections from the host's loopback into a sandbox's own: the listening
// sockets on the host's 127.0.0.1:PORT and [::1]:PORT. Header-only, libc
// and the C++ standard library.
//
// Made before the command starts, so a port another program of the host
// already listens on refuses the run with nothing run. [::1] is skipped only
// where the host has no IPv6 loopback: a program listening there would
// otherwise take the browsers that try "localhost" on ::1 first.
// SO_REUSEADDR, as servers bind: a port left in TIME_WAIT by the last run
// is free again, one another program listens on is not; keep the sockets
// listening until the run ends, so no other program's bind gets in between.
#pragma once
#include <oms/sdk.hpp>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

namespace oms::published {

// The listening sockets (close-on-exec, blocking) and the port of each.
struct Listeners {
    std::vector<int> fds;
    std::vector<uint16_t> ports;
    void close_all() {
        for (int fd : fds) ::close(fd);
        fds.clear();
        ports.clear();
    }
};

namespace detail {

// Listens on `address` (port set); the errno when it cannot.
inline int listen_on(const sockaddr* address, socklen_t size, int& error) {
    const int fd = ::socket(address->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int on = 1;
    if (fd >= 0 && ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) == 0 &&
        (address->sa_family != AF_INET6 || ::setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on) == 0) &&
        ::bind(fd, address, size) == 0 && ::listen(fd, 128) == 0)
        return fd;
    error = errno;
    if (fd >= 0) ::close(fd);
    return -1;
}

[[noreturn]] inline void refuse(Listeners& made, const std::string& backend, uint16_t port, const std::string& where,
                                int error) {
    made.close_all();
    throw sdk::Error(OMS_ERR_UNAVAILABLE, backend + ": cannot publish port " + std::to_string(port) + ": the host's " +
                                              where + " " +
                                              (error == EADDRINUSE ? "is in use by another program"
                                                                   : std::string("cannot listen: ") + ::strerror(error)) +
                                              "; nothing ran");
}

}  // namespace detail

// The host's 127.0.0.1:PORT and [::1]:PORT for each of `ports`, listening.
// Throws sdk::Error(OMS_ERR_UNAVAILABLE) naming `backend` and the port when
// one cannot be had (nothing is left open then).
inline Listeners listen_for_published(const std::vector<uint16_t>& ports, const std::string& backend) {
    Listeners made;
    for (uint16_t port : ports) {
        int error = 0;
        sockaddr_in v4{};
        v4.sin_family = AF_INET;
        v4.sin_port = htons(port);
        v4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        const int fd4 = detail::listen_on(reinterpret_cast<sockaddr*>(&v4), sizeof v4, error);
        if (fd4 < 0) detail::refuse(made, backend, port, "127.0.0.1:" + std::to_string(port), error);
        made.fds.push_back(fd4);
        made.ports.push_back(port);
        sockaddr_in6 v6{};
        v6.sin6_family = AF_INET6;
        v6.sin6_port = htons(port);
        v6.sin6_addr = in6addr_loopback;
        const int fd6 = detail::listen_on(reinterpret_cast<sockaddr*>(&v6), sizeof v6, error);
        if (fd6 >= 0) {
            made.fds.push_back(fd6);
            made.ports.push_back(port);
        } else if (error != EAFNOSUPPORT && error != EADDRNOTAVAIL) {
            detail::refuse(made, backend, port, "[::1]:" + std::to_string(port), error);
        }
    }
    return made;
}

}  // namespace oms::published
