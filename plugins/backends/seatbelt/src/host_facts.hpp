// What the seatbelt backend needs to know about the machine, gathered in one
// place so probe and spawn decide from the same facts, and so tests can
// inject them.
//
// Test hooks (environment variables of the oms process, documented in
// docs/backends/seatbelt.md):
//   OMS_SEATBELT_PLATFORM  overrides the platform ("macos", "linux", ...)
//   OMS_SEATBELT_EXEC      overrides the sandbox-exec path (absolute)
// The config key `sandbox_exec` sets the path too; the environment wins.
#pragma once
#include <optional>
#include <string>

namespace oms::seatbelt {

inline constexpr const char* default_sandbox_exec = "/usr/bin/sandbox-exec";

struct HostFacts {
    std::string platform;         // "macos", "linux", or an injected value
    std::string platform_source;  // where `platform` came from
    std::string sandbox_exec;     // absolute path of the program to run
    std::string exec_source;      // where `sandbox_exec` came from
    bool exec_usable = false;     // exists and is executable
    bool nested = false;          // this process already runs inside a Seatbelt sandbox
    std::string nested_reason;    // how that was detected
};

// `configured_exec` is the config key `sandbox_exec`, when set.
HostFacts gather_host_facts(const std::optional<std::string>& configured_exec);

}  // namespace oms::seatbelt
