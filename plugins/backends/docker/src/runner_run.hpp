// A command run by oms-docker-runner inside the task's warm container: the
// request (with the command's descriptors) goes over the runner's unix
// socket, signals follow on the same connection, the exit status comes back.
// Output never passes through oms: the command writes to its descriptors.
#pragma once
#include "../runner/runner_protocol.hpp"

#include <oms/sdk.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace oms::docker {

// Connects to a runner socket; -1 when nothing listens there (yet).
int connect_runner(const std::string& socket_path);

// The request payload: cwd, argc, argv..., envc, env..., NUL-terminated,
// then kReportLookups (and kReportUntraced) when `report_lookups`, then
// kRunPorts with `run_ports` when there are any.
std::string runner_payload(const std::string& cwd, const std::vector<std::string>& argv,
                           const std::vector<std::string>& env, bool report_lookups = false,
                           const std::vector<uint16_t>& run_ports = {});

class RunnerRun : public sdk::Run {
public:
    // Takes ownership of `connection` (from connect_runner) and sends the
    // request. With a `refusal_file`, the runner is asked for the names the
    // command looked up in vain, and wait() appends each to that file
    // (oms/refusal_log.hpp), at most kMaxLookups; with network none also
    // the refused connects (connect_refusals.hpp), at most kMaxConnects.
    // With `run_ports`, the runner holds them for this command alone and the
    // constructor waits for its word on it: it throws sdk::Error (nothing
    // ran) when a port is taken in the container or the runner is too old
    // to hold one (never a command without its proxy).
    RunnerRun(int connection, const std::string& cwd, const std::vector<std::string>& argv,
              const std::vector<std::string>& env, oms_stdio stdio, const std::string& refusal_file = "",
              const std::vector<uint16_t>& run_ports = {});
    ~RunnerRun() override;  // closing the connection kills a command still running
    void signal(int signal_number) override;
    int wait() override;

    static constexpr size_t kMaxLookups = runner::kMaxTracedLookups + runner::kMaxUntracedLookups;
    static constexpr size_t kMaxConnects = 1000;
    // After the rule of a name whose asker the runner could not find (gone
    // before it looked, out of its search budget on a busy machine, or
    // hiding its descriptors): every running command was told of it.
    static constexpr const char* kUntracedNote = "; asker not traced: maybe another command's";

private:
    uint32_t read_word();
    void await_run_ports(const std::vector<uint16_t>& run_ports);
    void read_exact(void* data, size_t size);
    void take_lookup(bool traced);
    void take_refused_connect(uint32_t frame);

    int connection_;
    int refusal_fd_ = -1;
    size_t lookups_ = 0;
    size_t connects_ = 0;
};

}  // namespace oms::docker
