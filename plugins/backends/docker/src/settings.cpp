#include "settings.hpp"

#include "refusals.hpp"

namespace oms::docker {

namespace {

constexpr oms_config_key key(const char* name, oms_config_type type, const char* description) {
    return oms_config_key{sizeof(oms_config_key), name, type, 0, description};
}

const oms_config_key kKeys[] = {
    key("manifest", OMS_CONFIG_STRING, "path of the runtime manifest that pins the image (image = \"sha256:...\")"),
    key("user", OMS_CONFIG_STRING,
        "numeric uid:gid the command runs as (default: manifest's, else the worktree's owner; a worktree root owns needs it set)"),
    key("network", OMS_CONFIG_STRING, "docker network for the container (default none; host is refused)"),
    key("memory", OMS_CONFIG_STRING, "memory limit, swap included (default 2g)"),
    key("cpus", OMS_CONFIG_STRING, "CPU limit (default 2)"),
    key("pids_limit", OMS_CONFIG_INTEGER, "maximum number of processes in the container (default 512)"),
    key("tmpfs_size", OMS_CONFIG_STRING, "size of the /tmp and HOME tmpfs mounts (default 512m)"),
    key("warm", OMS_CONFIG_BOOLEAN, "keep one container per task and exec each command in it (default true)"),
    key("report_connects", OMS_CONFIG_BOOLEAN,
        "with network none, report connects refused off the container's loopback or to its closed ports "
        "(default true): each connect then waits for the runner (a seccomp user notification); false: no such "
        "filter, for a command that needs seccomp user notification itself (the kernel allows one listener per "
        "process)"),
    key("extra_args", OMS_CONFIG_STRING_ARRAY, "extra docker run flags, --flag=value, from a vetted list"),
    key("docker", OMS_CONFIG_STRING, "the docker CLI (default: docker from PATH)"),
    key("socket", OMS_CONFIG_STRING, "Engine API unix socket (default: DOCKER_HOST, else /var/run/docker.sock)"),
};

void require_positive(int64_t value, const char* name) {
    if (value <= 0)
        throw sdk::Error(OMS_ERR_INVALID, std::string("[plugin.docker] ") + name + " must be positive");
}

void require_nonempty(const std::string& value, const char* name) {
    if (value.empty()) throw sdk::Error(OMS_ERR_INVALID, std::string("[plugin.docker] ") + name + " must not be empty");
}

}  // namespace

const oms_config_key* config_keys() { return kKeys; }
size_t config_key_count() { return sizeof kKeys / sizeof kKeys[0]; }

Settings read_settings(const sdk::Host& host) {
    Settings s;
    s.manifest = host.string("manifest").value_or(s.manifest);
    s.user = host.string("user").value_or(s.user);
    s.network = host.string("network").value_or(s.network);
    s.memory = host.string("memory").value_or(s.memory);
    s.cpus = host.string("cpus").value_or(s.cpus);
    s.pids_limit = host.integer("pids_limit").value_or(s.pids_limit);
    s.tmpfs_size = host.string("tmpfs_size").value_or(s.tmpfs_size);
    s.warm = host.boolean("warm").value_or(s.warm);
    s.report_connects = host.boolean("report_connects").value_or(s.report_connects);
    s.extra_args = host.strings("extra_args");
    s.docker = host.string("docker").value_or(s.docker);
    s.socket = host.string("socket").value_or(s.socket);

    require_positive(s.pids_limit, "pids_limit");
    for (auto [value, name] : {std::pair{&s.memory, "memory"}, {&s.cpus, "cpus"}, {&s.tmpfs_size, "tmpfs_size"},
                               {&s.docker, "docker"}})
        require_nonempty(*value, name);
    check_settings(s);
    return s;
}

std::string socket_path(const Settings& settings, const char* docker_host) {
    if (!settings.socket.empty()) return settings.socket;
    const std::string scheme = "unix://";
    if (docker_host && *docker_host) {
        std::string host = docker_host;
        if (host.compare(0, scheme.size(), scheme) == 0) return host.substr(scheme.size());
        return "";
    }
    return "/var/run/docker.sock";
}

}  // namespace oms::docker
