// The scan keeper: a process of the user's own, outside every sandbox,
// that keeps inotify watches on the trees launchers search for keypairs and
// tells each launcher which folders of its cache are unchanged since the
// cache was made (folder_watches.hpp). It runs no program and reads no
// file's content; it lists folders and answers on a socket only its own
// user may use. It exits when no launcher asked for `idle_seconds`.
#pragma once
#include <string>

namespace oms::landlock {

struct KeeperSettings {
    std::string folder;  // the user's run folder base: the socket and the lock live there
    int idle_seconds = 600;
    size_t max_watches = 0;  // 0: a quarter of the user's inotify watch limit
};

// Returns the process's exit status: 0 when it ran and went idle, or when
// another keeper already serves `folder`; 1 when it could not start.
int run_scan_keeper(const KeeperSettings& settings);

}  // namespace oms::landlock
