#include "linked_worktree.hpp"

#include "paths.hpp"

#include <oms/text_file.hpp>

namespace oms::policies {
namespace {

// First line of a small text file, without its line ending; nullopt when unreadable.
std::optional<std::string> first_line(const std::string& path) {
    const auto text = oms::sdk::read_text_file(path, 64 * 1024);
    if (!text || text->empty()) return std::nullopt;
    std::string line = text->substr(0, text->find('\n'));
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
    return line;
}

// Git writes either an absolute path or one relative to the folder holding the file.
std::optional<std::string> resolve_from(std::string_view folder, const std::string& target) {
    if (target.empty()) return std::nullopt;
    return real_path(is_absolute(target) ? target : join(folder, target));
}

std::optional<std::string> read_git_dir(const std::string& dot_git, std::string_view worktree) {
    const auto line = first_line(dot_git);
    static constexpr std::string_view prefix = "gitdir:";
    if (!line || line->compare(0, prefix.size(), prefix) != 0) return std::nullopt;
    std::string target = line->substr(prefix.size());
    target.erase(0, target.find_first_not_of(" \t"));
    return resolve_from(worktree, target);
}

}  // namespace

std::optional<LinkedGitDirs> find_linked_git_dirs(std::string_view worktree) {
    const std::string dot_git = join(worktree, ".git");
    if (!is_regular_file(dot_git)) return std::nullopt;
    const auto git_dir = read_git_dir(dot_git, worktree);
    if (!git_dir || !is_directory(*git_dir)) return std::nullopt;
    LinkedGitDirs dirs{dot_git, *git_dir, std::nullopt};
    if (const auto common = first_line(join(*git_dir, "commondir"))) dirs.common_dir = resolve_from(*git_dir, *common);
    return dirs;
}

}  // namespace oms::policies
