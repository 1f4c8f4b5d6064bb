#include "oms/core/private_gitconfig.hpp"

#include "oms/core/git_config_reader.hpp"
#include "oms/core/paths.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>

namespace oms::core {

namespace {

constexpr size_t kMaxConfigBytes = 1 << 20;

struct KeptKey {
    const char* section;
    const char* key;    // lower case, as the reader gives it
    const char* name;   // as written out
};

// The whole allowlist: everything else in the user's config stays out.
constexpr KeptKey kKept[] = {{"user", "name", "name"},
                             {"user", "email", "email"},
                             {"init", "defaultbranch", "defaultBranch"},
                             {"core", "autocrlf", "autocrlf"}};

bool printable(const std::string& value) {
    return std::none_of(value.begin(), value.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; });
}

bool acceptable(const KeptKey& kept, const std::string& value) {
    if (!printable(value) || value.empty()) return false;
    if (std::string(kept.key) == "autocrlf") return value == "true" || value == "false" || value == "input";
    return true;
}

std::string quoted(const std::string& value) {
    std::string out = "\"";
    for (char c : value) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

// Regular files only, bounded: a FIFO or a huge file must not stall a run.
std::optional<std::string> read_small_file(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    struct stat info {};
    std::optional<std::string> text;
    if (::fstat(fd, &info) == 0 && S_ISREG(info.st_mode) && static_cast<size_t>(info.st_size) <= kMaxConfigBytes) {
        std::string data(static_cast<size_t>(info.st_size), '\0');
        ssize_t got = ::read(fd, data.data(), data.size());
        if (got >= 0) {
            data.resize(static_cast<size_t>(got));
            text = std::move(data);
        }
    }
    ::close(fd);
    return text;
}

std::vector<std::string> user_config_files(const std::string& real_home) {
    if (auto global = env_value("GIT_CONFIG_GLOBAL")) return {*global};
    const std::string xdg = env_value("XDG_CONFIG_HOME").value_or(real_home + "/.config");
    return {xdg + "/git/config", real_home + "/.gitconfig"};
}

}  // namespace

std::string harmless_git_config(const std::vector<std::pair<std::string, std::string>>& files_and_texts,
                                const std::string& worktree, std::vector<std::string>& warnings) {
    std::map<std::string, std::map<std::string, std::string>> chosen;  // section -> name -> value
    for (const auto& [file, text] : files_and_texts) {
        GitConfigParse parsed = parse_git_config(text);
        if (parsed.problem) {
            warnings.push_back(file + ": " + *parsed.problem + "; nothing is copied from it");
            continue;
        }
        for (const GitConfigEntry& entry : parsed.entries) {
            if (entry.subsection || !entry.value) continue;
            for (const KeptKey& kept : kKept) {
                if (entry.section != kept.section || entry.key != kept.key) continue;
                if (acceptable(kept, *entry.value))
                    chosen[kept.section][kept.name] = *entry.value;
                else
                    warnings.push_back(file + ": line " + std::to_string(entry.line) + ": " + kept.section + "." +
                                       kept.name + " has a value git would not use here; not copied");
            }
        }
    }
    std::string out = "# Written by oms for this run: harmless keys of your git config only.\n";
    for (const auto& [section, values] : chosen) {
        out += "[" + section + "]\n";
        for (const auto& [name, value] : values) out += "\t" + name + " = " + quoted(value) + "\n";
    }
    if (printable(worktree)) out += "[safe]\n\tdirectory = " + quoted(worktree) + "\n";
    return out;
}

void write_private_gitconfig(const std::string& real_home, const std::string& private_home,
                             const std::string& worktree) {
    std::vector<std::pair<std::string, std::string>> texts;
    for (const std::string& file : user_config_files(real_home))
        if (auto text = read_small_file(file)) texts.emplace_back(file, std::move(*text));
    std::vector<std::string> warnings;
    const std::string content = harmless_git_config(texts, worktree, warnings);
    for (const std::string& line : warnings) std::fprintf(stderr, "oms: warning: git config: %s\n", line.c_str());
    const std::string target = private_home + "/.gitconfig";
    int fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    bool written = fd >= 0 && ::write(fd, content.data(), content.size()) == static_cast<ssize_t>(content.size());
    if (fd >= 0) ::close(fd);
    if (!written) std::fprintf(stderr, "oms: warning: cannot write %s; git has no identity in this run\n", target.c_str());
}

}  // namespace oms::core
