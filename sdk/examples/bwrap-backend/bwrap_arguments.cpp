#include "bwrap_arguments.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>

namespace bwrap_example {
namespace {

using Args = std::vector<std::string>;

bool is_folder(const std::string& path) {
    struct stat info;
    return lstat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

bool exists(const std::string& path) {
    struct stat info;
    return lstat(path.c_str(), &info) == 0;
}

bool ends_with(const std::string& text, const std::string& end) {
    return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

// Every path below `root` (not following links) whose full path ends with one
// of `suffixes` or whose name is one of `names`, found now, at launch.
void find_below(const std::string& root, const std::vector<std::string>& suffixes, const std::vector<std::string>& names,
                std::vector<std::string>& found) {
    DIR* dir = opendir(root.c_str());
    if (!dir) return;
    while (dirent* entry = readdir(dir)) {
        std::string name = entry->d_name;
        if (name == "." || name == "..") continue;
        std::string path = root + "/" + name;
        bool matched = std::find(names.begin(), names.end(), name) != names.end();
        for (auto& suffix : suffixes) matched = matched || ends_with(path, suffix);
        if (matched) found.push_back(path);
        if (!matched && is_folder(path)) find_below(path, suffixes, names, found);
    }
    closedir(dir);
}

// Folders before what lies below them, so a later bind lands on top.
std::vector<std::string> outer_first(std::vector<std::string> paths) {
    std::sort(paths.begin(), paths.end(), [](const std::string& a, const std::string& b) {
        return a.size() != b.size() ? a.size() < b.size() : a < b;
    });
    return paths;
}

void append(Args& to, std::initializer_list<std::string> more) { to.insert(to.end(), more); }

}  // namespace

Launch bwrap_launch(const std::string& bwrap, const oms::sdk::Context& context, const oms::sdk::Policy& policy,
                    int seccomp_fd) {
    std::vector<std::string> deny_trees, read_trees, write_trees, read_denies, suffixes, write_denies, deny_names;
    Launch launch;
    for (auto& rule : policy.rules()) {
        std::string value(rule.value);
        switch (rule.kind) {
        case OMS_RULE_READ_DENY_TREE: deny_trees.push_back(value); break;
        case OMS_RULE_READ_ALLOW_TREE: read_trees.push_back(value); break;
        case OMS_RULE_WRITE_ALLOW_TREE:
            if (value.rfind("/dev/", 0) != 0) write_trees.push_back(value);  // the minimal /dev has them
            break;
        case OMS_RULE_READ_DENY: read_denies.push_back(value); break;
        case OMS_RULE_READ_DENY_SUFFIX: suffixes.push_back(value); break;
        case OMS_RULE_WRITE_DENY: write_denies.push_back(value); break;
        case OMS_RULE_WRITE_DENY_NAME: deny_names.push_back(value); break;
        case OMS_RULE_WRITE_SCRATCH_TREE:
            read_trees.push_back(value);  // stricter: readable, never writable
            launch.notes.push_back("write-scratch-tree " + value + ": not granted (read-only here)");
            break;
        case OMS_RULE_NET_CONNECT_LOOPBACK:
            launch.notes.push_back("net-connect-loopback " + std::to_string(rule.number) +
                                   ": not granted (no relay: the port stays closed)");
            break;
        case OMS_RULE_NET_LISTEN_LOOPBACK:
            launch.notes.push_back("net-listen-loopback: not granted (no relay)");
            break;
        default: break;  // ENV_PASS is already in policy.env(); IPC_DENY_SERVICE is macOS
        }
    }
    Args& a = launch.argv;
    append(a, {bwrap, "--unshare-all", "--die-with-parent", "--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev",
               "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", "/var/tmp", "--tmpfs", "/run"});
    for (auto& tree : outer_first(deny_trees)) append(a, {"--tmpfs", tree});
    for (auto& tree : outer_first(read_trees)) append(a, {"--ro-bind-try", tree, tree});
    for (auto& tree : outer_first(write_trees)) append(a, {"--bind-try", tree, tree});
    // A socket the caller's agent listens on, wherever it is.
    if (auto agent = context.env("SSH_AUTH_SOCK"); agent && exists(std::string(*agent)))
        append(a, {"--ro-bind", "/dev/null", std::string(*agent)});
    for (auto& path : outer_first(read_denies)) {
        if (is_folder(path))
            append(a, {"--tmpfs", path, "--remount-ro", path});
        else if (exists(path))
            append(a, {"--ro-bind", "/dev/null", path});
    }
    std::vector<std::string> found;
    for (auto& tree : write_trees) find_below(tree, suffixes, deny_names, found);
    for (auto& tree : read_trees) find_below(tree, suffixes, {}, found);
    std::sort(found.begin(), found.end());
    found.erase(std::unique(found.begin(), found.end()), found.end());
    for (auto& path : found) {
        bool secret = false;
        for (auto& suffix : suffixes) secret = secret || ends_with(path, suffix);
        // A READ_ALLOW_TREE naming exactly this file exempts it from the
        // suffix denies (rule-semantics.md R3); a READ_DENY of it is covered
        // above already (R1 wins).
        auto named_by = [&path](const std::vector<std::string>& list) {
            return std::find(list.begin(), list.end(), path) != list.end();
        };
        if (secret && !is_folder(path)) {
            if (!named_by(read_trees) && !named_by(read_denies)) append(a, {"--ro-bind", "/dev/null", path});
        } else
            write_denies.push_back(path);  // a .git found below a write root
    }
    for (auto& path : outer_first(write_denies)) append(a, {"--ro-bind-try", path, path});
    append(a, {"--chdir", std::string(context.worktree()), "--seccomp", std::to_string(seccomp_fd), "--"});
    // bwrap adds PWD and passes on the signal dispositions it was started
    // with (it ignores INT, TERM, HUP and QUIT so that only the command gets
    // them, see bwrap_backend.cpp); env puts both right before the command.
    append(a, {"/usr/bin/env", "--default-signal=INT,TERM,HUP,QUIT"});
    bool policy_has_pwd = false;
    for (auto entry : policy.env()) policy_has_pwd = policy_has_pwd || entry.rfind("PWD=", 0) == 0;
    if (!policy_has_pwd) append(a, {"-u", "PWD"});
    a.push_back("--");
    for (auto entry : policy.env())
        if (entry.rfind("PWD=", 0) == 0) a.emplace_back(entry);
    for (auto arg : context.argv()) a.emplace_back(arg);
    return launch;
}

}  // namespace bwrap_example
