#include "surfnet_plan.hpp"

#include "container_view.hpp"
#include "host_relay.hpp"

#include <oms/sdk.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace oms::docker {

namespace {

bool executable_file(const std::string& path) {
    struct stat info;
    return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && access(path.c_str(), X_OK) == 0;
}

std::string real_path(const std::string& path) {
    char* resolved = realpath(path.c_str(), nullptr);
    if (!resolved) return "";
    std::string out = resolved;
    std::free(resolved);
    return out;
}

}  // namespace

std::string resolved_command(const std::string& argv0, const std::vector<std::string>& env, const std::string& cwd) {
    if (argv0.empty()) return "";
    auto anchored = [&cwd](const std::string& p) { return !p.empty() && p[0] == '/' ? p : cwd + "/" + p; };
    if (argv0.find('/') != std::string::npos) {
        const std::string candidate = anchored(argv0);
        return executable_file(candidate) ? real_path(candidate) : "";
    }
    std::string path_list = "/usr/local/bin:/usr/bin:/bin";
    for (const std::string& entry : env)
        if (entry.rfind("PATH=", 0) == 0) path_list = entry.substr(5);
    size_t start = 0;
    while (start <= path_list.size()) {
        size_t end = path_list.find(':', start);
        if (end == std::string::npos) end = path_list.size();
        const std::string folder = path_list.substr(start, end - start);
        const std::string candidate = anchored(folder.empty() ? "." : folder) + "/" + argv0;
        if (executable_file(candidate)) return real_path(candidate);
        start = end + 1;
    }
    return "";
}

std::vector<uint16_t> container_relay_ports(const SurfnetPlan& plan, bool warm) {
    std::vector<uint16_t> ports = plan.relay_ports;
    if (warm) return ports;
    ports.insert(ports.end(), plan.run_ports.begin(), plan.run_ports.end());
    std::sort(ports.begin(), ports.end());
    return ports;
}

std::vector<std::string> surfnet_lines(const SurfnetPlan& plan, bool warm) {
    std::vector<std::string> out;
    if (!plan.trusted_binary.empty()) {
        out.push_back("# trusted Surfpool binary " + plan.trusted_binary +
                      " (checked: device and inode): a one-shot container of its own, no relay; it may listen on "
                      "that container's loopback, which nothing outside reaches");
        return out;
    }
    if (plan.relay_ports.empty() && plan.run_ports.empty()) {
        out.push_back("# network: none; no loopback port is relayed (the policy allows none)");
        return out;
    }
    for (uint16_t port : plan.relay_ports)
        out.push_back("# Surfnet relay: container 127.0.0.1:" + std::to_string(port) + " -> host 127.0.0.1:" +
                      std::to_string(port) + " (through oms; TCP only)");
    for (uint16_t port : plan.run_ports)
        out.push_back("# this run's own port (egress proxy): container 127.0.0.1:" + std::to_string(port) +
                      " -> host 127.0.0.1:" + std::to_string(port) + " (through oms; TCP only" +
                      (warm ? "; held for this command alone, not part of the warm container)" : ")"));
    return out;
}

SurfnetPlan plan_surfnet(const RunInputs& in) {
    SurfnetPlan plan;
    plan.relay_ports = relay_ports(in.connect_ports);
    // A run port the fixed relay already carries (to the same host port) needs no hold of its own.
    for (uint16_t port : relay_ports(in.run_ports))
        if (!std::binary_search(plan.relay_ports.begin(), plan.relay_ports.end(), port)) plan.run_ports.push_back(port);
    if (in.argv.empty() || in.listen_binaries.empty()) return plan;
    const std::string command = resolved_command(in.argv[0], in.env, in.worktree);
    struct stat mine;
    if (command.empty() || stat(command.c_str(), &mine) != 0) return plan;
    for (const std::string& binary : in.listen_binaries) {
        struct stat trusted;
        if (stat(binary.c_str(), &trusted) != 0 || trusted.st_dev != mine.st_dev || trusted.st_ino != mine.st_ino)
            continue;
        if (!visible_in_container(command, in))
            throw sdk::Error(OMS_ERR_UNSUPPORTED, "docker: the trusted Surfpool binary " + command +
                                                      " is outside the worktree and the extra mounts: the container "
                                                      "cannot run it (add its folder with --ro)");
        plan.trusted_binary = command;
        plan.trusted_expect = std::to_string(mine.st_dev) + ":" + std::to_string(mine.st_ino) + ":" + command;
        plan.relay_ports.clear();  // its own loopback ports are its to listen on
        plan.run_ports.clear();
        return plan;
    }
    return plan;
}

}  // namespace oms::docker
