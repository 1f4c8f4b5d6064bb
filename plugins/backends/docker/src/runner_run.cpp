#include "runner_run.hpp"

#include "connect_refusals.hpp"

#include "../runner/runner_protocol.hpp"

#include <oms/dns_responder.hpp>
#include <oms/refusal_log.hpp>

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace oms::docker {

int connect_runner(const std::string& socket_path) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (socket_path.size() >= sizeof address.sun_path) return -1;
    std::memcpy(address.sun_path, socket_path.c_str(), socket_path.size() + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        const int saved = errno;  // callers tell a dead runner (ECONNREFUSED) from a missing one
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

std::string runner_payload(const std::string& cwd, const std::vector<std::string>& argv,
                           const std::vector<std::string>& env, bool report_lookups,
                           const std::vector<uint16_t>& run_ports) {
    std::string out = cwd + '\0' + std::to_string(argv.size()) + '\0';
    for (const std::string& a : argv) out += a + '\0';
    out += std::to_string(env.size()) + '\0';
    for (const std::string& e : env) out += e + '\0';
    if (report_lookups) out += std::string(runner::kReportLookups) + '\0' + runner::kReportUntraced + '\0';
    std::string ports;
    for (uint16_t port : run_ports) ports += (ports.empty() ? "" : ",") + std::to_string(port);
    if (!ports.empty()) out += runner::kRunPorts + ports + '\0';
    return out;
}

namespace {

void send_all(int fd, const std::string& data) {
    size_t done = 0;
    while (done < data.size()) {
        ssize_t n = send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw sdk::Error(OMS_ERR_FAILED, "docker: the warm container's runner stopped answering");
        done += static_cast<size_t>(n);
    }
}

// `magic`: kMagicRunPorts for a request with run ports, which an older
// runner refuses outright rather than run the command without them.
void send_request(int fd, uint32_t magic, const std::string& payload, oms_stdio stdio) {
    uint32_t header[2] = {magic, static_cast<uint32_t>(payload.size())};
    iovec io{header, sizeof header};
    int fds[3] = {stdio.in, stdio.out, stdio.err};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof fds)] = {};
    msghdr msg{};
    msg.msg_iov = &io;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof fds);
    std::memcpy(CMSG_DATA(c), fds, sizeof fds);
    if (sendmsg(fd, &msg, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof header))
        throw sdk::Error(OMS_ERR_FAILED, std::string("docker: cannot hand the command to the warm container: ") +
                                             std::strerror(errno));
    send_all(fd, payload);
}

}  // namespace

RunnerRun::RunnerRun(int connection, const std::string& cwd, const std::vector<std::string>& argv,
                     const std::vector<std::string>& env, oms_stdio stdio, const std::string& refusal_file,
                     const std::vector<uint16_t>& run_ports)
    : connection_(connection) {
    std::string payload = runner_payload(cwd, argv, env, !refusal_file.empty(), run_ports);
    if (payload.size() > runner::kMaxPayload) {
        close(connection_);
        throw sdk::Error(OMS_ERR_INVALID, "docker: the command and its environment exceed 4 MiB");
    }
    try {
        send_request(connection_, run_ports.empty() ? runner::kMagic : runner::kMagicRunPorts, payload, stdio);
        if (!run_ports.empty()) await_run_ports(run_ports);
    } catch (...) {
        close(connection_);
        throw;
    }
    // A report only: a log that cannot be opened leaves the run as it was.
    if (!refusal_file.empty()) refusal_fd_ = refusal_log::open_for_append(refusal_file.c_str());
}

RunnerRun::~RunnerRun() {
    close(connection_);
    if (refusal_fd_ >= 0) close(refusal_fd_);
}

void RunnerRun::signal(int signal_number) {
    uint32_t sig = static_cast<uint32_t>(signal_number);
    (void)!send(connection_, &sig, sizeof sig, MSG_NOSIGNAL);
}

uint32_t RunnerRun::read_word() {
    uint32_t word = 0;
    size_t got = 0;
    while (got < sizeof word) {
        ssize_t n = recv(connection_, reinterpret_cast<char*>(&word) + got, sizeof word - got, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0)
            throw sdk::Error(OMS_ERR_FAILED,
                             "docker: the warm container's runner ended before the command did (container removed "
                             "or out of memory?)");
        got += static_cast<size_t>(n);
    }
    return word;
}

// The runner's first word on a request with run ports, before the command
// starts. Any other answer means nothing ran: the run fails with one line.
void RunnerRun::await_run_ports(const std::vector<uint16_t>& run_ports) {
    uint32_t word = 0;
    ssize_t n;
    do n = recv(connection_, &word, sizeof word, MSG_WAITALL);
    while (n < 0 && errno == EINTR);
    const std::string port = std::to_string(run_ports.front());
    if (n == static_cast<ssize_t>(sizeof word) && word == runner::kRunPortsHeld) return;
    if (n == static_cast<ssize_t>(sizeof word) && word == runner::kRunPortsTaken)
        throw sdk::Error(OMS_ERR_FAILED, "docker: the warm container cannot hold 127.0.0.1:" + port +
                                             " (this run's egress proxy port) for the command: a process in it "
                                             "holds that port; nothing ran");
    throw sdk::Error(OMS_ERR_FAILED, "docker: the warm container's runner does not hold a run's own egress proxy "
                                     "port (it predates this oms: `oms task end` gives the task a new container); "
                                     "nothing ran");
}

void RunnerRun::read_exact(void* data, size_t size) {
    for (size_t got = 0; got < size;) {
        ssize_t n = recv(connection_, static_cast<char*>(data) + got, size - got, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw sdk::Error(OMS_ERR_FAILED, "docker: the warm container's runner ended before the command did");
        got += static_cast<size_t>(n);
    }
}

// A lookup frame's length and name (runner_protocol.hpp), into the log. The
// source, port and rule are oms's own: only the name comes from the runner.
// An untraced one's rule says that it may be another command's.
void RunnerRun::take_lookup(bool traced) {
    const uint32_t length = read_word();
    if (length == 0 || length > runner::kMaxLookupName)
        throw sdk::Error(OMS_ERR_FAILED, "docker: the warm container's runner sent a malformed lookup report");
    std::string name(length, '\0');
    read_exact(name.data(), length);
    if (refusal_fd_ < 0 || lookups_ >= kMaxLookups) return;
    ++lookups_;
    const std::string rule = traced ? std::string(dns_responder::kNoSuchHost)
                                    : std::string(dns_responder::kNoSuchHost) + kUntracedNote;
    refusal_log::append(refusal_fd_, "resolver", name.c_str(), name.size(), 0, rule.c_str());
}

// An address frame's destination (runner_protocol.hpp), into the log; the
// source and rule are oms's own, and an address of the other kind dropped.
void RunnerRun::take_refused_connect(uint32_t frame_word) {
    if (read_word() != runner::kAddressFrameSize)
        throw sdk::Error(OMS_ERR_FAILED, "docker: the warm container's runner sent a malformed connect report");
    uint8_t frame[runner::kAddressFrameSize];
    read_exact(frame, sizeof frame);
    uint16_t family, port;
    std::memcpy(&family, frame, 2);
    std::memcpy(&port, frame + 2, 2);
    if (refusal_fd_ < 0 || connects_ >= kMaxConnects) return;
    const auto kind = frame_word == runner::kRouteFrame ? RefusedConnect::no_route : RefusedConnect::nothing_listens;
    if (append_connect_refusal(refusal_fd_, kind, family, frame + 4, port)) ++connects_;
}

int RunnerRun::wait() {
    for (;;) {
        const uint32_t word = read_word();
        if (word == runner::kLookupFrame || word == runner::kUntracedLookupFrame)
            take_lookup(word == runner::kLookupFrame);
        else if (word == runner::kRouteFrame || word == runner::kLoopbackFrame) take_refused_connect(word);
        else return static_cast<int>(word);
    }
}

}  // namespace oms::docker
