#include "warm_pool.hpp"

#include "cli_env.hpp"
#include "cli_process.hpp"
#include "daemon.hpp"
#include "json.hpp"
#include "runner_run.hpp"
#include "state_folder.hpp"
#include "tree_removal.hpp"
#include "warm_identity.hpp"

#include <oms/sdk.hpp>

#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <oms/text_file.hpp>

#include <cstdlib>

namespace oms::docker {

namespace {

long peer_pid(int connection) {
    ucred cred{};
    socklen_t length = sizeof cred;
    if (getsockopt(connection, SOL_SOCKET, SO_PEERCRED, &cred, &length) != 0) return -1;
    return cred.pid;
}

bool path_exists(const std::string& path) {
    struct stat st;
    return stat(path.c_str(), &st) == 0;
}

std::string trimmed(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
    return s;
}

// Once the runner listens, root takes the folder back: the container's user
// can still reach the socket (0711) but can no longer write into the folder.
// Without root, the container's user owns it (it is the caller) and could
// undo any such change, so it stays as it is.
void seal_socket_directory(const std::string& path) {
    if (geteuid() != 0) return;
    if (chown(path.c_str(), 0, 0) != 0 || chmod(path.c_str(), 0711) != 0)
        throw sdk::Error(OMS_ERR_FAILED, "docker: cannot take back " + path + ": " + std::strerror(errno));
}

bool container_running(const EngineClient& client, const std::string& name) {
    HttpResponse r = client.request("GET", "/containers/" + url_encode(name) + "/json");
    if (r.status != 200) return false;
    return json::flag(json::member(json::member(json::parse(r.body), "State"), "Running"));
}

}  // namespace

WarmPool::WarmPool(const Settings& settings, EngineClient client, std::string cli_path, std::string runner_path,
                   std::string state_dir)
    : settings_(settings),
      client_(std::move(client)),
      cli_path_(std::move(cli_path)),
      runner_path_(std::move(runner_path)),
      state_dir_(std::move(state_dir)) {}

std::string WarmPool::socket_path(const std::string& name) const {
    return runner_socket_dir(state_dir_, name) + "/" + kSocketName;
}

void WarmPool::prepare_socket_dir(const std::string& name, const std::string& user) const {
    if (state_dir_.empty()) throw sdk::Error(OMS_ERR_FAILED, "docker: warm mode needs oms's state folder");
    if (socket_path(name).size() >= 108)  // the longest name served there (runner_protocol.hpp)
        throw sdk::Error(OMS_ERR_FAILED, "docker: the state folder path " + state_dir_ +
                                             " is too long for a unix socket; use a shorter XDG_STATE_HOME or warm = false");
    docker_state_folder(state_dir_, "warm mode");  // 0700: keeps other host users away from the sockets
    lend_to_container(runner_socket_dir(state_dir_, name), user);  // the container's user creates the socket here
}

WarmContainer WarmPool::connect(const ContainerPlan& plan, const RunInputs& in) {
    const std::string hash = config_hash(plan, runner_path_);
    const std::string name = warm_name(in.worktree, hash);
    int fd = connect_runner(socket_path(name));
    const bool runner_gone = fd < 0 && errno == ECONNREFUSED;  // a socket nobody listens on
    if (fd >= 0 && genuine_runner(name, fd)) return WarmContainer{name, fd};
    if (fd >= 0 || runner_gone) {
        if (fd >= 0) close(fd);
        remove(name, name);  // tampered with, or its runner died: start afresh
    }
    sweep(in.worktree, name);
    prepare_socket_dir(name, plan.user);
    if (!create_container(plan, in, name, hash)) {
        // Taken: either another oms process of this task is starting it, or a
        // leftover with a dead runner holds the name. Give the first a moment.
        fd = wait_for_runner(name);
        for (int attempt = 0; fd >= 0 && attempt < 200 && !path_exists(pid_file(name)); ++attempt) usleep(5000);
        if (fd >= 0 && genuine_runner(name, fd)) return WarmContainer{name, fd};
        if (fd >= 0) close(fd);
        remove(name, name);
        if (!create_container(plan, in, name, hash))
            throw sdk::Error(OMS_ERR_FAILED, "docker: the container name " + name + " stays taken");
    }
    fd = wait_for_runner(name);
    if (fd < 0)
        throw sdk::Error(OMS_ERR_FAILED, "docker: the warm container " + name +
                                             " did not start its runner (see: docker logs " + name + ")");
    remember_runner(name, fd);  // no command has run in it yet: this is the runner
    seal_socket_directory(runner_socket_dir(state_dir_, name));
    return WarmContainer{name, fd};
}

std::string WarmPool::pid_file(const std::string& name) const {
    return state_dir_ + "/docker/" + name + ".runner-pid";  // outside the folder the container sees
}

void WarmPool::remember_runner(const std::string& name, int connection) const {
    oms::sdk::write_text_file(pid_file(name), std::to_string(peer_pid(connection)) + "\n");
}

bool WarmPool::genuine_runner(const std::string& name, int connection) const {
    const auto text = oms::sdk::read_text_file(pid_file(name), 64);
    const long expected = text ? std::strtol(text->c_str(), nullptr, 10) : -1;
    return expected > 0 && peer_pid(connection) == expected;
}

int WarmPool::wait_for_runner(const std::string& name) {
    const std::string path = socket_path(name);
    for (int attempt = 0; attempt < 2000; ++attempt) {  // up to ~10 s
        int fd = connect_runner(path);
        if (fd >= 0) return fd;
        if (attempt % 40 == 39 && !container_running(client_, name)) return -1;
        usleep(5000);
    }
    return -1;
}

bool WarmPool::create_container(const ContainerPlan& plan, const RunInputs& in, const std::string& name,
                                const std::string& hash) {
    std::vector<std::string> argv = warm_create_argv(settings_, plan, name, warm_labels(in.worktree, hash),
                                                     runner_path_, runner_socket_dir(state_dir_, name));
    argv[0] = cli_path_;
    CliResult result = run_captured(argv, cli_environment(in.parent_env, {}));
    if (result.exit_code == 0) return true;
    if (result.err.find("already in use") != std::string::npos) return false;
    throw sdk::Error(OMS_ERR_FAILED, "docker: cannot start the warm container " + name + ": " + trimmed(result.err));
}

void WarmPool::remove(const std::string& id, const std::string& name) {
    remove_container(client_, id);
    if (state_dir_.empty() || name.empty()) return;
    // Everything a command may have left in the socket folder goes with it.
    remove_tree(runner_socket_dir(state_dir_, name));
    unlink(pid_file(name).c_str());
    unlink((state_dir_ + "/docker/" + name + ".relay-lock").c_str());  // the Surfnet relay's (relayed_run)
}

std::vector<std::string> WarmPool::sweep(const std::string& worktree, const std::string& keep) {
    std::vector<std::string> removed;
    for (const ContainerSummary& c : containers_with_label(client_, std::string(kManagedLabel) + "=warm")) {
        auto label = c.labels.find(kWorktreeLabel);
        std::string owner = label == c.labels.end() ? "" : label->second;
        std::string name = warm_name(owner, c.labels.count(kConfigLabel) ? c.labels.at(kConfigLabel) : "");
        bool orphan = owner.empty() || !path_exists(owner);
        bool stale = owner == worktree && (name != keep || c.state != "running");
        if (orphan || stale) {
            remove(c.id, name);
            removed.push_back(c.id);
        }
    }
    return removed;
}

size_t WarmPool::end_task(const std::string& worktree) {
    auto containers = containers_with_label(client_, std::string(kWorktreeLabel) + "=" + worktree);
    size_t count = 0;
    for (const ContainerSummary& c : containers) {
        auto managed = c.labels.find(kManagedLabel);
        if (managed == c.labels.end() || managed->second != "warm") continue;
        auto hash = c.labels.find(kConfigLabel);
        remove(c.id, warm_name(worktree, hash == c.labels.end() ? "" : hash->second));
        ++count;
    }
    return count;
}

}  // namespace oms::docker
