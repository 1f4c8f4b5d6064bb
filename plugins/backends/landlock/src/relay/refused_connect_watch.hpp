// What the sandbox's own loopback refused, seen by its init: a command's TCP
// connect to an address of the run's private `lo` where nothing listens (a
// port the run does not relay, or a relayed one while the host has no
// listener) is answered by the kernel with a reset, which no process of the
// sandbox sees. The init watches the namespace's packets (its only
// interface is `lo`) with raw sockets (it holds the network namespace's
// CAP_NET_RAW until the command's exec drops it) whose filters pass TCP
// resets only, and appends each refused address and port to the run's
// refusal log (oms/refusal_log.hpp, source "loopback"). Raw sockets, not
// packet sockets: those make their bind and close wait for an RCU grace
// period, which every run's start and end would pay.
//
// A refusal is a reset with sequence number 0 and ACK set: what the kernel
// answers a SYN with when no socket takes it (RFC 793; Linux
// tcp_v4_send_reset, tcp_v6_send_reset), never a reset of an established
// connection. IPv4 and IPv6 (a connect to ::1), one raw socket each; the
// filters are assembled from a list of checks (packet_filter.hpp). Bounded
// as every refusal of the init is (refusal_reports.hpp). A UDP datagram to a port where nothing listens is answered with
// an ICMP "port unreachable" quoting it, and reported the same way from two
// more raw sockets (ICMP and ICMPv6) whose filters pass only those. An IPv4
// raw socket is given the IP header, an IPv6 one the transport header on.
// libc only, static storage: it runs in the init, a copy of a threaded
// process.
#pragma once
#include <linux/filter.h>
#include <poll.h>
#include <stdint.h>

#include <vector>

namespace oms::landlock {

struct ChildSpec;

namespace refused_connect_watch {

// Opens the raw sockets when spec.report_fd is open (the init
// gives it to refusal_reports first); false (and nothing watched) when
// neither opens. spec.relay_ports tell the rule's words.
bool open(const ChildSpec& spec);
struct Descriptors {
    int v4, v6;                          // the resets' sockets; -1 when not open
    int unreachable_v4, unreachable_v6;  // the port unreachables' sockets
};
Descriptors descriptors();
// Adds the open sockets to `fds` while there is room; returns the new count.
int watch(pollfd* fds, int count, int capacity);
// The socket filters: TCP resets of IPv4 (`v6` false: from the IP header)
// or IPv6 (from the TCP header), others dropped.
sock_fprog reset_filter(bool v6);
// The socket filters: ICMP (`v6` false: from the IP header) or ICMPv6 (from
// its own header) port unreachables, others dropped.
sock_fprog unreachable_filter(bool v6);
// Reads what `fds` reported ready on the sockets and reports each refusal.
void serve(const pollfd* fds, int count);

}  // namespace refused_connect_watch
}  // namespace oms::landlock
