#include <oms/secret_search.hpp>

#include <oms/keypair_targets.hpp>
#include <oms/keypair_walk.hpp>
#include <oms/path.hpp>
#include <oms/path_resolver.hpp>
#include <oms/sdk.hpp>

#include "scan_match.hpp"
#include "walk_open.hpp"

#include <errno.h>
#include <sys/stat.h>

#include <algorithm>
#include <utility>

namespace oms::sdk {

namespace {

// Real paths, resolved once per search: every link and match is compared
// with them.
std::vector<std::string> real_paths(const std::vector<std::string>& paths) {
    std::vector<std::string> real;
    for (const std::string& path : paths)
        if (auto resolved = canonical_path(path)) real.push_back(std::move(*resolved));
    return real;
}

// The roots walked, and those hidden whole for their own name.
struct SplitRoots {
    std::vector<std::string> walked;
    std::vector<std::string> whole;
};

bool listed(const std::vector<std::string>& paths, const std::string& path) {
    return std::find(paths.begin(), paths.end(), path) != paths.end();
}

void sort_unique(std::vector<std::string>& paths) {
    std::sort(paths.begin(), paths.end());
    paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
}

// The walk (oms/keypair_walk.hpp) asked for what the search wants. A root
// whose own path matches is hidden whole, so it is not walked.
ScanRequest walk_of(const SecretSearch& search, const SplitRoots& roots) {
    ScanRequest walk{roots.walked, search.suffixes, search.skip, search.names, true, search.backend};
    walk.entry_limit = search.entry_limit;
    walk.fold_case = search.fold_case;
    walk.pass_over_closed_folders_of_others = search.skip_closed_folders_of_others;
    walk.stat_matches = true;
    return walk;
}

// The rule table's inputs (oms/keypair_targets.hpp) for a search: where
// the host outside the roots is readable, every target counts as readable
// (`hidden` says where links are not followed, not what no command of any
// policy reads: a root the policy opens inside it is read); else (a
// container) only the roots are. The roots are what is searched.
KeypairNaming naming_of(const SecretSearch& search) {
    const std::vector<std::string> roots = real_paths(search.roots);
    const bool everywhere = search.host_readable_outside;
    return KeypairNaming{search.suffixes,
                         [roots, everywhere](const std::string& real) {
                             return everywhere || path::is_inside_any(real, roots);
                         },
                         [roots](const std::string& real) { return path::is_inside_any(real, roots); },
                         search.backend, search.fold_case};
}

// The walk's matches sorted by what the walk saw them be, from its lstat in
// their folder's descriptor (ScanRequest::stat_matches): files (with the
// device and inode a mask is checked against), folders (hidden whole, and
// the folders too deep to walk), links (judged by where they lead now, as
// `cp` would follow them; one that leads nowhere yet hides nothing and is
// judged again at the next run). A file or folder in `skip` is masked whole
// already (a second mask stops a container runtime); a link there is judged
// all the same.
void sort_matches(const ScanFindings& walked, const SecretSearch& search, SecretFindings& out,
                  std::vector<std::pair<std::string, struct stat>>& linked) {
    const KeypairNaming naming = naming_of(search);
    for (const auto& [path, st] : walked.match_stats) {
        if (S_ISLNK(st.st_mode)) {
            struct stat target{};
            // Past PATH_MAX (a link deep in the tree, or its target's path)
            // there is no telling where a `cp` writes: judged as a link whose
            // target cannot be resolved. One that dangles hides nothing yet.
            const bool followed = stat(path.c_str(), &target) == 0;
            const bool too_long = !followed && errno == ENAMETOOLONG;
            if (!followed && !too_long) continue;
            // "" when the target cannot be resolved: the rule table refuses
            // it rather than take the link's own name.
            UnhideableKeypair verdict = judge_keypair_match(
                path, target, true, too_long ? "" : canonical_path(path).value_or(""), naming);
            if (!verdict.why.empty()) out.keypair_links.push_back(std::move(verdict));
        } else if (listed(search.skip, path)) {
            continue;
        } else if (S_ISDIR(st.st_mode)) {
            out.folders.push_back(path);
        } else if (S_ISREG(st.st_mode)) {
            out.files.push_back(path);
            out.seen.push_back({path, uint64_t(st.st_dev), uint64_t(st.st_ino)});
            if (!judge_keypair_match(path, st, false, path, naming).why.empty()) linked.push_back({path, st});
        }
    }
}

// Entries with a wanted name that are folders or files (not links).
void keep_named(const ScanFindings& walked, SecretFindings& out) {
    for (const std::string& path : walked.named) {
        struct stat st;
        if (lstat(path.c_str(), &st) == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
            out.named.push_back(path);
    }
}

// The matches with more than one name, each with the other names a second
// walk meets below the roots (it stats every plain file, so only then, and
// not after a walk cut short by its entry limit: the names are then left
// out, the refusal is not).
void name_linked(const std::vector<std::pair<std::string, struct stat>>& linked, ScanRequest walk, bool look,
                 SecretFindings& out) {
    if (linked.empty()) return;
    walk.names_of.clear();
    for (const auto& [path, st] : linked) walk.names_of.insert({uint64_t(st.st_dev), uint64_t(st.st_ino)});
    walk.links = false;
    walk.stat_matches = false;
    const ScanFindings names = look ? scan_tree(walk) : ScanFindings{};
    for (const auto& [path, st] : linked) {
        LinkedSecret secret{path, static_cast<unsigned long>(st.st_nlink), {}};
        const auto found = names.names_of.find({uint64_t(st.st_dev), uint64_t(st.st_ino)});
        if (found != names.names_of.end())
            for (const std::string& name : found->second)
                if (name != path) secret.other_names.push_back(name);
        sort_unique(secret.other_names);
        out.linked.push_back(std::move(secret));
    }
    std::sort(out.linked.begin(), out.linked.end(),
              [](const LinkedSecret& a, const LinkedSecret& b) { return a.path < b.path; });
}

SplitRoots split_roots(const SecretSearch& search, const ScanMatcher& match) {
    SplitRoots roots;
    for (const std::string& root : search.roots) {
        struct stat st;
        if (lstat(root.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && match.matches(root))
            roots.whole.push_back(root);
        else
            roots.walked.push_back(root);
    }
    return roots;
}

// One search of the roots as they are: walked (again while a folder or a
// match moved under the walk), the matches sorted.
SecretFindings search_once(const SecretSearch& search) {
    ScanRequest names{{}, search.suffixes, {}, {}, false, search.backend};
    names.fold_case = search.fold_case;
    const SplitRoots roots = split_roots(search, ScanMatcher(names));
    const ScanRequest walk = walk_of(search, roots);
    const ScanFindings walked = scan_tree(walk);
    SecretFindings out;
    out.complete = walked.complete;
    out.folders = roots.whole;
    std::vector<std::pair<std::string, struct stat>> linked;
    sort_matches(walked, search, out, linked);
    keep_named(walked, out);
    out.links.assign(walked.links.begin(), walked.links.end());
    name_linked(linked, walk, out.complete, out);
    return out;
}

// The folders outside the roots (and outside `hidden`) that links met below
// `follow_links_from` lead to.
std::vector<std::string> folders_links_lead_to(const std::vector<std::string>& links, const SecretSearch& request) {
    const std::vector<std::string> roots = real_paths(request.roots);
    const std::vector<std::string> hidden = real_paths(request.hidden);
    std::vector<std::string> folders;
    for (const std::string& link : links) {
        if (!path::is_inside_any(link, request.follow_links_from)) continue;
        const std::string real = canonical_path(link).value_or("");
        struct stat st;
        if (real.empty() || stat(real.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
        if (path::is_inside_any(real, roots) || path::is_inside_any(real, hidden) ||
            path::is_inside_any(real, folders))
            continue;
        folders.push_back(real);
    }
    return folders;
}

// How many times the folders links lead to are added as roots: a link in
// one of them leads further.
constexpr int kLinkRounds = 3;

}  // namespace

SecretFindings find_secrets(const SecretSearch& request) {
    if (request.suffixes.empty() && request.names.empty() && !request.collect_links) return SecretFindings{};
    SecretSearch walking = request;
    // A folder a planted link leads out to is where a `cp` through the link
    // lands: searched as a root, and its own links followed in turn.
    const bool following = !request.follow_links_from.empty();
    SecretFindings result;
    for (int round = 0;; ++round) {
        result = search_once(walking);
        if (!following || !result.complete) break;
        const auto more = folders_links_lead_to(result.links, walking);
        if (more.empty()) break;
        if (round == kLinkRounds) {
            result.complete = false;  // links lead further than the search goes
            break;
        }
        walking.roots.insert(walking.roots.end(), more.begin(), more.end());
        walking.follow_links_from.insert(walking.follow_links_from.end(), more.begin(), more.end());
    }
    if (!request.collect_links) result.links.clear();
    sort_unique(result.files);
    sort_unique(result.folders);
    sort_unique(result.named);
    std::sort(result.keypair_links.begin(), result.keypair_links.end(),
              [](const UnhideableKeypair& a, const UnhideableKeypair& b) { return a.path < b.path; });
    sort_unique(result.links);
    return result;
}

// A key copied into such a file or onto such a link is read under a name
// no mask covers: nothing runs while one exists.
void refuse_unhideable(const SecretFindings& found, const std::string& backend) {
    std::vector<UnhideableKeypair> problems;
    for (const LinkedSecret& file : found.linked)
        problems.push_back({file.path, "a file with " + std::to_string(file.names) + " names", file.other_names,
                            UnhideableKeypair::Kind::several_names});
    problems.insert(problems.end(), found.keypair_links.begin(), found.keypair_links.end());
    if (!problems.empty()) refuse_unhideable_keypairs(problems, backend);
}

}  // namespace oms::sdk
