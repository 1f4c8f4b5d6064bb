#include "inner_resolver.hpp"

#include "helper_process.hpp"

#include <oms/dns_responder.hpp>

#include <poll.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace oms::docker::runner {

namespace {

[[noreturn]] void answer_forever() {
    for (;;) {
        pollfd fds[16];
        const int count = dns_responder::watch(fds, 16);
        if (poll(fds, static_cast<nfds_t>(count), -1) > 0) dns_responder::serve(fds, count);
    }
}

}  // namespace

bool answer_dns_from(int& argi, int argc, char** argv) {
    if (argi >= argc || std::strcmp(argv[argi], "--answer-dns") != 0) return false;
    ++argi;
    return true;
}

bool hold_dns_port() {
    if (dns_responder::open()) return true;
    std::fprintf(stderr, "oms: cannot answer name lookups on 127.0.0.1:53 in the container (%s); they fail with "
                         "\"connection refused\" instead of \"no such host\"\n", std::strerror(errno));
    return false;
}

pid_t fork_resolver(bool detached) { return fork_helper(detached, "the container's resolver", answer_forever); }

}  // namespace oms::docker::runner
