// The run's DNS responder (oms/dns_responder.hpp), opened by the init before
// the command starts, with the namespace's capabilities (port 53). In a
// task's shared network (task_network.hpp) each run answers on an address of
// its own; two runs of one oms process (its MCP server) are given the same
// one, so a joined run whose address is taken tries the next ones and
// writes the one it got into its resolv.conf, which the command has not
// read yet (the file mounted on /etc/resolv.conf is that same inode).
#include "child_steps.hpp"

#include <oms/dns_responder.hpp>

#include <string.h>
#include <unistd.h>

namespace oms::landlock {

namespace {

constexpr uint32_t kOwnNetworkResolver = 0x7f000001;  // 127.0.0.1: the network's first run
constexpr int kAddressesTried = 64;

void name_in_resolv_conf(const ChildSpec& spec, uint32_t address) {
    char text[256];
    if (spec.resolv_conf_writer < 0 || !dns_responder::resolv_conf_naming(address, text, sizeof text)) return;
    const size_t size = strlen(text);
    if (pwrite(spec.resolv_conf_writer, text, size, 0) != static_cast<ssize_t>(size)) return;
    // The address named before may have been a digit longer: cut its end.
    if (ftruncate(spec.resolv_conf_writer, static_cast<off_t>(size)) != 0) return;
}

}  // namespace

void open_resolver(const ChildSpec& spec) {
    if (dns_responder::open(spec.resolver_address) || spec.resolver_address == kOwnNetworkResolver) return;
    for (uint32_t address = spec.resolver_address + 1; address <= spec.resolver_address + kAddressesTried; ++address)
        if (dns_responder::open(address)) {
            name_in_resolv_conf(spec, address);
            return;
        }
}

}  // namespace oms::landlock
