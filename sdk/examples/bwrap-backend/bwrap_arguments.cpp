#include "bwrap_arguments.hpp"

#include <oms/path.hpp>
#include <oms/secret_search.hpp>

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

// What of the keypair files to hide, found by the SDK's search
// (oms/secret_search.hpp): by what each name leads to, not by the name
// alone. A file with a second name or a keypair-named link no mask can hide,
// and a tree too large to search, stop the launch.
oms::sdk::SecretFindings find_keypairs(const std::vector<std::string>& roots, const std::vector<std::string>& suffixes,
                                       const std::vector<std::string>& skip, const std::vector<std::string>& names,
                                       const std::vector<std::string>& write_roots, const std::vector<std::string>& hidden) {
    oms::sdk::SecretSearch search{"example-bwrap", roots, suffixes, skip, names};
    // Where a command plants a link, the folder it leads to is searched too;
    // not into HOME, under the empty tmpfs.
    search.follow_links_from = write_roots;
    search.hidden = hidden;
    // Commands run as the caller: another user's folder the caller cannot
    // read (a 0700 folder under /usr), they cannot read either.
    search.skip_closed_folders_of_others = true;
    // `/` is bound read-only: a keypair-named link out of the roots leads
    // where the command reads.
    search.host_readable_outside = true;
    oms::sdk::SecretFindings found = oms::sdk::find_secrets(search);
    oms::sdk::refuse_unhideable(found, "example-bwrap");
    if (!found.complete)
        throw oms::sdk::Error(OMS_ERR_FAILED, "example-bwrap: too many files to search for keypair files");
    return found;
}

void append(Args& to, std::initializer_list<std::string> more) { to.insert(to.end(), more); }

// Each mask as the sandbox must show it: the folder holding it, by device
// and inode, taken while the match the search saw is still there, and the
// mask itself in place (/dev/null on a file, a tmpfs on a folder). bwrap
// makes a mask's missing folders itself: a folder renamed after the search
// (by a run beside this one) would get a new, empty one at the old name
// with the mask in it, and the key would be readable at the new name; and
// that new folder moved away and the old one moved back leaves the old
// folder without its mask. The check at the sandbox's start
// (`check_then_run`) finds either. A mask in place on the folder seen is on
// the file seen: the file cannot leave a folder while a mount is on it.
struct Mask {
    std::string folder;
    std::string identity;  // "DEVICE:INODE", as stat -c %d:%i prints it
    std::string path;
    char kind;  // 'f': /dev/null on a file; 'd': a tmpfs on a folder
};

std::string identity_of(const struct stat& info) {
    return std::to_string(static_cast<unsigned long long>(info.st_dev)) + ":" +
           std::to_string(static_cast<unsigned long long>(info.st_ino));
}

Mask mask_of(const std::string& path, const struct stat* expected, char kind) {
    struct stat now;
    const bool same = lstat(path.c_str(), &now) == 0 &&
                      (!expected || (now.st_dev == expected->st_dev && now.st_ino == expected->st_ino));
    const std::string folder = oms::sdk::path::parent_of(path);
    struct stat holder;
    if (!same || lstat(folder.c_str(), &holder) != 0 || !S_ISDIR(holder.st_mode))
        throw oms::sdk::Error(OMS_ERR_FAILED, "example-bwrap: " + path +
                                                  " was moved or removed while the run started; nothing ran");
    return {folder, identity_of(holder), path, kind};
}

// Runs first in the sandbox, as the caller: each mask's folder must be the
// one seen on the host and the mask must be on it, or the command does not
// start (status 126, as a command that cannot be executed). Paths come as
// arguments, never as code.
void check_then_run(std::vector<std::string>& a, const std::vector<Mask>& masks) {
    static const char* const script =
        "n=$1; shift; "
        "while [ \"$n\" -gt 0 ]; do "
        "  if [ \"$(/usr/bin/stat -c %d:%i -- \"$1\" 2>/dev/null)\" != \"$2\" ]; then what=changed; "
        "  elif [ \"$4\" = f ] && [ \"$(/usr/bin/stat -c %F:%t:%T -- \"$3\" 2>/dev/null)\" != "
        "\"character special file:1:3\" ]; then what=unmasked; "
        "  elif [ \"$4\" = d ] && [ \"$(/usr/bin/stat -f -c %T -- \"$3\" 2>/dev/null)\" != tmpfs ]; then "
        "what=unmasked; "
        "  else what=; fi; "
        "  if [ -n \"$what\" ]; then "
        "    echo \"example-bwrap: $3 is not masked as planned ($1 $what while the sandbox was made: a folder "
        "renamed beside this run?); nothing ran\" >&2; exit 126; "
        "  fi; shift 4; n=$((n - 1)); "
        "done; exec \"$@\"";
    append(a, {"/bin/sh", "-c", script, "example-bwrap-check", std::to_string(masks.size())});
    for (const Mask& mask : masks) append(a, {mask.folder, mask.identity, mask.path, std::string(1, mask.kind)});
}

bool named_by(const std::vector<std::string>& list, const std::string& path) {
    return std::find(list.begin(), list.end(), path) != list.end();
}

// Folders before what lies below them, so a later bind lands on top.
std::vector<std::string> outer_first(std::vector<std::string> paths) {
    std::sort(paths.begin(), paths.end(), [](const std::string& a, const std::string& b) {
        return a.size() != b.size() ? a.size() < b.size() : a < b;
    });
    return paths;
}

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
    std::vector<std::string> roots = write_trees;
    roots.insert(roots.end(), read_trees.begin(), read_trees.end());
    const oms::sdk::SecretFindings found =
        find_keypairs(roots, suffixes, read_denies, deny_names, write_trees, deny_trees);
    for (auto& path : found.named)  // a .git found below a write root
        if (oms::sdk::path::is_inside_any(path, write_trees) && !named_by(read_denies, path)) write_denies.push_back(path);
    // Read-only binds before any mask: bwrap takes a bind's source from the
    // host's tree, so a .git bound after a mask inside it would bring the
    // key back (a link planted in one run sends the user's copy of a key
    // into .git).
    for (auto& path : outer_first(write_denies)) append(a, {"--ro-bind-try", path, path});
    // A socket the caller's agent listens on, wherever it is.
    if (auto agent = context.env("SSH_AUTH_SOCK"); agent && exists(std::string(*agent)))
        append(a, {"--ro-bind", "/dev/null", std::string(*agent)});
    for (auto& path : outer_first(read_denies)) {
        if (is_folder(path))
            append(a, {"--tmpfs", path, "--remount-ro", path});
        else if (exists(path))
            append(a, {"--ro-bind", "/dev/null", path});
    }
    // A READ_ALLOW_TREE naming exactly a file exempts it from the suffix
    // denies (rule-semantics.md R3); a READ_DENY of it is covered above
    // already (R1 wins).
    std::vector<Mask> masks;
    for (auto& match : found.seen) {
        if (named_by(read_trees, match.path) || named_by(read_denies, match.path)) continue;
        struct stat seen {};
        seen.st_dev = static_cast<dev_t>(match.device);
        seen.st_ino = static_cast<ino_t>(match.inode);
        masks.push_back(mask_of(match.path, &seen, 'f'));
        append(a, {"--ro-bind", "/dev/null", match.path});
    }
    // A keypair's name made a folder: whatever was copied into it stays hidden.
    for (auto& path : found.folders) {
        masks.push_back(mask_of(path, nullptr, 'd'));
        append(a, {"--tmpfs", path, "--remount-ro", path});
    }
    append(a, {"--chdir", std::string(context.worktree()), "--seccomp", std::to_string(seccomp_fd), "--"});
    if (!masks.empty()) check_then_run(a, masks);
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
