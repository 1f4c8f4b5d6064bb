#include <oms/keypair_targets.hpp>

#include <oms/path_resolver.hpp>
#include <oms/sdk.hpp>

#include "scan_match.hpp"
#include "walk_open.hpp"

#include <errno.h>
#include <sys/stat.h>

#include <algorithm>

namespace oms::sdk {

namespace {

bool named_like_a_keypair(const std::string& path, const KeypairNaming& naming) {
    return std::any_of(naming.suffixes.begin(), naming.suffixes.end(), [&](const std::string& suffix) {
        return naming.fold_case ? ends_with_folded(path, suffix) : ends_with(path, suffix);
    });
}

void add_advice(std::string& advice, const std::string& step) { advice += (advice.empty() ? "" : " and ") + step; }

std::string listed(const UnhideableKeypair& problem) {
    std::string line = problem.path + " (" + problem.why;
    for (const std::string& other : problem.other_names) line += ", also " + other;
    return line + ")";
}

bool gone(const std::string& path) {
    struct stat st;
    return lstat(path.c_str(), &st) != 0 && (errno == ENOENT || errno == ENOTDIR);
}

}  // namespace

UnhideableKeypair judge_keypair_match(const std::string& match, const struct stat& st, bool is_link,
                                      const std::string& target, const KeypairNaming& naming) {
    using Kind = UnhideableKeypair::Kind;
    // Where it leads cannot be told (a path past PATH_MAX): never taken for
    // the link's own, hidden, name.
    if (is_link && target.empty()) return {match, "a link whose target cannot be resolved", {}, Kind::file_link};
    // Wherever the folder is: a later run whose policy opens it reads what
    // a `cp` put there.
    if (is_link && S_ISDIR(st.st_mode)) return {match, "a link to the folder " + target, {}, Kind::folder_link};
    if (!S_ISDIR(st.st_mode) && st.st_nlink > 1)
        return {match, "a file with " + std::to_string(st.st_nlink) + " names", {}, Kind::several_names};
    if (!is_link || !naming.readable(target)) return {match, ""};
    const bool target_named = named_like_a_keypair(target, naming);
    if (target_named && naming.searched(target)) return {match, ""};  // hidden by its own name wherever it is read
    return {match,
            "a link to " + target +
                (target_named ? ", outside the folders searched for keypairs" : ", a name no keypair rule hides"),
            {},
            Kind::file_link};
}

void refuse_unhideable_keypairs(const std::vector<UnhideableKeypair>& problems, const std::string& backend) {
    std::string list;
    std::string advice;
    const auto first_of = [&](UnhideableKeypair::Kind kind) {
        return std::find_if(problems.begin(), problems.end(), [&](const auto& p) { return p.kind == kind; });
    };
    for (const auto& problem : problems) list += (list.empty() ? "" : ", ") + listed(problem);
    if (auto linked = first_of(UnhideableKeypair::Kind::several_names); linked != problems.end())
        add_advice(advice, "remove the file's other names (find / -xdev -samefile " + linked->path +
                               " lists them), or give it a name of its own (cp it to a new file, then mv that over it)");
    const size_t links = size_t(std::count_if(problems.begin(), problems.end(), [](const auto& p) {
        return p.kind != UnhideableKeypair::Kind::several_names;
    }));
    if (links > 0)
        add_advice(advice, std::string(links == 1 ? "remove the link" : "remove the links") +
                               (first_of(UnhideableKeypair::Kind::file_link) != problems.end()
                                    ? ", then put the key itself at the keypair's name (what was written through a "
                                      "link lies in its target)"
                                    : ""));
    throw Error(OMS_ERR_FAILED, speaker(backend) + ": keypair names that a mask cannot hide alone: " + list +
                                    "; the command did not run. To run, " + advice);
}

void moved_since_search(const std::string& backend, const std::string& match) {
    throw Error(OMS_ERR_FAILED, speaker(backend) + ": the keypair file " + match +
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
    std::vector<UnhideableKeypair> problems;
    for (const auto& match : matches) {
        struct stat st, link;
        if (stat(match.c_str(), &st) != 0) {
            // Gone since the walk found it: moved, perhaps, to a name the
            // walk had passed already (a concurrent command renaming its
            // folder back and forth). Nothing would be hidden: fail closed.
            if (errno == ENOENT || errno == ENOTDIR) moved_since_search(naming.backend, match);
            targets.push_back(KeypairTarget{match, false, 0, 0});  // the backend's open decides (fails closed)
            continue;
        }
        const bool is_link = lstat(match.c_str(), &link) == 0 && S_ISLNK(link.st_mode);
        // A link's target that cannot be resolved is refused (""); a file's
        // own path stands for itself.
        const std::string target = canonical_path(match).value_or(is_link ? "" : match);
        UnhideableKeypair verdict = judge_keypair_match(match, st, is_link, target, naming);
        if (!verdict.why.empty())
            problems.push_back(std::move(verdict));
        else
            targets.push_back(KeypairTarget{target, S_ISDIR(st.st_mode), uint64_t(st.st_dev), uint64_t(st.st_ino)});
    }
    if (!problems.empty()) refuse_unhideable_keypairs(problems, naming.backend);
    return targets;
}

}  // namespace oms::sdk
