#include "command_run.hpp"

#include <oms/abi_lowering.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace oms::backend_check {
namespace {

struct Pipe {
    int read_end = -1, write_end = -1;
    Pipe() {
        int fds[2];
        if (pipe2(fds, O_CLOEXEC) == 0) {
            read_end = fds[0];
            write_end = fds[1];
        }
    }
    ~Pipe() {
        close_read();
        close_write();
    }
    void close_read() {
        if (read_end >= 0) close(read_end);
        read_end = -1;
    }
    void close_write() {
        if (write_end >= 0) close(write_end);
        write_end = -1;
    }
};

// Reads both outputs to their end while feeding stdin; stops half a second
// after the command ended even if something it left behind keeps them open.
void pump(Pipe& in, const std::string& text, Pipe& out, Pipe& err, Outcome& outcome,
          const std::atomic<bool>& exited) {
    size_t written = 0;
    if (text.empty()) in.close_write();
    using Clock = std::chrono::steady_clock;
    Clock::time_point stop_at = Clock::time_point::max();
    while ((out.read_end >= 0 || err.read_end >= 0) && Clock::now() < stop_at) {
        if (exited && stop_at == Clock::time_point::max()) stop_at = Clock::now() + std::chrono::milliseconds(500);
        pollfd fds[3] = {{out.read_end, POLLIN, 0}, {err.read_end, POLLIN, 0}, {in.write_end, POLLOUT, 0}};
        if (poll(fds, 3, 200) < 0) continue;
        char buffer[4096];
        for (int i = 0; i < 2; ++i) {
            if (!fds[i].revents) continue;
            Pipe& pipe = i == 0 ? out : err;
            ssize_t n = read(pipe.read_end, buffer, sizeof buffer);
            if (n > 0)
                (i == 0 ? outcome.out : outcome.err).append(buffer, static_cast<size_t>(n));
            else
                pipe.close_read();
        }
        if (fds[2].revents) {
            ssize_t n = write(in.write_end, text.data() + written, text.size() - written);
            if (n > 0) written += static_cast<size_t>(n);
            if (n <= 0 || written == text.size()) in.close_write();
        }
    }
}

}  // namespace

Outcome run_command(const LoadedBackend& backend, Scene& scene, const CommandRun& command) {
    Outcome outcome;
    scene.new_run();
    Pipe in, out, err;
    char reason[2048] = "";
    oms_error error{reason, sizeof reason};
    void* run = nullptr;
    oms_stdio stdio{in.read_end, out.write_end, err.write_end};
    const oms_policy* policy = nullptr;
    try {
        policy = scene.policy();
    } catch (const abi::LoweringRefused& refused) {  // oms refuses such a run before the backend sees it
        outcome.spawn_status = OMS_ERR_FAILED;
        outcome.spawn_error = refused.what();
        return outcome;
    }
    outcome.spawn_status = backend.api().spawn(backend.instance(), scene.context(command.argv), policy,
                                               stdio, &run, &error);
    in.close_read();
    out.close_write();
    err.close_write();
    if (outcome.spawn_status != OMS_OK) {
        outcome.spawn_error = reason;
        return outcome;
    }
    outcome.spawned = true;
    auto send = [&](int signal_number) { backend.api().signal(backend.instance(), run, signal_number); };
    std::atomic<bool> exited{false};
    int32_t status = -1;
    std::thread waiter([&] {
        char wait_reason[1024] = "";
        oms_error wait_error{wait_reason, sizeof wait_reason};
        if (backend.api().wait(backend.instance(), run, &status, &wait_error) != OMS_OK)
            outcome.spawn_error = wait_reason;
        exited = true;
    });
    std::thread watchdog([&] {
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(command.timeout_seconds);
        while (!exited && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (!exited) {
            outcome.timed_out = true;
            send(SIGKILL);
        }
    });
    std::thread actions([&] {
        if (command.while_running) command.while_running(send);
    });
    pump(in, command.stdin_text, out, err, outcome, exited);
    actions.join();
    waiter.join();
    watchdog.join();
    outcome.status = status;
    backend.api().release(backend.instance(), run);
    return outcome;
}

}  // namespace oms::backend_check
