#include "exec_run.hpp"

#include "daemon.hpp"
#include "exec_request.hpp"
#include "json.hpp"
#include "stream_pump.hpp"
#include "terminal.hpp"

#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <oms/text_file.hpp>
#include <cstdlib>

namespace oms::docker {

namespace {

// The process's PID inside its container (last field of NSpid), or 0.
long namespace_pid(long host_pid) {
    const auto status = oms::sdk::read_text_file("/proc/" + std::to_string(host_pid) + "/status");
    const size_t at = status ? status->find("\nNSpid:") : std::string::npos;
    if (at == std::string::npos) return 0;
    const char* cursor = status->c_str() + at + 7;
    long last = 0;
    for (;;) {  // the fields are numbers separated by tabs, up to the end of the line
        char* end = nullptr;
        long pid = std::strtol(cursor, &end, 10);
        if (end == cursor) return last;
        last = pid;
        cursor = end;
    }
}

}  // namespace

ExecRun::ExecRun(EngineClient client, std::string container, std::string exec_id, std::string user, bool tty,
                 oms_stdio stdio)
    : client_(std::move(client)), container_(std::move(container)), exec_id_(std::move(exec_id)), user_(std::move(user)), tty_(tty), stdio_(stdio) {
    try {
        socket_ = client_.hijack("/exec/" + exec_id_ + "/start", exec_start_body(tty_), early_);
    } catch (const std::exception& e) {
        throw sdk::Error(OMS_ERR_FAILED, std::string("docker: ") + e.what());
    }
    if (tty_) resize_terminal();
}

ExecRun::~ExecRun() {
    if (!waited_) deliver(SIGKILL);  // released without a wait: the command must not keep running
    if (socket_ >= 0) close(socket_);
}

void ExecRun::resize_terminal() {
    winsize size{};
    if (ioctl(stdio_.out, TIOCGWINSZ, &size) != 0 || size.ws_row == 0) return;
    try {
        client_.request("POST", "/exec/" + exec_id_ + "/resize?h=" + std::to_string(size.ws_row) +
                                    "&w=" + std::to_string(size.ws_col));
    } catch (const std::exception&) {
    }
}

void ExecRun::deliver(int signal_number) {
    ExecState state;
    try {
        state = inspect_exec(client_, exec_id_);
    } catch (const std::exception&) {
        return;
    }
    if (!state.running || state.pid <= 0) return;
    // Direct kill works when oms runs as root or as the container's uid.
    if (kill(static_cast<pid_t>(state.pid), signal_number) == 0) return;
    // Otherwise ask the container, as the command's own user, to signal it.
    long inner = namespace_pid(state.pid);
    if (inner <= 0) return;
    try {
        const std::vector<std::string> kill_argv{"kill", "-" + std::to_string(signal_number), std::to_string(inner)};
        std::string body = json::body({{"AttachStdout", false}, {"AttachStderr", false}, {"User", user_},
                                       {"Cmd", kill_argv}});
        ExecCreated killer = create_exec(client_, container_, body);
        if (!killer.id.empty()) client_.request("POST", "/exec/" + killer.id + "/start", json::body({{"Detach", true}}));
    } catch (const std::exception&) {
    }
}

void ExecRun::signal(int signal_number) {
    if (!waited_) deliver(signal_number);
}

int ExecRun::wait() {
    {
        RawTerminal raw(tty_ ? stdio_.in : -1);
        pump_exec_stream(socket_, early_, stdio_.in, stdio_.out, stdio_.err, tty_);
    }
    close(socket_);
    socket_ = -1;
    // The stream can close a moment before the daemon records the exit status.
    for (int attempt = 0; attempt < 200; ++attempt) {
        ExecState state = inspect_exec(client_, exec_id_);
        if (!state.running) {
            waited_ = true;
            return state.exit_code;
        }
        usleep(5000);
    }
    waited_ = true;
    throw sdk::Error(OMS_ERR_FAILED, "docker: the command's output ended but the daemon still reports it running");
}

}  // namespace oms::docker
