#include "inner_resolver.hpp"

#include "helper_process.hpp"
#include "lookup_reports.hpp"

#include <oms/dns_responder.hpp>

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unistd.h>

namespace oms::docker::runner {

namespace {

[[noreturn]] void answer_forever() {
    for (;;) {
        pollfd fds[16];
        const int count = dns_responder::watch(fds, 16);
        if (poll(fds, static_cast<nfds_t>(count), -1) > 0) dns_responder::serve(fds, count);
    }
}

// Each refusal as one datagram to oms on the host, when it serves `path`
// (a one-shot run). Never blocking: a full queue drops the line, the answer
// still goes out.
void report_over(const char* path) {
    if (!path) return;
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (std::strlen(path) >= sizeof address.sun_path) return;
    std::strcpy(address.sun_path, path);
    const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return;
    if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        close(fd);
        return;  // no oms listening: nothing is reported, lookups are answered as before
    }
    dns_responder::report_to(fd);
}

// A warm container's resolver: each refusal, with the process that asked,
// to the runner (lookup_reports.hpp).
int asker_reports = -1;
SearchBudget search_budget;

void report_with_asker(const char* name, size_t length, const dns_responder::Asker& asker) {
    send_asker_report(asker_reports, name, length, search_budget.process_of(asker));
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

pid_t fork_resolver(bool detached, const char* report_socket, const std::vector<int>& not_for_helper,
                    int to_runner) {
    return fork_helper(detached, "the container's resolver", [report_socket, to_runner] {
        report_over(report_socket);
        if (to_runner >= 0) {
            asker_reports = to_runner;
            dns_responder::on_refusal(report_with_asker);
        }
        answer_forever();
    }, not_for_helper);
}

}  // namespace oms::docker::runner
