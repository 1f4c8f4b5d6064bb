#include "oms/core/failure_hint.hpp"

#include "oms/core/command_shape.hpp"
#include "oms/core/stable_hash.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>

namespace oms::core {

namespace {

// Creates the marker of this failure's shape; true only the first time
// (O_EXCL), also when two runs fail at once. A state folder that cannot be
// written makes the line show every time rather than never.
bool first_time(const FailedRun& run) {
    const std::string folder = run.state_dir + "/failure-lines";
    mkdir(run.state_dir.c_str(), 0700);
    mkdir(folder.c_str(), 0700);
    std::string shape = run.worktree + '\n' + run.backend_id + '\n' + std::to_string(run.exit_code);
    for (const std::string& name : run.dropped.names) shape += '\n' + name;
    shape += '\n' + run.hidden_tool;
    const std::string marker = folder + "/" + stable_hash(shape);
    const int fd = open(marker.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
        close(fd);
        return true;
    }
    return errno != EEXIST;
}

std::string read_only_git_line(const FailedRun& run) {
    return "oms: exit " + std::to_string(run.exit_code) + " under the " + run.backend_id +
           " sandbox; the task's .git is read-only inside the sandbox by design (a command must not rewrite "
           "history, hooks or config): commit from your own shell, outside oms (user guide: \"Committing an "
           "agent's work\"). --quiet silences this line";
}

}  // namespace

bool failure_hint_wanted(int exit_code) {
    if (exit_code == 0) return false;
    for (int user_signal : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGKILL})
        if (exit_code == 128 + user_signal) return false;
    return true;
}

std::string failure_hint(const std::string& backend_id, int exit_code, const DroppedVariables& dropped,
                         const std::string& hidden_tool) {
    std::string line = "oms: exit " + std::to_string(exit_code) + " under the " + backend_id + " sandbox";
    if (!hidden_tool.empty()) line += "; " + hidden_tool;
    if (!dropped.names.empty())
        line += "; not passed from your environment: " + describe_dropped(DroppedVariables{dropped.names, 0}, 6) +
                " (--env NAME passes one)";
    return line + "; if a file or port was refused, ask: oms explain read|write|exec|connect|env TARGET "
                  "(--quiet or [sandbox] failure_hint = false silences this line)";
}

std::string failure_line(const FailedRun& run) {
    if (!failure_hint_wanted(run.exit_code)) return "";
    if (runs_a_git_write(run.argv)) return read_only_git_line(run);
    if (status_is_an_answer(run.argv, run.exit_code)) return "";
    if (!first_time(run)) return "";
    return failure_hint(run.backend_id, run.exit_code, run.dropped, run.hidden_tool);
}

}  // namespace oms::core
