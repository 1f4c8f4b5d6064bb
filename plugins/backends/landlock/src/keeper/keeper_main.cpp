// oms-scan-keeper FOLDER [IDLE_SECONDS [MAX_WATCHES]]: started by the
// landlock backend, detached from the launcher (keeper_server.hpp).
#include "keeper_server.hpp"

#include <cstdlib>

int main(int argc, char** argv) {
    if (argc < 2 || argc > 4) return 2;
    oms::landlock::KeeperSettings settings;
    settings.folder = argv[1];
    if (argc > 2) settings.idle_seconds = std::atoi(argv[2]);
    if (argc > 3) settings.max_watches = size_t(std::strtoull(argv[3], nullptr, 10));
    if (settings.folder.empty() || settings.folder[0] != '/' || settings.idle_seconds <= 0) return 2;
    return oms::landlock::run_scan_keeper(settings);
}
