#include "oms/core/verify_snapshot.hpp"

#include "oms/core/error.hpp"
#include "oms/core/folder_removal.hpp"
#include "oms/core/paths.hpp"
#include "oms/core/scoped_fd.hpp"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <memory>

namespace fs = std::filesystem;

namespace oms::core {

namespace {

[[noreturn]] void fail(const std::string& what) { throw UserError(kExitSoftware, "oms verify: " + what); }

[[noreturn]] void too_big(const std::string& name, const SnapshotReport& report) {
    throw UserError(kExitUnavailable, "oms verify: the snapshot would hold more than " +
                                          std::to_string(report.max_bytes) + " bytes at " + name +
                                          " (a file made huge?); raise [verify] max_snapshot_bytes or name fewer "
                                          "--inputs. Nothing ran.");
}

// Copies one regular file's content from `source` into a new file `name` in
// the open folder `into`, read-only.
void copy_file(int source, const struct stat& info, int into, const std::string& name, SnapshotReport& report) {
    if (static_cast<uint64_t>(info.st_size) > report.max_bytes - report.bytes) too_big(name, report);
    ScopedFd target(openat(into, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (target.get() < 0) fail("cannot create " + name + " in the snapshot: " + strerror(errno));
    char buffer[65536];
    for (ssize_t n; (n = read(source, buffer, sizeof buffer)) != 0;) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) fail("cannot read " + name + ": " + strerror(errno));
        for (ssize_t done = 0; done < n;) {
            ssize_t w = write(target.get(), buffer + done, static_cast<size_t>(n - done));
            if (w < 0 && errno == EINTR) continue;
            if (w < 0) fail("cannot write " + name + " in the snapshot: " + strerror(errno));
            done += w;
            report.bytes += static_cast<uint64_t>(w);
            if (report.bytes > report.max_bytes) too_big(name, report);  // it grew while copied
        }
    }
    fchmod(target.get(), (info.st_mode & 0111) ? 0555 : 0444);
    ++report.files;
}

// The folder `name` in `into`, made when missing (never through a link).
int enter_target_folder(int into, const std::string& name) {
    if (mkdirat(into, name.c_str(), 0700) != 0 && errno != EEXIST)
        fail("cannot create the folder " + name + " in the snapshot: " + strerror(errno));
    int fd = openat(into, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) fail("cannot open the folder " + name + " in the snapshot: " + strerror(errno));
    return fd;
}

void copy_entry(int from, int into, const std::string& name, const std::string& shown, SnapshotReport& report,
                int depth);

// A file with several names (hard links) is left out: a run refuses to
// start with a keypair that has one, but the snapshot would hold its content
// under the harmless name, a plain file the check's keypair search cannot
// tell from any other (a command links notes.txt to an empty
// prog-keypair.json; the user's `cp` of the key then writes both).
void skip_linked_file(const std::string& shown, const struct stat& info, SnapshotReport& report) {
    report.skipped.push_back(shown + ": a file with " + std::to_string(info.st_nlink) +
                             " names (hard links); another name could be a keypair file");
}

// Copies a file that has one name, and takes the copy back when a second
// name was made while it was read (the content is then unknown).
void copy_single_named_file(int source, const struct stat& info, int into, const std::string& name,
                            const std::string& shown, SnapshotReport& report) {
    const uint64_t bytes_before = report.bytes;
    copy_file(source, info, into, name, report);
    struct stat after {};
    if (fstat(source, &after) == 0 && after.st_nlink <= 1) return;  // 0: removed meanwhile, never linked
    if (unlinkat(into, name.c_str(), 0) != 0) fail("cannot remove " + shown + " from the snapshot: " + strerror(errno));
    report.bytes = bytes_before;
    --report.files;
    skip_linked_file(shown, after, report);
}

void copy_folder(int source, int into, const std::string& name, const std::string& shown, SnapshotReport& report,
                 int depth) {
    if (depth > 256) {
        report.skipped.push_back(shown + ": nested deeper than 256 folders");
        return;
    }
    ScopedFd target(enter_target_folder(into, name));
    for (const std::string& entry : folder_entries(source)) {
        if (depth == 0 && entry == ".git") continue;
        copy_entry(source, target.get(), entry, shown + "/" + entry, report, depth + 1);
    }
}

void copy_entry(int from, int into, const std::string& name, const std::string& shown, SnapshotReport& report,
                int depth) {
    // A FIFO or device is never opened (opening one can block or act); the
    // type is checked again on the open descriptor below.
    struct stat before {};
    if (fstatat(from, name.c_str(), &before, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(before.st_mode) &&
        !S_ISDIR(before.st_mode) && !S_ISLNK(before.st_mode)) {
        report.skipped.push_back(shown + ": not a regular file (device, socket or FIFO)");
        return;
    }
    ScopedFd source(openat(from, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
    if (source.get() < 0) {
        report.skipped.push_back(shown + (errno == ELOOP ? ": a symbolic link (links are never followed)"
                                                         : ": " + std::string(strerror(errno))));
        return;
    }
    struct stat info {};
    if (fstat(source.get(), &info) != 0) fail("cannot inspect " + shown + ": " + strerror(errno));
    if (S_ISREG(info.st_mode) && info.st_nlink > 1)
        skip_linked_file(shown, info, report);
    else if (S_ISREG(info.st_mode))
        copy_single_named_file(source.get(), info, into, name, shown, report);
    else if (S_ISDIR(info.st_mode))
        copy_folder(source.get(), into, name, shown, report, depth);
    else
        report.skipped.push_back(shown + ": not a regular file (device, socket or FIFO)");
}

// Opens the folders on the way to `parts.back()` in both trees; false (and
// a skipped line) when one on the worktree's side is a link or missing.
bool copy_input(int worktree, int snapshot, const std::vector<std::string>& parts, const std::string& name,
                SnapshotReport& report) {
    ScopedFd from_holder(dup(worktree)), into_holder(dup(snapshot));
    int from = from_holder.get(), into = into_holder.get();
    std::vector<std::unique_ptr<ScopedFd>> opened;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
        int next = openat(from, parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0) {
            report.skipped.push_back(name + (errno == ELOOP || errno == ENOTDIR
                                                 ? ": a symbolic link or non-folder on the way (links are never followed)"
                                                 : ": " + std::string(strerror(errno))));
            return false;
        }
        opened.push_back(std::make_unique<ScopedFd>(next));
        from = next;
        opened.push_back(std::make_unique<ScopedFd>(enter_target_folder(into, parts[i])));
        into = opened.back()->get();
    }
    // Listed twice (a pinned file that is also tracked): copied once.
    if (faccessat(into, parts.back().c_str(), F_OK, AT_SYMLINK_NOFOLLOW) == 0) return true;
    copy_entry(from, into, parts.back(), name, report, static_cast<int>(parts.size()));
    return true;
}

// Folders become read-only once filled, deepest first.
void seal_folders(int folder, int depth) {
    for (const std::string& entry : folder_entries(folder)) {
        ScopedFd sub(openat(folder, entry.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (sub.get() >= 0 && depth < 300) seal_folders(sub.get(), depth + 1);
    }
    fchmod(folder, 0555);
}

}  // namespace

void check_relative_input(const std::string& name, const std::string& what) {
    bool bad = name.empty() || name[0] == '/' || name.find('\0') != std::string::npos;
    for (const std::string& part : split_list(name, '/'))
        if (part == "." || part == "..") bad = true;
    if (bad)
        throw UserError(kExitUsage, "oms verify: " + what + " '" + name +
                                        "' must be a path relative to the worktree without '.' or '..' parts");
}

SnapshotFolder::SnapshotFolder(const std::string& base) {
    std::error_code error;
    fs::create_directories(base, error);
    chmod(base.c_str(), 0700);
    std::string pattern = base + "/snapshot-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) fail("cannot create a snapshot folder in " + base);
    path_ = pattern;
}

SnapshotFolder::~SnapshotFolder() {
    int fd = open(path_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return;
    fchmod(fd, 0700);
    remove_folder_contents(fd);
    close(fd);
    rmdir(path_.c_str());
}

SnapshotReport copy_inputs(const std::string& worktree, const std::vector<std::string>& inputs,
                           const std::string& target, uint64_t max_bytes) {
    SnapshotReport report;
    report.max_bytes = max_bytes;
    ScopedFd from(open(worktree.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (from.get() < 0) fail("cannot open the worktree " + worktree + ": " + strerror(errno));
    ScopedFd into(open(target.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (into.get() < 0) fail("cannot open the snapshot folder " + target + ": " + strerror(errno));
    for (const std::string& name : inputs) {
        check_relative_input(name, "input");
        std::vector<std::string> parts;
        for (auto& part : split_list(name, '/'))
            if (!part.empty()) parts.push_back(part);
        copy_input(from.get(), into.get(), parts, name, report);
    }
    seal_folders(into.get(), 0);
    return report;
}

}  // namespace oms::core
