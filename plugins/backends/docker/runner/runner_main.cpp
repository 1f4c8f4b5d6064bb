// oms-docker-runner: the idle process of a warm container, and the parent of
// every command run in it. Each command costs a fork here instead of a
// `docker exec` (a runtime process per command, ~100 ms or more). Commands
// inherit everything the container was given (user, no capabilities,
// no-new-privileges, seccomp, read-only root, cgroup limits, network), since
// they are ordinary children of a process inside it.
//
// The runner cannot be traced or read by the commands (non-dumpable, and
// the commands' seccomp filter refuses ptrace), so a command cannot take its
// place and forge a later command's output or status. It is each command's
// parent and holds oms's connection for it itself (no per-command process a
// command could stop in between), and it is PID 1, which no process inside
// can signal. When a command ends, every process it left is killed before
// its status goes back (leftovers.hpp: whatever is not another live
// command's or a helper's), so a warm container, like a one-shot one, keeps
// nothing of a command once it is over.
//
// Usage (inside the container):
//   oms-docker-runner [--expect=DEV:INO:PATH]... [--answer-dns] [--watch-connects] [--relay=PORT,...] SOCKET_PATH
//       serve commands on the socket
//   oms-docker-runner [--expect=DEV:INO:PATH]... [--answer-dns] [--watch-connects] [--relay=PORT,...] [--lifeline=PATH]
//                     [--keep-env=NAME]... --exec ARGV...
//       restrict, keep only the named variables (exact_env.hpp), then exec
//       ARGV: in place (a terminal command in a warm container), or, with
//       --lifeline, as the child of this PID 1 that ends the container when
//       oms goes away (a one-shot container: one_shot_supervisor.hpp)
//   oms-docker-runner --verify-launch PORT WAIT_MS COUNT SURFNET... -- CHECK...
//       oms verify's launcher (the SDK's oms/verify_launch.hpp), run as the command:
//       start the Surfnet, wait for its port, run the check, stop the Surfnet
// --answer-dns answers every name lookup on 127.0.0.1:53 with "no such host"
// (inner_resolver.hpp; network none, where oms binds a resolv.conf naming it).
// --watch-connects reports each command's refused connects to its oms
// (command_connects.hpp; network none).
// Before each command starts, the private HOME's files oms hands over in the
// command's environment (home_seed.hpp) are written into its HOME.
// --relay holds 127.0.0.1:PORT in the container for each port and carries its
// connections to the host's 127.0.0.1:PORT through oms (inner_relay.hpp), over
// relay.sock in the folder of SOCKET_PATH (/.oms/sock for --exec).
// A request's run ports (the run's own egress proxy port, runner_protocol.hpp)
// are held likewise, but for that one command: its own relay, over its run's
// own socket, started before the command and ended with it.
// Each --expect names a path bound from the host as oms checked it there
// (device and inode): anything else at that path (say, the target of a link
// swapped in before the daemon mounted it) stops the runner before any
// command runs.
// Statically linked: the image need not have a libc.
#include "command_connects.hpp"
#include "command_filter.hpp"
#include "exact_env.hpp"
#include "expectations.hpp"
#include "home_seed.hpp"
#include "host_peer.hpp"
#include "inner_relay.hpp"
#include "inner_resolver.hpp"
#include "leftovers.hpp"
#include "lookup_reports.hpp"
#include "loopback_listeners.hpp"
#include "one_shot_supervisor.hpp"
#include "published_relay.hpp"
#include "runner_protocol.hpp"
#include "runner_request.hpp"
#include "user_names.hpp"

#include <oms/verify_launch.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace oms::docker::runner;
namespace home_seed = oms::docker::home_seed;
namespace user_names = oms::docker::user_names;

namespace {

bool read_exact(int fd, void* data, size_t size) {
    char* p = static_cast<char*>(data);
    while (size > 0) {
        ssize_t n = read(fd, p, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        p += n;
        size -= static_cast<size_t>(n);
    }
    return true;
}

// Reads the header with its descriptors, then the payload.
bool receive(int conn, Request& req, std::string& payload) {
    uint32_t header[2];
    iovec io{header, sizeof header};
    alignas(cmsghdr) char control[CMSG_SPACE(3 * sizeof(int))];
    msghdr msg{};
    msg.msg_iov = &io;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t n = recvmsg(conn, &msg, MSG_CMSG_CLOEXEC | MSG_WAITALL);
    const bool known = header[0] == kMagic || header[0] == kMagicRunPorts;
    if (n != sizeof header || !known || header[1] > kMaxPayload) return false;
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(3 * sizeof(int))) return false;
    std::memcpy(req.fds, CMSG_DATA(c), 3 * sizeof(int));
    payload.resize(header[1]);
    return read_exact(conn, payload.data(), payload.size());
}

std::vector<char*> c_list(std::vector<std::string>& items) {
    std::vector<char*> out;
    for (auto& s : items) out.push_back(s.data());
    out.push_back(nullptr);
    return out;
}

// Takes the private HOME's files out of `env` (they are oms's, not the
// command's) and writes them into the HOME `env` names. False when they
// could not all be put there: the command is then not started (fail closed),
// since it would find what an earlier command of the task left instead.
bool seed_home(std::vector<std::string>& env, int error_fd) {
    const std::string prefix = std::string(home_seed::kVariable) + "=";
    std::string seed, home;
    for (auto e = env.begin(); e != env.end();) {
        if (e->rfind(prefix, 0) == 0) {
            seed = e->substr(prefix.size());
            e = env.erase(e);
            continue;
        }
        if (e->rfind("HOME=", 0) == 0) home = e->substr(5);
        ++e;
    }
    std::vector<home_seed::Entry> entries;
    if (seed.empty() || home.empty()) return true;  // no HOME (the policy denies it): nowhere to put them
    const bool seeded = home_seed::decode(seed, entries) && home_seed::write_into(home, entries, error_fd);
    if (!seeded)
        dprintf(error_fd, "oms: the private HOME's files could not all be put into HOME; the command is not started "
                          "(oms task end gives the task a new container)\n");
    return seeded;
}

std::vector<std::string> own_environment() {
    std::vector<std::string> env;
    for (char** e = environ; e && *e; ++e) env.emplace_back(*e);
    return env;
}

// What every command's environment goes through last, warm or one-shot: the
// private HOME's files taken out and written into HOME, USER/LOGNAME naming
// the container's user. False when HOME could not be seeded (fail closed).
bool prepare_command_env(std::vector<std::string>& env) {
    if (!seed_home(env, 2)) return false;
    user_names::rewrite(env, user_names::name_of(getuid()));
    return true;
}

// After a failed exec, as a shell does: 127 when there is nothing to run
// ("command not found" for a name looked up on PATH), 126 when the file is
// there but cannot be run, said in the shell's words on the command's stderr.
[[noreturn]] void exit_as_a_shell(const char* program, int error) {
    const bool missing = error == ENOENT || error == ENOTDIR;
    const char* reason = missing && !std::strchr(program, '/') ? "command not found" : std::strerror(error);
    dprintf(2, "oms: %s: %s (inside the container)\n", program, reason);
    _exit(missing ? 127 : 126);
}

[[noreturn]] void become_command(Request& req, int connect_watch_channel) {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int s = 1; s < NSIG; ++s) signal(s, SIG_DFL);
    setsid();  // its session and group: what the runner kills with it, what a signal from oms reaches
    for (int i = 0; i < 3; ++i) dup2(req.fds[i], i);  // dup2 clears close-on-exec
    if (!prepare_command_env(req.env)) _exit(126);
    if (!restrict_command(connect_watch_channel)) {
        dprintf(2, "oms: cannot restrict the command (seccomp): %s\n", std::strerror(errno));
        _exit(126);
    }
    if (chdir(req.cwd.c_str()) != 0) {
        dprintf(2, "oms: cannot enter %s: %s\n", req.cwd.c_str(), std::strerror(errno));
        _exit(126);
    }
    // execvpe searches the command's own PATH, from its environment.
    for (auto& e : req.env)
        if (e.rfind("PATH=", 0) == 0) setenv("PATH", e.c_str() + 5, 1);
    auto argv = c_list(req.argv);
    auto env = c_list(req.env);
    execvpe(argv[0], argv.data(), env.data());
    exit_as_a_shell(req.argv[0].c_str(), errno);
}

int exit_status(int status) { return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status); }

// One command of the warm container, from its request to its status. The
// runner itself is the command's parent and keeps oms's connection: no
// process a command can stop or kill stands between the command's end and
// the killing of what it left.
struct LiveCommand {
    int conn = -1;  // oms's: signal numbers in, the status out; -1 once oms let go
    int err = -1;   // the command's stderr, for the runner's notes
    pid_t pid = -1; // also its session and process group
    int pidfd = -1;
    long hits_before = -1;
    bool ended = false;     // reaped: `status` holds how
    bool finished = false;  // its leftovers killed, its status sent
    int status = 0;
    CommandLookups lookups;  // the refused names its oms was told of
    ConnectWatch connects;   // where its processes tried to connect
    // The run's own ports, held for this command alone, and their relay
    // (0 when it ended: started again while the command runs).
    std::vector<uint16_t> run_ports;
    std::vector<int> run_listeners;
    std::string run_socket;
    pid_t run_relay = 0;
};

// With --watch-connects (network none): each command's refused connects are
// reported to its oms (command_connects.hpp).
bool watch_connects = false;

// A note on the command's stderr, given up after a moment rather than
// stalling every command when oms does not drain that pipe.
void note(int fd, const char* text) {
    pollfd out{fd, POLLOUT, 0};
    if (poll(&out, 1, 200) == 1 && (out.revents & POLLOUT)) (void)!write(fd, text, std::strlen(text));
}

void close_command(LiveCommand& c) {
    for (int* fd : {&c.conn, &c.err, &c.pidfd})
        if (*fd >= 0) close(*fd), *fd = -1;
    c.connects.close_all();
    for (int fd : c.run_listeners) close(fd);
    c.run_listeners.clear();
}

// The run's own ports, held for this command before it starts: each
// 127.0.0.1:P with a relay of its own over the run's socket, and the word
// to oms (runner_protocol.hpp). False when one is taken (oms is told; the
// command is not started). `not_for_relay`: the runner's descriptors.
bool hold_run_ports(int conn, const Request& req, std::vector<int> not_for_relay, LiveCommand& c) {
    const uint32_t held = kRunPortsHeld, taken = kRunPortsTaken;
    if (!hold_relay_ports(req.run_ports, c.run_listeners)) {
        (void)!send(conn, &taken, sizeof taken, MSG_NOSIGNAL);
        return false;
    }
    c.run_ports = req.run_ports;
    c.run_socket = std::string("/.oms/sock/") + run_relay_socket_name(req.run_ports.front());
    not_for_relay.insert(not_for_relay.end(), {conn, req.fds[0], req.fds[1], req.fds[2]});
    c.run_relay = fork_relay(c.run_listeners, c.run_ports, c.run_socket.c_str(), false, not_for_relay);
    if (c.run_relay < 0 || send(conn, &held, sizeof held, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof held)) {
        if (c.run_relay > 0) kill(c.run_relay, SIGKILL);
        c.run_relay = 0;
        close_command(c);
        return false;
    }
    return true;
}

// Receives a request on `conn` and forks its command (the runner's child, a
// session of its own); false when the request was bad or the fork failed.
bool start_command(int conn, const std::vector<int>& close_in_child, LiveCommand& c) {
    Request req;
    std::string payload;
    timeval patience{5, 0};  // oms sends the request at once; a stalled peer must not stall the runner
    setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &patience, sizeof patience);
    const bool received = receive(conn, req, payload) && parse_request(payload, req);
    if (!received || (!req.run_ports.empty() && !hold_run_ports(conn, req, close_in_child, c))) {
        for (int fd : req.fds)
            if (fd >= 0) close(fd);
        return false;
    }
    c.hits_before = pids_limit_hits();
    const bool watched = watch_connects && req.report_lookups && c.connects.open();
    const pid_t child = fork();
    if (child == 0) {
        for (int fd : close_in_child) close(fd);
        for (int fd : c.run_listeners) close(fd);  // the runner's: no command may accept on them
        become_command(req, watched ? c.connects.command_end() : -1);
    }
    c.connects.forked();
    for (int i = 0; i < 2; ++i) close(req.fds[i]);
    c.err = req.fds[2];
    if (child < 0) {
        dprintf(c.err, "oms: the warm container cannot start the command: %s\n", std::strerror(errno));
        if (c.run_relay > 0) kill(c.run_relay, SIGKILL);
        close_command(c);
        return false;
    }
    c.conn = conn;
    c.lookups.wanted = req.report_lookups;
    c.lookups.untraced_frames = req.report_untraced;
    c.pid = child;
    c.pidfd = static_cast<int>(syscall(SYS_pidfd_open, child, 0));
    return true;
}

// A signal number from oms is forwarded to the command's group; oms closing
// the connection first kills the command (it released the run without waiting).
void take_from_host(LiveCommand& c) {
    uint32_t sig = 0;
    if (read_exact(c.conn, &sig, sizeof sig)) {
        if (sig > 0 && sig < NSIG && kill(-c.pid, static_cast<int>(sig)) != 0) kill(c.pid, static_cast<int>(sig));
        return;
    }
    close(c.conn);
    c.conn = -1;
    kill(-c.pid, SIGKILL);
    kill(c.pid, SIGKILL);
}

int listen_on(const char* path) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (std::strlen(path) >= sizeof address.sun_path) return -1;
    std::strcpy(address.sun_path, path);
    unlink(path);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    // The host side may run as another uid than the container's user.
    mode_t previous = umask(0);
    bool ok = fd >= 0 && bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 && listen(fd, 64) == 0;
    umask(previous);
    return ok ? fd : -1;
}


// The environment docker gave this process, cut to the policy's names
// (`kept_env`): docker adds HOSTNAME and the image's ENV entries.
[[noreturn]] void exec_restricted(char** argv, const std::vector<std::string>& kept_env, int connect_watch_channel) {
    std::vector<std::string> env = own_environment();
    keep_only_env(env, kept_env);
    if (!prepare_command_env(env)) _exit(126);
    auto env_list = c_list(env);
    environ = env_list.data();
    if (!restrict_command(connect_watch_channel)) {
        std::fprintf(stderr, "oms: cannot restrict the command (seccomp): %s\n", std::strerror(errno));
        _exit(126);
    }
    execvp(argv[0], argv);
    exit_as_a_shell(argv[0], errno);
}

// The runner's helpers, started again when they end (a command of the same uid can kill them).
struct Helpers {
    pid_t relay = 0, resolver = 0, publisher = 0;
    int publish_listener = -1;  // pub.sock, when the runner was asked to serve it
    bool resolving = false;
    int askers = -1, resolver_end = -1;  // the resolver's refusals with who asked (lookup_reports.hpp)
    std::vector<int> relay_listeners;
    std::vector<uint16_t> relay_ports;
    std::string relay_socket;

    // `command_fds`: the live commands' descriptors and the server's, which
    // a helper started while they run must not keep.
    void restart_ended(const std::vector<int>& command_fds) {
        if (relay == 0 && !relay_listeners.empty()) {
            std::vector<int> not_for_relay = command_fds;
            for (int fd : {askers, resolver_end, publish_listener})
                if (fd >= 0) not_for_relay.push_back(fd);
            relay = std::max(0, fork_relay(relay_listeners, relay_ports, relay_socket.c_str(), false, not_for_relay));
        }
        if (publisher == 0 && publish_listener >= 0) {
            std::vector<int> not_for_publisher = command_fds;
            for (int fd : relay_listeners) not_for_publisher.push_back(fd);
            for (int fd : {askers, resolver_end})
                if (fd >= 0) not_for_publisher.push_back(fd);
            publisher = std::max(0, fork_publish_relay(publish_listener, false, not_for_publisher));
        }
        if (resolver == 0 && resolving) {
            std::vector<int> not_for_resolver = command_fds;
            for (int fd : {askers, publish_listener})
                if (fd >= 0) not_for_resolver.push_back(fd);
            resolver = std::max(0, fork_resolver(false, nullptr, not_for_resolver, resolver_end));
        }
    }
};

// Reaps every ended child: a command's status is kept for its reply, a
// helper is marked for a restart, a leftover is just gone. A helper that a
// command stopped (SIGSTOP, of the same uid) is killed, so that it is
// started again: stopped, it would answer no command of the task.
void reap_children(std::vector<LiveCommand>& commands, Helpers& helpers) {
    int status = 0;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG | WUNTRACED)) > 0) {
        if (WIFSTOPPED(status)) {
            if (pid == helpers.relay || pid == helpers.resolver || pid == helpers.publisher) kill(pid, SIGKILL);
            for (const LiveCommand& c : commands)
                if (pid == c.run_relay) kill(pid, SIGKILL);
            continue;  // a stopped command or leftover has not ended
        }
        for (LiveCommand& c : commands) {
            if (c.pid == pid) c.ended = true, c.status = status;
            if (c.run_relay == pid) c.run_relay = 0;
        }
        for (pid_t* helper : {&helpers.relay, &helpers.resolver, &helpers.publisher})
            if (*helper == pid) *helper = 0;
    }
}

// What no command may take with it: the other commands and the helpers.
std::vector<pid_t> kept_pids(const std::vector<LiveCommand>& commands, const LiveCommand* ending,
                             const Helpers& helpers) {
    std::vector<pid_t> kept;
    for (const LiveCommand& c : commands)
        if (&c != ending && !c.ended) kept.push_back(c.pid);
    for (const LiveCommand& c : commands)  // a live command's own relay, the ending one's goes
        if (&c != ending && c.run_relay > 0) kept.push_back(c.run_relay);
    for (pid_t helper : {helpers.relay, helpers.resolver, helpers.publisher})
        if (helper > 0) kept.push_back(helper);
    return kept;
}

// The command ended: whatever it left is killed, with a note on its stderr,
// before its status goes back to oms (so is a fork the pids limit refused
// meanwhile: a fork bomb that left the group still shows that way).
void finish_command(LiveCommand& c, std::vector<LiveCommand>& commands, Helpers& helpers) {
    const auto reap = [&] { reap_children(commands, helpers); };
    if (c.run_relay > 0) kill(c.run_relay, SIGKILL);  // the run's ports are held no longer than its command
    for (int fd : c.run_listeners) close(fd);
    c.run_listeners.clear();
    if (kill_unclaimed(kept_pids(commands, &c, helpers), reap))
        note(c.err, "oms: the command left processes running; they were killed when it ended\n");
    if (c.hits_before >= 0 && pids_limit_hits() > c.hits_before)
        note(c.err, "oms: the container's process limit refused forks while the command ran\n");
    if (c.conn >= 0) {  // never waits: lookup frames leave it room (lookup_reports.hpp)
        uint32_t code = static_cast<uint32_t>(exit_status(c.status));
        (void)!send(c.conn, &code, sizeof code, MSG_DONTWAIT | MSG_NOSIGNAL);
    }
    close_command(c);
    c.finished = true;
}

// The descriptors the runner holds for itself and its commands: what no
// process it starts may keep.
std::vector<int> runner_fds(int server, const std::vector<LiveCommand>& commands) {
    std::vector<int> fds{server};
    for (const LiveCommand& c : commands)
        for (int fd : {c.conn, c.err, c.pidfd, c.connects.descriptor()})
            if (fd >= 0) fds.push_back(fd);
    for (const LiveCommand& c : commands) fds.insert(fds.end(), c.run_listeners.begin(), c.run_listeners.end());
    return fds;
}

// A live command's relay that ended (a command of the same uid can kill it)
// is started again, without any descriptor of the runner but its listeners.
void restart_run_relays(int server, std::vector<LiveCommand>& commands, const Helpers& helpers) {
    for (LiveCommand& c : commands) {
        if (c.ended || c.run_relay != 0 || c.run_listeners.empty()) continue;
        std::vector<int> not_for_relay;
        for (int fd : runner_fds(server, commands))
            if (std::find(c.run_listeners.begin(), c.run_listeners.end(), fd) == c.run_listeners.end())
                not_for_relay.push_back(fd);
        not_for_relay.insert(not_for_relay.end(), helpers.relay_listeners.begin(), helpers.relay_listeners.end());
        for (int fd : {helpers.askers, helpers.resolver_end, helpers.publish_listener})
            if (fd >= 0) not_for_relay.push_back(fd);
        c.run_relay = std::max(0, fork_relay(c.run_listeners, c.run_ports, c.run_socket.c_str(), false, not_for_relay));
    }
}

// The command a refused lookup came from: the one whose session asked, or
// one whose process is an ancestor of the asker (a process that made a
// session of its own); nullptr when neither is found.
LiveCommand* command_of(std::vector<LiveCommand>& commands, const AskerProcess& asker) {
    if (asker.pid <= 0) return nullptr;
    for (LiveCommand& c : commands)
        if (c.pid == asker.session) return &c;
    pid_t at = asker.pid;
    for (int depth = 0; depth < 64 && at > 1; ++depth, at = parent_of(at))
        for (LiveCommand& c : commands)
            if (c.pid == at) return &c;
    return nullptr;
}

// Each queued refusal to the command that asked; one whose asker is not
// found (it closed its socket first, or hid its descriptors) to every
// command, so that no refusal goes unreported.
void pass_on_lookups(int askers, std::vector<LiveCommand>& commands) {
    AskerReport report;
    for (int i = 0; i < 256 && receive_asker_report(askers, report); ++i) {
        if (report.name.empty()) continue;
        if (LiveCommand* c = command_of(commands, report.asker)) {
            tell_command(c->conn, c->lookups, report.name, true);
            continue;
        }
        for (LiveCommand& c : commands)
            if (!c.finished) tell_command(c.conn, c.lookups, report.name, false);
    }
}

// The runner's loop: new commands on `server`, signals and hang-ups from
// oms, commands' ends; with no command running, nothing but the helpers is
// left alive.
[[noreturn]] void serve_commands(int server, Helpers& helpers) {
    std::vector<LiveCommand> commands;
    ListenerLooks looks;
    for (;;) {
        std::vector<pollfd> fds{{server, POLLIN, 0}};
        if (helpers.askers >= 0) fds.push_back({helpers.askers, POLLIN, 0});
        for (const LiveCommand& c : commands) {
            if (c.conn >= 0) fds.push_back({c.conn, POLLIN, 0});
            if (c.pidfd >= 0) fds.push_back({c.pidfd, POLLIN, 0});
            if (c.connects.descriptor() >= 0) fds.push_back({c.connects.descriptor(), POLLIN, 0});
        }
        const bool polling_ends = std::all_of(commands.begin(), commands.end(), [](auto& c) { return c.pidfd >= 0; });
        const int n = poll(fds.data(), fds.size(), polling_ends ? 1000 : 50);
        // First: a command's connect waits for its answer.
        for (size_t i = 1; n > 0 && i < fds.size(); ++i)
            for (LiveCommand& c : commands)
                if (fds[i].revents && fds[i].fd == c.connects.descriptor())
                    c.connects.serve(fds[i].revents, [&c, &looks](const oms::connect_watch::Call& call) {
                        if (refused(call, looks)) tell_command_refused(c.conn, c.lookups, call);
                    });
        // Before any end is sent: the resolver queued a refusal before its answer.
        if (helpers.askers >= 0) pass_on_lookups(helpers.askers, commands);
        reap_children(commands, helpers);
        helpers.restart_ended(runner_fds(server, commands));
        restart_run_relays(server, commands, helpers);
        for (size_t i = 1; n > 0 && i < fds.size(); ++i)
            for (LiveCommand& c : commands)
                if (fds[i].fd == c.conn && (fds[i].revents & (POLLIN | POLLHUP | POLLERR))) take_from_host(c);
        reap_children(commands, helpers);
        for (bool again = true; again;) {  // finishing one may reap another
            again = false;
            for (LiveCommand& c : commands)
                if (c.ended && !c.finished) finish_command(c, commands, helpers), again = true;
        }
        commands.erase(std::remove_if(commands.begin(), commands.end(), [](auto& c) { return c.finished; }),
                       commands.end());
        if (commands.empty()) kill_unclaimed(kept_pids(commands, nullptr, helpers), [&] { reap_children(commands, helpers); });
        if (n <= 0 || !(fds[0].revents & POLLIN)) continue;
        int conn = accept4(server, nullptr, nullptr, SOCK_CLOEXEC);
        if (conn < 0) continue;
        if (!peer_is_outside_container(conn)) {  // a command asking for a command of its own
            close(conn);
            continue;
        }
        std::vector<int> close_in_child = runner_fds(server, commands);
        close_in_child.insert(close_in_child.end(), helpers.relay_listeners.begin(), helpers.relay_listeners.end());
        for (int fd : {helpers.askers, helpers.resolver_end, helpers.publish_listener})
            if (fd >= 0) close_in_child.push_back(fd);
        LiveCommand started;
        if (start_command(conn, close_in_child, started)) commands.push_back(started);
        else close(conn);
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc >= 2 && std::strcmp(argv[1], "--verify-launch") == 0)
        return oms::verify_launch::run(std::vector<std::string>(argv + 2, argv + argc));
    int argi = 1;
    if (!expectations_hold(argi, argc, argv)) return 125;
    const bool answer_dns = answer_dns_from(argi, argc, argv);
    const bool watch_connects_flag = argi < argc && std::strcmp(argv[argi], "--watch-connects") == 0 && ++argi;
    std::vector<uint16_t> relay_ports;
    if (!relay_ports_from(argi, argc, argv, relay_ports)) return 125;
    const char* publish_socket = publish_relay_from(argi, argc, argv);
    const std::string relay_socket = std::string("/.oms/sock/") + kRelaySocketName;
    const char* lifeline = lifeline_from(argi, argc, argv);
    std::vector<std::string> kept_env;
    kept_env_names_from(argi, argc, argv, kept_env);
    if (argc - argi >= 2 && std::strcmp(argv[argi], "--exec") == 0) {
        if (start_inner_relay(relay_ports, relay_socket.c_str(), true) < 0) return 125;
        if (publish_socket) {  // one-shot: the helper outlives the runner's exec of the command
            const int listener = listen_on(publish_socket);
            const pid_t helper = listener < 0 ? -1 : fork_publish_relay(listener, true);
            if (listener >= 0) close(listener);
            if (helper < 0) {
                std::fprintf(stderr, "oms-docker-runner: cannot serve %s: %s\n", publish_socket, std::strerror(errno));
                return 125;
            }
        }
        const std::string lookup_reports = std::string("/.oms/sock/") + kLookupReportSocketName;
        if (answer_dns && hold_dns_port() && fork_resolver(true, lifeline ? lookup_reports.c_str() : nullptr) < 0)
            return 125;
        char** command = argv + argi + 1;
        // One-shot: PID 1, reporting the command's refused connects with
        // --watch-connects (network none: oms serves lookups.sock then).
        const char* connect_reports = watch_connects_flag ? lookup_reports.c_str() : nullptr;
        if (lifeline)
            supervise(lifeline, connect_reports, [&](int channel) { exec_restricted(command, kept_env, channel); });
        exec_restricted(command, kept_env, -1);  // a terminal command exec'd into a warm container
    }
    if (argc - argi != 1) {
        std::fprintf(stderr, "usage: oms-docker-runner [--expect=DEV:INO:PATH]... SOCKET_PATH | [--keep-env=NAME]... --exec ARGV...\n");
        return 2;
    }
    // Non-dumpable: a process of the same uid cannot ptrace it or open its
    // /proc/PID/mem; the commands lose it at exec. As the container's PID 1
    // it gets no signal a process inside sends (none it has no handler for,
    // never SIGKILL or SIGSTOP), so it cannot be stopped or killed from inside.
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 || prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) {
        std::fprintf(stderr, "oms-docker-runner: cannot protect itself: %s\n", std::strerror(errno));
        return 1;
    }
    umask(022);
    // The runner holds the relayed ports for the container's life, so no
    // command can take them, and starts the relay again if it ends (a
    // command of the same uid can kill it).
    std::vector<int> relay_listeners;
    if (!hold_relay_ports(relay_ports, relay_listeners)) return 1;
    pid_t relay = relay_listeners.empty() ? 0 : fork_relay(relay_listeners, relay_ports, relay_socket.c_str(), false);
    if (relay < 0) return 1;
    // Likewise 127.0.0.1:53: held here, answered by a child started again when it ends.
    const bool resolving = answer_dns && hold_dns_port();
    int askers[2] = {-1, -1};  // the runner's end, the resolver's
    if (resolving && socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, askers) != 0) askers[0] = askers[1] = -1;
    pid_t resolver = resolving ? fork_resolver(false, nullptr, {askers[0]}, askers[1]) : 0;
    if (resolver < 0) return 1;
    // Before the runner's own socket: oms waits for that one, and then finds this one too.
    int publish_listener = -1;
    pid_t publisher = 0;
    if (publish_socket) {
        publish_listener = listen_on(publish_socket);
        publisher = publish_listener < 0 ? -1 : fork_publish_relay(publish_listener, false);
        if (publisher < 0) {
            std::fprintf(stderr, "oms-docker-runner: cannot serve %s: %s\n", publish_socket, std::strerror(errno));
            return 1;
        }
    }
    int server = listen_on(argv[argi]);
    if (server < 0) {
        std::fprintf(stderr, "oms-docker-runner: cannot listen on %s: %s\n", argv[argi], std::strerror(errno));
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);
    // A handler (not SIG_IGN, no SA_RESTART): a child's end interrupts the
    // poll, so leftovers are reaped and killed without waiting for it.
    struct sigaction on_child {};
    on_child.sa_handler = [](int) {};
    sigaction(SIGCHLD, &on_child, nullptr);
    watch_connects = watch_connects_flag;
    Helpers helpers{relay, resolver, publisher, publish_listener, resolving, askers[0], askers[1], relay_listeners,
                    relay_ports, relay_socket};
    serve_commands(server, helpers);
}
