#include "keypair_targets.hpp"

#include "path_utils.hpp"

#include <oms/sdk.hpp>

#include <errno.h>
#include <sys/stat.h>

namespace oms::landlock {

namespace {

// One line: every path, then what to do about each kind.
[[noreturn]] void refuse(const std::vector<std::string>& problems, const std::string& linked_file, bool folder_link) {
    std::string list;
    for (const auto& problem : problems) list += (list.empty() ? "" : ", ") + problem;
    std::string advice;
    if (!linked_file.empty())
        advice = "remove the file's other names (find / -xdev -samefile " + linked_file + " lists them)";
    if (folder_link) advice += std::string(advice.empty() ? "" : " and ") + "remove the link";
    throw oms::sdk::Error(OMS_ERR_FAILED, "landlock: keypair names that a mask cannot hide alone: " + list +
                                              "; the command did not run. To run, " + advice);
}

}  // namespace

std::vector<KeypairTarget> keypair_targets(const std::vector<std::string>& matches) {
    std::vector<KeypairTarget> targets;
    std::vector<std::string> problems;
    std::string linked_file;
    bool folder_link = false;
    for (const auto& match : matches) {
        struct stat st, link;
        if (stat(match.c_str(), &st) != 0) {
            if (errno == ENOENT || errno == ENOTDIR) continue;  // gone since the walk
            targets.push_back(KeypairTarget{match, false, 0, 0});  // the child's open decides (fails closed)
            continue;
        }
        const bool is_link = lstat(match.c_str(), &link) == 0 && S_ISLNK(link.st_mode);
        if (S_ISDIR(st.st_mode) && is_link) {
            problems.push_back(match + " (a link to a folder)");
            folder_link = true;
            continue;
        }
        if (!S_ISDIR(st.st_mode) && st.st_nlink > 1) {
            problems.push_back(match + " (a file with " + std::to_string(st.st_nlink) + " names)");
            if (linked_file.empty()) linked_file = match;
            continue;
        }
        targets.push_back(KeypairTarget{canonical(match).value_or(match), S_ISDIR(st.st_mode), uint64_t(st.st_dev),
                                        uint64_t(st.st_ino)});
    }
    if (!problems.empty()) refuse(problems, linked_file, folder_link);
    return targets;
}

}  // namespace oms::landlock
