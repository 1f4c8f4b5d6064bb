#include "oms/core/repository_record.hpp"

#include "oms/core/repository_top.hpp"
#include "oms/core/stable_hash.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <oms/text_file.hpp>

namespace oms::core {

namespace {

// One record file per worktree, named by a hash of its path.
std::string record_path(const std::string& state_dir, const std::string& worktree) {
    return state_dir + "/repositories/" + stable_hash(worktree);
}

}  // namespace

std::string repository_identity(const std::string& worktree) {
    const std::optional<std::string> top = repository_top(worktree);
    struct stat st;
    if (!top || lstat((*top + "/.git").c_str(), &st) != 0) return "none";
    return std::to_string(st.st_dev) + " " + std::to_string(st.st_ino);
}

void remember_repository(const std::string& state_dir, const std::string& worktree) {
    const std::string path = record_path(state_dir, worktree);
    mkdir(state_dir.c_str(), 0700);
    mkdir((state_dir + "/repositories").c_str(), 0700);
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return;  // recorded already (or cannot be): the first record stands
    const std::string text = worktree + "\n" + repository_identity(worktree) + "\n";
    const bool written = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    close(fd);
    if (!written) unlink(path.c_str());  // a cut record must not pass for one
}

std::optional<std::string> repository_changed_since_first_run(const std::string& state_dir, const std::string& worktree,
                                                              const std::string& identity_now) {
    const std::string path = record_path(state_dir, worktree);
    const std::optional<std::string> text = sdk::read_text_file(path, 8192);
    if (!text || text->rfind(worktree + "\n", 0) != 0) return std::nullopt;
    std::string first = text->substr(worktree.size() + 1);
    if (!first.empty() && first.back() == '\n') first.pop_back();
    if (identity_now == first || identity_now == "none") return std::nullopt;
    return std::string(first == "none" ? "the repository holding " + worktree +
                                             " did not exist when oms first ran a command there"
                                       : "the .git of the repository holding " + worktree +
                                             " is not the one oms saw when it first ran a command there") +
           ", so a command may have made it and chosen its index (record: " + path + ")";
}

}  // namespace oms::core
