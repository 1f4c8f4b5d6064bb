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
    for (const std::string& path : run.hidden_files) shape += '\n' + path;
    if (run.refused > 0) shape += "\nrefused";
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

// "target/deploy/prog-keypair.json" for a file in the worktree, else the path.
std::string shown_path(const std::string& path, const std::string& worktree) {
    if (!worktree.empty() && path.size() > worktree.size() + 1 && path.compare(0, worktree.size(), worktree) == 0 &&
        path[worktree.size()] == '/')
        return path.substr(worktree.size() + 1);
    return path;
}

// The files hidden from the run (two named, the count of the rest): a read
// of one fails with "permission denied", which is what a command that
// needed one shows.
std::string hidden_files_clause(const std::vector<std::string>& files, const std::string& worktree) {
    constexpr size_t kNamed = 2;
    std::string text = "; hidden from commands (a keypair: reading it fails with permission denied): ";
    for (size_t i = 0; i < files.size() && i < kNamed; ++i) text += (i ? ", " : "") + shown_path(files[i], worktree);
    if (files.size() > kNamed) text += " and " + std::to_string(files.size() - kNamed) + " more (oms explain --last)";
    return text;
}

}  // namespace

bool failure_hint_wanted(int exit_code) {
    if (exit_code == 0) return false;
    for (int user_signal : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGKILL})
        if (exit_code == 128 + user_signal) return false;
    return true;
}

std::string failure_hint(const std::string& backend_id, int exit_code, const DroppedVariables& dropped,
                         const std::string& hidden_tool, const std::vector<std::string>& hidden_files,
                         const std::string& worktree, size_t refused) {
    std::string line = "oms: exit " + std::to_string(exit_code) + " under the " + backend_id + " sandbox";
    const std::string silence = "(--quiet or [sandbox] failure_hint = false silences this line)";
    // A refusal the run reported is the likely cause, and its line above
    // already says where to ask: hidden files the command may never have
    // touched, variables and the generic advice would only bury it.
    if (refused > 0) return line + "; see the refusal" + std::string(refused == 1 ? "" : "s") + " above " + silence;
    if (!hidden_files.empty()) line += hidden_files_clause(hidden_files, worktree);
    if (!hidden_tool.empty()) line += "; " + hidden_tool;
    if (!dropped.names.empty())
        line += "; not passed from your environment: " + describe_dropped(DroppedVariables{dropped.names, 0}, 6) +
                " (--env NAME passes one)";
    return line + "; if a file or port was refused, ask: oms explain read|write|exec|connect|env TARGET " + silence;
}

std::string failure_line(const FailedRun& run) {
    if (!failure_hint_wanted(run.exit_code)) return "";
    if (runs_a_git_write(run.argv)) return read_only_git_line(run);
    if (status_is_an_answer(run.argv, run.exit_code)) return "";
    if (!first_time(run)) return "";
    return failure_hint(run.backend_id, run.exit_code, run.dropped, run.hidden_tool, run.hidden_files, run.worktree,
                        run.refused);
}

}  // namespace oms::core
