#include "keypair_targets.hpp"

#include "path_utils.hpp"
#include "scan_match.hpp"

#include <oms/sdk.hpp>

#include <errno.h>
#include <sys/stat.h>

#include <algorithm>

namespace oms::landlock {

namespace {

// One line: every path, then what to do about each kind.
struct Problems {
    std::vector<std::string> lines;
    std::string linked_file;  // a file with several names, for the advice
    bool folder_link = false;
    bool file_link = false;
};

bool named_like_a_keypair(const std::string& path, const KeypairNaming& naming) {
    return std::any_of(naming.suffixes.begin(), naming.suffixes.end(),
                       [&](const std::string& suffix) { return ends_with(path, suffix); });
}

void add_advice(std::string& advice, const std::string& step) { advice += (advice.empty() ? "" : " and ") + step; }

[[noreturn]] void refuse(const Problems& problems) {
    std::string list;
    for (const auto& problem : problems.lines) list += (list.empty() ? "" : ", ") + problem;
    std::string advice;
    if (!problems.linked_file.empty())
        add_advice(advice, "remove the file's other names (find / -xdev -samefile " + problems.linked_file +
                               " lists them)");
    if (problems.folder_link) add_advice(advice, "remove the link");
    if (problems.file_link)
        add_advice(advice, "put the key itself at the keypair's name (what was written through a link lies in "
                           "its target) and remove the link");
    throw oms::sdk::Error(OMS_ERR_FAILED, "landlock: keypair names that a mask cannot hide alone: " + list +
                                              "; the command did not run. To run, " + advice);
}

bool gone(const std::string& path) {
    struct stat st;
    return lstat(path.c_str(), &st) != 0 && (errno == ENOENT || errno == ENOTDIR);
}

}  // namespace

void moved_since_search(const std::string& match) {
    throw oms::sdk::Error(OMS_ERR_FAILED, "landlock: the keypair file " + match +
                                              " was moved or removed while the run started, after the search found "
                                              "it; the command did not run. Something is moving files or folders "
                                              "there: run again once it has stopped");
}

std::string first_match_gone(const std::vector<std::string>& matches) {
    for (const auto& match : matches)
        if (gone(match)) return match;
    return "";
}

std::vector<KeypairTarget> keypair_targets(const std::vector<std::string>& matches, const KeypairNaming& naming) {
    std::vector<KeypairTarget> targets;
    Problems problems;
    for (const auto& match : matches) {
        struct stat st, link;
        if (stat(match.c_str(), &st) != 0) {
            // Gone since the walk found it: moved, perhaps, to a name the
            // walk had passed already (a concurrent command renaming its
            // folder back and forth). Nothing would be hidden: fail closed.
            if (errno == ENOENT || errno == ENOTDIR) moved_since_search(match);
            targets.push_back(KeypairTarget{match, false, 0, 0});  // the child's open decides (fails closed)
            continue;
        }
        const bool is_link = lstat(match.c_str(), &link) == 0 && S_ISLNK(link.st_mode);
        if (S_ISDIR(st.st_mode) && is_link) {
            problems.lines.push_back(match + " (a link to a folder)");
            problems.folder_link = true;
            continue;
        }
        if (!S_ISDIR(st.st_mode) && st.st_nlink > 1) {
            problems.lines.push_back(match + " (a file with " + std::to_string(st.st_nlink) + " names)");
            if (problems.linked_file.empty()) problems.linked_file = match;
            continue;
        }
        const std::string target = canonical(match).value_or(match);
        const bool target_named = is_link && named_like_a_keypair(target, naming);
        if (is_link && naming.readable(target) && !(target_named && naming.searched(target))) {
            problems.lines.push_back(match + " (a link to " + target +
                                     (target_named ? ", outside the folders searched for keypairs)"
                                                   : ", a name no keypair rule hides)"));
            problems.file_link = true;
            continue;
        }
        targets.push_back(KeypairTarget{target, S_ISDIR(st.st_mode), uint64_t(st.st_dev), uint64_t(st.st_ino)});
    }
    if (!problems.lines.empty()) refuse(problems);
    return targets;
}

}  // namespace oms::landlock
