// What kind of address a name led to, for the egress proxy: a command may
// reach a public address of an allowed name, never the host's own loopback,
// a private or link-local network, the cloud metadata service or a
// multicast/reserved range, unless the user pinned the name to that address.
#pragma once
#include <sys/socket.h>

#include <string>

namespace oms::core {

// "public", or the class that refuses it: "loopback", "private",
// "link-local", "metadata", "unspecified", "multicast", "documentation",
// "reserved". An IPv6 form that carries an IPv4 address (IPv4-mapped and
// -compatible, NAT64, 6to4, Teredo) has the class of the address it carries
// when that one is not public. Ranges only: whether an address is one of
// this machine's own is local_address.hpp's question.
std::string address_class(const sockaddr* address);

// "127.0.0.1", "[::1]": the numeric address without port.
std::string address_text(const sockaddr* address);

}  // namespace oms::core
