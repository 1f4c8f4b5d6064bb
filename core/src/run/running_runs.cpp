#include "oms/core/running_runs.hpp"

#include "oms/core/folder_removal.hpp"
#include "oms/core/run_dir.hpp"
#include "oms/core/utc_time.hpp"

#include <oms/text_file.hpp>

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>

namespace oms::core {

namespace {

constexpr size_t kMaxAboutBytes = 64 * 1024;

// A regular file of the open folder, never through a link, never blocking;
// -1 when there is none.
int open_file_at(int folder, const char* name) {
    const int fd = openat(folder, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st {};
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        return -1;
    }
    return fd;
}

// Held by a live oms: a shared lock cannot be taken while its exclusive one
// is. (Taking it briefly never stops that oms: it holds its lock already.)
bool owner_lock_held(int folder) {
    const int fd = openat(folder, kRunDirOwnerFile, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st {};
    const bool held = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && flock(fd, LOCK_SH | LOCK_NB) != 0 &&
                      errno == EWOULDBLOCK;
    close(fd);
    return held;
}

void read_about(int folder, RunningRun& run) {
    const int fd = open_file_at(folder, kRunDirOwnerFile);
    if (fd < 0) return;
    const auto text = sdk::read_text_fd(fd, kMaxAboutBytes);
    close(fd);
    if (!text) return;
    try {
        const nlohmann::json j = nlohmann::json::parse(*text);
        run.command = j.at("command").get<std::vector<std::string>>();
        run.backend = j.at("backend").get<std::string>();
        run.worktree = j.at("worktree").get<std::string>();
        run.started = j.at("started").get<std::string>();
        run.pid = j.at("pid").get<long>();
    } catch (const std::exception&) {
        run = RunningRun{};  // half a description is none: listed as unknown
    }
}

void read_refusals(int folder, RunningRun& run) {
    const int fd = open_file_at(folder, kRunDirRefusalFile);
    if (fd < 0) return;
    std::vector<Violation> found = refusals_in(fd);
    close(fd);
    for (Violation& v : found) {
        if (is_hidden_notice(v)) continue;  // a notice, not a refusal
        ++run.refused_count;
        if (run.refused.size() < ViolationLog::kMaxKept) run.refused.push_back(std::move(v));
    }
}

}  // namespace

bool write_run_about(int owner_file, const std::vector<std::string>& command, const std::string& backend,
                     const std::string& worktree) {
    const nlohmann::json about{{"command", command},   {"backend", backend},
                               {"worktree", worktree}, {"started", utc_now()},
                               {"pid", static_cast<long>(getpid())}};
    // Replaced bytes: a worktree path or command word need not be UTF-8.
    const std::string text = about.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    return owner_file >= 0 && ::pwrite(owner_file, text.data(), text.size(), 0) == static_cast<ssize_t>(text.size());
}

std::vector<RunningRun> running_runs(const std::string& base_path) {
    std::vector<RunningRun> runs;
    const int base = open(base_path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (base < 0) return runs;
    const size_t prefix = std::strlen(kRunDirPrefix);
    for (const auto& name : folder_entries(base)) {
        if (name.compare(0, prefix, kRunDirPrefix) != 0) continue;
        const int folder = openat(base, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (folder < 0) continue;
        struct stat st {};
        if (fstat(folder, &st) == 0 && st.st_uid == getuid() && owner_lock_held(folder)) {
            RunningRun run;
            read_about(folder, run);
            read_refusals(folder, run);
            runs.push_back(std::move(run));
        }
        close(folder);
    }
    close(base);
    std::stable_sort(runs.begin(), runs.end(),
                     [](const RunningRun& a, const RunningRun& b) { return a.started < b.started; });
    return runs;
}

}  // namespace oms::core
