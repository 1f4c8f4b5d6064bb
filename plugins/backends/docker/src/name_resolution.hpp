// Name resolution in a container without a network (`network = "none"`)
// fails at once with "no such host", as in the landlock backend: the
// sandbox's resolv.conf (nameserver 127.0.0.1, the text the landlock backend
// mounts) is bound read-only at /etc/resolv.conf, and the runner answers
// 127.0.0.1:53 with NXDOMAIN (`--answer-dns`, the shared responder in
// plugins/backends/common). Docker's own resolv.conf there names the host's
// nameservers, which such a container cannot reach (EAI_AGAIN, "try again",
// which npm retries for a minute). `--dns=127.0.0.1` would do the same but
// makes the docker CLI print a warning into the command's stderr.
//
// A named network keeps Docker's resolver: the user chose a network, and
// its names (the embedded DNS of a user-defined network, or the host's
// nameservers on the default bridge) are what they chose.
#pragma once
#include "container_plan.hpp"
#include "settings.hpp"

#include <string>

namespace oms::docker {

inline constexpr const char* kAnswerDnsFlag = "--answer-dns";
// With network none and [plugin.docker] report_connects: the runner watches
// the commands' connects (runner/command_connects.hpp). Right after
// kAnswerDnsFlag: the runner reads its flags in order.
inline constexpr const char* kWatchConnectsFlag = "--watch-connects";

// Whether the container gets the sandbox's resolver (network none).
bool answers_dns_itself(const Settings& settings);

// The line `oms policy` and doctor's plan show about name lookups.
std::string resolver_line(const Settings& settings);

// <state_dir>/docker/resolv.conf: the file bound at /etc/resolv.conf.
std::string resolv_conf_file(const std::string& state_dir);

// With network none: the read-only bind of resolv_conf_file at
// /etc/resolv.conf and the runner's --answer-dns (and --watch-connects).
// Nothing otherwise.
void add_name_resolution(const Settings& settings, const RunInputs& in, ContainerPlan& plan);

// Writes resolv_conf_file (0644, through a new file renamed over it) unless
// it already holds exactly the sandbox's text; before a container is made.
void write_resolv_conf(const std::string& state_dir);

}  // namespace oms::docker
