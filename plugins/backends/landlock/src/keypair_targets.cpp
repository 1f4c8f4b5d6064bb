#include "keypair_targets.hpp"

#include "path_utils.hpp"

#include <oms/sdk.hpp>

#include <errno.h>
#include <sys/stat.h>

namespace oms::landlock {

namespace {

[[noreturn]] void refuse(const std::vector<std::string>& problems, const std::string& example) {
    std::string list;
    for (const auto& problem : problems) list += (list.empty() ? "" : ", ") + problem;
    throw oms::sdk::Error(OMS_ERR_FAILED,
                          "landlock: keypair names that a mask cannot hide alone: " + list +
                              "; the command did not run. Remove the other names of the file (find / -xdev "
                              "-samefile " + example + " lists them) or the link, then run again");
}

}  // namespace

std::vector<KeypairTarget> keypair_targets(const std::vector<std::string>& matches) {
    std::vector<KeypairTarget> targets;
    std::vector<std::string> problems;
    std::string example;
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
            continue;
        }
        if (!S_ISDIR(st.st_mode) && st.st_nlink > 1) {
            problems.push_back(match + " (a file with " + std::to_string(st.st_nlink) + " names)");
            if (example.empty()) example = match;
            continue;
        }
        targets.push_back(KeypairTarget{canonical(match).value_or(match), S_ISDIR(st.st_mode), uint64_t(st.st_dev),
                                        uint64_t(st.st_ino)});
    }
    if (!problems.empty()) refuse(problems, example.empty() ? "FILE" : example);
    return targets;
}

}  // namespace oms::landlock
