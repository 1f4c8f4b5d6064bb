#include "probe_report.hpp"

namespace oms::seatbelt {

namespace {

using oms::sdk::Error;

// Why Seatbelt cannot run here, or empty when it can.
std::string unavailable_reason(const HostFacts& facts) {
    if (facts.platform != "macos") return "not macOS";
    if (facts.nested)
        return "already confined: this process already runs inside a Seatbelt sandbox (" + facts.nested_reason +
               "), which cannot apply another";
    if (facts.sandbox_exec.empty() || facts.sandbox_exec[0] != '/')
        return "sandbox-exec path is not absolute: " + facts.sandbox_exec;
    if (!facts.exec_usable) return "sandbox-exec not found at " + facts.sandbox_exec;
    return {};
}

}  // namespace

void require_usable(const HostFacts& facts) {
    const std::string reason = unavailable_reason(facts);
    if (!reason.empty()) throw Error(OMS_ERR_UNAVAILABLE, reason);
}

void report_probe(const HostFacts& facts, const oms::sdk::Report& report) {
    report.detail("platform: " + facts.platform + " (" + facts.platform_source + ")");
    if (facts.platform == "macos") {
        report.detail("sandbox-exec: " + facts.sandbox_exec + " (" + facts.exec_source + ")");
        if (facts.nested) report.detail("nested: already confined (" + facts.nested_reason + ")");
    }
    require_usable(facts);
    report.summary("host (seatbelt: " + facts.sandbox_exec + ")");
    report.settings(
        "Seatbelt sandbox: reads under home, writes outside the worktree and network other than the Surfnet "
        "port are denied.");
}

}  // namespace oms::seatbelt
