// Every refusal names its key and says why, whatever else the config says.
#include "refusals.hpp"
#include "settings.hpp"

#include <oms/sdk.hpp>

#include "plugin_harness.hpp"

#include <catch2/catch.hpp>

using namespace oms::docker;

namespace {

std::string settings_error(oms::test::FakeHost& host) {
    try {
        read_settings(oms::sdk::Host(host.api()));
    } catch (const oms::sdk::Error& e) {
        CHECK(e.status() == OMS_ERR_INVALID);
        return e.what();
    }
    return "";
}

std::string extra_args_error(const std::string& arg) {
    oms::test::FakeHost host;
    host.string_arrays["extra_args"] = {arg};
    return settings_error(host);
}

std::string mount_error(const std::string& path) {
    try {
        check_mount(path, "read-write mount (--rw)", "/var/run/docker.sock");
    } catch (const oms::sdk::Error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("refusals: dangerous extra_args are refused with the reason") {
    struct Row {
        const char* arg;
        const char* reason;
    } rows[] = {
        {"--privileged", "privileged mode is refused"},
        {"--privileged=true", "privileged mode is refused"},
        {"--cap-add=SYS_ADMIN", "added capabilities are refused"},
        {"--cap-add=ALL", "added capabilities are refused"},
        {"--network=host", "host network is refused"},
        {"--net=host", "host network is refused"},
        {"--network=bridge", "set the network with the `network` key"},
        {"--pid=host", "host pid namespace is refused"},
        {"--ipc=host", "host ipc namespace is refused"},
        {"--uts=host", "host uts namespace is refused"},
        {"--userns=host", "host userns namespace is refused"},
        {"--pid=container:abc", "host pid namespace is refused"},
        {"--security-opt=seccomp=unconfined", "unconfined seccomp or AppArmor is refused"},
        {"--security-opt=apparmor=unconfined", "unconfined seccomp or AppArmor is refused"},
        {"--security-opt=no-new-privileges=false", "--security-opt is fixed by the backend"},
        {"--volume=/var/run/docker.sock:/var/run/docker.sock", "mounting the Docker socket is refused"},
        {"-v=/run/docker.sock:/s", "mounting the Docker socket is refused"},
        {"--mount=type=bind,source=/var/run/docker.sock,target=/d.sock", "mounting the Docker socket is refused"},
        {"--volume=/etc:/etc", "mounts come from the policy"},
        {"--device=/dev/kvm", "mounts come from the policy"},
        {"--user=0", "set the user with the `user` key"},
        {"--read-only=false", "is not allowed"},
        {"--entrypoint=/bin/sh", "is not allowed"},
        {"--label", "must be written --flag=value"},
    };
    for (const Row& row : rows) {
        CAPTURE(row.arg);
        std::string error = extra_args_error(row.arg);
        CHECK(error.rfind("[plugin.docker] extra_args: '" + std::string(row.arg) + "'", 0) == 0);
        CHECK(error.find(row.reason) != std::string::npos);
    }
}

TEST_CASE("refusals: vetted extra_args pass") {
    for (const char* arg : {"--label=team=x", "--ulimit=nofile=1024:1024", "--shm-size=64m", "--runtime=runsc",
                            "--hostname=box", "--add-host=surfnet:127.0.0.1"}) {
        CAPTURE(arg);
        CHECK(extra_args_error(arg).empty());
    }
}

TEST_CASE("refusals: network, user and sizes name their key") {
    struct Row {
        const char* key;
        const char* value;
        const char* reason;
    } rows[] = {
        {"network", "host", "[plugin.docker] network: host network is refused"},
        {"network", "HOST", "[plugin.docker] network: host network is refused"},
        {"network", "container:db", "[plugin.docker] network: 'container:db' shares another container's"},
        {"network", "", "[plugin.docker] network: must name a network"},
        {"user", "0", "[plugin.docker] user: '0' is root"},
        {"user", "0:1000", "[plugin.docker] user: '0:1000' is root"},
        {"user", "1000:0", "[plugin.docker] user: '1000:0' has group 0"},
        {"user", "root", "[plugin.docker] user: 'root' must be a numeric uid:gid"},
        {"memory", "lots", "[plugin.docker] memory: 'lots' is not a size"},
        {"tmpfs_size", "1t", "[plugin.docker] tmpfs_size: '1t' is not a size"},
        {"cpus", "-1", "[plugin.docker] cpus: '-1' is not a positive number"},
    };
    for (const Row& row : rows) {
        CAPTURE(row.key, row.value);
        oms::test::FakeHost host;
        host.strings[row.key] = row.value;
        CHECK(settings_error(host).rfind(row.reason, 0) == 0);
    }
    oms::test::FakeHost host;
    host.integers["pids_limit"] = 0;
    CHECK(settings_error(host) == "[plugin.docker] pids_limit must be positive");
    oms::test::FakeHost fine;
    fine.strings["network"] = "oms-net";
    fine.strings["user"] = "1000";
    CHECK(settings_error(fine).empty());
}

TEST_CASE("refusals: the Docker socket, or a folder holding it, is never mounted") {
    for (const char* path : {"/var/run/docker.sock", "/run/docker.sock", "/var/run/docker", "/run/docker/plugins",
                             "/var/run", "/run", "/var", "/", "/var/run/"}) {
        CAPTURE(path);
        std::string error = mount_error(path);
        CHECK(error.rfind("[plugin.docker] read-write mount (--rw): '" + std::string(path) + "' is or contains the Docker socket", 0) == 0);
    }
    CHECK(mount_error("/srv/data").empty());  // control
    CHECK(mount_error("/var/lib/data").empty());
    CHECK(mount_error("/srv/a,b").find("cannot carry") != std::string::npos);
    CHECK(mount_error("relative").find("not an absolute path") != std::string::npos);
    // A custom socket location counts too.
    CHECK_THROWS_WITH(check_mount("/srv", "worktree", "/srv/sockets/docker.sock"),
                      Catch::Contains("[plugin.docker] worktree: '/srv' is or contains the Docker socket"));
}

TEST_CASE("settings: defaults and the Engine API socket") {
    oms::test::FakeHost host;
    Settings s = read_settings(oms::sdk::Host(host.api()));
    CHECK(s.network == "none");
    CHECK(s.pids_limit == 512);
    CHECK(s.memory == "2g");
    CHECK(s.cpus == "2");
    CHECK(s.warm);
    CHECK(socket_path(s, nullptr) == "/var/run/docker.sock");
    CHECK(socket_path(s, "unix:///tmp/d.sock") == "/tmp/d.sock");
    CHECK(socket_path(s, "tcp://10.0.0.1:2375").empty());
    s.socket = "/x.sock";
    CHECK(socket_path(s, "tcp://10.0.0.1:2375") == "/x.sock");
}
