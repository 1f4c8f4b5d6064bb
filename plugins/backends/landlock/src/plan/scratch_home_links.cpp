#include "scratch_home_links.hpp"

#include <oms/scoped_fd.hpp>
#include "path_utils.hpp"

#include <oms/path.hpp>

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <memory>

namespace oms::landlock {

namespace {

std::vector<std::string> components_of(const std::string& relative) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (start <= relative.size()) {
        const size_t end = relative.find('/', start);
        const std::string part = relative.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (!part.empty()) parts.push_back(part);
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return parts;
}

enum class Linked { made, left_alone, failed };

// Makes `parts` below the open folder `folder`: folders on the way, the
// link last. Never follows a link: a way through one is left alone.
Linked link_below(int folder, const std::vector<std::string>& parts, const std::string& tree) {
    std::vector<std::unique_ptr<sdk::ScopedFd>> opened;
    int current = folder;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
        if (mkdirat(current, parts[i].c_str(), 0700) != 0 && errno != EEXIST) return Linked::failed;
        const int next = openat(current, parts[i].c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0) return errno == ELOOP || errno == ENOTDIR ? Linked::left_alone : Linked::failed;
        opened.push_back(std::make_unique<sdk::ScopedFd>(next));
        current = next;
    }
    if (symlinkat(tree.c_str(), current, parts.back().c_str()) == 0) return Linked::made;
    return errno == EEXIST ? Linked::left_alone : Linked::failed;
}

}  // namespace

std::vector<std::string> link_scratch_trees_into_private_home(const std::string& real_home,
                                                              const std::string& private_home,
                                                              const std::vector<std::string>& scratch_trees) {
    std::vector<std::string> problems;
    const std::string home = canonical(real_home).value_or("");
    if (home.empty() || home == "/" || private_home.empty()) return problems;
    sdk::ScopedFd root(open(private_home.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (root.get() < 0) return {"cannot open the private HOME " + private_home + ": " + std::strerror(errno)};
    for (const std::string& tree : scratch_trees) {
        if (!sdk::path::is_strictly_below(tree, home)) continue;
        const auto parts = components_of(tree.substr(home.size()));
        if (parts.empty()) continue;
        if (link_below(root.get(), parts, tree) == Linked::failed)
            problems.push_back("cannot link " + tree + " into the private HOME (" + std::strerror(errno) +
                               "); tools that look for it there will not find it");
    }
    return problems;
}

}  // namespace oms::landlock
