// oms/dns_responder.hpp: an NXDOMAIN responder for a sandbox's own loopback,
// for backends that give a command a network of its own (landlock's init,
// the docker runner): the SDK's library oms::dns-responder. Name resolution there fails at once with "no such host", instead
// of the resolver's retries against a nameserver that cannot be reached
// (EAI_AGAIN after seconds, which tools such as npm retry for a minute). The
// sandbox's /etc/resolv.conf names 127.0.0.1 (kSandboxResolvConf), and the
// responder answers every query there (UDP and TCP) with NXDOMAIN. /etc/hosts
// still answers first, so `localhost` resolves.
//
// libc only, no allocation (static storage): it runs in landlock's init, a
// copy of a threaded process, and in the docker runner, a static binary.
#pragma once
#include <poll.h>
#include <stddef.h>
#include <stdint.h>

namespace oms::dns_responder {

// The sandbox's resolv.conf; attempts/timeout keep a missing responder short too.
inline constexpr char kSandboxResolvConf[] =
    "# oms sandbox: no network here; every name but /etc/hosts is answered \"no such host\"\n"
    "nameserver 127.0.0.1\n"
    "options attempts:1 timeout:1\n";

// Binds `address`:53 UDP and TCP (needs CAP_NET_BIND_SERVICE or a network
// namespace whose unprivileged ports start at 53 or below) and returns false
// when it cannot; resolution then fails with "connection refused", still at once.
// `address` (host byte order) is 127.0.0.1 unless several sandboxes share one
// network namespace and each answers its own commands on an address of its
// own (resolv_conf_naming).
bool open(uint32_t address = 0x7f000001);

// kSandboxResolvConf naming `address` (host byte order) instead of 127.0.0.1,
// in `out` (NUL-terminated); false when it does not fit.
bool resolv_conf_naming(uint32_t address, char* out, size_t capacity);
struct Descriptors {
    int udp, tcp;  // -1 when not open
};
Descriptors descriptors();
// Fills up to `capacity` entries with the descriptors to watch; returns how many.
int watch(pollfd* fds, int capacity);
// Serves what `fds` (as filled by watch and polled) reported ready.
void serve(const pollfd* fds, int count);
// From now on, each name answered NXDOMAIN for its IPv4 address (type A),
// or for its IPv6 address (AAAA) when /etc/hosts does not name it (a lookup
// of a name the file knows for IPv4 may still ask AAAA here, which is no
// refusal), is also appended to `fd` as a
// refusal (oms/refusal_log.hpp: source "resolver", port 0), once per name
// among the last kRememberedNames and at most kMaxReports in all; -1 stops.
inline constexpr int kRememberedNames = 32;
// The rule those lines name.
inline constexpr const char kNoSuchHost[] =
    "answered \"no such host\": the sandbox resolves no name (a host in [network] allow_hosts is reached "
    "through oms's proxy, which resolves it)";
inline constexpr int kMaxReports = 1000;
void report_to(int fd);

// The socket that asked: its own address and port as the responder saw
// them (the responder is reached on 127.0.0.1:53), and whether it asked over
// TCP. A responder serving several commands at once (the docker runner's)
// finds the asking process by them (/proc/net/udp or tcp, then the process
// holding that socket).
struct Asker {
    bool tcp;
    uint16_t port;     // 0: not an IPv4 peer
    uint32_t address;  // IPv4, host byte order (0x7f000001 is 127.0.0.1)
};
// Called with each refusal report_to would write (the same questions), before
// report_to's once-per-name filter and bound, with the name (dotted,
// NUL-terminated, `length` bytes before the NUL) and the asker: whoever
// needs once per name keeps that per command. nullptr stops.
using RefusalHook = void (*)(const char* name, size_t length, const Asker& asker);
void on_refusal(RefusalHook hook);

}  // namespace oms::dns_responder
