#include "refusals.hpp"

#include "manifest.hpp"
#include "settings.hpp"

#include <oms/path.hpp>
#include <oms/sdk.hpp>

#include <climits>
#include <cstdlib>

namespace oms::docker {

namespace {

[[noreturn]] void refuse(const std::string& key, const std::string& why) {
    throw sdk::Error(OMS_ERR_INVALID, "[plugin.docker] " + key + ": " + why);
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    return s;
}

std::string strip_slashes(std::string p) {
    while (p.size() > 1 && p.back() == '/') p.pop_back();
    return p;
}

bool touches_docker_socket(const std::string& path, const std::string& socket) {
    for (const std::string& danger : {std::string("/var/run/docker"), std::string("/run/docker")})
        if (starts_with(path, danger)) return true;
    for (const std::string& sock : {std::string("/var/run/docker.sock"), std::string("/run/docker.sock"), socket})
        if (!sock.empty() && sdk::path::is_inside(sock, path)) return true;
    return false;
}

void check_size(const std::string& value, const char* key) {
    size_t digits = 0;
    while (digits < value.size() && value[digits] >= '0' && value[digits] <= '9') ++digits;
    std::string unit = lower(value.substr(digits));
    if (digits == 0 || !(unit.empty() || unit == "k" || unit == "m" || unit == "g"))
        refuse(key, "'" + value + "' is not a size such as 512m or 2g");
}

void check_cpus(const std::string& value) {
    char* end = nullptr;
    double cpus = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || !(cpus > 0)) refuse("cpus", "'" + value + "' is not a positive number");
}

// Flags that widen confinement, with the reason given to the user.
std::string dangerous_flag(const std::string& flag, const std::string& value) {
    const std::string v = lower(value);
    if (flag == "--privileged") return "privileged mode is refused: it gives the container every capability and device";
    if (flag == "--cap-add") return "added capabilities are refused: containers run with --cap-drop=ALL";
    if (flag == "--network" || flag == "--net")
        return v == "host" ? "host network is refused" : "set the network with the `network` key, not extra_args";
    if (flag == "--pid" || flag == "--ipc" || flag == "--uts" || flag == "--userns" || flag == "--cgroupns")
        return v == "host" || starts_with(v, "container:") ? "host " + flag.substr(2) + " namespace is refused"
                                                           : flag + " is not allowed in extra_args";
    if (flag == "--security-opt") {
        if (v.find("unconfined") != std::string::npos) return "unconfined seccomp or AppArmor is refused";
        return "--security-opt is fixed by the backend (no-new-privileges, default seccomp and AppArmor)";
    }
    if (flag == "-v" || flag == "--volume" || flag == "--mount" || flag == "--volumes-from" || flag == "--device") {
        if (v.find("docker") != std::string::npos && v.find("sock") != std::string::npos)
            return "mounting the Docker socket is refused: it is root on the host";
        return "mounts come from the policy (--ro/--rw), not extra_args";
    }
    if (flag == "--user" || flag == "-u") return "set the user with the `user` key (numeric, non-root)";
    return "";
}

bool vetted_flag(const std::string& flag) {
    static const char* const kVetted[] = {"--label",     "--ulimit",      "--shm-size",  "--add-host", "--dns",
                                          "--hostname",  "--runtime",     "--cpuset-cpus", "--stop-timeout",
                                          "--cpu-shares", "--memory-reservation"};
    for (const char* vetted : kVetted)
        if (flag == vetted) return true;
    return false;
}

}  // namespace

void check_network(const std::string& network) {
    const std::string v = lower(network);
    if (v.empty()) refuse("network", "must name a network (none, or a network you created)");
    if (v == "host") refuse("network", "host network is refused: the container would share the host's network stack");
    if (starts_with(v, "container:"))
        refuse("network", "'" + network + "' shares another container's network stack; name a network instead");
}

void check_extra_args(const std::vector<std::string>& args) {
    for (const std::string& arg : args) {
        size_t eq = arg.find('=');
        std::string flag = arg.substr(0, eq);
        std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
        std::string danger = dangerous_flag(flag, value);
        if (!danger.empty()) refuse("extra_args", "'" + arg + "': " + danger);
        if (!vetted_flag(flag))
            refuse("extra_args", "'" + arg + "' is not allowed (allowed: --label, --ulimit, --shm-size, --add-host, "
                                 "--dns, --hostname, --runtime, --cpuset-cpus, --stop-timeout, --cpu-shares, "
                                 "--memory-reservation, written --flag=value)");
        if (eq == std::string::npos || value.empty()) refuse("extra_args", "'" + arg + "' must be written --flag=value");
    }
}

void check_settings(const Settings& s) {
    if (!s.user.empty() && !user_problem(s.user).empty()) refuse("user", user_problem(s.user));
    check_network(s.network);
    check_size(s.memory, "memory");
    check_size(s.tmpfs_size, "tmpfs_size");
    check_cpus(s.cpus);
    check_extra_args(s.extra_args);
}

void check_mount(const std::string& path, const std::string& what, const std::string& socket) {
    if (path.empty() || path[0] != '/') refuse(what, "'" + path + "' is not an absolute path");
    if (path.find_first_of(",\n\"") != std::string::npos)
        refuse(what, "'" + path + "' contains ',', '\"' or a newline, which docker's --mount cannot carry");
    std::string lexical = strip_slashes(path);
    char resolved[PATH_MAX];
    std::string real = realpath(path.c_str(), resolved) ? std::string(resolved) : lexical;
    if (touches_docker_socket(lexical, socket) || touches_docker_socket(real, socket))
        refuse(what, "'" + path + "' is or contains the Docker socket (" + (socket.empty() ? "/var/run/docker.sock" : socket) +
                         "); access to it is root on the host");
}

}  // namespace oms::docker
