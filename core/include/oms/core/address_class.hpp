// What kind of address a name led to, for the egress proxy: a command may
// reach a public address of an allowed name, never the host's own loopback,
// a private or link-local network, the cloud metadata service or a
// multicast/reserved range, unless the user pinned the name to that address.
#pragma once
#include <sys/socket.h>

#include <string>

namespace oms::core {

// "public", or the class that refuses it: "loopback", "private",
// "link-local", "metadata", "unspecified", "multicast", "reserved".
std::string address_class(const sockaddr* address);

// "127.0.0.1", "[::1]": the numeric address without port.
std::string address_text(const sockaddr* address);

}  // namespace oms::core
