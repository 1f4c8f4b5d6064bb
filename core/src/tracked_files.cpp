#include "oms/core/tracked_files.hpp"

#include "oms/core/error.hpp"
#include "oms/core/git_index.hpp"
#include "oms/core/repository_top.hpp"
#include "oms/core/scoped_fd.hpp"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <optional>

namespace oms::core {

namespace {

constexpr off_t kIndexSizeLimit = off_t{1} << 30;  // git's own index of a million files is ~100 MB
constexpr off_t kGitFileSizeLimit = 4096;

[[noreturn]] void no_list(const std::string& why) {
    throw UserError(kExitUnavailable, "oms verify: " + why + "; name the inputs with --inputs or [verify] inputs");
}

// The whole content of the regular file `name` in `folder`, opened without
// following a link and never blocking (a FIFO or device is refused before it
// is opened, and again on the descriptor); nullopt when it does not exist.
std::optional<std::string> read_regular_file(int folder, const std::string& name, const std::string& shown,
                                             off_t limit) {
    struct stat before {};
    if (fstatat(folder, name.c_str(), &before, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT) return std::nullopt;
        no_list("cannot inspect " + shown + ": " + strerror(errno));
    }
    if (!S_ISREG(before.st_mode)) no_list(shown + " is not a regular file");
    ScopedFd file(openat(folder, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
    struct stat info {};
    if (file.get() < 0 || fstat(file.get(), &info) != 0) no_list("cannot open " + shown + ": " + strerror(errno));
    if (!S_ISREG(info.st_mode) || info.st_ino != before.st_ino || info.st_dev != before.st_dev)
        no_list(shown + " changed while it was opened");
    if (info.st_size > limit) no_list(shown + " is larger than " + std::to_string(limit) + " bytes");
    std::string out;
    char buffer[65536];
    for (ssize_t n; (n = read(file.get(), buffer, sizeof buffer)) != 0;) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) no_list("cannot read " + shown + ": " + strerror(errno));
        out.append(buffer, static_cast<size_t>(n));
        if (static_cast<off_t>(out.size()) > limit) no_list(shown + " grew past " + std::to_string(limit) + " bytes");
    }
    return out;
}

// The folder holding the index of the repository whose top level is `top`:
// its .git folder, or for a linked worktree or a submodule (.git is a file
// "gitdir: X") the folder X. Nothing there is trusted: it is only read.
std::string git_folder_of(const std::string& top, int top_fd) {
    struct stat info {};
    if (fstatat(top_fd, ".git", &info, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(info.st_mode)) return top + "/.git";
    const auto text = read_regular_file(top_fd, ".git", top + "/.git", kGitFileSizeLimit);
    if (!text) no_list(top + " holds no .git");
    std::string line = text->substr(0, text->find('\n'));
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    const std::string prefix = "gitdir: ";
    if (line.compare(0, prefix.size(), prefix) != 0 || line.size() == prefix.size())
        no_list(top + "/.git is a file without a \"gitdir: \" line");
    const std::string target = line.substr(prefix.size());
    return target[0] == '/' ? target : top + "/" + target;
}

// A .git folder inside another repository's tree: a command in a worktree
// below a repository's top can create one (only a .git there when the run
// started is kept read-only), and its index would choose the inputs. A
// submodule or linked worktree has a .git file, which git itself writes.
void refuse_nested_git_folder(const std::string& top, int top_fd) {
    struct stat info {};
    if (fstatat(top_fd, ".git", &info, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(info.st_mode)) return;
    if (const auto outer = repository_top(std::filesystem::path(top).parent_path().string()))
        no_list(top + "/.git is a repository inside the repository " + *outer +
                ", which a command may have made, so its index does not say what is tracked");
}

}  // namespace

TrackedFiles tracked_files(const std::string& worktree) {
    const auto top = repository_top(worktree);
    if (!top) no_list(worktree + " is not in a git repository, so there is no list of tracked files");
    ScopedFd top_fd(open(top->c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (top_fd.get() < 0) no_list("cannot open " + *top + ": " + strerror(errno));
    refuse_nested_git_folder(*top, top_fd.get());
    const std::string git_folder = git_folder_of(*top, top_fd.get());
    ScopedFd git_fd(open(git_folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (git_fd.get() < 0) no_list("cannot open the git folder " + git_folder + ": " + strerror(errno));
    const std::string index_path = git_folder + "/index";
    TrackedFiles out;
    out.index = index_path;
    const auto bytes = read_regular_file(git_fd.get(), "index", index_path, kIndexSizeLimit);
    if (!bytes) return out;  // a repository where nothing was added yet
    GitIndexParse parsed = parse_git_index(*bytes);
    if (parsed.problem) no_list("cannot use the git index " + index_path + ": " + *parsed.problem);
    // Paths in the index are relative to the top level; the worktree may be a
    // folder below it, and then only what lies inside it is an input.
    const std::string below = worktree == *top ? "" : worktree.substr(top->size() + 1) + "/";
    for (auto& name : parsed.files)
        if (name.compare(0, below.size(), below) == 0) out.files.push_back(name.substr(below.size()));
    for (auto& name : parsed.sparse_folders)
        if (name.compare(0, below.size(), below) == 0)
            out.notes.push_back(name.substr(below.size()) +
                                ": a folder left out of the sparse checkout (its files are not in the worktree)");
    return out;
}

}  // namespace oms::core
