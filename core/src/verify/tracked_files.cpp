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

// The whole content of the open regular file `file`, at most `limit` bytes.
std::string read_open_file(int file, const std::string& shown, off_t limit) {
    struct stat info {};
    if (fstat(file, &info) != 0) no_list("cannot inspect " + shown + ": " + strerror(errno));
    if (!S_ISREG(info.st_mode)) no_list(shown + " is not a regular file");
    if (info.st_size > limit) no_list(shown + " is larger than " + std::to_string(limit) + " bytes");
    std::string out;
    char buffer[65536];
    for (ssize_t n; (n = read(file, buffer, sizeof buffer)) != 0;) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) no_list("cannot read " + shown + ": " + strerror(errno));
        out.append(buffer, static_cast<size_t>(n));
        if (static_cast<off_t>(out.size()) > limit) no_list(shown + " grew past " + std::to_string(limit) + " bytes");
    }
    return out;
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
    return read_open_file(file.get(), shown, limit);
}

// The `.git` entry of the repository whose top level is `top`, opened once
// without following a link (an O_PATH descriptor opens nothing that could
// block or act), and its identity.
struct GitEntry {
    ScopedFd fd;
    struct stat info {};
    std::string identity() const { return std::to_string(info.st_dev) + " " + std::to_string(info.st_ino); }
};

GitEntry open_git_entry(const std::string& top, int top_fd) {
    GitEntry entry{ScopedFd(openat(top_fd, ".git", O_PATH | O_NOFOLLOW | O_CLOEXEC)), {}};
    if (entry.fd.get() < 0 && errno == ENOENT) no_list(top + " holds no .git");
    if (entry.fd.get() < 0 || fstat(entry.fd.get(), &entry.info) != 0)
        no_list("cannot open " + top + "/.git: " + strerror(errno));
    return entry;
}

// The folder holding the index: the .git folder itself, or for a linked
// worktree or a submodule (.git is a file "gitdir: X") the folder X. Nothing
// there is trusted: it is only read.
ScopedFd open_git_folder(const std::string& top, const GitEntry& entry, std::string& folder) {
    folder = top + "/.git";
    if (S_ISDIR(entry.info.st_mode)) {
        ScopedFd fd(openat(entry.fd.get(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        if (fd.get() < 0) no_list("cannot open the git folder " + folder + ": " + strerror(errno));
        return fd;
    }
    if (!S_ISREG(entry.info.st_mode)) no_list(folder + " is neither a folder nor a regular file");
    // The same file, readable: reopened through its descriptor, not its name.
    const std::string by_descriptor = "/proc/self/fd/" + std::to_string(entry.fd.get());
    ScopedFd file(open(by_descriptor.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
    struct stat info {};
    if (file.get() < 0 || fstat(file.get(), &info) != 0 || info.st_ino != entry.info.st_ino ||
        info.st_dev != entry.info.st_dev)
        no_list("cannot open " + folder + ": " + strerror(errno));
    const std::string text = read_open_file(file.get(), folder, kGitFileSizeLimit);
    std::string line = text.substr(0, text.find('\n'));
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    const std::string prefix = "gitdir: ";
    if (line.compare(0, prefix.size(), prefix) != 0 || line.size() == prefix.size())
        no_list(folder + " is a file without a \"gitdir: \" line");
    const std::string target = line.substr(prefix.size());
    folder = target[0] == '/' ? target : top + "/" + target;
    ScopedFd fd(open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (fd.get() < 0) no_list("cannot open the git folder " + folder + ": " + strerror(errno));
    return fd;
}

// A .git folder inside another repository's tree: a command in a worktree
// below a repository's top can create one (only a .git there when the run
// started is kept read-only), and its index would choose the inputs. A
// submodule or linked worktree has a .git file, which git itself writes.
void refuse_nested_git_folder(const std::string& top, const GitEntry& entry) {
    if (!S_ISDIR(entry.info.st_mode)) return;
    if (const auto outer = repository_top(std::filesystem::path(top).parent_path().string()))
        no_list(top + "/.git is a repository inside the repository " + *outer +
                ", which a command may have made, so its index does not say what is tracked");
}

}  // namespace

TrackedFiles tracked_files(const std::string& worktree,
                           const std::function<void(const std::string& git_identity)>& accept) {
    const auto top = repository_top(worktree);
    if (!top) no_list(worktree + " is not in a git repository, so there is no list of tracked files");
    ScopedFd top_fd(open(top->c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (top_fd.get() < 0) no_list("cannot open " + *top + ": " + strerror(errno));
    const GitEntry entry = open_git_entry(*top, top_fd.get());
    accept(entry.identity());
    refuse_nested_git_folder(*top, entry);
    std::string git_folder;
    const ScopedFd git_fd = open_git_folder(*top, entry, git_folder);
    const std::string index_path = git_folder + "/index";
    TrackedFiles out;
    out.index = index_path;
    out.git_identity = entry.identity();
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
