// The part of a run context and policy the docker backend renders, as owned
// values, so the container plan is a plain function of data (and testable
// without the ABI structs).
#pragma once
#include <oms/sdk.hpp>

#include <string>
#include <vector>

namespace oms::docker {

struct PathRule {
    oms_rule_kind kind;
    std::string value;
};

struct RunInputs {
    std::string worktree;
    std::string working_dir;              // where the command starts: the worktree or below it
    std::string home;                     // the user's real HOME (canonical)
    std::string private_home;
    std::string temp_dir;
    std::string state_dir;                // oms's state folder (warm runner sockets live below it)
    std::string refusal_log;              // where the relay appends its refusals (empty: none)
    std::vector<std::string> read_only;   // extra read-only mounts
    std::vector<std::string> read_write;  // extra read-write mounts
    std::vector<std::string> pinned;      // pinned verifier files
    std::vector<PathRule> rules;          // READ_DENY*, WRITE_DENY of the policy
    std::vector<std::string> env;         // the command's final environment, NAME=value
    std::vector<std::string> parent_env;  // the caller's environment (where the docker CLI finds its daemon)
    std::vector<std::string> argv;        // the command
    std::vector<int64_t> connect_ports;   // NET_CONNECT_LOOPBACK: relayed to the host's 127.0.0.1
    std::vector<int64_t> run_ports;       // NET_CONNECT_RUN_PORT: likewise, for this run's command alone
    std::vector<int64_t> publish_ports;   // NET_PUBLISH_LOOPBACK: the host's 127.0.0.1 reaches them (host_publisher.hpp)
    std::vector<std::string> listen_binaries;  // NET_LISTEN_LOOPBACK: the trusted Surfpool binary
    bool best_effort = false;
    bool interactive = false;             // stdin is a terminal
};

RunInputs inputs_from(const sdk::Context& context, const sdk::Policy& policy);

}  // namespace oms::docker
