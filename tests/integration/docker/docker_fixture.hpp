// Drives the built oms-docker.so through its C ABI against a real Docker
// daemon: a fake task (worktree with .git, pinned file, secret files, a fake
// HOME holding secrets), the plugin loaded with dlopen, and commands run with
// their output captured in files.
#pragma once
#include "file_wait.hpp"
#include "plugin_harness.hpp"
#include "temp_dir.hpp"

#include <oms/sdk.h>

#include <chrono>
#include <map>
#include <thread>
#include <string>
#include <vector>

namespace oms::test::docker {

// Returns when a daemon answers. Otherwise prints "skipped: no Docker daemon"
// and exits 77 (CTest SKIP_RETURN_CODE), or fails the test when
// OMS_REQUIRE_DOCKER=1 (CI), so a missing daemon never looks like a pass.
void require_daemon();

using oms::test::file_appears;  // file_wait.hpp: markers a command writes in the worktree

// The test image's ID (tests/docker/build-test-image.sh), built once per process.
const std::string& test_image();
// The image with the host's node and npm besides busybox
// (tests/docker/build-node-test-image.sh), built once per process.
const std::string& node_test_image();

// A TCP listener on every host address that accepts and drops connections,
// for network reachability checks.
class ServerSocket {
public:
    ServerSocket();
    ~ServerSocket();
    int port() const { return port_; }

private:
    int fd_ = -1;
    int port_ = 0;
    std::thread thread_;
};

// The container user of the fixture's tasks, who owns their worktrees: 1000
// when the tests run as root (they chown to it), the caller otherwise.
unsigned container_uid();
// "<uid>\n", as `id -u` prints it.
std::string container_uid_line();

// `docker ...` run from the test, output captured.
struct Cli {
    int code;
    std::string out, err;
};
Cli docker_cli(const std::vector<std::string>& args);

// The container's "uid:gid": 1000:1000 when the tests run as root (the
// worktree is chowned to it), else the caller's own.
std::string container_user();

struct Outcome {
    int status = OMS_OK;   // of spawn (or wait)
    int exit_code = -1;
    std::string out, err;  // the command's stdout and stderr
    std::string error;     // the plugin's message when status != OMS_OK
};

class Task {
public:
    explicit Task(bool warm, std::map<std::string, std::string> config = {});
    ~Task();
    Task(const Task&) = delete;
    Task& operator=(const Task&) = delete;

    TempDir root;
    std::string worktree, home, private_home, temp_dir, manifest;
    FakeHost host;
    std::vector<std::string> read_only, read_write, pinned;
    std::string working_dir;  // the context's working_dir (empty: NULL, the worktree)
    // What the policy allows through: PATH, HOME, TMPDIR, LANG.
    std::vector<std::string> env;
    // Added to the policy as they are (network rules, say).
    std::vector<OwnedRule> extra_rules;

    // Runs `sh -c script` in the container.
    Outcome sh(const std::string& script, const std::string& stdin_text = "");
    Outcome run(const std::vector<std::string>& argv, const std::string& stdin_text = "");
    // Starts `argv`, sends `signal_number` after `delay_ms`, waits.
    Outcome run_and_signal(const std::vector<std::string>& argv, int signal_number, int delay_ms);
    // Runs `argv` with `in_fd` (say, a terminal) as its stdin.
    Outcome run_with_stdin(const std::vector<std::string>& argv, int in_fd);
    int end_task();  // OMS status of end_task
    // Probe report lines and status.
    int probe(ReportCollector& report, std::string& error);
    void recreate_instance();  // after changing `host` config

private:
    void* library_ = nullptr;
    const oms_backend_api* api_ = nullptr;
    const oms_plugin_descriptor* descriptor_ = nullptr;
    void* instance_ = nullptr;
    ContextBuilder context(const std::vector<std::string>& argv) const;
    PolicyBuilder policy() const;
    Outcome execute(const std::vector<std::string>& argv, const std::string& stdin_text, int signal_number,
                    int delay_ms, int in_fd = -1);
};

}  // namespace oms::test::docker
