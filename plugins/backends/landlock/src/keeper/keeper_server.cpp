#include "keeper_server.hpp"

#include "folder_watches.hpp"
#include "keeper_protocol.hpp"
#include "mount_watch.hpp"
#include "remembered_lists.hpp"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <optional>

namespace oms::landlock {

namespace {

// The user's other programs (editors, file watchers) share the per-user
// limit: take a quarter of it at most.
size_t default_max_watches() {
    std::ifstream limit("/proc/sys/fs/inotify/max_user_watches");
    size_t watches = 0;
    return (limit >> watches) ? watches / 4 : 0;
}

uint64_t own_mount_namespace() {
    struct stat st;
    return stat("/proc/self/ns/mnt", &st) == 0 ? uint64_t(st.st_ino) : 0;
}

int64_t seconds_now() {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec;
}

int64_t milliseconds_now() {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return int64_t(t.tv_sec) * 1000 + t.tv_nsec / 1'000'000;
}

bool own_folder(const std::string& folder) {
    struct stat st;
    return lstat(folder.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
           (st.st_mode & 022) == 0;
}

// Whether a keeper answers on the folder's socket (connect alone: an
// answering keeper accepts at once).
bool keeper_answers(const std::string& folder) {
    const std::string path = folder + "/" + kKeeperSocketName;
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.size() >= sizeof address.sun_path) return false;
    path.copy(address.sun_path, path.size());
    const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const bool answers = fd >= 0 && connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    if (fd >= 0) close(fd);
    return answers;
}

// How long a new keeper waits for one that is ending. A keeper is started
// only when none answered; one that still holds the lock then is ending (its
// idle time ran out, it was stopped or killed), and its exit can take a
// while: the kernel tears its inotify watches down first, waiting for RCU
// grace periods (tens of milliseconds for a few watches where grace periods
// are not expedited, the kernel's default; seconds for many). Without the
// wait, a launch in that moment started a keeper that exited at once, and
// no keeper served until a later launch started another.
constexpr int64_t kWaitForEndingKeeperMs = 10'000;

// Held as long as the process lives: a second keeper for the folder exits
// (at once when the holder answers; once it ended, the wait is over).
bool take_lock(const std::string& folder) {
    const int fd = open((folder + "/" + kKeeperLockName).c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return false;
    const int64_t until = milliseconds_now() + kWaitForEndingKeeperMs;
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {  // kept open on purpose once taken
        if (errno != EWOULDBLOCK || keeper_answers(folder) || milliseconds_now() >= until) {
            close(fd);
            return false;
        }
        usleep(20'000);
    }
    return true;
}

int listen_at(const std::string& path) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.size() >= sizeof address.sun_path) return -1;
    path.copy(address.sun_path, path.size());
    unlink(path.c_str());  // a socket left by a keeper that died; we hold the lock
    const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const mode_t old = umask(077);  // the socket itself: the user's only
    const bool ok = fd >= 0 && bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
                    listen(fd, 64) == 0;
    umask(old);
    if (!ok && fd >= 0) close(fd);
    return ok ? fd : -1;
}

class Keeper {
public:
    Keeper(const KeeperSettings& settings)
        : watches_(settings.max_watches ? settings.max_watches : default_max_watches()),
          mount_namespace_(own_mount_namespace()) {
        if (getrandom(id_.data(), id_.size(), 0) != ssize_t(id_.size())) id_ = {};
    }

    bool ready() const { return watches_.ready() && mounts_.ready() && id_ != KeeperId{}; }

    // One asker: answered from what is known now, then its root is watched
    // (after the answer, so the launcher does not wait for that walk).
    void serve(int client) {
        struct timeval limit{1, 0};
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
        setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof limit);
        ucred peer{};
        socklen_t size = sizeof peer;
        if (getsockopt(client, SOL_SOCKET, SO_PEERCRED, &peer, &size) != 0 || peer.uid != geteuid()) return;
        std::string bytes;
        KeeperRequest request;
        if (!receive_message(client, bytes) || !decode(bytes, request)) return;
        catch_up();
        KeeperAnswer answer;
        answer.now = KeeperMark{id_, watches_.now()};
        const bool same_view = request.mount_namespace == mount_namespace_;
        if (request.kind == KeeperAsk::remember) {
            answer.ticket = lists_.remember(request.root, std::move(request.folders));
        } else if (!request.folders.empty() || request.ticket == 0) {
            answer.unchanged = unchanged(request.folders, request.since, same_view);
        } else if (RememberedLists::List* list =
                       request.since.id == id_ ? lists_.find(request.ticket, request.root) : nullptr) {
            // Tickets are this keeper's own numbers: another keeper's cache
            // names another list by the same number.
            answer.ticket = request.ticket;
            answer.unchanged = unchanged(*list, request.since, same_view);
        }  // else: a ticket not known (any more); the asker sends its folders
        send_message(client, encode(answer));
        if (same_view) watches_.cover(request.root_path, {request.root.device, request.root.inode});
    }

    // One answer per folder: unchanged since `since`, as this keeper saw
    // it, from the mount namespace the folders were watched in.
    std::vector<bool> unchanged(const std::vector<KeeperFolder>& folders, const KeeperMark& since, bool same_view) {
        std::vector<bool> out;
        out.reserve(folders.size());
        const bool mine = since.id == id_;
        for (const auto& folder : folders)
            out.push_back(same_view && mine && watches_.unchanged_since({folder.device, folder.inode}, since.moment));
        return out;
    }

    // A remembered list's answer; when nothing changed since the last
    // check that found every folder unchanged since the same moment, that
    // check's answer, without a lookup per folder.
    std::vector<bool> unchanged(RememberedLists::List& list, const KeeperMark& since, bool same_view) {
        const bool as_before = same_view && since.id == id_ && list.all_unchanged &&
                               list.checked_since == since.moment && list.checked_at_changes == watches_.changes();
        if (as_before) return std::vector<bool>(list.folders.size(), true);
        std::vector<bool> out = unchanged(list.folders, since, same_view);
        list.all_unchanged = same_view && std::find(out.begin(), out.end(), false) == out.end();
        list.checked_since = since.moment;
        list.checked_at_changes = watches_.changes();
        return out;
    }

    // Events read as they come, so that the kernel's queue does not overflow.
    void catch_up() {
        watches_.drain();
        if (mounts_.changed()) watches_.lose_all();
    }

    // Folders left unwatched by a move or a loss are watched again; never
    // before an answer (those folders are simply not called unchanged), and
    // at most once a second: a command moving a large tree back and forth
    // would otherwise keep the keeper walking it.
    void tidy() {
        if (!watches_.needs_cover_again() || milliseconds_now() - covered_again_at_ < 1000) return;
        watches_.cover_again();
        covered_again_at_ = milliseconds_now();
    }

    // While it walks, whoever asks is turned away at once (the connection
    // closed unanswered: the start checks its folders itself) instead of
    // waiting out its 200 ms for an answer the walk would delay.
    void turn_away_while_walking(int listener) {
        watches_.set_pause([listener] {
            pollfd pending{listener, POLLIN, 0};
            while (poll(&pending, 1, 0) == 1 && (pending.revents & POLLIN)) {
                const int client = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
                if (client < 0) return;
                close(client);
            }
        });
    }

    bool tidy_pending() const { return watches_.needs_cover_again(); }
    int inotify_fd() const { return watches_.inotify_fd(); }
    int mounts_fd() const { return mounts_.fd(); }

private:
    FolderWatches watches_;
    RememberedLists lists_;
    MountWatch mounts_;
    uint64_t mount_namespace_;
    KeeperId id_{};
    int64_t covered_again_at_ = 0;
};

// SIGTERM, SIGINT and SIGHUP end the keeper as going idle does (its socket
// removed, and a sanitized build's leak check run at exit), read from a
// descriptor so that one arriving before a poll is not missed.
int stop_signals() {
    sigset_t stops;
    sigemptyset(&stops);
    for (int signal_number : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&stops, signal_number);
    if (sigprocmask(SIG_BLOCK, &stops, nullptr) != 0) return -1;
    return signalfd(-1, &stops, SFD_CLOEXEC | SFD_NONBLOCK);
}

}  // namespace

int run_scan_keeper(const KeeperSettings& settings) {
    if (!own_folder(settings.folder)) return 1;
    if (!take_lock(settings.folder)) return 0;  // another keeper serves this user
    Keeper keeper(settings);
    const std::string socket_path = settings.folder + "/" + kKeeperSocketName;
    const int stops = stop_signals();
    const int listener = keeper.ready() && stops >= 0 ? listen_at(socket_path) : -1;
    if (listener < 0) return 1;
    keeper.turn_away_while_walking(listener);
    int64_t last_asked = seconds_now();
    for (;;) {
        const int64_t left = settings.idle_seconds - (seconds_now() - last_asked);
        if (left <= 0) break;
        pollfd waits[4] = {{listener, POLLIN, 0},
                           {keeper.inotify_fd(), POLLIN, 0},
                           {keeper.mounts_fd(), POLLPRI, 0},
                           {stops, POLLIN, 0}};
        const int wait_ms = keeper.tidy_pending() ? 1000 : int(left * 1000);
        if (poll(waits, 4, wait_ms) < 0 && errno != EINTR) break;
        if (waits[3].revents & POLLIN) break;
        keeper.catch_up();
        keeper.tidy();
        if (!(waits[0].revents & POLLIN)) continue;
        const int client = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
        if (client < 0) continue;
        keeper.serve(client);
        close(client);
        keeper.tidy();
        last_asked = seconds_now();
    }
    unlink(socket_path.c_str());  // we still hold the lock: the socket is ours
    return 0;
}

}  // namespace oms::landlock
