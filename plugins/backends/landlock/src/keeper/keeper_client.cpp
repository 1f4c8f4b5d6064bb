#include "keeper_client.hpp"

#include "detached_program.hpp"

#include <stdlib.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

namespace oms::landlock {

namespace {

// An answer comes in well under a millisecond; a keeper busy walking a
// tree it was just asked to watch may take longer, and the launcher then
// does not wait for it.
constexpr timeval kAnswerLimit{0, 200'000};

uint64_t own_mount_namespace() {
    struct stat st;
    return stat("/proc/self/ns/mnt", &st) == 0 ? uint64_t(st.st_ino) : 0;
}

bool same_file(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

// A keeper of another build or install (an older oms, a package unpacked
// elsewhere) is not believed: its rules may not be this build's. It is asked
// to stop, through a descriptor of that very process (a pid reused meanwhile
// is not signalled), so that the next start runs this build's keeper.
void stop_foreign_keeper(pid_t pid) {
    const int process = int(syscall(SYS_pidfd_open, pid, 0));
    if (process < 0) return;
    char target[4096] = {};
    const std::string exe = "/proc/" + std::to_string(pid) + "/exe";
    const ssize_t n = readlink(exe.c_str(), target, sizeof target - 1);
    const std::string name = n > 0 ? std::string(target, size_t(n)) : "";
    const std::string program = std::string("/") + kKeeperProgram;
    const auto ends_with = [&](const std::string& tail) {
        return name.size() >= tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
    };
    if (ends_with(program) || ends_with(program + " (deleted)"))  // still a keeper's executable
        syscall(SYS_pidfd_send_signal, process, SIGTERM, nullptr, 0);
    close(process);
}

}  // namespace

std::string keeper_program_beside_plugin() { return helper_program_beside_plugin(kKeeperProgram); }

int KeeperClient::connect_to_keeper() const {
    const std::string path = folder_ + "/" + kKeeperSocketName;
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.size() >= sizeof address.sun_path) return -1;
    path.copy(address.sun_path, path.size());
    const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &kAnswerLimit, sizeof kAnswerLimit);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &kAnswerLimit, sizeof kAnswerLimit);
    ucred peer{};
    socklen_t size = sizeof peer;
    // Only a keeper of this user's own: another user cannot make a socket in
    // the base (0711, ours), but root could, and its answers are not ours.
    if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &size) != 0 || peer.uid != geteuid()) {
        close(fd);
        return -1;
    }
    struct stat running, ours;
    const std::string exe = "/proc/" + std::to_string(peer.pid) + "/exe";
    if (stat(exe.c_str(), &running) != 0 || stat(program_.c_str(), &ours) != 0 || !same_file(running, ours)) {
        close(fd);
        stop_foreign_keeper(peer.pid);
        return -2;
    }
    return fd;
}

// Detached (detached_program.hpp): it outlives this launch.
void KeeperClient::start_keeper() {
    if (started_ || program_.empty()) return;
    started_ = true;
    start_detached({program_, folder_, idle_});
}

std::optional<KeeperAnswer> KeeperClient::exchange(KeeperRequest& request, bool may_start) {
    if (folder_.empty() || program_.empty()) return std::nullopt;
    const int fd = connect_to_keeper();
    if (fd == -2) return std::nullopt;  // another build's, asked to stop: the next start runs ours
    if (fd < 0) {
        if (may_start) start_keeper();  // this launch checks every folder; the next one asks it
        return std::nullopt;
    }
    request.mount_namespace = own_mount_namespace();
    std::string bytes;
    KeeperAnswer answer;
    const bool ok = send_message(fd, encode(request)) && receive_message(fd, bytes) && decode(bytes, answer) &&
                    answer.now.known();
    close(fd);
    if (!ok) return std::nullopt;
    return answer;
}

std::optional<KeeperAnswer> KeeperClient::ask(KeeperRequest& request, size_t folders) {
    request.kind = KeeperAsk::unchanged;
    auto answer = exchange(request, true);
    if (!answer) return std::nullopt;
    const bool by_ticket = request.folders.empty() && request.ticket != 0;
    if (by_ticket && answer->ticket == 0 && answer->unchanged.empty()) return answer;  // a ticket it does not know
    // One word per folder the asker has: by its list, or by the ticket's
    // (the keeper's list under the ticket must be as long as the cache's).
    if (answer->unchanged.size() != folders || (by_ticket && answer->ticket != request.ticket)) return std::nullopt;
    return answer;
}

uint64_t KeeperClient::remember(const KeeperFolder& root, const std::string& root_path,
                                std::vector<KeeperFolder> folders) {
    KeeperRequest request;
    request.kind = KeeperAsk::remember;
    request.root = root;
    request.root_path = root_path;
    request.folders = std::move(folders);
    auto answer = exchange(request, false);
    return answer && answer->unchanged.empty() ? answer->ticket : 0;
}

}  // namespace oms::landlock
