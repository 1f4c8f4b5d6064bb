#include "linked_worktree.hpp"

#include "paths.hpp"

#include <oms/path.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace oms::policies {
namespace {

// First line of a small plain file, without its line ending; nullopt when it
// is unreadable, empty, a link or not a regular file. These files may have
// been planted by a command: a FIFO must not block oms, a link must not lead
// the read elsewhere.
std::optional<std::string> first_line(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    struct stat info {};
    std::string text;
    if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && info.st_size <= 64 * 1024) {
        char buffer[4096];
        ssize_t n = 0;
        while ((n = ::read(fd, buffer, sizeof buffer)) > 0 && text.size() <= 64 * 1024)
            text.append(buffer, static_cast<size_t>(n));
    }
    ::close(fd);
    if (text.empty()) return std::nullopt;
    std::string line = text.substr(0, text.find('\n'));
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
    return line;
}

// Git writes either an absolute path or one relative to the folder holding the file.
std::optional<std::string> resolve_from(std::string_view folder, const std::string& target) {
    if (target.empty()) return std::nullopt;
    return real_path(sdk::path::is_absolute(target) ? target : join(folder, target));
}

std::optional<std::string> gitdir_target(const std::string& dot_git) {
    const auto line = first_line(dot_git);
    static constexpr std::string_view prefix = "gitdir:";
    if (!line || line->compare(0, prefix.size(), prefix) != 0) return std::nullopt;
    std::string target = line->substr(prefix.size());
    target.erase(0, target.find_first_not_of(" \t"));
    return target;
}

bool is_plain_file(const std::string& path) {
    struct stat info {};
    return ::lstat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

bool is_git_folder(const std::string& path) {
    return is_regular_file(join(path, "HEAD")) && is_directory(join(path, "objects"));
}

// The layout checks once X is known; a refusal text, or nullopt when it holds.
std::optional<std::string> layout_problem(const std::string& dot_git, const std::string& git_dir,
                                          const std::string& repo_git) {
    if (base_name(sdk::path::parent_of(git_dir)) != "worktrees" || !is_git_folder(repo_git))
        return "its gitdir '" + git_dir + "' is not <repository>/.git/worktrees/<name>";
    const auto back = first_line(join(git_dir, "gitdir"));
    if (!back || resolve_from(git_dir, *back) != real_path(dot_git))
        return "'" + join(git_dir, "gitdir") + "' does not point back at this worktree's .git";
    const auto common = first_line(join(git_dir, "commondir"));
    if (!common || resolve_from(git_dir, *common) != repo_git)
        return "'" + join(git_dir, "commondir") + "' does not name the repository '" + repo_git + "'";
    return std::nullopt;
}

}  // namespace

LinkedWorktree find_linked_git_dirs(std::string_view worktree) {
    LinkedWorktree out;
    const std::string dot_git = join(worktree, ".git");
    struct stat info {};
    if (::lstat(dot_git.c_str(), &info) != 0 || S_ISDIR(info.st_mode)) return out;
    if (!is_plain_file(dot_git)) {
        out.refusal = "it is not a plain file";
        return out;
    }
    const auto target = gitdir_target(dot_git);
    if (!target) {
        out.refusal = "it does not start with 'gitdir:'";
        return out;
    }
    const auto git_dir = resolve_from(worktree, *target);
    if (!git_dir || !is_directory(*git_dir)) {
        out.refusal = "its gitdir '" + *target + "' is not an existing folder";
        return out;
    }
    const std::string repo_git = sdk::path::parent_of(sdk::path::parent_of(*git_dir));
    if ((out.refusal = layout_problem(dot_git, *git_dir, repo_git))) return out;
    out.dirs = LinkedGitDirs{dot_git, *git_dir, repo_git};
    return out;
}

}  // namespace oms::policies
