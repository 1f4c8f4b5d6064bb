// The lines a backend prints at run start for the files the keypair suffix
// rules hide that are not Solana keypairs (keypair_shape.hpp): what was
// hidden, which rule hid it, and what lets commands read it. One line a file,
// at most kMaxKeypairNotices of them in a run, then one line counting the
// rest (a node_modules full of locales/id.json must not flood every run); a
// real keypair, or a file that could not be judged, gets none. Given oms's
// state folder, a file is named once, not at every run (told_once.hpp): the
// record is the file's path, device and inode, so a new file at the same
// path is named again. Every backend that hides by suffix says it the same
// way. Header-only.
#pragma once
#include "keypair_shape.hpp"
#include "told_once.hpp"

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace oms::sdk {

constexpr size_t kMaxKeypairNotices = 8;

// A file the search matched under its own name, with the device and inode
// it saw: only that very file is opened to be judged (never a link's target,
// nor what a command put at the name since).
struct SeenKeypairMatch {
    std::string path;
    uint64_t device = 0;
    uint64_t inode = 0;
    bool operator<(const SeenKeypairMatch& other) const { return path < other.path; }
};

// The rule as a user reads it: "*-keypair.json", "*/id.json".
inline std::string keypair_rule_matching(const std::string& path, const std::vector<std::string>& suffixes) {
    for (const auto& suffix : suffixes)
        if (!suffix.empty() && path.size() >= suffix.size() &&
            path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0)
            return "*" + suffix;
    return "a keypair suffix rule";
}

inline std::string keypair_notice_key(const SeenKeypairMatch& file) {
    return file.path + '\n' + std::to_string(file.device) + ':' + std::to_string(file.inode);
}

// `how_to_read` ends each line: what lets commands read such a file under
// this backend ("to let commands read it, add it to ..."). With a
// `state_dir`, the files named in an earlier run are left out, and each line
// given is recorded there; with none, every run names them all.
inline std::vector<std::string> keypair_notice_lines(const std::vector<SeenKeypairMatch>& matches,
                                                     const std::vector<std::string>& suffixes,
                                                     const std::string& how_to_read,
                                                     const std::string& state_dir = "") {
    constexpr const char* topic = "keypair-look-alike";
    std::vector<std::string> lines;
    const std::set<SeenKeypairMatch> files(matches.begin(), matches.end());  // sorted, one line a path
    size_t more = 0;
    for (const auto& file : files) {
        if (keypair_shape(file.path, file.device, file.inode) != KeypairShape::not_keypair) continue;
        const std::string key = keypair_notice_key(file);
        if (lines.size() == kMaxKeypairNotices) {  // counted, not recorded: named in a later run
            if (state_dir.empty() || !already_told(state_dir, topic, key)) ++more;
        } else if (state_dir.empty() || first_time_told(state_dir, topic, key)) {
            lines.push_back("hid " + file.path + " (matches " + keypair_rule_matching(file.path, suffixes) +
                            " but is not a Solana keypair); " + how_to_read);
        }
    }
    if (more)
        lines.push_back("hid " + std::to_string(more) + " more files that match the keypair rules but are not Solana "
                        "keypairs (oms policy -- CMD lists every hidden file)");
    return lines;
}

}  // namespace oms::sdk
